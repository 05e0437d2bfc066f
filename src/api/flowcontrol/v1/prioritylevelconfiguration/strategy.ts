/**
 * flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration (cluster-scoped) with its
 * status subresource: defaults as upstream v1 (limited: nominalConcurrencyShares 30,
 * lendablePercent 0, queuing 64 queues / hand size 8 / queue length 50; exempt: 0 and 0),
 * validation as ValidatePriorityLevelConfiguration (type, the matching section, share and
 * percent ranges, queuing parameters), generation 1 on create and +1 on spec changes,
 * printer NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE QUEUELENGTHLIMIT AGE.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/flowcontrol/prioritylevelconfiguration/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/flowcontrol/validation/validation.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/flowcontrol/v1/defaults.go
 */
import type { LimitedPriorityLevelConfiguration, PriorityLevelConfiguration, PriorityLevelConfigurationSpec } from 'kubernetes-types/flowcontrol/v1.js';
import { type FieldError, forbidden, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { jsonEqual } from '../../../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import { clone, type K, mutableMeta } from '../../../core/v1/shared/types.js';
import type { Mutable, ResourceDefinition } from '../../../resource.js';

const SPEC = Path.root('spec');
const TYPES = ['Exempt', 'Limited'];
const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject'];

function validateLimited(l: LimitedPriorityLevelConfiguration, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const ncs = l.nominalConcurrencyShares ?? 0;
  if (ncs < 0) errs.push(invalid(p.child('nominalConcurrencyShares'), ncs, 'must be a non-negative integer'));
  const lp = l.lendablePercent;
  if (lp !== undefined && lp !== null && (lp < 0 || lp > 100)) errs.push(invalid(p.child('lendablePercent'), lp, 'must be between 0 and 100, inclusive'));
  const br = l.borrowingLimitPercent;
  if (br !== undefined && br !== null && br < 0) errs.push(invalid(p.child('borrowingLimitPercent'), br, 'if specified, must be a non-negative integer'));
  const lr = l.limitResponse ?? ({} as LimitedPriorityLevelConfiguration['limitResponse'] & object);
  const lrp = p.child('limitResponse');
  if (!LIMIT_RESPONSE_TYPES.includes(lr.type)) errs.push(notSupported(lrp.child('type'), lr.type, LIMIT_RESPONSE_TYPES));
  if (lr.type === 'Queue') {
    const q = lr.queuing;
    if (!q) errs.push(required(lrp.child('queuing'), 'must not be empty if type is Queue'));
    else {
      const qp = lrp.child('queuing');
      const queues = q.queues ?? 0;
      const hand = q.handSize ?? 0;
      const qll = q.queueLengthLimit ?? 0;
      if (qll <= 0) errs.push(invalid(qp.child('queueLengthLimit'), qll, 'must be positive'));
      if (queues <= 0) errs.push(invalid(qp.child('queues'), queues, 'must be positive'));
      if (hand <= 0) errs.push(invalid(qp.child('handSize'), hand, 'must be positive'));
      else if (queues > 0 && hand > queues) errs.push(invalid(qp.child('handSize'), hand, `should not be greater than queues (${queues})`));
    }
  } else if (lr.type === 'Reject' && lr.queuing) {
    errs.push(forbidden(lrp.child('queuing'), 'must be nil if limited.limitResponse.type is not Limited'));
  }
  return errs;
}

/** Upstream ValidatePriorityLevelConfigurationSpec. */
export function validatePriorityLevelSpec(name: string, spec: PriorityLevelConfigurationSpec | undefined): FieldError[] {
  const s = spec ?? ({} as PriorityLevelConfigurationSpec);
  const errs: FieldError[] = [];
  if ((name === 'exempt') !== (s.type === 'Exempt')) {
    errs.push(invalid(SPEC.child('type'), s.type, "type must be 'Exempt' if and only if name is 'exempt'"));
  }
  switch (s.type) {
    case 'Exempt':
      if (s.limited) errs.push(forbidden(SPEC.child('limited'), 'must be nil if the type is not Limited'));
      if (s.exempt) {
        const e = s.exempt;
        if ((e.nominalConcurrencyShares ?? 0) < 0)
          errs.push(invalid(SPEC.child('exempt', 'nominalConcurrencyShares'), e.nominalConcurrencyShares, 'must be a non-negative integer'));
        const lp = e.lendablePercent;
        if (lp !== undefined && lp !== null && (lp < 0 || lp > 100)) errs.push(invalid(SPEC.child('exempt', 'lendablePercent'), lp, 'must be between 0 and 100, inclusive'));
      }
      break;
    case 'Limited':
      if (s.exempt) errs.push(forbidden(SPEC.child('exempt'), 'must be nil if the type is Limited'));
      if (!s.limited) errs.push(required(SPEC.child('limited'), 'must not be empty when type is Limited'));
      else errs.push(...validateLimited(s.limited, SPEC.child('limited')));
      break;
    default:
      errs.push(notSupported(SPEC.child('type'), s.type, TYPES));
  }
  return errs;
}

/** flowcontrol.apiserver.k8s.io/v1 prioritylevelconfigurations (and …/status). */
export const priorityLevelConfigurationDefinition: ResourceDefinition<K<PriorityLevelConfiguration>> = {
  group: 'flowcontrol.apiserver.k8s.io',
  version: 'v1',
  kind: 'PriorityLevelConfiguration',
  listKind: 'PriorityLevelConfigurationList',
  resource: 'prioritylevelconfigurations',
  singular: 'prioritylevelconfiguration',
  namespaced: false,
  schemaRef: 'flowcontrol/v1#PriorityLevelConfiguration',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    const spec = obj.spec;
    if (!spec) return;
    const l = spec.limited;
    if (l) {
      l.nominalConcurrencyShares ??= 30;
      l.lendablePercent ??= 0;
      const q = l.limitResponse?.queuing;
      if (q) {
        if (!q.handSize) q.handSize = 8;
        if (!q.queues) q.queues = 64;
        if (!q.queueLengthLimit) q.queueLengthLimit = 50;
      }
    }
    const e = spec.exempt;
    if (e) {
      e.nominalConcurrencyShares ??= 0;
      e.lendablePercent ??= 0;
    }
  },
  prepareForCreate(obj) {
    delete (obj as Mutable<typeof obj>).status;
    mutableMeta(obj).generation = 1;
  },
  prepareForUpdate(obj, old) {
    const o = obj as Mutable<typeof obj>;
    if (old.status === undefined) delete o.status;
    else o.status = clone(old.status);
    const gen = old.metadata.generation ?? 1;
    mutableMeta(obj).generation = jsonEqual(obj.spec ?? null, old.spec ?? null) ? gen : gen + 1;
  },
  validate(obj) {
    return validatePriorityLevelSpec(obj.metadata.name ?? '', obj.spec);
  },
  validateUpdate(obj) {
    return validatePriorityLevelSpec(obj.metadata.name ?? '', obj.spec);
  },
  status: {
    prepareForUpdate(obj, old) {
      obj.spec = clone(old.spec);
    },
  },
  table: {
    columns: [
      NAME_COLUMN,
      column(
        'Type',
        'string',
        '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.',
      ),
      column('NominalConcurrencyShares', 'string', '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.'),
      column(
        'Queues',
        'string',
        '`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.',
      ),
      column('HandSize', 'string', '`handSize` is a small positive number that configures the shuffle sharding of requests into queues.'),
      column(
        'QueueLengthLimit',
        'string',
        '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.',
      ),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      const l = obj.spec?.limited;
      const q = l?.limitResponse?.queuing;
      return [
        obj.metadata.name ?? '',
        obj.spec?.type ?? '',
        l ? (l.nominalConcurrencyShares ?? 0) : '<none>',
        q ? (q.queues ?? 0) : '<none>',
        q ? (q.handSize ?? 0) : '<none>',
        q ? (q.queueLengthLimit ?? 0) : '<none>',
        translateTimestampSince(obj.metadata.creationTimestamp, now),
      ];
    },
  },
};

/**
 * flowcontrol.apiserver.k8s.io/v1 FlowSchema (cluster-scoped) with its status
 * subresource: matchingPrecedence defaults to 1000; validation as upstream
 * ValidateFlowSchema (precedence in [1, 10000], a priority level named, distinguisher
 * ByUser/ByNamespace, rules with subjects and at least one resource or non-resource rule);
 * generation 1 on create and +1 on spec changes; printer NAME PRIORITYLEVEL
 * MATCHINGPRECEDENCE DISTINGUISHERMETHOD AGE MISSINGPL, lists in matching order.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/flowcontrol/flowschema/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/flowcontrol/validation/validation.go
 */
import type { FlowSchema, FlowSchemaSpec, PolicyRulesWithSubjects, Subject } from 'kubernetes-types/flowcontrol/v1.js';
import { type FieldError, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { jsonEqual } from '../../../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import { clone, type K, mutableMeta, type O } from '../../../core/v1/shared/types.js';
import type { Mutable, ResourceDefinition } from '../../../resource.js';

const SPEC = Path.root('spec');
const DISTINGUISHERS = ['ByNamespace', 'ByUser'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];

function validateSubject(s: Subject, p: Path): FieldError[] {
  switch (s.kind) {
    case 'ServiceAccount':
      if (!s.serviceAccount) return [required(p.child('serviceAccount'), "serviceAccount is required when subject kind is 'ServiceAccount'")];
      return [
        ...(!s.serviceAccount.name ? [required(p.child('serviceAccount', 'name'), 'name is required for service account subject')] : []),
        ...(!s.serviceAccount.namespace ? [required(p.child('serviceAccount', 'namespace'), 'namespace is required for service account subject')] : []),
      ];
    case 'User':
      if (!s.user) return [required(p.child('user'), "user is required when subject kind is 'User'")];
      return !s.user.name ? [required(p.child('user', 'name'), 'username is required')] : [];
    case 'Group':
      if (!s.group) return [required(p.child('group'), "group is required when subject kind is 'Group'")];
      return !s.group.name ? [required(p.child('group', 'name'), 'groupname is required')] : [];
    default:
      return [notSupported(p.child('kind'), s.kind, SUBJECT_KINDS)];
  }
}

function validateRules(r: PolicyRulesWithSubjects, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = r.subjects ?? [];
  if (subjects.length === 0) errs.push(required(p.child('subjects'), 'subjects must contain at least one value'));
  subjects.forEach((s, i) => errs.push(...validateSubject(s, p.child('subjects').index(i))));
  const rr = r.resourceRules ?? [];
  const nr = r.nonResourceRules ?? [];
  if (rr.length === 0 && nr.length === 0) errs.push(required(p, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  rr.forEach((x, i) => {
    const rp = p.child('resourceRules').index(i);
    if ((x.verbs ?? []).length === 0) errs.push(required(rp.child('verbs'), 'verbs must contain at least one value'));
    if ((x.apiGroups ?? []).length === 0) errs.push(required(rp.child('apiGroups'), 'resource rules must supply at least one api group'));
    if ((x.resources ?? []).length === 0) errs.push(required(rp.child('resources'), 'resource rules must supply at least one resource'));
    if ((x.namespaces ?? []).length === 0 && !x.clusterScope)
      errs.push(required(rp.child('namespaces'), 'resource rules that are not cluster scoped must supply at least one namespace'));
  });
  nr.forEach((x, i) => {
    const np = p.child('nonResourceRules').index(i);
    if ((x.verbs ?? []).length === 0) errs.push(required(np.child('verbs'), 'verbs must contain at least one value'));
    if ((x.nonResourceURLs ?? []).length === 0) errs.push(required(np.child('nonResourceURLs'), 'nonResourceURLs must contain at least one value'));
  });
  return errs;
}

/** Upstream ValidateFlowSchemaSpec. */
export function validateFlowSchemaSpec(spec: FlowSchemaSpec | undefined): FieldError[] {
  const s = spec ?? ({} as FlowSchemaSpec);
  const errs: FieldError[] = [];
  const mp = s.matchingPrecedence ?? 0;
  if (mp <= 0) errs.push(invalid(SPEC.child('matchingPrecedence'), mp, 'must be a positive value'));
  if (mp > 10000) errs.push(invalid(SPEC.child('matchingPrecedence'), mp, 'must not be greater than 10000'));
  const dm = s.distinguisherMethod;
  if (dm && !DISTINGUISHERS.includes(dm.type)) errs.push(notSupported(SPEC.child('distinguisherMethod', 'type'), dm.type, DISTINGUISHERS));
  if (!s.priorityLevelConfiguration?.name) errs.push(required(SPEC.child('priorityLevelConfiguration', 'name'), 'must reference a priority level'));
  (s.rules ?? []).forEach((r, i) => errs.push(...validateRules(r, SPEC.child('rules').index(i))));
  return errs;
}

/** Upstream FlowSchemaSequence: matching precedence, then name. */
export function compareFlowSchemas(a: FlowSchema, b: FlowSchema): number {
  const d = (a.spec?.matchingPrecedence ?? 0) - (b.spec?.matchingPrecedence ?? 0);
  if (d !== 0) return d;
  const an = a.metadata?.name ?? '';
  const bn = b.metadata?.name ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/** flowcontrol.apiserver.k8s.io/v1 flowschemas (and flowschemas/status). */
export const flowSchemaDefinition: ResourceDefinition<K<FlowSchema>> = {
  group: 'flowcontrol.apiserver.k8s.io',
  version: 'v1',
  kind: 'FlowSchema',
  listKind: 'FlowSchemaList',
  resource: 'flowschemas',
  singular: 'flowschema',
  namespaced: false,
  schemaRef: 'flowcontrol/v1#FlowSchema',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    const spec = (obj.spec ??= {} as FlowSchemaSpec);
    if (!spec.matchingPrecedence) spec.matchingPrecedence = 1000;
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
    return validateFlowSchemaSpec(obj.spec);
  },
  validateUpdate(obj) {
    return validateFlowSchemaSpec(obj.spec);
  },
  status: {
    prepareForUpdate(obj, old) {
      obj.spec = clone(old.spec);
    },
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('PriorityLevel', 'string', '`name` is the name of the priority level configuration being referenced Required.'),
      column(
        'MatchingPrecedence',
        'string',
        '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.',
      ),
      column(
        'DistinguisherMethod',
        'string',
        '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.',
      ),
      AGE_COLUMN,
      column('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
    ],
    cells(obj: O<FlowSchema>, now) {
      const dangling = (obj.status?.conditions ?? []).find((c) => c.type === 'Dangling');
      return [
        obj.metadata.name ?? '',
        obj.spec?.priorityLevelConfiguration?.name ?? '',
        obj.spec?.matchingPrecedence ?? 0,
        obj.spec?.distinguisherMethod?.type ?? '<none>',
        translateTimestampSince(obj.metadata.creationTimestamp, now),
        dangling?.status ?? '?',
      ];
    },
    listOrder: compareFlowSchemas,
  },
};

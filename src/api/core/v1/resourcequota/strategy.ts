/**
 * core/v1 ResourceQuota: hard limits per namespace, `status` (hard, used) written by the
 * quota controller and the ResourceQuota admission plugin; printer NAME AGE REQUEST LIMIT.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/resourcequota/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go (ValidateResourceQuota)
 */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import { type FieldError, invalid, notSupported, Path } from '../../../../apimachinery/field-errors.js';
import { tryParseQuantity } from '../../../../apimachinery/quantity.js';
import { isQualifiedName } from '../../../../apimachinery/validation.js';
import type { ResourceDefinition } from '../../../resource.js';
import { canonicalizeQuantityMap } from '../shared/decode.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../shared/printing.js';
import type { K, O } from '../shared/types.js';
import { validateResourceQuantityValue } from '../shared/validation.js';

const SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];

function validateResourceList(m: Record<string, string> | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(m ?? {})) {
    const kp = p.key(k);
    for (const msg of isQualifiedName(k)) errs.push(invalid(kp, k, msg));
    const q = tryParseQuantity(String(v));
    if (!q) errs.push(invalid(kp, v, 'must be a valid quantity'));
    else errs.push(...validateResourceQuantityValue(k.replace(/^(requests|limits)\./, ''), q, kp));
  }
  return errs;
}

function validateQuota(q: O<ResourceQuota>): FieldError[] {
  const errs = validateResourceList(q.spec?.hard as Record<string, string> | undefined, Path.root('spec').child('hard'));
  (q.spec?.scopes ?? []).forEach((s, i) => {
    if (!SCOPES.includes(s)) errs.push(notSupported(Path.root('spec').child('scopes').index(i), s, SCOPES));
  });
  errs.push(...validateResourceList(q.status?.hard as Record<string, string> | undefined, Path.root('status').child('hard')));
  errs.push(...validateResourceList(q.status?.used as Record<string, string> | undefined, Path.root('status').child('used')));
  return errs;
}

function columnText(q: O<ResourceQuota>, limits: boolean): string {
  const hard = (q.status?.hard ?? {}) as Record<string, string>;
  const used = (q.status?.used ?? {}) as Record<string, string>;
  const parts: string[] = [];
  for (const k of Object.keys(hard).sort()) {
    if (k.startsWith('limits.') !== limits) continue;
    parts.push(`${k}: ${used[k] ?? '0'}/${hard[k]}`);
  }
  return parts.join(', ');
}

export const resourceQuotaDefinition: ResourceDefinition<K<ResourceQuota>> = {
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  listKind: 'ResourceQuotaList',
  resource: 'resourcequotas',
  singular: 'resourcequota',
  namespaced: true,
  shortNames: ['quota'],
  schemaRef: 'core/v1#ResourceQuota',
  allowUnconditionalUpdate: true,
  prepareForCreate(obj) {
    obj.status = {};
  },
  prepareForUpdate(obj, old) {
    obj.status = old.status;
  },
  validate: validateQuota,
  validateUpdate: (o) => validateQuota(o),
  canonicalize(obj) {
    canonicalizeQuantityMap(obj.spec?.hard as Record<string, unknown> | undefined);
  },
  status: {
    prepareForUpdate(obj, old) {
      obj.spec = old.spec;
      canonicalizeQuantityMap(obj.status?.hard as Record<string, unknown> | undefined);
      canonicalizeQuantityMap(obj.status?.used as Record<string, unknown> | undefined);
    },
    validateUpdate: (o) => validateQuota(o),
  },
  table: {
    columns: [
      NAME_COLUMN,
      AGE_COLUMN,
      column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
      column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
    ],
    cells: (q, now) => [q.metadata.name ?? '', translateTimestampSince(q.metadata.creationTimestamp, now), columnText(q, false), columnText(q, true)],
  },
};

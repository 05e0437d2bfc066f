/**
 * policy/v1 PodDisruptionBudget: validation (minAvailable XOR maxUnavailable, each a
 * non-negative integer or a percent ≤ 100 %, the label selector, unhealthyPodEvictionPolicy),
 * generation 1 on create and +1 on spec changes, status kept by spec updates and spec by
 * status updates, printer NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE,
 * short name `pdb`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/policy/poddisruptionbudget/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/policy/validation/validation.go
 */
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { type FieldError, invalid, notSupported, Path } from '../../../../apimachinery/field-errors.js';
import { isValidPercent, jsonEqual, validateLabelSelector, validateNonnegativeField } from '../../../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import { clone, type K, mutableMeta, type O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

/** Upstream ValidatePositiveIntOrPercent + IsNotMoreThan100Percent. */
function validateIntOrPercent(v: number | string, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof v === 'string') {
    for (const m of isValidPercent(v)) errs.push(invalid(path, v, m));
    const n = /^[0-9]+%$/.test(v) ? Number(v.slice(0, -1)) : Number.NaN;
    if (n > 100) errs.push(invalid(path, v, 'must not be greater than 100%'));
  } else if (typeof v === 'number') {
    errs.push(...validateNonnegativeField(v, path));
  } else {
    errs.push(invalid(path, v, "must be an integer or percentage (e.g '5%')"));
  }
  return errs;
}

/** Upstream ValidatePodDisruptionBudgetSpec. */
function validatePodDisruptionBudget(pdb: O<PodDisruptionBudget>): FieldError[] {
  const errs: FieldError[] = [];
  const spec = pdb.spec ?? {};
  const p = Path.root('spec');
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    errs.push(invalid(p, spec, 'minAvailable and maxUnavailable cannot be both set'));
  }
  if (spec.minAvailable !== undefined) errs.push(...validateIntOrPercent(spec.minAvailable, p.child('minAvailable')));
  if (spec.maxUnavailable !== undefined) errs.push(...validateIntOrPercent(spec.maxUnavailable, p.child('maxUnavailable')));
  errs.push(...validateLabelSelector(spec.selector, p.child('selector')));
  const uhp = spec.unhealthyPodEvictionPolicy;
  if (uhp !== undefined && !EVICTION_POLICIES.includes(uhp)) errs.push(notSupported(p.child('unhealthyPodEvictionPolicy'), uhp, EVICTION_POLICIES));
  return errs;
}

const intOrPercent = (v: number | string | undefined): string => (v === undefined ? 'N/A' : String(v));

/** policy/v1 poddisruptionbudgets (short name `pdb`). */
export const podDisruptionBudgetDefinition: ResourceDefinition<K<PodDisruptionBudget>> = {
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  listKind: 'PodDisruptionBudgetList',
  resource: 'poddisruptionbudgets',
  singular: 'poddisruptionbudget',
  namespaced: true,
  shortNames: ['pdb'],
  schemaRef: 'policy/v1#PodDisruptionBudget',

  prepareForCreate(obj) {
    (obj as { status?: unknown }).status = {
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
    };
    mutableMeta(obj).generation = 1;
  },
  prepareForUpdate(obj, old) {
    (obj as { status?: unknown }).status = clone(old.status);
    const gen = mutableMeta(old).generation ?? 1;
    mutableMeta(obj).generation = jsonEqual(obj.spec ?? null, old.spec ?? null) ? gen : gen + 1;
  },
  validate(obj) {
    return validatePodDisruptionBudget(obj);
  },
  validateUpdate(obj) {
    return validatePodDisruptionBudget(obj);
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Min Available', 'string', 'The minimum number of pods that must be available.'),
      column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
      column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      return [
        obj.metadata.name ?? '',
        intOrPercent(obj.spec?.minAvailable),
        intOrPercent(obj.spec?.maxUnavailable),
        obj.status?.disruptionsAllowed ?? 0,
        translateTimestampSince(obj.metadata.creationTimestamp, now),
      ];
    },
  },
  status: {
    prepareForUpdate(obj, old) {
      obj.spec = clone(old.spec);
    },
  },
};

/**
 * scheduling.k8s.io/v1 PriorityClass: defaults (preemptionPolicy PreemptLowerPriority),
 * generation 1 on create, validation (user values ≤ 1000000000, the `system-` prefix
 * reserved for the built-in classes, value and preemptionPolicy immutable), the built-in
 * classes for bootstrapping, printer NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY, short
 * name `pc`. (Only one globalDefault class is enforced by the Priority admission plugin.)
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/scheduling/priorityclass/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/scheduling/validation/validation.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/scheduling/v1/helpers.go
 */
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { type FieldError, forbidden, notSupported, required } from '../../../../apimachinery/field-errors.js';
import { validateImmutableField } from '../../../../apimachinery/validation.js';
import type { ResourceDefinition } from '../../../resource.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import { type K, mutableMeta, type O } from '../../../core/v1/shared/types.js';

/** Highest value a user-defined PriorityClass may have (upstream HighestUserDefinablePriority). */
const HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000;
/** Priority of system-cluster-critical (upstream SystemCriticalPriority). */
const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;
/** Names starting with this are reserved for the built-in classes. */
const SYSTEM_PRIORITY_CLASS_PREFIX = 'system-';

/**
 * The built-in classes the API server creates at start-up (upstream
 * SystemPriorityClasses): system-node-critical 2000001000, system-cluster-critical 2000000000.
 */
export const SYSTEM_PRIORITY_CLASSES: readonly PriorityClass[] = Object.freeze([
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-node-critical' },
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    description: 'Used for system critical pods that must not be moved from their current node.',
    preemptionPolicy: 'PreemptLowerPriority',
    globalDefault: false,
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-cluster-critical' },
    value: SYSTEM_CRITICAL_PRIORITY,
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
    preemptionPolicy: 'PreemptLowerPriority',
    globalDefault: false,
  },
]);

/** Upstream IsKnownSystemPriorityClass: undefined when ok, else the reason. */
function knownSystemClassError(name: string, value: number, globalDefault: boolean): string | undefined {
  const spc = SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata?.name === name);
  if (!spc) return `${name} is not a known system priority class`;
  if (spc.value !== value) return `value of ${name} PriorityClass must be ${spc.value}`;
  if ((spc.globalDefault ?? false) !== globalDefault) return `globalDefault of ${name} PriorityClass must be ${spc.globalDefault ?? false}`;
  return undefined;
}

/** Upstream ValidatePriorityClass (without ObjectMeta). */
function validatePriorityClass(pc: O<PriorityClass>): FieldError[] {
  const errs: FieldError[] = [];
  const name = pc.metadata.name ?? '';
  if (name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    const err = knownSystemClassError(name, pc.value, pc.globalDefault ?? false);
    if (err) {
      errs.push(forbidden('metadata.name', `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: ${err}`));
    }
  } else if (pc.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  if (pc.preemptionPolicy !== undefined) {
    if (pc.preemptionPolicy === '') errs.push(required('preemptionPolicy', ''));
    else if (pc.preemptionPolicy !== 'PreemptLowerPriority' && pc.preemptionPolicy !== 'Never') {
      errs.push(notSupported('preemptionPolicy', pc.preemptionPolicy, ['PreemptLowerPriority', 'Never']));
    }
  }
  return errs;
}

/** scheduling.k8s.io/v1 priorityclasses (cluster-scoped, short name `pc`). */
export const priorityClassDefinition: ResourceDefinition<K<PriorityClass>> = {
  group: 'scheduling.k8s.io',
  version: 'v1',
  kind: 'PriorityClass',
  listKind: 'PriorityClassList',
  resource: 'priorityclasses',
  singular: 'priorityclass',
  namespaced: false,
  shortNames: ['pc'],
  schemaRef: 'scheduling/v1#PriorityClass',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    if (obj.preemptionPolicy === undefined) obj.preemptionPolicy = 'PreemptLowerPriority';
  },
  prepareForCreate(obj) {
    mutableMeta(obj).generation = 1;
  },
  validate(obj) {
    return validatePriorityClass(obj);
  },
  validateUpdate(obj, old) {
    const errs: FieldError[] = [];
    if (obj.value !== old.value) errs.push(forbidden('value', 'may not be changed in an update.'));
    errs.push(...validateImmutableField(obj.preemptionPolicy ?? null, old.preemptionPolicy ?? null, 'preemptionPolicy'));
    return errs;
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Value', 'integer', 'value represents the integer value of this priority class.'),
      column(
        'Global-Default',
        'boolean',
        'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.',
      ),
      AGE_COLUMN,
      column('PreemptionPolicy', 'string', 'preemptionPolicy is the Policy for preempting pods with lower priority.'),
    ],
    cells(obj, now) {
      return [obj.metadata.name ?? '', obj.value, obj.globalDefault ?? false, translateTimestampSince(obj.metadata.creationTimestamp, now), obj.preemptionPolicy ?? ''];
    },
  },
};

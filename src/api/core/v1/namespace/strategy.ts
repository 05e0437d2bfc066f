/**
 * core/v1 Namespace: defaults (phase Active, the `kubernetes.io/metadata.name` label),
 * the `kubernetes` spec finalizer added on create, validation, the status and finalize
 * strategies, the printer (NAME STATUS AGE), field selectors (status.phase, name) and the
 * two-step graceful deletion upstream implements in the namespace REST storage.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/namespace/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/namespace/storage/storage.go
 */
import type { Namespace } from 'kubernetes-types/core/v1.js';
import { type FieldError, invalid, Path } from '../../../../apimachinery/field-errors.js';
import { isQualifiedName, nameIsDNSLabel } from '../../../../apimachinery/validation.js';
import type { DeleteOptionsLike, ResourceDefinition, StatusStrategy } from '../../../resource.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../shared/printing.js';
import { clone, type K, mutableMeta, type O } from '../shared/types.js';

/** The label every namespace carries with its own name (upstream v1.LabelMetadataName). */
const LABEL_METADATA_NAME = 'kubernetes.io/metadata.name';
/** The spec finalizer the namespace controller removes once the namespace is empty. */
const FINALIZER_KUBERNETES = 'kubernetes';

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** Upstream validateFinalizerName: a qualified name, and a bare name must be a standard one. */
function validateFinalizerName(value: string, path: Path | string): FieldError[] {
  const errs = isQualifiedName(value).map((m) => invalid(path, value, m));
  if (!value.includes('/') && !STANDARD_FINALIZERS.has(value)) {
    errs.push(invalid(path, value, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

function ensureNameLabel(ns: O<Namespace>): void {
  const name = ns.metadata.name;
  if (!name) return;
  const labels = (ns.metadata.labels ??= {});
  labels[LABEL_METADATA_NAME] = name;
}

/** Upstream ValidateNamespaceStatusUpdate: phase must follow deletionTimestamp. */
function validateStatusPhase(ns: O<Namespace>): FieldError[] {
  const phase = ns.status?.phase ?? '';
  if (!ns.metadata.deletionTimestamp) {
    if (phase !== 'Active') return [invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  } else if (phase !== 'Terminating') {
    return [invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
  }
  return [];
}

/** namespaces/status: keeps the old spec; phase must agree with deletionTimestamp. */
export const namespaceStatusStrategy: StatusStrategy<K<Namespace>> = {
  prepareForUpdate(obj, old) {
    obj.spec = clone(old.spec);
  },
  validateUpdate(obj) {
    return validateStatusPhase(obj);
  },
};

/**
 * namespaces/finalize (PUT by the namespace controller to drop `spec.finalizers`): keeps the
 * old status; every finalizer must be a valid finalizer name. The lead wires this to the
 * `finalize` subresource the same way as `status`.
 */
export const namespaceFinalizeStrategy: StatusStrategy<K<Namespace>> = {
  prepareForUpdate(obj, old) {
    obj.status = clone(old.status);
  },
  validateUpdate(obj) {
    const errs: FieldError[] = [];
    const p = Path.root('spec').child('finalizers');
    (obj.spec?.finalizers ?? []).forEach((f, i) => errs.push(...validateFinalizerName(f, p.index(i))));
    return errs;
  },
};

/** What the store must do with a DELETE of a namespace (see {@link namespaceDeleteStep}). */
type NamespaceDeleteStep =
  /** persist `obj` (deletionTimestamp set, phase Terminating) as an update and answer 200 with it */
  | { kind: 'update'; obj: O<Namespace> }
  /** already terminating and `spec.finalizers` not empty: answer 200 with the namespace unchanged */
  | { kind: 'keep' }
  /** proceed with the generic delete (which honours `metadata.finalizers` as for any object) */
  | { kind: 'delete' };

/**
 * The namespace DELETE as upstream's namespace REST storage does it. A namespace is not
 * removed by its first DELETE: that sets `metadata.deletionTimestamp` and
 * `status.phase: Terminating` (adding/removing the `orphan` / `foregroundDeletion`
 * metadata finalizers per `propagationPolicy`) and returns the namespace. The namespace
 * controller then empties it, removes `kubernetes` from `spec.finalizers` through
 * `namespaces/{name}/finalize`, and deletes again; while `spec.finalizers` is not empty a
 * DELETE answers 200 with the unchanged namespace; once empty the generic delete runs.
 *
 * The generic store cannot know this from `checkGracefulDelete` alone (spec finalizers are
 * not metadata finalizers, and the phase must change in the same write), so it must call
 * this before deleting a namespace. Preconditions (uid, resourceVersion) are checked by
 * the store first, as for any delete.
 *
 * @param now the time to record as deletionTimestamp
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/namespace/storage/storage.go
 */
export function namespaceDeleteStep(ns: O<Namespace>, opts: DeleteOptionsLike, now: Date): NamespaceDeleteStep {
  if (!ns.metadata.deletionTimestamp) {
    const out = clone(ns);
    mutableMeta(out).deletionTimestamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    out.status = { ...(out.status ?? {}), phase: 'Terminating' };
    const current = new Set(out.metadata.finalizers ?? []);
    const want: Record<string, boolean> = {
      orphan: opts.propagationPolicy ? opts.propagationPolicy === 'Orphan' : current.has('orphan'),
      foregroundDeletion: opts.propagationPolicy ? opts.propagationPolicy === 'Foreground' : current.has('foregroundDeletion'),
    };
    let changed = false;
    for (const [f, should] of Object.entries(want)) {
      if (current.has(f) !== should) changed = true;
      if (should) current.add(f);
      else current.delete(f);
    }
    if (changed) out.metadata.finalizers = [...current];
    return { kind: 'update', obj: out };
  }
  if ((ns.spec?.finalizers ?? []).length > 0) return { kind: 'keep' };
  return { kind: 'delete' };
}

/**
 * Upstream ShouldDeleteNamespaceDuringUpdate: an update (including /status and /finalize)
 * that leaves a deleting namespace without spec finalizers deletes it when the generic rule
 * holds (no metadata finalizers left, deletionTimestamp set, grace period unset or 0).
 */
export function shouldDeleteNamespaceDuringUpdate(obj: O<Namespace>, old: O<Namespace>): boolean {
  if ((obj.spec?.finalizers ?? []).length > 0) return false;
  // the generic rule (upstream ShouldDeleteDuringUpdate): no metadata finalizers left, a
  // delete was requested, and its grace period is unset or 0
  if ((obj.metadata.finalizers ?? []).length > 0) return false;
  if (!old.metadata.deletionTimestamp) return false;
  return (old.metadata.deletionGracePeriodSeconds ?? 0) === 0;
}

/** core/v1 namespaces (cluster-scoped, short name `ns`). */
export const namespaceDefinition: ResourceDefinition<K<Namespace>> = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  resource: 'namespaces',
  singular: 'namespace',
  namespaced: false,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  shortNames: ['ns'],
  validateName: nameIsDNSLabel,
  schemaRef: 'core/v1#Namespace',

  defaults(obj) {
    ensureNameLabel(obj);
    if (!obj.status?.phase) obj.status = { ...(obj.status ?? {}), phase: 'Active' };
  },
  prepareForCreate(obj) {
    obj.status = { phase: 'Active' };
    const spec = (obj.spec ??= {});
    const fins = spec.finalizers ?? [];
    if (!fins.includes(FINALIZER_KUBERNETES)) spec.finalizers = [...fins, FINALIZER_KUBERNETES];
  },
  prepareForUpdate(obj, old) {
    // spec.finalizers change only through /finalize, status only through /status
    obj.spec = clone(old.spec);
    obj.status = clone(old.status);
  },
  validate(obj) {
    const errs: FieldError[] = [];
    for (const f of obj.spec?.finalizers ?? []) errs.push(...validateFinalizerName(f, 'spec.finalizers'));
    return errs;
  },
  validateUpdate() {
    return [];
  },
  canonicalize(obj) {
    ensureNameLabel(obj);
  },
  /**
   * For stores that only know the generic contract: a namespace with spec finalizers is
   * deleted gracefully (grace 0: deletionTimestamp set, object kept) rather than removed.
   * This alone does not set `status.phase: Terminating`; the store should use
   * {@link namespaceDeleteStep}, which does everything upstream does.
   */
  checkGracefulDelete(obj) {
    return (obj.spec?.finalizers ?? []).length > 0 ? 0 : undefined;
  },
  deleteStep: (obj, opts, now) => namespaceDeleteStep(obj, opts, now),
  shouldDeleteDuringUpdate: (obj, old) => shouldDeleteNamespaceDuringUpdate(obj, old),
  subresourceStrategies: { finalize: namespaceFinalizeStrategy },
  fieldSelectorAttrs(obj) {
    return { 'status.phase': obj.status?.phase ?? '', name: obj.metadata.name ?? '' };
  },
  table: {
    columns: [NAME_COLUMN, column('Status', 'string', 'The status of the namespace'), AGE_COLUMN],
    cells(obj, now) {
      return [obj.metadata.name ?? '', obj.status?.phase ?? '', translateTimestampSince(obj.metadata.creationTimestamp, now)];
    },
  },
  status: namespaceStatusStrategy,
};

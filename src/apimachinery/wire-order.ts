/**
 * Member order of objects as upstream writes them: Go's encoding/json emits struct
 * fields in declaration order, so every kube-apiserver response has `kind`,
 * `apiVersion`, `metadata` first, ObjectMeta's fields in ObjectMeta's order, and so on.
 * JSON.stringify keeps insertion order instead; these helpers rebuild an object in the
 * Go order when (and only when) it is not in it already.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/apis/meta/v1/types.go (TypeMeta, ObjectMeta, OwnerReference, ManagedFieldsEntry)
 */

/** A field order with each name's rank, made once per list. */
export interface FieldOrder {
  readonly names: readonly string[];
  readonly rank: ReadonlyMap<string, number>;
}

/** Prepares a field order (names in Go declaration order). */
export function fieldOrder(names: readonly string[]): FieldOrder {
  return { names, rank: new Map(names.map((n, i) => [n, i])) };
}

/**
 * `o` with its own keys in `order`: known names first in order, then the others as
 * they came. Returns `o` itself when it is in that order already (no copy), else a
 * shallow copy (values shared).
 */
export function inFieldOrder<T extends object>(o: T, order: FieldOrder): T {
  const keys = Object.keys(o);
  const unknown = order.names.length;
  let last = -1;
  let sorted = true;
  for (const k of keys) {
    const r = order.rank.get(k) ?? unknown;
    if (r < last) {
      sorted = false;
      break;
    }
    last = r;
  }
  if (sorted) return o;
  const src = o as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const n of order.names) if (Object.hasOwn(src, n)) out[n] = src[n];
  for (const k of keys) if (!order.rank.has(k)) out[k] = src[k];
  return out as T;
}

/** metav1.TypeMeta, then ObjectMeta: every top-level object starts with these. */
export const TYPE_META_FIELDS = ['kind', 'apiVersion', 'metadata'] as const;

/** metav1.ObjectMeta's JSON fields in declaration order. */
export const OBJECT_META_ORDER = fieldOrder([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

const OWNER_REFERENCE_ORDER = fieldOrder(['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion']);
const MANAGED_FIELDS_ENTRY_ORDER = fieldOrder(['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource']);

function listInOrder<T extends object>(list: T[], order: FieldOrder): T[] {
  let out: T[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const e = list[i]!;
    const o = e !== null && typeof e === 'object' ? inFieldOrder(e, order) : e;
    if (o !== e) (out ??= list.slice())[i] = o;
  }
  return out ?? list;
}

/**
 * ObjectMeta in Go order, with its ownerReferences and managedFields entries in theirs.
 * Returns `meta` itself when nothing moves.
 */
export function objectMetaInOrder<T extends object>(meta: T): T {
  let m = inFieldOrder(meta, OBJECT_META_ORDER) as Record<string, unknown>;
  for (const [field, order] of [
    ['ownerReferences', OWNER_REFERENCE_ORDER],
    ['managedFields', MANAGED_FIELDS_ENTRY_ORDER],
  ] as const) {
    const list = m[field];
    if (!Array.isArray(list)) continue;
    const ordered = listInOrder(list as object[], order);
    if (ordered !== list) {
      if (m === (meta as unknown)) m = { ...m };
      m[field] = ordered;
    }
  }
  return m as T;
}

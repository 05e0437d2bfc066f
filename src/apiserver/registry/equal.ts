/**
 * Semantic equality of JSON objects, for the no-op write check of the generic store:
 * upstream compares the encoded bytes of the new object with the stored ones
 * (GuaranteedUpdate), which are in Go struct order whatever order the request used; here
 * objects built along different paths may list the same members in another order, so
 * members are compared by name, not position.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/storage/etcd3/store.go (GuaranteedUpdate, `!origState.stale && bytes.Equal(data, origState.data)`)
 */

/**
 * True when `a` and `b` serialise to the same JSON up to the order of object members:
 * members whose value is `undefined` count as absent (JSON.stringify drops them), arrays
 * compare element by element.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let n = 0;
  for (const k in ao) {
    const v = ao[k];
    if (v === undefined) continue;
    n++;
    if (!Object.hasOwn(bo, k) || !jsonEqual(v, bo[k])) return false;
  }
  for (const k in bo) if (bo[k] !== undefined) n--;
  return n === 0;
}

interface MetaLike {
  metadata?: { managedFields?: unknown[] } & Record<string, unknown>;
  [field: string]: unknown;
}

/**
 * True when `obj` equals `old` ({@link jsonEqual}) or differs only in the `time` of its
 * managedFields entries (same entries, same order): such an update changes nothing, as
 * upstream's IgnoreManagedFieldsTimestampsTransformer decides before the write.
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/endpoints/handlers/fieldmanager/equality.go
 */
export function equalIgnoringManagedFieldsTimestamps(obj: MetaLike, old: MetaLike): boolean {
  if (jsonEqual(obj, old)) return true;
  const a = obj.metadata?.managedFields;
  const b = old.metadata?.managedFields;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Record<string, unknown> | null;
    const y = b[i] as Record<string, unknown> | null;
    if (!x || !y || typeof x !== 'object' || typeof y !== 'object') return false;
    if (!jsonEqual({ ...x, time: undefined }, { ...y, time: undefined })) return false;
  }
  return jsonEqual({ ...obj, metadata: { ...obj.metadata, managedFields: undefined } }, { ...old, metadata: { ...old.metadata, managedFields: undefined } });
}

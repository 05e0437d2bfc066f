/**
 * Template hashes for `pod-template-hash` and `controller-revision-hash`, as upstream's
 * controller.ComputeHash: FNV-1a 32 over the pod template, then (when set) the
 * collision count as 4 little-endian bytes, the decimal sum encoded with
 * rand.SafeEncodeString's alphabet (no vowels, no look-alike digits).
 *
 * The template is serialised as canonical JSON (object keys sorted) where upstream
 * writes Go's spew dump of the struct, so the hash is stable and deterministic but not
 * bit-identical to upstream's for the same template.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/controller_utils.go (ComputeHash)
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/util/rand/rand.go (SafeEncodeString)
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a 32 of `bytes`, continuing from `h`. */
function fnv1a32(bytes: Uint8Array, h = FNV_OFFSET): number {
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, FNV_PRIME) >>> 0;
  }
  return h >>> 0;
}

const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** Upstream rand.SafeEncodeString: each byte mapped into the safe alphabet. */
function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += ALPHANUMS[s.charCodeAt(i) % ALPHANUMS.length];
  return out;
}

/** JSON with object keys sorted at every level (undefined members dropped). */
function canonicalJSON(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJSON(x))).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJSON(o[k])}`).join(',')}}`;
}

const enc = new TextEncoder();

/**
 * The hash of a template (upstream ComputeHash).
 * @param collisionCount status.collisionCount, when set
 */
export function computeHash(template: unknown, collisionCount?: number): string {
  let h = fnv1a32(enc.encode(canonicalJSON(template ?? {})));
  if (collisionCount !== undefined && collisionCount !== null) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv1a32(b, h);
  }
  return safeEncodeString(String(h));
}

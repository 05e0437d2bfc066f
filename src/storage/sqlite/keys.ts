/**
 * Key-range helpers. SQLite compares TEXT with the BINARY collation, i.e. by UTF-8
 * bytes, which is code-point order; every range below is expressed in that order so
 * that SQL range scans, prefix checks and `startAfter` agree.
 */

/**
 * The smallest string greater than every string that starts with `prefix` (in
 * code-point order), or `undefined` when no such bound exists (empty prefix, or a
 * prefix made only of U+10FFFF). Keys `k` under `prefix` are exactly
 * `prefix <= k < prefixEnd(prefix)`.
 *
 * @see https://github.com/etcd-io/etcd/blob/main/client/v3/op.go (GetPrefixRangeEnd)
 */
export function prefixEnd(prefix: string): string | undefined {
  let end = prefix;
  while (end.length > 0) {
    const last = end.codePointAt(end.length - 1 - (isLowSurrogateAt(end, end.length - 1) ? 1 : 0))!;
    const width = last > 0xffff ? 2 : 1;
    end = end.slice(0, end.length - width);
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return end + String.fromCodePoint(next);
    }
  }
  return undefined;
}

function isLowSurrogateAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0xdc00 || c > 0xdfff || i === 0) return false;
  const h = s.charCodeAt(i - 1);
  return h >= 0xd800 && h <= 0xdbff;
}

/**
 * Compares two strings in code-point order (the order SQLite's BINARY collation
 * gives UTF-8 text), unlike `<` on JS strings, which compares UTF-16 code units.
 * Returns <0, 0 or >0.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (D800–DFFF) encode code points above FFFF, which sort after E000–FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Go's fmt rendering of decoded JSON values (`map[string]interface{}`, `[]interface{}`,
 * string, int64/float64, bool, nil), for error texts that upstream builds with `%v`
 * and `reflect.TypeOf`. JSON integers print as Go int64 does, other numbers as float64.
 *
 * @see https://pkg.go.dev/fmt
 */

/** `%v` of a decoded JSON value: `map[a:1 b:[x y]]`, `<nil>`, `1e+06`. Map keys sorted, as fmt does. */
export function goSprint(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return goNumber(v);
  if (Array.isArray(v)) return `[${v.map(goSprint).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    return `map[${keys.map((k) => `${k}:${goSprint(o[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** `%s` of a decoded JSON value: strings as is, other scalars as `%!s(int64=1)`. */
export function goSprintS(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '%!s(<nil>)';
  if (typeof v === 'number' || typeof v === 'boolean') return `%!s(${goTypeName(v)}=${goSprint(v)})`;
  return goSprint(v);
}

/** `reflect.TypeOf(v).String()` of a decoded JSON value; `%!s(<nil>)` for null as `%s` prints it. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '%!s(<nil>)';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return isGoInt(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** Would Go's int-preserving JSON decoder have produced an int64 for this number? */
export function isGoInt(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63;
}

function goNumber(n: number): string {
  if (isGoInt(n)) return BigInt(n).toString();
  return goFloatG(n);
}

/** strconv.FormatFloat(f, 'g', -1, 64), which is what fmt's `%v` prints for a float64. */
export function goFloatG(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // JS and Go both produce the shortest round-trip digits; Go switches to %e when the
  // decimal exponent is < -4 or >= 6 (shortest precision decides with 6).
  const [mant, expStr] = f.toExponential().split('e') as [string, string];
  const exp = Number(expStr);
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp);
    return `${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  return f.toString();
}

/**
 * resource.Quantity: Kubernetes' fixed-point numbers ("100m", "1Gi", "1e3"), parsed and
 * serialised exactly as upstream, with exact (bigint) arithmetic.
 *
 * A Quantity is an immutable value `mantissa × 10^scale` plus the format it serialises in
 * (the suffix family it was written with). Serialisation is upstream's canonical form:
 * the largest suffix that keeps an integer mantissa, e.g. "0.1" → "100m", "1024Mi" → "1Gi",
 * "1.5Gi" → "1536Mi", "1000m" → "1". Like upstream, an input that is already canonical is
 * kept verbatim (including quirks such as a leading "+": "+1Ki" serialises as "+1Ki").
 *
 * Parsing rounds non-zero values up (away from zero) to 1n (10^-9), caps binary-suffixed
 * values at 2^63-1 in magnitude, and turns a binary value between 0 and 1 into a
 * decimal one, as upstream ParseQuantity does.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/api/resource/quantity.go
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/api/resource/amount.go
 */

/** How a quantity is written: "12e6" (DecimalExponent), "12Mi" (BinarySI), "12M" (DecimalSI). */
export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

/** An exact quantity: `mantissa × 10^scale`, serialised in `format`. Immutable. */
export interface Quantity {
  readonly mantissa: bigint;
  /** base-10 exponent (upstream resource.Scale): -3 = milli, 3 = kilo */
  readonly scale: number;
  readonly format: QuantityFormat;
  /** the serialisation, when known (canonical input kept verbatim as upstream does) */
  readonly s?: string;
}

/** The regular expression upstream's format error names (kept for the message text). */
export const QUANTITY_REGEXP = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

/** Upstream's parse errors: ErrFormatWrong, ErrNumeric, ErrSuffix (same messages). */
export const QUANTITY_ERR_FORMAT = `quantities must match the regular expression '${QUANTITY_REGEXP}'`;
export const QUANTITY_ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const QUANTITY_ERR_SUFFIX = "unable to parse quantity's suffix";

/** Thrown by {@link parseQuantity}; `message` is upstream's error text. */
export class QuantityParseError extends Error {
  constructor(
    message: string,
    /** which upstream error: ErrFormatWrong, ErrNumeric or ErrSuffix */
    readonly kind: 'format' | 'numeric' | 'suffix',
    /** the input that failed */
    readonly input: string,
  ) {
    super(message);
    this.name = 'QuantityParseError';
  }
}

// ---------------------------------------------------------------------------------------
// bigint helpers

const POW10: bigint[] = [1n];
for (let i = 1; i <= 40; i++) POW10.push(POW10[i - 1]! * 10n);
/** 10^n for n ≥ 0 */
function pow10(n: number): bigint {
  return n < POW10.length ? POW10[n]! : 10n ** BigInt(n);
}
const MAX_INT64 = (1n << 63n) - 1n;
const NANO = -9;

/** value of q at `scale`, rounded away from zero; returns [value, exact] */
function atScale(q: Quantity, scale: number): [bigint, boolean] {
  if (q.scale >= scale) return [q.mantissa * pow10(q.scale - scale), true];
  const d = pow10(scale - q.scale);
  const quo = q.mantissa / d; // truncates toward zero
  const rem = q.mantissa % d;
  if (rem === 0n) return [quo, true];
  return [q.mantissa > 0n ? quo + 1n : quo - 1n, false];
}

// ---------------------------------------------------------------------------------------
// parsing

interface Scanned {
  positive: boolean;
  /** str[0:end of number] including sign (upstream `value`) */
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const SUFFIX_CHARS = 'eEinumkKMGTP';

/** Port of upstream parseQuantityString (a fast scanner, deliberately permissive). */
function scan(str: string): Scanned {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end) {
    if (str[0] === '-') {
      positive = false;
      pos++;
    } else if (str[0] === '+') pos++;
  }
  // strip leading zeros
  for (;;) {
    if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
    if (str[pos] === '0') pos++;
    else break;
  }
  // numerator
  let i = pos;
  while (i < end && isDigit(str.charCodeAt(i))) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
  const num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str.charCodeAt(i))) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && SUFFIX_CHARS.includes(str[i]!)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  i = pos;
  while (i < end && isDigit(str.charCodeAt(i))) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  throw new QuantityParseError(QUANTITY_ERR_FORMAT, 'format', str);
}

interface Interpreted {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

const DEC_SUFFIX_EXP: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIX_EXP: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DEC_EXP_SUFFIX = new Map<number, string>(Object.entries(DEC_SUFFIX_EXP).map(([s, e]) => [e, s]));
const BIN_EXP_SUFFIX = new Map<number, string>(Object.entries(BIN_SUFFIX_EXP).map(([s, e]) => [e, s]));

function interpret(suffix: string): Interpreted | undefined {
  const d = DEC_SUFFIX_EXP[suffix];
  if (d !== undefined && Object.hasOwn(DEC_SUFFIX_EXP, suffix)) return { base: 10, exponent: d, format: 'DecimalSI' };
  const b = BIN_SUFFIX_EXP[suffix];
  if (b !== undefined && Object.hasOwn(BIN_SUFFIX_EXP, suffix)) return { base: 2, exponent: b, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const rest = suffix.slice(1);
    // strconv.ParseInt: optional sign then digits, int64 range
    if (!/^[+-]?[0-9]+$/.test(rest)) return undefined;
    const n = BigInt(rest);
    if (n > MAX_INT64 || n < -MAX_INT64 - 1n) return undefined;
    // upstream truncates to int32; exponents that large are meaningless anyway
    return { base: 10, exponent: Number(BigInt.asIntN(32, n)), format: 'DecimalExponent' };
  }
  return undefined;
}

/**
 * Parse a quantity string exactly as upstream `resource.ParseQuantity`.
 *
 * @throws QuantityParseError with upstream's message ("quantities must match the regular
 *   expression '…'", "unable to parse quantity's suffix", "unable to parse numeric part of quantity")
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/api/resource/quantity.go
 */
export function parseQuantity(str: string): Quantity {
  const hit = parsedQuantities.get(str);
  if (hit !== undefined) return hit;
  const q = Object.freeze(parseQuantityUncached(str));
  if (parsedQuantities.size >= PARSED_QUANTITIES_MAX) parsedQuantities.clear();
  parsedQuantities.set(str, q);
  return q;
}

/**
 * Quantities already parsed, by input text (Quantity values are immutable, so one
 * parse serves every later one: the same few strings, "100m", "128Mi", recur in every
 * pod). Emptied when full; inputs that fail to parse are not kept.
 */
const parsedQuantities = new Map<string, Quantity>();
const PARSED_QUANTITIES_MAX = 4096;

function parseQuantityUncached(str: string): Quantity {
  if (str.length === 0) throw new QuantityParseError(QUANTITY_ERR_FORMAT, 'format', str);
  if (str === '0') return ZERO_DECIMAL_SI_PARSED;

  const sc = scan(str);
  const it = interpret(sc.suffix);
  if (!it) throw new QuantityParseError(QUANTITY_ERR_SUFFIX, 'suffix', str);
  let format = it.format;
  const { num, denom } = sc;

  // Upstream's int64 fast path decides whether the input string is kept verbatim.
  let precision: number;
  let fastScale = 0;
  if (it.base === 10) {
    fastScale = it.exponent;
    precision = 18 - (num.length + denom.length);
  } else if (it.exponent >= 0 && denom.length === 0) {
    precision = 15 - num.length - Math.trunc((it.exponent * 3) / 10) - 1;
  } else {
    precision = -1;
  }
  const shifted = num + denom;
  if (precision >= 0) {
    fastScale -= denom.length;
    if (fastScale >= NANO) {
      const v = BigInt(shifted);
      const mult = it.base === 2 ? 1n << BigInt(it.exponent) : 1n;
      let result = v * mult;
      if (result <= MAX_INT64) {
        if (!sc.positive) result = -result;
        let keep: boolean;
        if (format === 'BinarySI') keep = it.exponent % 10 === 0 && (v & 7n) !== 0n;
        else keep = fastScale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return keep ? { mantissa: result, scale: fastScale, format, s: str } : { mantissa: result, scale: fastScale, format };
      }
    }
  }

  // Arbitrary-precision path.
  const digits = sc.value.replace(/^[+-]/, '');
  if (!/^[0-9]*\.?[0-9]*$/.test(digits) || !/[0-9]/.test(digits)) {
    throw new QuantityParseError(QUANTITY_ERR_NUMERIC, 'numeric', str);
  }
  let mag = BigInt(shifted);
  let scale = -denom.length;
  if (it.base === 10) scale += it.exponent;
  else mag <<= BigInt(it.exponent);
  // round non-zero values up to 1n
  if (mag !== 0n && scale < NANO) {
    const d = pow10(NANO - scale);
    mag = mag % d === 0n ? mag / d : mag / d + 1n;
    scale = NANO;
  }
  if (format === 'BinarySI') {
    const amount: Quantity = { mantissa: mag, scale, format };
    // cap at 2^63-1
    if (compareQuantityInt(amount, MAX_INT64) > 0) {
      mag = MAX_INT64;
      scale = 0;
    } else if (mag !== 0n && compareQuantityInt(amount, 1) < 0) {
      // 0 < amount < 1: a binary suffix would only confuse
      format = 'DecimalSI';
    }
  }
  return { mantissa: sc.positive ? mag : -mag, scale, format };
}

const ZERO_DECIMAL_SI_PARSED: Quantity = Object.freeze({ mantissa: 0n, scale: 0, format: 'DecimalSI', s: '0' });

/** Like {@link parseQuantity} but returns undefined instead of throwing. */
export function tryParseQuantity(str: string): Quantity | undefined {
  try {
    return parseQuantity(str);
  } catch (e) {
    if (e instanceof QuantityParseError) return undefined;
    throw e;
  }
}

/**
 * Parse a quantity as it appears in JSON: a string (surrounding whitespace trimmed, as
 * upstream UnmarshalJSON does) or a number (`cpu: 1` in YAML).
 *
 * @throws QuantityParseError
 */
export function parseQuantityJSON(v: string | number): Quantity {
  return parseQuantity(typeof v === 'number' ? String(v) : v.trim());
}

// ---------------------------------------------------------------------------------------
// serialisation

/**
 * The canonical string of q (upstream Quantity.String()/MarshalJSON): decimal formats use
 * the largest suffix with exponent a multiple of 3 that keeps an integer mantissa; BinarySI
 * uses the largest power of 1024, except for |q| < 1024 or non-integers, which print as DecimalSI.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/api/resource/quantity.go (CanonicalizeBytes)
 */
export function formatQuantity(q: Quantity): string {
  if (q.s !== undefined) return q.s;
  if (q.mantissa === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    if (compareQuantityInt(q, -1024) > 0 && compareQuantityInt(q, 1024) < 0) {
      format = 'DecimalSI';
    } else {
      const [whole, exact] = atScale(q, 0);
      if (!exact) format = 'DecimalSI';
      else {
        let m = whole;
        let times = 0;
        while (m !== 0n && m % 1024n === 0n) {
          m /= 1024n;
          times++;
        }
        return m.toString() + (BIN_EXP_SUFFIX.get(times * 10) ?? '');
      }
    }
  }
  let m = q.mantissa;
  let e = q.scale;
  while (m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  while (e % 3 !== 0) {
    m *= 10n;
    e--;
  }
  let suffix: string;
  if (format === 'DecimalExponent') suffix = e === 0 ? '' : `e${e}`;
  else suffix = DEC_EXP_SUFFIX.get(e) ?? '';
  return m.toString() + suffix;
}

/**
 * Parse and re-serialise: "0.1" → "100m", "1000m" → "1", "1024Mi" → "1Gi", "1.5Gi" →
 * "1536Mi", "100M" → "100M". Note "1e3" stays "1e3": the exponent format is kept, as upstream.
 *
 * @throws QuantityParseError
 */
export function canonicalizeQuantityString(s: string): string {
  return formatQuantity(parseQuantity(s));
}

// ---------------------------------------------------------------------------------------
// construction

/** A quantity of `value` units (upstream NewQuantity). */
export function newQuantity(value: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
  return { mantissa: toBig(value), scale: 0, format };
}

/** A quantity of `milli`/1000 units (upstream NewMilliQuantity), e.g. millicores. */
export function newMilliQuantity(milli: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
  return { mantissa: toBig(milli), scale: -3, format };
}

/** `value × 10^scale` in DecimalSI (upstream NewScaledQuantity). */
export function newScaledQuantity(value: number | bigint, scale: number): Quantity {
  return { mantissa: toBig(value), scale, format: 'DecimalSI' };
}

function toBig(v: number | bigint): bigint {
  if (typeof v === 'bigint') return v;
  if (!Number.isInteger(v)) throw new RangeError(`quantity value must be an integer, got ${v}`);
  return BigInt(v);
}

/** The zero quantity (DecimalSI). */
export const ZERO_QUANTITY: Quantity = Object.freeze({ mantissa: 0n, scale: 0, format: 'DecimalSI' as const });

// ---------------------------------------------------------------------------------------
// arithmetic and comparison

/** a + b; the format is a's, or b's when a is zero (upstream Quantity.Add). */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  const format = a.mantissa === 0n ? b.format : a.format;
  if (b.mantissa === 0n) return { mantissa: a.mantissa, scale: a.scale, format };
  if (a.mantissa === 0n) return { mantissa: b.mantissa, scale: b.scale, format };
  const s = Math.min(a.scale, b.scale);
  return { mantissa: a.mantissa * pow10(a.scale - s) + b.mantissa * pow10(b.scale - s), scale: s, format };
}

/** a - b; the format is a's, or b's when a is zero (upstream Quantity.Sub). */
export function subQuantity(a: Quantity, b: Quantity): Quantity {
  return addQuantity(a, negQuantity(b));
}

/** -q */
export function negQuantity(q: Quantity): Quantity {
  return { mantissa: -q.mantissa, scale: q.scale, format: q.format };
}

/** q × n (exact). */
export function mulQuantity(q: Quantity, n: number | bigint): Quantity {
  return { mantissa: q.mantissa * toBig(n), scale: q.scale, format: q.format };
}

/** -1, 0 or 1 as a is less than, equal to or greater than b (upstream Cmp). */
export function compareQuantity(a: Quantity, b: Quantity): -1 | 0 | 1 {
  let x = a.mantissa;
  let y = b.mantissa;
  if (a.scale > b.scale) x *= pow10(a.scale - b.scale);
  else if (b.scale > a.scale) y *= pow10(b.scale - a.scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Compare q with an integer (upstream CmpInt64). */
export function compareQuantityInt(q: Quantity, n: number | bigint): -1 | 0 | 1 {
  return compareQuantity(q, { mantissa: toBig(n), scale: 0, format: 'DecimalSI' });
}

/** True when a and b are the same number (formats may differ). */
export function quantityEquals(a: Quantity, b: Quantity): boolean {
  return compareQuantity(a, b) === 0;
}

/** Whether q is zero. */
export function isZeroQuantity(q: Quantity): boolean {
  return q.mantissa === 0n;
}

/** -1, 0 or 1 by the sign of q. */
export function quantitySign(q: Quantity): -1 | 0 | 1 {
  return q.mantissa < 0n ? -1 : q.mantissa > 0n ? 1 : 0;
}

/**
 * ceil(q / 10^scale) rounded away from zero, as a bigint (upstream ScaledValue without the
 * int64 overflow).
 */
export function scaledValueBig(q: Quantity, scale: number): bigint {
  return atScale(q, scale)[0];
}

/**
 * q in whole units, rounded up away from zero (upstream Value()): "100m" → 1, "1Ki" → 1024.
 * A JS number: exact up to 2^53.
 */
export function value(q: Quantity): number {
  return Number(atScale(q, 0)[0]);
}

/** ceil(q × 1000) (upstream MilliValue()): "0.1" → 100, "2" → 2000. Exact up to 2^53. */
export function milliValue(q: Quantity): number {
  return Number(atScale(q, -3)[0]);
}

/** ceil(q / 10^scale) as a number (upstream ScaledValue), e.g. scale -9 for nano units. */
export function scaledValue(q: Quantity, scale: number): number {
  return Number(atScale(q, scale)[0]);
}

/**
 * q rounded up (away from zero) to `scale`, and whether that was exact (upstream RoundUp).
 * The cached serialisation is dropped.
 */
export function roundUpQuantity(q: Quantity, scale: number): [Quantity, boolean] {
  if (q.scale >= scale) return [{ mantissa: q.mantissa, scale: q.scale, format: q.format }, true];
  const [m, exact] = atScale(q, scale);
  return [{ mantissa: m, scale, format: q.format }, exact];
}

/** A float approximation (upstream AsApproximateFloat64). */
export function asApproximateFloat64(q: Quantity): number {
  return q.scale === 0 ? Number(q.mantissa) : Number(q.mantissa) * 10 ** q.scale;
}

/** Same value with a different serialisation format (cached string dropped). */
export function withFormat(q: Quantity, format: QuantityFormat): Quantity {
  return { mantissa: q.mantissa, scale: q.scale, format };
}

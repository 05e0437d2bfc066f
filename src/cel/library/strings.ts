/**
 * The parts of cel-go's `ext.Strings` (version 2, what Kubernetes 1.29+ enables) that
 * the evaluator library lacks: `<string>.charAt(int)`, `replace(string, string[, int])`,
 * `format(list)`, `strings.quote(string)`; plus `string(timestamp)` and
 * `string(duration)` from the standard library. (`indexOf`, `lastIndexOf`, `lowerAscii`,
 * `upperAscii`, `split`, `substring`, `trim`, `join` are the library's own.)
 *
 * @see https://github.com/google/cel-go/blob/master/ext/strings.go
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { chargeCost, traversalCost } from '../cost.js';
import { celError } from '../errors.js';

/** Namespace object for `strings.quote(…)`. */
class StringsNamespace {}

/** The code points of `s` (CEL indexes strings by code point). */
function cps(s: string): string[] {
  return Array.from(s);
}

function replace(s: string, from: string, to: string, n: number): string {
  if (n === 0) return s;
  if (n < 0) return s.split(from).join(to);
  let out = '';
  let rest = s;
  for (let i = 0; i < n; i++) {
    const at = from === '' ? (i === 0 ? 0 : 1) : rest.indexOf(from);
    if (at < 0 || (from === '' && at > rest.length)) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
  }
  return out + rest;
}

/** Go's %q-like quoting as cel-go's strings.quote writes it. */
export function quote(s: string): string {
  let out = '"';
  for (const c of s) {
    switch (c) {
      case '\\':
        out += '\\\\';
        break;
      case '"':
        out += '\\"';
        break;
      case '\x07':
        out += '\\a';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\v':
        out += '\\v';
        break;
      default:
        out += c;
    }
  }
  return `${out}"`;
}

/** The `%s` rendering of a value (cel-go's stringFormatter). */
function formatS(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof UnsignedInt) return String(v.valueOf());
  if (typeof v === 'number') return formatDouble(v);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z');
  if (v instanceof Duration) return durationString(v);
  if (Array.isArray(v)) return `[${v.map(formatQuoted).join(', ')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${formatQuoted(k)}: ${formatQuoted(x)}`).join(', ')}}`;
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
    return `{${Object.entries(v)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, x]) => `${quote(k)}: ${formatQuoted(x)}`)
      .join(', ')}}`;
  return String(v);
}

function formatQuoted(v: unknown): string {
  return typeof v === 'string' ? quote(v) : formatS(v);
}

function formatDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return String(v);
}

/** A duration as CEL's string(duration) writes it: seconds with a fractional part, `s`. */
export function durationString(d: Duration): string {
  const total = d.seconds * 1_000_000_000n + BigInt(d.nanos);
  const neg = total < 0n;
  const abs = neg ? -total : total;
  const secs = abs / 1_000_000_000n;
  const frac = abs % 1_000_000_000n;
  const f = frac === 0n ? '' : `.${frac.toString().padStart(9, '0').replace(/0+$/, '')}`;
  return `${neg ? '-' : ''}${secs}${f}s`;
}

function fmtNumber(v: unknown, verb: string, prec: number | undefined): string {
  const num = v instanceof UnsignedInt ? v.valueOf() : v;
  switch (verb) {
    case 'd':
      if (typeof num !== 'bigint') throw celError(`error during formatting: decimal clause can only be used on integers, was given ${typeName(v)}`);
      return num.toString();
    case 'f':
    case 'e': {
      const n = typeof num === 'bigint' ? Number(num) : num;
      if (typeof n !== 'number') throw celError(`error during formatting: fixed-point clause can only be used on doubles, was given ${typeName(v)}`);
      if (!Number.isFinite(n)) return formatDouble(n);
      if (verb === 'f') return n.toFixed(prec ?? 6);
      const [m, e] = n.toExponential(prec ?? 6).split('e');
      const ex = Number(e);
      return `${m}e${ex < 0 ? '-' : '+'}${String(Math.abs(ex)).padStart(2, '0')}`;
    }
    case 'b':
    case 'o':
    case 'x':
    case 'X': {
      const radix = verb === 'b' ? 2 : verb === 'o' ? 8 : 16;
      let s: string;
      if (typeof num === 'bigint') s = (num < 0n ? '-' : '') + (num < 0n ? -num : num).toString(radix);
      else if (typeof num === 'string') s = Buffer.from(num, 'utf8').toString('hex');
      else if (v instanceof Uint8Array) s = Buffer.from(v).toString('hex');
      else if (typeof num === 'boolean' && verb === 'b') s = num ? '1' : '0';
      else
        throw celError(
          `error during formatting: only integers, byte buffers, and strings can be formatted as ${verb === 'b' ? 'binary' : verb === 'o' ? 'octal' : 'hex'}, was given ${typeName(v)}`,
        );
      return verb === 'X' ? s.toUpperCase() : s;
    }
    default:
      throw celError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
}

function typeName(v: unknown): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v === null) return 'null_type';
  if (v instanceof UnsignedInt) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Date) return 'google.protobuf.Timestamp';
  if (v instanceof Duration) return 'google.protobuf.Duration';
  return 'map';
}

/** cel-go's `<string>.format(list)`. */
export function format(f: string, args: unknown[]): string {
  let out = '';
  let ai = 0;
  for (let i = 0; i < f.length; i++) {
    const c = f[i];
    if (c !== '%') {
      out += c;
      continue;
    }
    i++;
    if (f[i] === '%') {
      out += '%';
      continue;
    }
    let prec: number | undefined;
    if (f[i] === '.') {
      let j = i + 1;
      while (j < f.length && f[j]! >= '0' && f[j]! <= '9') j++;
      prec = Number(f.slice(i + 1, j));
      i = j;
    }
    const verb = f[i];
    if (verb === undefined) throw celError('could not parse formatting clause: unexpected end of string');
    if (ai >= args.length) throw celError(`index ${ai} out of range`);
    const v = args[ai++];
    out += verb === 's' ? formatS(v) : fmtNumber(v, verb, prec);
  }
  return out;
}

/** Registers the string extension functions on `env`. */
export function registerStrings(env: Environment): void {
  env
    .registerType('kubernetes.StringsNamespace', StringsNamespace)
    .registerConstant('strings', 'kubernetes.StringsNamespace', new StringsNamespace())
    .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
      const c = cps(s);
      if (i < 0n || i > BigInt(c.length)) throw celError(`index out of range: ${i}`);
      return c[Number(i)] ?? '';
    })
    .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => {
      chargeCost(traversalCost(s.length));
      return replace(s, a, b, -1);
    })
    .registerFunction('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
      chargeCost(traversalCost(s.length));
      return replace(s, a, b, Number(n));
    })
    .registerFunction('string.format(list): string', (s: string, args: unknown[]) => {
      chargeCost(traversalCost(s.length));
      return format(s, args);
    })
    .registerFunction('kubernetes.StringsNamespace.quote(string): string', (_: StringsNamespace, s: string) => quote(s))
    .registerFunction('string(google.protobuf.Timestamp): string', (t: Date) => t.toISOString().replace('.000Z', 'Z'))
    .registerFunction('string(google.protobuf.Duration): string', (d: Duration) => durationString(d));
}

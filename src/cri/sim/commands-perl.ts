/**
 * A very small `perl` for simulated containers of perl images: it knows exactly one
 * program, the Job example's `perl -Mbignum=bpi -wle 'print bpi(N)'`, which prints pi
 * to N significant digits as Math::BigFloat's `bpi` does (computed here with BigInt
 * and Machin's formula, rounded half to even at digit N). Any other program is
 * refused on stderr with exit status 255 (perl's status for a program it cannot run),
 * saying that the simulation supports only `bpi`.
 *
 * @see https://perldoc.perl.org/bignum (bpi)
 * @see https://metacpan.org/pod/Math::BigFloat#bpi
 */
import type { Command } from './shell-io.js';

/** atan(1/x) scaled by `one` (a power of ten), by its Taylor series. */
function arctanInv(x: bigint, one: bigint): bigint {
  const x2 = x * x;
  let term = one / x;
  let sum = term;
  for (let n = 3n, sign = -1n; term !== 0n; n += 2n, sign = -sign) {
    term /= x2;
    sum += (sign * term) / n;
  }
  return sum;
}

const piCache = new Map<number, string>();

/**
 * Pi to `n` significant digits (n ≥ 1) as `bpi(n)` prints it: `3`, `3.1`, `3.14` …,
 * the last digit rounded half to even.
 * @throws RangeError when n is not an integer in 1..100000
 */
export function piDigits(n: number): string {
  if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new RangeError(`bpi: precision ${n} out of range`);
  const hit = piCache.get(n);
  if (hit) return hit;
  const guard = 12;
  const one = 10n ** BigInt(n - 1 + guard);
  const pi = 16n * arctanInv(5n, one) - 4n * arctanInv(239n, one);
  // pi * 10^(n-1) with `guard` extra digits: round to an integer of n digits
  const scale = 10n ** BigInt(guard);
  let q = pi / scale;
  const r = pi % scale;
  const half = scale / 2n;
  if (r > half || (r === half && q % 2n === 1n)) q += 1n;
  const s = q.toString();
  const out = n === 1 ? s : `${s[0]}.${s.slice(1)}`;
  if (piCache.size > 16) piCache.clear();
  piCache.set(n, out);
  return out;
}

/**
 * `perl [-switches] -e PROGRAM` (switches may be bundled: `-wle`); `-l` ends `print`
 * with a newline; `-M…`/`-w` are accepted. See the module doc for what runs.
 */
export const perl: Command = async (args, c) => {
  let program: string | undefined;
  let newline = false;
  for (let i = 0; i < args.length && program === undefined; i++) {
    const a = args[i]!;
    if (!a.startsWith('-') || a === '-') break;
    if (a.startsWith('-M') || a.startsWith('-m') || a.startsWith('-I')) continue;
    for (let k = 1; k < a.length; k++) {
      const f = a[k]!;
      if (f === 'l') newline = true;
      else if (f === 'e' || f === 'E') {
        program = k + 1 < a.length ? a.slice(k + 1) : (args[++i] ?? '');
        break;
      }
    }
  }
  const m = program === undefined ? null : /^\s*print\s*\(?\s*bpi\s*\(\s*(\d+)\s*\)\s*\)?\s*;?\s*$/.exec(program);
  if (!m || Number(m[1]) < 1 || Number(m[1]) > 100_000) {
    c.err.write('perl: the simulated runtime (sim) runs no real perl: it supports only `perl -Mbignum=bpi -le "print bpi(N)"`\n');
    return 255;
  }
  c.out.write(piDigits(Number(m[1])) + (newline ? '\n' : ''));
  return 0;
};

/**
 * Go's time.ParseDuration for command-line flags (`5m0s`, `1h`, `300ms`, `1.5h`):
 * a sequence of decimal numbers each with a unit (ns, us, µs, ms, s, m, h), an
 * optional sign; `0` alone is allowed.
 *
 * @see https://pkg.go.dev/time#ParseDuration
 */
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a Go duration into milliseconds.
 * @throws Error `time: invalid duration "<s>"` (Go's text) when `s` is not one
 */
export function parseGoDuration(s: string): number {
  const bad = () => new Error(`time: invalid duration ${JSON.stringify(s)}`);
  let rest = s;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest[0] === '-' ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw bad();
  let ms = 0;
  const re = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest.length > 0) {
    const m = re.exec(rest);
    if (!m) throw bad();
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  return sign * ms;
}

/**
 * Human-readable durations as kubectl prints them (the AGE column, "5m ago").
 *
 * Both functions take milliseconds (JS convention); upstream takes a time.Duration.
 * Values are truncated toward zero the way Go's `int(d.Seconds())` and `d / time.Minute` do.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/util/duration/duration.go
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Truncating integer division (Go's int conversion of a float / integer division). */
const div = (ms: number, unit: number): number => Math.trunc(ms / unit);

/**
 * A succinct duration with ~2-3 significant figures, as upstream `duration.HumanDuration`:
 * "0s"…"119s", "2m1s"…"9m59s", "10m"…"179m", "3h"…"7h59m", "8h"…"47h", "2d"…"7d23h",
 * "8d"…"729d", "2y"…"7y364d", then "8y"… A value below -1s (clock skew beyond tolerance)
 * gives "<invalid>"; -1s..0 gives "0s".
 *
 * @param ms duration in milliseconds
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/util/duration/duration.go
 */
export function humanDuration(ms: number): string {
  const seconds = div(ms, SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = div(ms, MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = div(ms, HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${div(hours, 24)}d` : `${div(hours, 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${div(hours, 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = div(hours, 24) % 365;
    return dy === 0 ? `${div(hours, 24 * 365)}y` : `${div(hours, 24 * 365)}y${dy}d`;
  }
  return `${div(hours, 24 * 365)}y`;
}

/**
 * A one-unit duration as upstream `duration.ShortHumanDuration`: "59s", "1m", "23h", "364d", "1y".
 * Below -1s gives "<invalid>"; -1s..0 gives "0s".
 *
 * @param ms duration in milliseconds
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/util/duration/duration.go
 */
export function shortHumanDuration(ms: number): string {
  const seconds = div(ms, SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = div(ms, MINUTE);
  if (minutes < 60) return `${minutes}m`;
  const hours = div(ms, HOUR);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${div(hours, 24)}d`;
  return `${div(hours, 24 * 365)}y`;
}

/**
 * Go's time.Duration.String() for a whole number of milliseconds, e.g. 1203 →
 * "1.203s", 500 → "500ms", 80000 → "1m20s", 300000 → "5m0s", 0 → "0s".
 * @see https://pkg.go.dev/time#Duration.String
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let v = Math.abs(ms);
  let out: string;
  if (v < 1000) out = `${trimFloat(v)}ms`;
  else {
    const h = Math.floor(v / 3_600_000);
    v -= h * 3_600_000;
    const m = Math.floor(v / 60_000);
    v -= m * 60_000;
    const s = `${trimFloat(v / 1000)}s`;
    out = h ? `${h}h${m}m${s}` : m ? `${m}m${s}` : s;
  }
  return neg ? `-${out}` : out;
}

function trimFloat(n: number): string {
  return String(Number(n.toFixed(9)));
}

/**
 * Timestamps as the API writes them (metav1.Time: RFC3339, with nanoseconds where the
 * source has them, e.g. CRI log lines and `sinceTime`).
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/apis/meta/v1/time.go
 */

const TS_RE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

/**
 * Parses an RFC3339 / RFC3339Nano timestamp to ms since the epoch (fractional).
 * @returns NaN when it is not one
 */
export function parseRFC3339(ts: string): number {
  const m = TS_RE.exec(ts);
  if (!m) return NaN;
  const base = Date.parse(`${m[1]}${m[3] === 'Z' ? 'Z' : m[3]}`);
  if (Number.isNaN(base)) return NaN;
  return m[2] ? base + Number(`0.${m[2]}`) * 1000 : base;
}

/**
 * Joins two byte streams after a protocol upgrade (client ↔ API server ↔ kubelet): what
 * one side sends is written to the other, in both directions, until the session ends.
 *
 * When one side closes, the other is ended, not destroyed: bytes still queued for it
 * (the end of an exec's output and its status frame, behind a slow client) are written
 * out first; it is destroyed only if its peer has not closed `graceMs` later. An error on
 * either side tears both down at once.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apimachinery/pkg/util/proxy/upgradeaware.go (both copy loops end the session)
 */
import type { Duplex } from 'node:stream';

/** Joins `a` and `b` (see module doc); `graceMs` bounds how long a side with queued bytes may take after the other closed (ms). */
export function splice(a: Duplex, b: Duplex, graceMs = 10_000): void {
  a.pipe(b);
  b.pipe(a);
  const kill = (): void => {
    a.destroy();
    b.destroy();
  };
  const endSoon = (s: Duplex): void => {
    if (s.destroyed) return;
    if (!s.writableEnded) s.end();
    const t = setTimeout(() => s.destroy(), graceMs);
    t.unref();
    s.once('close', () => clearTimeout(t));
  };
  a.on('error', kill);
  b.on('error', kill);
  a.on('close', () => endSoon(b));
  b.on('close', () => endSoon(a));
}

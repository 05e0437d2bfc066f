/**
 * Per-key exponential back-off (upstream flowcontrol.Backoff): starts at `initialMs`,
 * doubles per failure up to `maxMs`, and forgets a key whose last update is more
 * than 2×max old (so a container that ran 10 minutes with max 5 minutes starts over).
 *
 * @see https://github.com/kubernetes/client-go/blob/master/util/flowcontrol/backoff.go
 */
import type { Clock } from '../../util/clock.js';

interface Entry {
  backoff: number;
  lastUpdate: number;
}

export class Backoff {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    readonly initialMs = 10_000,
    readonly maxMs = 300_000,
  ) {}

  private expired(eventTime: number, e: Entry): boolean {
    return eventTime - e.lastUpdate > this.maxMs * 2;
  }

  /** Current back-off of `key` in ms (0 when unknown). */
  get(key: string): number {
    return this.entries.get(key)?.backoff ?? 0;
  }

  /** When `key`'s back-off was last updated (ms since the epoch; undefined when unknown). */
  lastUpdate(key: string): number | undefined {
    return this.entries.get(key)?.lastUpdate;
  }

  /** Records a failure at `eventTime` (ms): first one → initial, then doubled. */
  next(key: string, eventTime: number): void {
    let e = this.entries.get(key);
    if (!e || this.expired(eventTime, e)) e = { backoff: this.initialMs, lastUpdate: 0 };
    else e = { backoff: Math.min(e.backoff * 2, this.maxMs), lastUpdate: 0 };
    e.lastUpdate = this.clock.now();
    this.entries.set(key, e);
  }

  /** Still backing off for an event (e.g. a container exit) at `eventTime`? */
  isInBackOffSince(key: string, eventTime: number): boolean {
    const e = this.entries.get(key);
    if (!e || this.expired(eventTime, e)) return false;
    return this.clock.now() - eventTime < e.backoff;
  }

  /** Still backing off since the last recorded failure (image pulls)? */
  isInBackOffSinceUpdate(key: string, eventTime: number): boolean {
    const e = this.entries.get(key);
    if (!e || this.expired(eventTime, e)) return false;
    return eventTime - e.lastUpdate < e.backoff;
  }

  /** Forgets keys starting with `prefix` (e.g. a deleted pod's UID). */
  forgetPrefix(prefix: string): void {
    for (const k of this.entries.keys()) if (k.startsWith(prefix)) this.entries.delete(k);
  }

  /** Drops entries not updated for 2×max (upstream GC). */
  gc(): void {
    const now = this.clock.now();
    for (const [k, e] of this.entries) if (this.expired(now, e)) this.entries.delete(k);
  }
}

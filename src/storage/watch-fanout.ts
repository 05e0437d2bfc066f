/**
 * The watch fan-out both backends share: one watcher's cursor, replay queue and
 * callbacks ({@link WatchSubscription}), and the delivery of a committed batch to every
 * watcher by key prefix ({@link publishToSubscriptions}). The SQLite hub feeds it from
 * its own commits, the etcd hub from one live etcd watch; each keeps its own replay of
 * history for watchers that start behind.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/storage/cacher/cacher.go (dispatchEvent)
 */
import type { WatchCallbacks, WatchEvent, Watcher } from './interface.js';

/** One watcher of keys under `prefix`. */
export abstract class WatchSubscription implements Watcher {
  /** highest revision delivered (or passed over as not matching) so far */
  cursor: number;
  /** live events held back while replaying history; undefined once live */
  pending: WatchEvent[] | undefined = undefined;
  stopped = false;

  constructor(
    readonly prefix: string,
    afterRevision: number,
    private readonly cb: WatchCallbacks,
  ) {
    this.cursor = afterRevision;
  }

  /** Hands `events` (non-empty, in revision order) to the watcher; a throwing callback ends it. */
  deliver(events: WatchEvent[]): void {
    if (this.stopped) return;
    this.cursor = events[events.length - 1]!.kv.modRevision;
    try {
      this.cb.onEvents(events);
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Everything up to `revision` under the prefix has been delivered. */
  progress(revision: number): void {
    if (this.stopped || revision < this.cursor) return;
    this.cursor = revision;
    try {
      this.cb.onProgress?.(revision);
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Ends the watcher with `err` (its `onError`, once). */
  fail(err: Error): void {
    if (this.stopped) return;
    this.stop();
    this.cb.onError?.(err);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.pending = undefined;
    this.detach();
  }

  /** Unregisters from the hub and releases what the backend holds for this watcher. */
  protected abstract detach(): void;

  /** Delivers what a history replay left queued beyond `cursor`, then goes live at `revision`. */
  goLive(revision: number): void {
    const pending = this.pending ?? [];
    this.pending = undefined;
    const rest = pending.filter((ev) => ev.kv.modRevision > this.cursor);
    if (rest.length > 0) this.deliver(rest);
    this.progress(revision);
  }
}

/** The longest prefix shared by the keys of `events` (non-empty). */
export function commonKeyPrefix(events: WatchEvent[]): string {
  let p = events[0]!.kv.key;
  for (let i = 1; i < events.length && p.length > 0; i++) {
    const k = events[i]!.kv.key;
    if (k.startsWith(p)) continue;
    let j = 0;
    const m = Math.min(p.length, k.length);
    while (j < m && p.charCodeAt(j) === k.charCodeAt(j)) j++;
    p = p.slice(0, j);
  }
  return p;
}

/**
 * Delivers a committed batch (non-empty, in revision order) to every watcher whose
 * prefix it touches, then notifies each live watcher of progress up to the batch's last
 * revision; watchers still replaying history queue their events. A watcher whose
 * prefix the batch's common key prefix rules in or out (batches are usually of one
 * resource) is served without testing each key.
 */
export function publishToSubscriptions(subs: Iterable<WatchSubscription>, events: WatchEvent[]): void {
  const last = events[events.length - 1]!.kv.modRevision;
  const common = commonKeyPrefix(events);
  for (const sub of subs) {
    const prefix = sub.prefix;
    let mine: WatchEvent[] | undefined;
    if (common.startsWith(prefix)) {
      // every key is under the prefix
      if (events[0]!.kv.modRevision > sub.cursor) mine = events;
      else for (const ev of events) if (ev.kv.modRevision > sub.cursor) (mine ??= []).push(ev);
    } else if (prefix.startsWith(common)) {
      for (const ev of events) {
        if (ev.kv.modRevision > sub.cursor && ev.kv.key.startsWith(prefix)) (mine ??= []).push(ev);
      }
    } // else: the prefix diverges from every key
    if (sub.pending !== undefined) {
      if (mine !== undefined) sub.pending.push(...mine);
      continue;
    }
    if (mine !== undefined) sub.deliver(mine === events ? events.slice() : mine);
    sub.progress(last);
  }
}

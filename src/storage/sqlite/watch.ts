import { CompactedError, type WatchCallbacks, type WatchEvent, type Watcher } from '../interface.js';
import type { Core } from './core.js';
import { prefixEnd } from './keys.js';
import { rowToEvent } from './rows.js';
import { NO_UPPER_BOUND } from './statements.js';

/**
 * In-process watch fan-out, in the manner of kine's broadcaster + `Watch`:
 * a watcher subscribes first, then replays history from the table in steps of
 * `replayBatchRevisions` (yielding to the event loop between steps) while live
 * events queue up; once the replay reaches the current revision the queue is
 * drained, skipping revisions already replayed. So every watcher sees each
 * revision under its prefix exactly once, in order, without gaps.
 *
 * Event objects are shared between watchers: consumers must not mutate them.
 *
 * @see https://github.com/k3s-io/kine/blob/master/pkg/logstructured/logstructured.go (Watch)
 */
export class WatchHub {
  private readonly subs = new Set<Subscription>();

  constructor(
    private readonly core: Core,
    private readonly replayBatchRevisions: number,
  ) {}

  /** True when at least one watcher would receive events (the writer builds events only then). */
  get active(): boolean {
    return this.subs.size > 0;
  }

  /**
   * Starts a watcher on keys under `prefix` for revisions > `afterRevision`. A
   * revision beyond the current one is allowed (like etcd): events start when the
   * store gets there.
   *
   * @throws CompactedError when `afterRevision` < the compacted revision
   */
  subscribe(prefix: string, afterRevision: number, cb: WatchCallbacks): Watcher {
    this.core.assertOpen();
    if (afterRevision < this.core.compactRev) throw new CompactedError(afterRevision, this.core.compactRev);
    const sub = new Subscription(this, prefix, afterRevision, cb);
    this.subs.add(sub);
    if (afterRevision < this.core.rev) {
      sub.pending = [];
      setImmediate(() => this.replay(sub));
    }
    return sub;
  }

  /**
   * Delivers committed events (in revision order) to every watcher. A watcher whose
   * prefix the batch's common key prefix rules in or out (one resource per watch
   * cache, batches usually of one resource) is served without testing each event.
   */
  publish(events: WatchEvent[]): void {
    const n = events.length;
    if (n === 0) return;
    const last = events[n - 1]!.kv.modRevision;
    const common = commonKeyPrefix(events);
    for (const sub of this.subs) {
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

  /** Ends every watcher with `err` (on close). */
  failAll(err: Error): void {
    for (const sub of this.subs) sub.fail(err);
  }

  /** @internal */
  remove(sub: Subscription): void {
    this.subs.delete(sub);
  }

  private replay(sub: Subscription): void {
    if (sub.stopped) return;
    const core = this.core;
    if (core.closed) return;
    if (sub.cursor < core.compactRev) {
      sub.fail(new CompactedError(sub.cursor, core.compactRev));
      return;
    }
    const upTo = Math.min(core.rev, sub.cursor + this.replayBatchRevisions);
    const rows = core.stmts.selectHistory.all(sub.cursor, upTo, sub.prefix, sub.hi);
    if (rows.length > 0) {
      const events = new Array<WatchEvent>(rows.length);
      for (let i = 0; i < rows.length; i++) events[i] = rowToEvent(rows[i]!);
      sub.deliver(events);
    }
    sub.cursor = Math.max(sub.cursor, upTo);
    if (sub.stopped) return;
    if (sub.cursor < core.rev) {
      setImmediate(() => this.replay(sub));
      return;
    }
    // Caught up: drain what was published meanwhile, minus what the replay already covered.
    const pending = sub.pending!;
    sub.pending = undefined;
    const rest = pending.filter((ev) => ev.kv.modRevision > sub.cursor);
    if (rest.length > 0) sub.deliver(rest);
    sub.progress(core.rev);
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

/** One watcher. */
class Subscription implements Watcher {
  /** highest revision delivered (or skipped as not matching) so far */
  cursor: number;
  /** live events held back while replaying; undefined once live */
  pending: WatchEvent[] | undefined = undefined;
  stopped = false;
  /** exclusive upper bound of the prefix's key range */
  readonly hi: string | Buffer;

  constructor(
    private readonly hub: WatchHub,
    readonly prefix: string,
    afterRevision: number,
    private readonly cb: WatchCallbacks,
  ) {
    this.cursor = afterRevision;
    this.hi = prefixEnd(prefix) ?? NO_UPPER_BOUND;
  }

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

  fail(err: Error): void {
    if (this.stopped) return;
    this.stop();
    this.cb.onError?.(err);
  }

  stop(): void {
    this.stopped = true;
    this.pending = undefined;
    this.hub.remove(this);
  }
}

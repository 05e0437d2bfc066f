import { CompactedError, type WatchCallbacks, type WatchEvent, type Watcher } from '../interface.js';
import { publishToSubscriptions, WatchSubscription } from '../watch-fanout.js';
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

  /** Delivers committed events (in revision order) to every watcher (see publishToSubscriptions). */
  publish(events: WatchEvent[]): void {
    if (events.length > 0) publishToSubscriptions(this.subs, events);
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
    sub.goLive(core.rev);
  }
}

/** One watcher. */
class Subscription extends WatchSubscription {
  /** exclusive upper bound of the prefix's key range */
  readonly hi: string | Buffer;

  constructor(
    private readonly hub: WatchHub,
    prefix: string,
    afterRevision: number,
    cb: WatchCallbacks,
  ) {
    super(prefix, afterRevision, cb);
    this.hi = prefixEnd(prefix) ?? NO_UPPER_BOUND;
  }

  protected detach(): void {
    this.hub.remove(this);
  }
}

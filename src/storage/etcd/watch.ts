import { StorageError, type WatchCallbacks, type WatchEvent, type Watcher } from '../interface.js';
import { publishToSubscriptions, WatchSubscription } from '../watch-fanout.js';
import type { EtcdClient } from './client.js';
import { watchAll, type RawWatch } from './stream.js';

/** First and last delay between attempts to re-open the live watch after it broke, ms. */
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/**
 * In-process watch fan-out over etcd, in the manner of kube-apiserver's watch cache
 * feeding from one etcd watch: one live etcd watch over the whole keyspace, from the
 * revision the store was opened at, is split by prefix between watchers. Because it
 * sees every revision, each delivered batch is also a progress notification for every
 * watcher (the watch cache's consistent reads rely on it), without etcd's progress
 * requests (whose ordering etcd 3.4 does not guarantee).
 *
 * A watcher starting behind the live feed replays history from etcd on its own
 * stream (etcd's watch from a revision), while live events queue up; once the replay
 * reaches the live feed's revision the queue is drained minus what the replay covered.
 * Every watcher sees each revision under its prefix exactly once, in order.
 *
 * If the live watch breaks (etcd restarted, connection lost) it is re-opened from the
 * next revision; if that revision was compacted meanwhile every watcher ends with a
 * CompactedError (clients relist, as after a 410 Gone).
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/storage/etcd3/watcher.go
 */
export class EtcdWatchHub {
  private readonly subs = new Set<Subscription>();
  /** last revision received on the live feed */
  rev = 0;
  private live: RawWatch | undefined;
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly client: EtcdClient) {}

  /** Opens the live feed after `revision` (the store's revision at open). @throws StorageError */
  async start(revision: number): Promise<void> {
    this.rev = revision;
    await this.openLive();
  }

  private async openLive(): Promise<void> {
    this.live = await watchAll(this.client, this.rev + 1, this.rev, {
      onEvents: (events) => this.publish(events),
      onEnd: (err) => this.broken(err),
    });
    this.retryMs = RECONNECT_MIN_MS;
  }

  private broken(err: Error): void {
    this.live = undefined;
    if (this.closed) return;
    if (err.name === 'CompactedError') {
      this.failAll(err);
      return;
    }
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.closed) return;
      this.openLive().catch((e: Error) => this.broken(e));
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
  }

  /**
   * Starts a watcher on keys under `prefix` for revisions > `afterRevision`. The caller
   * checked that `afterRevision` is not compacted.
   *
   * @throws CompactedError when etcd compacted `afterRevision` meanwhile
   */
  async subscribe(prefix: string, afterRevision: number, cb: WatchCallbacks): Promise<Watcher> {
    if (this.closed) throw new StorageError('etcd storage closed');
    const sub = new Subscription(this, prefix, afterRevision, cb);
    const target = this.rev;
    if (afterRevision >= target) {
      this.subs.add(sub);
      return sub;
    }
    sub.pending = [];
    this.subs.add(sub);
    let replay: RawWatch;
    try {
      replay = await watchAll(this.client, Math.max(afterRevision, 1), afterRevision, {
        onEvents: (events) => this.replayed(sub, events, target),
        onEnd: (err) => sub.fail(err),
      });
    } catch (err) {
      this.subs.delete(sub);
      throw err;
    }
    // the replay may have caught up (or the watcher stopped) before the stream's handle got here
    if (sub.stopped || sub.pending === undefined) replay.stop();
    else sub.replay = replay;
    return sub;
  }

  /** Replay events for `sub`; goes live once the replay reaches `target`. */
  private replayed(sub: Subscription, events: WatchEvent[], target: number): void {
    if (sub.stopped || sub.pending === undefined) return;
    const mine = events.filter((ev) => ev.kv.modRevision > sub.cursor && ev.kv.key.startsWith(sub.prefix));
    if (mine.length > 0) sub.deliver(mine);
    const last = events[events.length - 1]!.kv.modRevision;
    if (sub.stopped) return;
    sub.cursor = Math.max(sub.cursor, last);
    if (last < target) return;
    sub.replay?.stop();
    sub.replay = undefined;
    sub.goLive(this.rev);
  }

  /** Delivers a batch of the live feed to every watcher, then notifies progress. */
  private publish(events: WatchEvent[]): void {
    this.rev = events[events.length - 1]!.kv.modRevision;
    publishToSubscriptions(this.subs, events);
  }

  /** Ends every watcher with `err`. */
  failAll(err: Error): void {
    for (const sub of this.subs) sub.fail(err);
  }

  /** @internal */
  remove(sub: Subscription): void {
    this.subs.delete(sub);
  }

  /** Stops the live feed and ends every watcher with a StorageError. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.live?.stop();
    this.live = undefined;
    this.failAll(new StorageError('etcd storage closed'));
  }
}

/** One watcher. */
class Subscription extends WatchSubscription {
  /** the history replay, while it runs */
  replay: RawWatch | undefined;

  constructor(
    private readonly hub: EtcdWatchHub,
    prefix: string,
    afterRevision: number,
    cb: WatchCallbacks,
  ) {
    super(prefix, afterRevision, cb);
  }

  protected detach(): void {
    this.replay?.stop();
    this.replay = undefined;
    this.hub.remove(this);
  }
}

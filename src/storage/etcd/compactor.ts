/**
 * kube-apiserver's etcd compactor: every interval, compact etcd to the revision
 * seen at the previous interval, so about one interval of history stays readable.
 * Several API servers over one etcd agree on who compacts through a transaction on
 * the `compact_rev_key` key: only the server whose view of that key's version is
 * current writes it (bumping the version) and compacts; the others adopt the
 * winner's version and revision.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/storage/storagebackend/factory/etcd3.go (startCompactorOnce)
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/storage/etcd3/compact.go
 */
import { etcdError, num, type EtcdClient } from './client.js';
import { keyBytes } from './convert.js';
import type { Every } from '../sqlite/compact.js';
import { everyUnref } from '../sqlite/compact.js';

/** The key the API servers coordinate compaction on (outside `--etcd-prefix`, as upstream). */
export const COMPACT_REV_KEY = 'compact_rev_key';

/** Upstream's default `--etcd-compaction-interval` (5 min), ms. */
export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60_000;

/**
 * The periodic compactor. State: the version of `compact_rev_key` this server last
 * saw (`time`) and the revision of the previous tick (`rev`, the next compaction
 * target).
 */
export class EtcdCompactor {
  private time = 0;
  private rev = 0;
  private cancel: (() => void) | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: EtcdClient,
    readonly intervalMs: number = DEFAULT_COMPACTION_INTERVAL_MS,
    private readonly onCompacted: (revision: number) => void = () => {},
    private readonly onError: (err: Error) => void = () => {},
  ) {}

  /** Starts ticking on `every` (default an unref'd interval). */
  start(every: Every = everyUnref): void {
    this.cancel ??= every(this.intervalMs, () => void this.tick());
  }

  /**
   * One round: try to claim this interval's compaction; when claimed and a previous
   * revision is known, compact etcd to it. Resolves when done (a run in progress is
   * joined). Errors go to `onError`; the next tick retries.
   */
  tick(): Promise<void> {
    this.running ??= this.round()
      .catch((err: Error) => this.onError(err))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async round(): Promise<void> {
    const k = keyBytes(COMPACT_REV_KEY);
    let res;
    try {
      res = await this.client.txn({
        compare: [{ result: 'EQUAL', target: 'VERSION', key: k, version: String(this.time) }],
        success: [{ requestPut: { key: k, value: Buffer.from(String(this.rev)) } }],
        failure: [{ requestRange: { key: k } }],
      });
    } catch (err) {
      throw etcdError(err);
    }
    const target = this.rev;
    this.rev = num(res.header.revision);
    if (!res.succeeded) {
      // another server compacted this round; follow its count
      this.time = num(res.responses[0]?.responseRange?.kvs[0]?.version);
      return;
    }
    this.time++;
    if (target === 0) return; // no compaction on the first round
    try {
      await this.client.compact(target);
    } catch (err) {
      const e = etcdError(err, target);
      if (e.name !== 'CompactedError') throw e; // already compacted there by someone else: fine
    }
    this.onCompacted(target);
  }

  /** Stops ticking. */
  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
  }
}

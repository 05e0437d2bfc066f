import { KeyNotFoundError, RevisionMismatchError } from '../interface.js';
import type { WriteBatcher } from './batch.js';
import type { Every } from './compact.js';
import type { Core } from './core.js';

/** Expired keys deleted per sweep step. */
const SWEEP_BATCH = 1000;

/**
 * Deletes keys whose TTL passed (`kine_ttl.expires_at <= now`), in the manner of
 * kine's TTL loop: each through the normal write path as a delete conditional on the
 * revision the TTL was written with, so watchers see an ordinary delete event and a
 * key written again meanwhile is not touched. A TTL entry that no longer matches its
 * key (written again without TTL, or already deleted) is dropped.
 *
 * @see https://github.com/k3s-io/kine/blob/master/pkg/logstructured/logstructured.go (ttl)
 */
export class TTLSweeper {
  private cancel: (() => void) | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly core: Core,
    private readonly writer: WriteBatcher,
    private readonly onError: (err: Error) => void = () => {},
  ) {}

  /** Sweeps every `intervalMs` on `every`. */
  start(every: Every, intervalMs: number): void {
    this.cancel ??= every(intervalMs, () => void this.sweep());
  }

  /**
   * Deletes every key expired by now; resolves with how many were deleted (joins a
   * sweep in progress). Errors go to `onError`.
   */
  sweep(): Promise<number> {
    this.running ??= this.run()
      .catch((err: Error) => {
        this.onError(err);
        return 0;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<number> {
    let deleted = 0;
    for (;;) {
      if (this.core.closed || this.core.ttlNames.size === 0) return deleted;
      const expired = this.core.stmts.selectExpired.all(this.core.now(), SWEEP_BATCH);
      if (expired.length === 0) return deleted;
      const results = await Promise.allSettled(expired.map(([name, rev]) => this.writer.submit('delete', name, '', rev)));
      for (let i = 0; i < results.length; i++) {
        const r = results[i]!;
        if (r.status === 'fulfilled') {
          deleted++;
          continue;
        }
        if (!(r.reason instanceof KeyNotFoundError || r.reason instanceof RevisionMismatchError)) throw r.reason;
        if (this.core.closed) return deleted;
        // stale entry: the key changed since (a write with a TTL would have replaced the entry's revision)
        const [name, rev] = expired[i]!;
        this.core.stmts.deleteTTLAt.run(name, rev);
      }
      if (expired.length < SWEEP_BATCH) return deleted;
    }
  }

  /** Stops sweeping. */
  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
  }
}

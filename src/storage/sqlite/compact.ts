import { FutureRevisionError } from '../interface.js';
import { COMPACT_REV_KEY, type Core } from './core.js';

/**
 * Removes the history that no read at or after `upTo` can need, for revisions in
 * (after, upTo], in one transaction:
 * - every row superseded by a row in that range (its `prev_revision`), and
 * - every tombstone in that range (the rows it superseded go with the rule above).
 * A read at `upTo` still sees exactly what it saw before. Keys whose latest row was
 * a removed tombstone are forgotten, so a later create starts a fresh chain
 * (`prev_revision` 0). Persists `upTo` as the compacted revision.
 *
 * @see https://github.com/k3s-io/kine/blob/master/pkg/drivers/generic/generic.go (compactSQL)
 */
export function compactRange(core: Core, after: number, upTo: number): void {
  const { stmts } = core;
  core.db.transaction(() => {
    stmts.deleteSuperseded.run(after, upTo);
    for (const [id, name] of stmts.deleteTombstones.iterate(after, upTo)) {
      if (core.latest.get(name)?.modRevision === id) core.latest.delete(name);
    }
    stmts.upsertMeta.run(COMPACT_REV_KEY, upTo);
  })();
  core.compactRev = upTo;
}

/**
 * Compacts history below `revision` in steps of `batchRevisions` revisions, one
 * transaction each, yielding to the event loop between steps so writes keep
 * flowing. Compacting at or below the compacted revision does nothing.
 *
 * @throws FutureRevisionError when `revision` is beyond the current revision
 * @see https://github.com/k3s-io/kine/blob/master/pkg/logstructured/sqllog/sql.go (compactor)
 */
export async function compact(core: Core, revision: number, batchRevisions: number): Promise<void> {
  core.assertOpen();
  if (revision > core.rev) throw new FutureRevisionError(revision, core.rev);
  while (!core.closed && core.compactRev < revision) {
    const from = core.compactRev;
    compactRange(core, from, Math.min(revision, from + batchRevisions));
    if (core.compactRev < revision) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * Copies the WAL into the database file and truncates it (`wal_checkpoint(TRUNCATE)`).
 * Pages freed by compaction go to the file's freelist and are reused by later writes,
 * so the file stops growing once history is bounded.
 *
 * @see https://www.sqlite.org/pragma.html#pragma_wal_checkpoint
 */
export function checkpoint(core: Core): void {
  if (!core.closed) core.db.pragma('wal_checkpoint(TRUNCATE)');
}

/** Runs `fn` every `ms` milliseconds until the returned function is called. */
export type Every = (ms: number, fn: () => void) => () => void;

/** The default {@link Every}: an unref'd setInterval, so it never keeps the process alive. */
export const everyUnref: Every = (ms, fn) => {
  const t = setInterval(fn, ms);
  t.unref();
  return () => clearInterval(t);
};

/** Settings of the automatic compactor. */
export interface CompactionOptions {
  /** how often to compact (ms); default 300000 (5 min), as kine */
  intervalMs?: number;
  /** revisions of history kept behind the current revision; default 1000, as kine */
  retainRevisions?: number;
  /** revisions compacted per transaction; default 1000, as kine */
  batchRevisions?: number;
}

/**
 * Periodically compacts everything older than the last `retainRevisions`
 * revisions. Runs are serialised; a failure is reported to `onError` and the next
 * tick tries again.
 *
 * @see https://github.com/k3s-io/kine/blob/master/pkg/logstructured/sqllog/sql.go (compactStart)
 */
export class Compactor {
  readonly intervalMs: number;
  readonly retainRevisions: number;
  readonly batchRevisions: number;
  private cancel: (() => void) | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly core: Core,
    opts: CompactionOptions,
    private readonly onError: (err: Error) => void = () => {},
  ) {
    this.intervalMs = opts.intervalMs ?? 300_000;
    this.retainRevisions = opts.retainRevisions ?? 1000;
    this.batchRevisions = opts.batchRevisions ?? 1000;
  }

  /** Starts ticking on `every` (default: an unref'd interval). */
  start(every: Every = everyUnref): void {
    this.cancel ??= every(this.intervalMs, () => void this.tick());
  }

  /**
   * One compaction run: compacts to `current - retainRevisions` when that is ahead
   * of the compacted revision, then checkpoints the WAL into the database file and
   * truncates it, so the pages the compaction freed are reused by later writes and
   * the WAL does not keep its high-water size. Resolves when done (or immediately when a run is
   * already in progress, with that run).
   */
  tick(): Promise<void> {
    if (this.running) return this.running;
    const target = this.core.rev - this.retainRevisions;
    if (this.core.closed || target <= this.core.compactRev) return Promise.resolve();
    this.running = compact(this.core, target, this.batchRevisions)
      .then(() => checkpoint(this.core))
      .catch((err: Error) => this.onError(err))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** Stops ticking; a run in progress ends at its next step once the store is closed. */
  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
  }
}

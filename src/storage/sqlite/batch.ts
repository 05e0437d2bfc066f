import type Database from 'better-sqlite3';
import { StorageError, type KeyValue, type WatchEvent } from '../interface.js';
import type { Core } from './core.js';
import { applyCreate } from './create.js';
import { applyDelete } from './delete.js';
import { Undo, WriteOp, type OpKind } from './op.js';
import { applyUpdate } from './update.js';
import type { WatchHub } from './watch.js';

/** Most writes committed in one transaction; the rest wait for the next turn of the event loop. */
export const MAX_BATCH = 1024;

/**
 * Group commit. Writes issued during one turn of the event loop are queued and
 * applied together in one transaction at the next check phase (`setImmediate`):
 * one WAL append (and, with synchronous=FULL, one fsync) for the whole batch.
 * Every write is applied in submission order, so revisions follow it; a write
 * that fails its precondition fails alone. Promises settle, and watchers hear of
 * the batch, only after COMMIT returned, so an acknowledged write is durable.
 *
 * The transaction runs start to finish inside one synchronous call: no reader can
 * observe a half-applied batch.
 */
export class WriteBatcher {
  private queue: WriteOp[] = [];
  private scheduled = false;
  private readonly undo = new Undo();
  private readonly txn: Database.Transaction<(ops: WriteOp[], n: number) => void>;
  private readonly flushCb = () => this.flush();

  constructor(
    private readonly core: Core,
    private readonly hub: WatchHub,
  ) {
    this.txn = core.db.transaction((ops: WriteOp[], n: number) => {
      for (let i = 0; i < n; i++) {
        const op = ops[i]!;
        if (op.kind === 'create') applyCreate(core, op, this.undo);
        else if (op.kind === 'update') applyUpdate(core, op, this.undo);
        else applyDelete(core, op, this.undo);
      }
    });
  }

  /** Queues a write (`ttlSeconds`: see WriteOptions); the promise settles once its batch committed (or rolled back). */
  submit(kind: OpKind, key: string, value: string, expected: number, ttlSeconds = 0): Promise<KeyValue> {
    if (this.core.closed) return Promise.reject(new StorageError('sqlite storage is closed'));
    return new Promise<KeyValue>((resolve, reject) => {
      const op = new WriteOp(kind, key, value, expected, resolve, reject);
      op.ttlSeconds = ttlSeconds;
      this.queue.push(op);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flushCb);
      }
    });
  }

  /**
   * Commits the next batch of queued writes (all of them with `all`, as close()
   * does), scheduling another turn for the rest.
   */
  flush(all = false): void {
    this.scheduled = false;
    do {
      if (this.queue.length === 0) return;
      const ops = this.queue;
      const n = Math.min(ops.length, MAX_BATCH);
      this.queue = n < ops.length ? ops.slice(n) : [];
      this.commit(ops, n);
    } while (all);
    if (this.queue.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushCb);
    }
  }

  private commit(ops: WriteOp[], n: number): void {
    this.undo.begin(this.core);
    try {
      this.txn(ops, n);
    } catch (err) {
      this.undo.rollback(this.core);
      const e = err instanceof StorageError ? err : new StorageError(`sqlite: write failed: ${(err as Error).message}`, { cause: err });
      for (let i = 0; i < n; i++) ops[i]!.reject(e);
      return;
    }
    const events: WatchEvent[] | undefined = this.hub.active ? [] : undefined;
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      if (op.error !== undefined) {
        op.reject(op.error);
        continue;
      }
      const kv = op.result!;
      op.resolve(kv);
      if (events !== undefined) events.push(toEvent(this.core, op, kv));
    }
    if (events !== undefined && events.length > 0) this.hub.publish(events);
  }
}

function toEvent(core: Core, op: WriteOp, kv: KeyValue): WatchEvent {
  if (op.kind === 'create') return { type: 'create', kv };
  // an update's previous value is the previous row's (just committed, not compactable yet)
  const value = op.kind === 'update' ? (core.stmts.selectValue.get(op.prevRevision) ?? '') : kv.value;
  return {
    type: op.kind,
    kv,
    prevKv: { key: kv.key, value, createRevision: kv.createRevision, modRevision: op.prevRevision },
  };
}

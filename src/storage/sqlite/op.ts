import Database from 'better-sqlite3';
import { KeyExistsError, KeyNotFoundError, RevisionMismatchError, type KeyValue, type StorageError } from '../interface.js';
import type { Core } from './core.js';
import { Latest } from './rows.js';

/** The three write verbs. */
export type OpKind = 'create' | 'update' | 'delete';

/**
 * One queued write. The verb fills `result` (or `error`, a sentinel that fails only
 * this op) while the batch's transaction runs; the promise settles after commit.
 */
export class WriteOp {
  result: KeyValue | undefined = undefined;
  error: StorageError | undefined = undefined;
  /** modRevision of the key's previous row (0 when none) */
  prevRevision = 0;
  /** create/update: the key expires this many seconds after the write (0 = never) */
  ttlSeconds = 0;

  constructor(
    readonly kind: OpKind,
    readonly key: string,
    readonly value: string,
    /** expected modRevision (update, conditional delete); 0 = unconditional delete */
    readonly expected: number,
    readonly resolve: (kv: KeyValue) => void,
    readonly reject: (err: Error) => void,
  ) {}
}

/** Changes made to the in-memory state by a transaction, reverted if it rolls back. */
export class Undo {
  private readonly keys: string[] = [];
  private readonly prev: (Latest | undefined)[] = [];
  private rev = 0;

  begin(core: Core): void {
    this.keys.length = 0;
    this.prev.length = 0;
    this.rev = core.rev;
  }

  /** Sets `key`'s latest row, remembering the old one. */
  set(core: Core, key: string, prev: Latest | undefined, next: Latest | undefined): void {
    this.keys.push(key);
    this.prev.push(prev);
    if (next === undefined) core.latest.delete(key);
    else core.latest.set(key, next);
  }

  rollback(core: Core): void {
    for (let i = this.keys.length - 1; i >= 0; i--) {
      const p = this.prev[i];
      if (p === undefined) core.latest.delete(this.keys[i]!);
      else core.latest.set(this.keys[i]!, p);
    }
    core.rev = this.rev;
    this.keys.length = 0;
    this.prev.length = 0;
  }
}

/**
 * Translates an insert that the `UNIQUE(name, prev_revision)` guard rejected
 * (someone else appended after the row we based the write on) into the sentinel
 * for `op`, after refreshing the key's latest row from disk.
 *
 * @throws `err` itself when it is anything else (it then aborts the whole batch)
 *
 * @see https://github.com/k3s-io/kine/blob/master/pkg/logstructured/sqllog/sql.go (Append)
 */
export function guardConflict(core: Core, op: WriteOp, err: unknown, undo: Undo): StorageError {
  if (!(err instanceof Database.SqliteError) || err.code !== 'SQLITE_CONSTRAINT_UNIQUE') throw err;
  const row = core.stmts.selectLatestRow.get(op.key);
  const latest = row && new Latest(row.id, row.create_revision, row.deleted !== 0);
  undo.set(core, op.key, core.latest.get(op.key), latest);
  if (op.kind === 'create') return new KeyExistsError(op.key);
  if (row === undefined || row.deleted) return new KeyNotFoundError(op.key);
  return new RevisionMismatchError(op.key, {
    key: op.key,
    value: row.value,
    createRevision: row.create_revision,
    modRevision: row.id,
  });
}

/**
 * Records the TTL of a create or update at revision `id` in `kine_ttl`, or clears the
 * key's TTL when the write has none (as an etcd put without a lease). Runs inside the
 * batch transaction.
 */
export function applyTTL(core: Core, op: WriteOp, id: number): void {
  if (op.ttlSeconds > 0) {
    core.stmts.upsertTTL.run(op.key, id, core.now() + op.ttlSeconds * 1000);
    core.ttlNames.add(op.key);
  } else if (core.ttlNames.has(op.key)) {
    core.stmts.deleteTTL.run(op.key);
    core.ttlNames.delete(op.key);
  }
}

/** The current kv of a live key, for RevisionMismatchError. */
export function currentKv(core: Core, key: string, latest: Latest): KeyValue {
  const value = core.stmts.selectValue.get(latest.modRevision)!;
  return { key, value, createRevision: latest.createRevision, modRevision: latest.modRevision };
}

import { KeyNotFoundError, RevisionMismatchError, StorageError } from '../interface.js';
import type { Core } from './core.js';
import { currentKv, guardConflict, type Undo, type WriteOp } from './op.js';
import { Latest } from './rows.js';

/**
 * Appends a tombstone for `op.key` (keeping the last value in `value` and
 * `old_value`), optionally only if its modRevision is `op.expected`. Runs inside
 * the batch transaction.
 *
 * @throws KeyNotFoundError, RevisionMismatchError (as `op.error`)
 * @see https://github.com/k3s-io/kine/blob/master/pkg/logstructured/logstructured.go (Delete)
 */
export function applyDelete(core: Core, op: WriteOp, undo: Undo): void {
  const prev = core.latest.get(op.key);
  if (prev === undefined || prev.deleted) {
    op.error = new KeyNotFoundError(op.key);
    return;
  }
  if (op.expected !== 0 && prev.modRevision !== op.expected) {
    op.error = new RevisionMismatchError(op.key, currentKv(core, op.key, prev));
    return;
  }
  const id = core.rev + 1;
  let value: string | null | undefined;
  try {
    value = core.stmts.insertDelete.get(id, prev.modRevision, op.key);
  } catch (err) {
    op.error = guardConflict(core, op, err, undo);
    return;
  }
  if (value === undefined) throw new StorageError(`sqlite: row ${prev.modRevision} of ${op.key} is missing`);
  if (core.ttlNames.has(op.key)) {
    core.stmts.deleteTTL.run(op.key);
    core.ttlNames.delete(op.key);
  }
  core.rev = id;
  undo.set(core, op.key, prev, new Latest(id, prev.createRevision, true));
  op.prevRevision = prev.modRevision;
  op.result = { key: op.key, value: value ?? '', createRevision: prev.createRevision, modRevision: id };
}

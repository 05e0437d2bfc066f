import { KeyNotFoundError, RevisionMismatchError, StorageError } from '../interface.js';
import type { Core } from './core.js';
import { applyTTL, currentKv, guardConflict, type Undo, type WriteOp } from './op.js';
import { Latest } from './rows.js';

/**
 * Compare-and-swap: appends a row for `op.key` whose `prev_revision` is the
 * expected modRevision, copying `create_revision` and `old_value` from that row
 * inside SQLite. Runs inside the batch transaction.
 *
 * @throws KeyNotFoundError, RevisionMismatchError (as `op.error`)
 * @see https://github.com/k3s-io/kine/blob/master/pkg/logstructured/logstructured.go (Update)
 */
export function applyUpdate(core: Core, op: WriteOp, undo: Undo): void {
  const prev = core.latest.get(op.key);
  if (prev === undefined || prev.deleted) {
    op.error = new KeyNotFoundError(op.key);
    return;
  }
  if (prev.modRevision !== op.expected) {
    op.error = new RevisionMismatchError(op.key, currentKv(core, op.key, prev));
    return;
  }
  const id = core.rev + 1;
  let old: string | null | undefined;
  try {
    old = core.stmts.insertUpdate.get(id, op.value, prev.modRevision, op.key);
  } catch (err) {
    op.error = guardConflict(core, op, err, undo);
    return;
  }
  if (old === undefined) throw new StorageError(`sqlite: row ${prev.modRevision} of ${op.key} is missing`);
  applyTTL(core, op, id);
  core.rev = id;
  undo.set(core, op.key, prev, new Latest(id, prev.createRevision, false));
  op.prevRevision = prev.modRevision;
  op.prevValue = old ?? '';
  op.result = { key: op.key, value: op.value, createRevision: prev.createRevision, modRevision: id };
}

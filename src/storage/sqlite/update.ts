import { KeyNotFoundError, RevisionMismatchError } from '../interface.js';
import type { Core } from './core.js';
import { applyTTL, currentKv, guardConflict, type Undo, type WriteOp } from './op.js';
import { Latest } from './rows.js';

/**
 * Compare-and-swap: appends a row for `op.key` whose `prev_revision` is the
 * expected modRevision, with the key's `create_revision` (both known in memory). The
 * row does not repeat the previous value in `old_value` (a second copy of every
 * object in the WAL and the table): the watch event's prevKv reads it from the
 * previous row (see WriteBatcher). Runs inside the batch transaction.
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
  try {
    core.stmts.insertUpdate.run(id, op.key, prev.createRevision, prev.modRevision, op.value);
  } catch (err) {
    op.error = guardConflict(core, op, err, undo);
    return;
  }
  applyTTL(core, op, id);
  core.rev = id;
  undo.set(core, op.key, prev, new Latest(id, prev.createRevision, false));
  op.prevRevision = prev.modRevision;
  op.result = { key: op.key, value: op.value, createRevision: prev.createRevision, modRevision: id };
}

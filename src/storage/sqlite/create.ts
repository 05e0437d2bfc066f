import { KeyExistsError } from '../interface.js';
import type { Core } from './core.js';
import { applyTTL, guardConflict, type Undo, type WriteOp } from './op.js';
import { Latest } from './rows.js';

/**
 * Appends a creating row for `op.key` at the next revision. A key that never
 * existed, or whose latest row is a tombstone, can be created; the new row's
 * `prev_revision` is that tombstone (or 0), so the UNIQUE guard rejects a racing
 * second create. Runs inside the batch transaction.
 *
 * @throws KeyExistsError (as `op.error`) when the key is live
 * @see https://github.com/k3s-io/kine/blob/master/pkg/logstructured/logstructured.go (Create)
 */
export function applyCreate(core: Core, op: WriteOp, undo: Undo): void {
  const prev = core.latest.get(op.key);
  if (prev !== undefined && !prev.deleted) {
    op.error = new KeyExistsError(op.key);
    return;
  }
  const id = core.rev + 1;
  const prevRevision = prev === undefined ? 0 : prev.modRevision;
  try {
    core.stmts.insertCreate.run(id, op.key, id, prevRevision, op.value);
  } catch (err) {
    op.error = guardConflict(core, op, err, undo);
    return;
  }
  applyTTL(core, op, id);
  core.rev = id;
  undo.set(core, op.key, prev, new Latest(id, id, false));
  op.prevRevision = prevRevision;
  op.result = { key: op.key, value: op.value, createRevision: id, modRevision: id };
}

import type { Core } from './core.js';
import { prefixEnd } from './keys.js';
import { NO_UPPER_BOUND } from './statements.js';

/**
 * Counts the live keys under `prefix` at the current revision.
 *
 * @throws StorageError when the store is closed
 * @see https://github.com/k3s-io/kine/blob/master/pkg/server/list.go (countOnly)
 */
export function count(core: Core, prefix: string): { revision: number; count: number } {
  const rev = core.readRevision(undefined);
  const n = core.stmts.countFrom.get({ lo: prefix, hi: prefixEnd(prefix) ?? NO_UPPER_BOUND, rev })!;
  return { revision: rev, count: n };
}

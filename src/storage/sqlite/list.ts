import type { KeyValue, ListOptions, ListResult } from '../interface.js';
import type { Core } from './core.js';
import { compareKeys, prefixEnd } from './keys.js';
import { NO_UPPER_BOUND } from './statements.js';

/**
 * Lists the live keys under `prefix` at a revision, in key order, one page at a
 * time: `limit` keys after `startAfter`. `remaining` counts the live keys after
 * the page (one extra count query, only when the page is cut short).
 *
 * @throws FutureRevisionError, CompactedError for an unreadable `opts.revision`
 * @see https://github.com/k3s-io/kine/blob/master/pkg/server/list.go
 */
export function list(core: Core, prefix: string, opts: ListOptions = {}): ListResult {
  const rev = core.readRevision(opts.revision);
  const hi = prefixEnd(prefix) ?? NO_UPPER_BOUND;
  const after = opts.startAfter !== undefined && compareKeys(opts.startAfter, prefix) >= 0;
  const lo = after ? opts.startAfter! : prefix;
  const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
  const stmt = after ? core.stmts.listAfter : core.stmts.listFrom;
  const rows = stmt.all({ lo, hi, rev, limit: limit ? limit + 1 : -1 });

  const more = limit > 0 && rows.length > limit;
  const n = more ? limit : rows.length;
  const kvs: KeyValue[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    kvs[i] = { key: r.name, value: r.value, createRevision: r.create_revision, modRevision: r.id };
  }
  const remaining = more ? core.stmts.countAfter.get({ lo: kvs[n - 1]!.key, hi, rev })! : 0;
  return { revision: rev, kvs, more, remaining };
}

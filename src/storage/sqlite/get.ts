import type { KeyValue } from '../interface.js';
import type { Core } from './core.js';

/**
 * Reads one key at the current revision (from the in-memory latest row plus one
 * primary-key lookup for the value) or at an older revision (the key's newest row
 * at or below it).
 *
 * @throws FutureRevisionError, CompactedError for an unreadable `revision`
 * @see https://github.com/k3s-io/kine/blob/master/pkg/logstructured/logstructured.go (Get)
 */
export function get(core: Core, key: string, revision?: number): { revision: number; kv?: KeyValue } {
  const rev = core.readRevision(revision);
  if (rev === core.rev) {
    const latest = core.latest.get(key);
    if (latest === undefined || latest.deleted) return { revision: rev };
    const value = core.stmts.selectValue.get(latest.modRevision)!;
    return { revision: rev, kv: { key, value, createRevision: latest.createRevision, modRevision: latest.modRevision } };
  }
  const row = core.stmts.selectRowAtRevision.get(key, rev);
  if (row === undefined || row.deleted) return { revision: rev };
  return { revision: rev, kv: { key, value: row.value, createRevision: row.create_revision, modRevision: row.id } };
}

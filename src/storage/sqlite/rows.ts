import type { KeyValue, WatchEvent } from '../interface.js';

/** A full row of the `kine` table, as selected by history queries. */
export interface Row {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string;
  old_value: string | null;
}

/** Columns selected into a {@link Row}, in declaration order. */
export const ROW_COLUMNS = 'id, name, created, deleted, create_revision, prev_revision, value, old_value';

/**
 * The latest row of a key, kept in memory for every key with at least one row
 * (tombstones included, until compaction removes them): creates and
 * compare-and-swap checks need no query. Values stay on disk.
 */
export class Latest {
  constructor(
    /** id of the key's latest row (its modRevision, or the tombstone's revision) */
    readonly modRevision: number,
    readonly createRevision: number,
    /** true when the latest row is a tombstone */
    readonly deleted: boolean,
  ) {}
}

/** The key/value a row stores. For a tombstone that is the deleted value at the deletion's revision. */
export function rowToKv(row: Row): KeyValue {
  return { key: row.name, value: row.value, createRevision: row.create_revision, modRevision: row.id };
}

/** The watch event a row stands for. */
export function rowToEvent(row: Row): WatchEvent {
  const kv = rowToKv(row);
  if (row.created) return { type: 'create', kv };
  return {
    type: row.deleted ? 'delete' : 'update',
    kv,
    prevKv: { key: row.name, value: row.old_value ?? '', createRevision: row.create_revision, modRevision: row.prev_revision },
  };
}

import type Database from 'better-sqlite3';
import { ROW_COLUMNS, type Row } from './rows.js';

/** Bounds of a key range: `lo` inclusive or exclusive, `hi` exclusive (a BLOB sorts after every TEXT key). */
export interface RangeParams {
  lo: string;
  hi: string | Buffer;
  rev: number;
}

/** Upper bound for "no upper bound": SQLite sorts every BLOB after every TEXT value. */
export const NO_UPPER_BOUND = Buffer.from([0xff]);

/**
 * {@link ROW_COLUMNS} of `kine AS kv` for history, `old_value` of an update row read from
 * its previous row when the row does not carry it (updates leave it NULL; rows written
 * before did carry it). Compaction keeps the previous row of every row above the
 * compacted revision, so history always finds it.
 */
const HISTORY_COLUMNS = `kv.id, kv.name, kv.created, kv.deleted, kv.create_revision, kv.prev_revision, kv.value,
  CASE WHEN kv.old_value IS NULL AND kv.created = 0 THEN (SELECT p.value FROM kine AS p WHERE p.id = kv.prev_revision) ELSE kv.old_value END AS old_value`;

/** A list page row. */
export interface ListRow {
  id: number;
  name: string;
  create_revision: number;
  value: string;
}

// The live row of a key at revision @rev is its newest row with id <= @rev, unless a tombstone.
const LIVE_AT_REV = `kv.id <= @rev AND kv.deleted = 0
  AND kv.id = (SELECT MAX(m.id) FROM kine AS m WHERE m.name = kv.name AND m.id <= @rev)`;

function listSql(lower: '>=' | '>'): string {
  return `SELECT kv.id, kv.name, kv.create_revision, kv.value FROM kine AS kv INDEXED BY kine_name_id_index
    WHERE kv.name ${lower} @lo AND kv.name < @hi AND ${LIVE_AT_REV}
    ORDER BY kv.name LIMIT @limit`;
}

function countSql(lower: '>=' | '>'): string {
  return `SELECT COUNT(*) FROM kine AS kv INDEXED BY kine_name_id_index WHERE kv.name ${lower} @lo AND kv.name < @hi AND ${LIVE_AT_REV}`;
}

/**
 * Every statement the backend runs, prepared once at open (no SQL is compiled on
 * the hot path).
 */
export function prepareStatements(db: Database.Database) {
  return {
    // writes: one appended row each; `id` is given explicitly (the next revision)
    insertCreate: db.prepare<[id: number, name: string, createRevision: number, prevRevision: number, value: string]>(
      `INSERT INTO kine (id, name, created, deleted, create_revision, prev_revision, value, old_value)
       VALUES (?, ?, 1, 0, ?, ?, ?, NULL)`,
    ),
    // old_value stays NULL: the previous row holds that value (history reads it from there)
    insertUpdate: db.prepare<[id: number, name: string, createRevision: number, prevRevision: number, value: string]>(
      `INSERT INTO kine (id, name, created, deleted, create_revision, prev_revision, value, old_value)
       VALUES (?, ?, 0, 0, ?, ?, ?, NULL)`,
    ),
    insertDelete: db
      .prepare<[id: number, prevId: number, name: string], string | null>(
        `INSERT INTO kine (id, name, created, deleted, create_revision, prev_revision, value, old_value)
         SELECT ?, name, 0, 1, create_revision, id, value, value FROM kine WHERE id = ? AND name = ?
         RETURNING value`,
      )
      .pluck(),

    // point reads
    selectValue: db.prepare<[id: number], string>('SELECT value FROM kine WHERE id = ?').pluck(),
    selectOldValue: db.prepare<[id: number], string | null>('SELECT old_value FROM kine WHERE id = ?').pluck(),
    selectLatestRow: db.prepare<[name: string], Row>(`SELECT ${ROW_COLUMNS} FROM kine WHERE name = ? ORDER BY id DESC LIMIT 1`),
    selectRowAtRevision: db.prepare<[name: string, rev: number], Row>(`SELECT ${ROW_COLUMNS} FROM kine WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1`),

    // ranges
    listFrom: db.prepare<[RangeParams & { limit: number }], ListRow>(listSql('>=')),
    listAfter: db.prepare<[RangeParams & { limit: number }], ListRow>(listSql('>')),
    countFrom: db.prepare<[RangeParams], number>(countSql('>=')).pluck(),
    countAfter: db.prepare<[RangeParams], number>(countSql('>')).pluck(),
    /** history rows in (after, upTo] under a key range, in revision order; scans the rowid range, not the name index */
    selectHistory: db.prepare<[after: number, upTo: number, lo: string, hi: string | Buffer], Row>(
      `SELECT ${HISTORY_COLUMNS} FROM kine AS kv NOT INDEXED WHERE kv.id > ? AND kv.id <= ? AND kv.name >= ? AND kv.name < ? ORDER BY kv.id`,
    ),

    // open
    selectLatestAll: db
      .prepare<[], [name: string, id: number, createRevision: number, deleted: number]>(
        `SELECT kv.name, kv.id, kv.create_revision, kv.deleted FROM kine AS kv
         JOIN (SELECT MAX(id) AS id FROM kine GROUP BY name) AS m ON m.id = kv.id`,
      )
      .raw(),
    selectSequence: db.prepare<[], number>(`SELECT seq FROM sqlite_sequence WHERE name = 'kine'`).pluck(),
    selectMeta: db.prepare<[key: string], number>('SELECT value FROM kine_meta WHERE key = ?').pluck(),
    upsertMeta: db.prepare<[key: string, value: number]>('INSERT INTO kine_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),

    // keys with a TTL (see schema.ts)
    upsertTTL: db.prepare<[name: string, revision: number, expiresAt: number]>(
      'INSERT INTO kine_ttl (name, revision, expires_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET revision = excluded.revision, expires_at = excluded.expires_at',
    ),
    deleteTTL: db.prepare<[name: string]>('DELETE FROM kine_ttl WHERE name = ?'),
    deleteTTLAt: db.prepare<[name: string, revision: number]>('DELETE FROM kine_ttl WHERE name = ? AND revision = ?'),
    selectExpired: db
      .prepare<[now: number, limit: number], [name: string, revision: number]>('SELECT name, revision FROM kine_ttl WHERE expires_at <= ? ORDER BY expires_at LIMIT ?')
      .raw(),
    selectTTLNames: db.prepare<[], string>('SELECT name FROM kine_ttl').pluck(),

    // compaction of the revisions in (after, upTo]
    deleteSuperseded: db.prepare<[after: number, upTo: number]>(`DELETE FROM kine WHERE id IN (SELECT prev_revision FROM kine WHERE id > ? AND id <= ? AND prev_revision > 0)`),
    deleteTombstones: db.prepare<[after: number, upTo: number], [id: number, name: string]>('DELETE FROM kine WHERE id > ? AND id <= ? AND deleted = 1 RETURNING id, name').raw(),
  };
}

/** The prepared statements of one open database. */
export type Statements = ReturnType<typeof prepareStatements>;

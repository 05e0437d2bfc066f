import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { UnsupportedError, type Storage } from './interface.js';
import { SqliteStorage, type SqliteStorageOptions } from './sqlite/sqlite.js';

export * from './interface.js';
export { SqliteStorage, type SqliteStorageOptions } from './sqlite/sqlite.js';

/** Options of the embedded SQLite backend. */
export interface OpenSqliteOptions extends Omit<SqliteStorageOptions, 'file'> {
  kind: 'sqlite';
  /** the node's data directory; the database is `<dataDir>/db/state.db` */
  dataDir: string;
}

/** Which backend to open, and its settings. */
export type OpenStorageOptions = OpenSqliteOptions;

/** Path of the SQLite database under a data directory. */
export function sqliteFile(dataDir: string): string {
  return join(dataDir, 'db', 'state.db');
}

/**
 * Opens the configured storage backend.
 *
 * @throws UnsupportedError for an unknown `kind`
 * @throws StorageError when the backend cannot be opened (e.g. the database is locked by another process)
 */
export async function openStorage(opts: OpenStorageOptions): Promise<Storage> {
  switch (opts.kind) {
    case 'sqlite': {
      const { kind: _kind, dataDir, ...rest } = opts;
      mkdirSync(join(dataDir, 'db'), { recursive: true });
      return SqliteStorage.open({ ...rest, file: sqliteFile(dataDir) });
    }
    default:
      throw new UnsupportedError(`storage kind ${(opts as { kind: string }).kind}`);
  }
}

import type Database from 'better-sqlite3';
import { CompactedError, FutureRevisionError, StorageError } from '../interface.js';
import { Latest } from './rows.js';
import type { Statements } from './statements.js';

/** Key in `kine_meta` holding the compacted revision. */
export const COMPACT_REV_KEY = 'compact_rev';

/**
 * The state every verb shares: the connection, its prepared statements, the
 * current and compacted revisions, and the latest row of every key.
 *
 * Only the write batcher and the compactor mutate it, each inside one synchronous
 * transaction, so readers never observe uncommitted state.
 */
export class Core {
  /** the latest revision (the highest row id ever assigned) */
  rev: number;
  /** revisions below this one have been compacted away */
  compactRev: number;
  /** key → its latest row (tombstones included until compacted) */
  readonly latest = new Map<string, Latest>();
  /** keys that may have a row in `kine_ttl` (a superset: saves a statement per write of the others) */
  readonly ttlNames: Set<string>;
  closed = false;

  constructor(
    readonly db: Database.Database,
    readonly stmts: Statements,
    /** the wall clock for TTLs, ms since the epoch */
    readonly now: () => number = Date.now,
  ) {
    this.rev = stmts.selectSequence.get() ?? 0;
    this.ttlNames = new Set(stmts.selectTTLNames.all());
    this.compactRev = stmts.selectMeta.get(COMPACT_REV_KEY) ?? 0;
    for (const [name, id, createRevision, deleted] of stmts.selectLatestAll.iterate()) {
      this.latest.set(name, new Latest(id, createRevision, deleted !== 0));
    }
  }

  /** @throws StorageError when the store is closed */
  assertOpen(): void {
    if (this.closed) throw new StorageError('sqlite storage is closed');
  }

  /**
   * Resolves a requested read revision: 0/undefined means the current one.
   * @throws FutureRevisionError when beyond the current revision
   * @throws CompactedError when below the compacted revision
   */
  readRevision(requested: number | undefined): number {
    this.assertOpen();
    if (!requested) return this.rev;
    if (requested > this.rev) throw new FutureRevisionError(requested, this.rev);
    if (requested < this.compactRev) throw new CompactedError(requested, this.compactRev);
    return requested;
  }
}

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { runBackendTests } from '../backend-tests.js';
import { openStorage, sqliteFile } from '../index.js';
import { CompactedError, KeyExistsError, RevisionMismatchError, StorageError, type WatchEvent } from '../interface.js';
import type { Core } from './core.js';
import { Latest } from './rows.js';
import { PAGE_SIZE } from './schema.js';
import { commonKeyPrefix } from '../watch-fanout.js';
import { SqliteStorage, type SqliteStorageOptions } from './sqlite.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'k8ts-sqlite-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function open(dir: string, opts: Partial<SqliteStorageOptions> = {}): SqliteStorage {
  return SqliteStorage.open({ file: join(dir, 'state.db'), compaction: false, ...opts });
}

/** Row counts of a closed database file. */
function rowCounts(file: string): { rows: number; tombstones: number } {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT COUNT(*) FROM kine').pluck().get() as number;
    const tombstones = db.prepare('SELECT COUNT(*) FROM kine WHERE deleted = 1').pluck().get() as number;
    return { rows, tombstones };
  } finally {
    db.close();
  }
}

/** The TTL clock of the suites' backends: real time plus what expireTTLs added. */
let clockOffsetMs = 0;
const now = () => Date.now() + clockOffsetMs;
/** Moves the TTL clock an hour on and sweeps. */
async function expireTTLs(s: unknown): Promise<void> {
  clockOffsetMs += 3_600_000;
  await (s as SqliteStorage).ttlSweeper.sweep();
}

runBackendTests({ name: 'sqlite', newBackend: async () => openStorage({ kind: 'sqlite', dataDir: tempDir(), compaction: false, now }), expireTTLs });

// Again with tiny replay and compaction steps, so multi-step paths run under the same cases.
runBackendTests({
  name: 'sqlite (replay and compaction in steps of 2 revisions)',
  newBackend: async () => open(tempDir(), { replayBatchRevisions: 2, compaction: { batchRevisions: 2 }, every: () => () => {}, now }),
  expireTTLs,
});

describe('sqlite storage', () => {
  it('an acknowledged write survives kill -9 of the writing process', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./crash-writer.fixture.ts', import.meta.url)), dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const acked = new Map<string, number>();
    const KILL_AFTER = 6000; // ~24 MB of values: past at least one WAL checkpoint
    for await (const line of createInterface({ input: child.stdout! })) {
      const [word, key, rev] = line.split(' ');
      if (word !== 'ack') continue;
      acked.set(key!, Number(rev));
      if (acked.size === KILL_AFTER) child.kill('SIGKILL');
    }
    assert.equal(await exited, 'SIGKILL');
    assert.ok(acked.size >= KILL_AFTER, `only ${acked.size} acks before the child ended`);

    const s = await openStorage({ kind: 'sqlite', dataDir: dir, compaction: false });
    try {
      const missing: string[] = [];
      for (const [key, rev] of acked) {
        const { kv } = await s.get(key);
        if (kv?.modRevision !== rev) missing.push(`${key}@${rev}`);
        else assert.ok(kv.value.startsWith('{"kind":"Pod"'));
      }
      assert.deepEqual(missing, [], 'every acknowledged write is there');
      const all = await s.list('/registry/crash/');
      // writes in flight at the kill may have committed without an ack reaching us; none may be torn
      assert.ok(all.kvs.length >= acked.size);
      assert.equal(await s.currentRevision(), Math.max(...all.kvs.map((kv) => kv.modRevision)));
      // the store keeps working after recovery
      const kv = await s.create('/registry/after-crash', 'x');
      assert.equal(kv.modRevision, all.revision + 1);
    } finally {
      await s.close();
    }
    const db = new Database(sqliteFile(dir), { readonly: true });
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
  });

  it('reopening keeps values, revisions and the compacted revision', async () => {
    const dir = tempDir();
    const s1 = open(dir);
    const a = await s1.create('/r/a', 'a1');
    await s1.create('/r/b', 'b1');
    const a2 = await s1.update('/r/a', 'a2', a.modRevision);
    const del = await s1.delete('/r/b'); // the newest row is a tombstone, which compaction removes
    await s1.compact(del.modRevision);
    await s1.close();
    assert.deepEqual(rowCounts(join(dir, 'state.db')), { rows: 1, tombstones: 0 });

    const s2 = open(dir);
    try {
      assert.equal(await s2.currentRevision(), del.modRevision, 'the revision survives its row');
      assert.equal(await s2.compactedRevision(), del.modRevision);
      assert.deepEqual((await s2.get('/r/a')).kv, a2);
      await assert.rejects(s2.get('/r/a', { revision: a.modRevision }), CompactedError);
      const b = await s2.create('/r/b', 'b2');
      assert.equal(b.modRevision, del.modRevision + 1, 'revisions are never reused');
      await assert.rejects(s2.create('/r/a', 'again'), KeyExistsError);
    } finally {
      await s2.close();
    }
  });

  it('new databases get PAGE_SIZE pages; an existing 4 KiB-page database opens as it is', async () => {
    const fresh = tempDir();
    await open(fresh).close();
    const pageSize = (file: string): number => {
      const db = new Database(file, { readonly: true });
      try {
        return db.pragma('page_size', { simple: true }) as number;
      } finally {
        db.close();
      }
    };
    assert.equal(pageSize(join(fresh, 'state.db')), PAGE_SIZE);

    // a database written by an earlier version, with SQLite's default 4 KiB pages and data
    const old = tempDir();
    const db = new Database(join(old, 'state.db'));
    db.pragma('page_size = 4096');
    db.pragma('journal_mode = WAL');
    db.close();
    const s1 = open(old);
    const a = await s1.create('/r/a', 'a1');
    await s1.close();
    assert.equal(pageSize(join(old, 'state.db')), 4096);
    const s2 = open(old);
    try {
      assert.deepEqual((await s2.get('/r/a')).kv, a);
    } finally {
      await s2.close();
    }
  });

  it('a second opener of the same file fails while the first holds it', async () => {
    const dir = tempDir();
    const s1 = open(dir);
    try {
      assert.throws(
        () => open(dir, { busyTimeoutMs: 10 }),
        (err: unknown) => err instanceof StorageError && /locked/.test(err.message),
      );
    } finally {
      await s1.close();
    }
    const s2 = open(dir);
    await s2.close();
  });

  it('compaction removes superseded rows and tombstones, keeping each key’s latest row', async () => {
    const dir = tempDir();
    const s = open(dir);
    let a = await s.create('/c/a', '0');
    for (let i = 1; i <= 10; i++) a = await s.update('/c/a', String(i), a.modRevision);
    await s.create('/c/b', 'b');
    await s.delete('/c/b');
    const c = await s.create('/c/c', 'c');
    await s.compact(await s.currentRevision());
    await s.close();
    assert.deepEqual(rowCounts(join(dir, 'state.db')), { rows: 2, tombstones: 0 });
    const s2 = open(dir);
    try {
      assert.deepEqual((await s2.list('/c/')).kvs, [a, c]);
    } finally {
      await s2.close();
    }
  });

  it('the automatic compactor keeps the last retainRevisions revisions and stops on close', async () => {
    const dir = tempDir();
    let tick: (() => void) | undefined;
    let interval = 0;
    let cancelled = false;
    const s = open(dir, {
      compaction: { intervalMs: 60_000, retainRevisions: 10 },
      every: (ms, fn) => {
        interval = ms;
        tick = fn;
        return () => (cancelled = true);
      },
    });
    assert.equal(interval, 60_000);
    let kv = await s.create('/auto/a', '0');
    for (let i = 1; i < 30; i++) kv = await s.update('/auto/a', String(i), kv.modRevision);
    tick!();
    await s.compactor!.tick(); // waits for the run the tick started
    assert.equal(await s.compactedRevision(), 30 - 10);
    await assert.rejects(s.get('/auto/a', { revision: 19 }), CompactedError);
    assert.equal((await s.get('/auto/a', { revision: 20 })).kv?.value, '19');
    // nothing new to compact: no change
    await s.compactor!.tick();
    assert.equal(await s.compactedRevision(), 20);
    await s.close();
    assert.equal(cancelled, true);
  });

  it('a compaction run checkpoints the WAL and truncates it', async () => {
    const dir = tempDir();
    const s = open(dir, { compaction: { intervalMs: 60_000, retainRevisions: 10 }, every: () => () => {} });
    let kv = await s.create('/wal/a', 'x'.repeat(10_000));
    for (let i = 1; i < 50; i++) kv = await s.update('/wal/a', 'y'.repeat(10_000), kv.modRevision);
    assert.ok(statSync(join(dir, 'state.db-wal')).size > 0);
    await s.compactor!.tick();
    assert.equal(statSync(join(dir, 'state.db-wal')).size, 0);
    await s.close();
  });

  it('TTLs survive a restart, and a key written again with a TTL is not deleted by the old one', async () => {
    const dir = tempDir();
    let t = 1_000_000;
    const now = () => t;
    const s = open(dir, { now, ttlEvery: () => () => {} });
    const a = await s.create('/ttl/a', 'a', { ttlSeconds: 60 });
    const b = await s.create('/ttl/b', 'b', { ttlSeconds: 60 });
    await s.close();
    const s2 = open(dir, { now, ttlEvery: () => () => {} });
    try {
      t += 30_000;
      const b2 = await s2.update('/ttl/b', 'b2', b.modRevision, { ttlSeconds: 60 }); // now expires at +90 s
      assert.equal(await s2.ttlSweeper.sweep(), 0);
      t += 31_000;
      assert.equal(await s2.ttlSweeper.sweep(), 1);
      assert.equal((await s2.get('/ttl/a')).kv, undefined);
      assert.deepEqual((await s2.get('/ttl/b')).kv, b2);
      t += 30_000;
      assert.equal(await s2.ttlSweeper.sweep(), 1);
      assert.equal((await s2.get('/ttl/b')).kv, undefined);
      assert.ok(a.modRevision > 0);
    } finally {
      await s2.close();
    }
  });

  it('a watcher replaying from a revision compacted meanwhile gets CompactedError', async () => {
    const s = open(tempDir(), { replayBatchRevisions: 2 });
    try {
      for (let i = 0; i < 20; i++) await s.create(`/w/${i}`, String(i));
      const events: WatchEvent[] = [];
      const failed = new Promise<Error>((resolve) => {
        void s.watch('/w/', 0, { onEvents: (e) => events.push(...e), onError: resolve });
      });
      await s.compact(await s.currentRevision());
      const err = await failed;
      assert.ok(err instanceof CompactedError, `got ${String(err)}`);
      assert.equal(err.compacted, 20);
    } finally {
      await s.close();
    }
  });

  it('watchers hear progress for commits outside their prefix and at the end of a replay', async () => {
    const s = open(tempDir(), { replayBatchRevisions: 2 });
    try {
      for (let i = 0; i < 5; i++) await s.create(`/p/a/${i}`, 'a');
      const log: string[] = [];
      let caughtUp!: () => void;
      const replayed = new Promise<void>((resolve) => (caughtUp = resolve));
      await s.watch('/p/a/', 1, {
        onEvents: (evs) => log.push(...evs.map((e) => `event ${e.kv.modRevision}`)),
        onProgress: (rev) => {
          log.push(`progress ${rev}`);
          if (rev === 5) caughtUp();
        },
      });
      await replayed;
      assert.deepEqual(log, ['event 2', 'event 3', 'event 4', 'event 5', 'progress 5']);
      log.length = 0;
      const other = await s.create('/p/b/1', 'b'); // not under the prefix
      assert.deepEqual(log, [`progress ${other.modRevision}`], 'progress is reported with the commit');
      log.length = 0;
      const mine = await s.create('/p/a/x', 'a');
      assert.deepEqual(log, [`event ${mine.modRevision}`, `progress ${mine.modRevision}`]);
    } finally {
      await s.close();
    }
  });

  it('one batch of writes under several prefixes reaches exactly the watchers of each key', async () => {
    const s = open(tempDir());
    try {
      const seen = new Map<string, string[]>();
      for (const prefix of ['', '/r/', '/r/pods/', '/r/pods/a/', '/r/pods/a/x', '/r/pods/b/', '/r/svc/', '/q/']) {
        const got: string[] = [];
        seen.set(prefix, got);
        await s.watch(prefix, 0, { onEvents: (evs) => got.push(...evs.map((e) => e.kv.key)) });
      }
      // issued in one turn of the event loop: committed and published as one batch
      await Promise.all(['/r/pods/a/x1', '/r/pods/a/x2', '/r/pods/a/y', '/r/pods/b/z'].map((k) => s.create(k, 'v')));
      const all = ['/r/pods/a/x1', '/r/pods/a/x2', '/r/pods/a/y', '/r/pods/b/z'];
      assert.deepEqual(Object.fromEntries(seen), {
        '': all,
        '/r/': all,
        '/r/pods/': all,
        '/r/pods/a/': ['/r/pods/a/x1', '/r/pods/a/x2', '/r/pods/a/y'],
        '/r/pods/a/x': ['/r/pods/a/x1', '/r/pods/a/x2'],
        '/r/pods/b/': ['/r/pods/b/z'],
        '/r/svc/': [],
        '/q/': [],
      });
      assert.equal(commonKeyPrefix(all.map((key) => ({ type: 'create' as const, kv: { key, value: '', createRevision: 1, modRevision: 1 } }))), '/r/pods/');
    } finally {
      await s.close();
    }
  });

  it('close ends watchers and commits queued writes', async () => {
    const dir = tempDir();
    const s = open(dir);
    let ended: Error | undefined;
    await s.watch('/', 0, { onEvents: () => {}, onError: (e) => (ended = e) });
    const pending = s.create('/q/a', 'queued');
    await s.close();
    assert.ok(ended instanceof StorageError);
    assert.equal((await pending).modRevision, 1);
    const s2 = open(dir);
    assert.equal((await s2.get('/q/a')).kv?.value, 'queued');
    await s2.close();
  });

  it('the UNIQUE(name, prev_revision) guard rejects writes based on a stale in-memory row', async () => {
    const s = open(tempDir());
    const core = (s as unknown as { core: Core }).core;
    try {
      const a = await s.create('/g/a', 'one');
      core.latest.delete('/g/a'); // as if another writer had created it behind our back
      await assert.rejects(s.create('/g/a', 'two'), KeyExistsError);
      assert.equal(core.latest.get('/g/a')?.modRevision, a.modRevision, 'refreshed from disk');

      const b = await s.update('/g/a', 'two', a.modRevision);
      core.latest.set('/g/a', new Latest(a.modRevision, a.createRevision, false)); // stale again
      const err = await s.update('/g/a', 'three', a.modRevision).catch((e: unknown) => e);
      assert.ok(err instanceof RevisionMismatchError, `got ${String(err)}`);
      assert.deepEqual(err.current, b);
      assert.deepEqual((await s.get('/g/a')).kv, b);
      assert.equal(await s.currentRevision(), b.modRevision);
    } finally {
      await s.close();
    }
  });
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startTestEtcd, type TestEtcd } from '../../../test/support/etcd.js';
import { runBackendTests } from '../backend-tests.js';
import { CompactedError, StorageError } from '../interface.js';
import { collect } from '../backend-tests/watch.js';
import { COMPACT_REV_KEY } from './compactor.js';
import { EtcdStorage, type EtcdStorageOptions } from './etcd.js';

// One etcd for every case: each case writes under its own random prefix.
let etcd: Promise<TestEtcd> | undefined;
function shared(): Promise<TestEtcd> {
  etcd ??= startTestEtcd();
  return etcd;
}
const opened: EtcdStorage[] = [];
async function open(o: Partial<EtcdStorageOptions> = {}): Promise<EtcdStorage> {
  const s = await EtcdStorage.open({ endpoints: [(await shared()).endpoint], compactionIntervalMs: false, ...o });
  opened.push(s);
  return s;
}
after(async () => {
  for (const s of opened) await s.close();
  if (etcd) await (await etcd).stop();
});

runBackendTests({ name: 'etcd', newBackend: () => open() });

/** Retries `fn` until it resolves (while a restarted etcd comes back), up to 30 s. */
async function waitFor<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** A manual `every`: `fire()` runs the compactor's tick. */
function manualEvery() {
  let fn: (() => void) | undefined;
  return {
    every: (_ms: number, f: () => void) => ((fn = f), () => (fn = undefined)),
    fire: () => fn?.(),
  };
}

describe('etcd storage', () => {
  it('finds the compacted revision when another client compacted, and refuses watches below it', async () => {
    const p = `/registry/test-${randomBytes(6).toString('hex')}/`;
    const s = await open();
    const other = await open();
    const a = await s.create(`${p}a`, '1');
    const b = await s.update(`${p}a`, '2', a.modRevision);
    await s.update(`${p}a`, '3', b.modRevision);
    await other.compact(b.modRevision);
    assert.equal(await s.compactedRevision(), b.modRevision);
    const err = await s.watch(p, a.modRevision, { onEvents: () => {} }).catch((e: unknown) => e);
    assert.ok(err instanceof CompactedError, `got ${String(err)}`);
    assert.equal(err.compacted, b.modRevision);
    const e2 = await s.get(`${p}a`, { revision: a.modRevision }).catch((e: unknown) => e);
    assert.ok(e2 instanceof CompactedError);
    assert.equal(e2.compacted, b.modRevision);
  });

  it('the compactor compacts to the revision of its previous round, one server per round (compact_rev_key)', async () => {
    const p = `/registry/test-${randomBytes(6).toString('hex')}/`;
    const t1 = manualEvery();
    const t2 = manualEvery();
    const s1 = await open({ compactionIntervalMs: 60_000, every: t1.every });
    const s2 = await open({ compactionIntervalMs: 60_000, every: t2.every });
    assert.equal((await s1.get(COMPACT_REV_KEY)).kv, undefined, 'a fresh etcd');
    await s1.compactor!.tick(); // round 1: remember the revision, no compaction
    const r1 = await s1.currentRevision();
    const before = await s1.compactedRevision();
    const a = await s1.create(`${p}a`, '1');
    await s1.update(`${p}a`, '2', a.modRevision);
    // s2's view of the key's version is stale: it adopts s1's and does not compact
    await s2.compactor!.tick();
    assert.equal(await s1.compactedRevision(), before);
    await s1.compactor!.tick(); // round 2: compacts to round 1's revision
    assert.equal(await s1.compactedRevision(), r1);
    assert.equal((await s1.get(COMPACT_REV_KEY)).kv?.value, String(r1));
    const err = await s1.get(`${p}a`, { revision: r1 - 1 }).catch((e: unknown) => e);
    assert.ok(err instanceof CompactedError);
    assert.equal((await s1.get(`${p}a`)).kv?.value, '2');
  });

  it('watchers keep going across an etcd restart (the live watch is re-opened from the next revision)', { timeout: 120_000 }, async () => {
    const own = await startTestEtcd();
    const data = join(own.dataDir, '..', 'kept');
    let second: TestEtcd | undefined;
    try {
      const s = await EtcdStorage.open({ endpoints: [own.endpoint], compactionIntervalMs: false });
      const w = collect(s, '/registry/r/');
      await w.start(await s.currentRevision());
      const a = await s.create('/registry/r/a', '1');
      await w.waitFor(1);
      // stop etcd, keep its data, start it again on the same ports
      await own.proc.stop();
      renameSync(own.dataDir, data);
      second = await startTestEtcd({ dataDir: data, ports: own.ports });
      const b = await waitFor(() => s.create('/registry/r/b', '2'));
      const events = await w.waitFor(2);
      w.stop();
      assert.deepEqual(events, [
        { type: 'create', kv: a },
        { type: 'create', kv: b },
      ]);
      await s.close();
    } finally {
      await second?.stop();
      await own.stop();
    }
  });

  it('connects over TLS with a client certificate, and fails to open without one', { timeout: 60_000 }, async () => {
    const tls = await startTestEtcd({ tls: true });
    try {
      const s = await EtcdStorage.open({ endpoints: [tls.endpoint], caFile: tls.tls!.caFile, certFile: tls.tls!.certFile, keyFile: tls.tls!.keyFile, compactionIntervalMs: false });
      const kv = await s.create('/registry/pods/default/p', '{"kind":"Pod"}');
      assert.equal((await s.get('/registry/pods/default/p')).kv?.modRevision, kv.modRevision);
      assert.match(tls.etcdctl(['get', '/registry/pods/default/p', '--print-value-only']), /"kind":"Pod"/);
      await s.close();
      const err = await EtcdStorage.open({ endpoints: [tls.endpoint], caFile: tls.tls!.caFile, compactionIntervalMs: false, requestTimeoutMs: 3000 }).catch((e: unknown) => e);
      assert.ok(err instanceof StorageError, `got ${String(err)}`);
    } finally {
      await tls.stop();
    }
  });
});

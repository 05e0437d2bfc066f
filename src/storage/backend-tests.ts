/**
 * The conformance suite every Storage backend runs (embedded SQLite, etcd v3):
 * one set of cases, several implementations, in the manner of hono's shared
 * adapter tests. Each case opens a fresh backend and writes only under its own
 * random prefix, and compares revisions relatively, so a backend may share one
 * server (etcd) between cases.
 *
 * @see https://etcd.io/docs/v3.5/learning/api_guarantees/
 * @see https://github.com/k3s-io/kine/tree/master/pkg/server
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  CompactedError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  RevisionMismatchError,
  type Storage,
  type WatchEvent,
  type Watcher,
} from './interface.js';

/** What a backend provides to the suite. */
export interface BackendTestOptions {
  /** shown in the describe() title */
  name: string;
  /** a fresh, open backend; the suite closes it at the end of each case */
  newBackend: () => Promise<Storage>;
}

/** How long a case waits for watch events before failing (ms). */
const WAIT_MS = 10_000;

/** Registers the shared storage cases under `describe('storage backend: <name>')`. */
export function runBackendTests(opts: BackendTestOptions): void {
  const { newBackend } = opts;

  /** Runs `fn` with a fresh backend and a unique key prefix, then closes the backend. */
  async function withBackend(fn: (s: Storage, p: string) => Promise<void>): Promise<void> {
    const s = await newBackend();
    try {
      await fn(s, `/registry/test-${randomBytes(6).toString('hex')}/`);
    } finally {
      await s.close();
    }
  }

  describe(`storage backend: ${opts.name}`, () => {
    describe('create and get', () => {
      it('create returns the stored kv at a new revision, and get reads it back', () =>
        withBackend(async (s, p) => {
          const before = await s.currentRevision();
          const kv = await s.create(`${p}a`, '{"v":1}');
          assert.equal(kv.key, `${p}a`);
          assert.equal(kv.value, '{"v":1}');
          assert.ok(kv.modRevision > before);
          assert.equal(kv.createRevision, kv.modRevision);
          assert.equal(await s.currentRevision(), kv.modRevision);
          const got = await s.get(`${p}a`);
          assert.deepEqual(got.kv, kv);
          assert.equal(got.revision, kv.modRevision);
        }));

      it('create of a live key throws KeyExistsError and changes nothing', () =>
        withBackend(async (s, p) => {
          const kv = await s.create(`${p}a`, 'one');
          const err = await s.create(`${p}a`, 'two').catch((e: unknown) => e);
          assert.ok(err instanceof KeyExistsError, `got ${String(err)}`);
          assert.equal(err.key, `${p}a`);
          assert.deepEqual((await s.get(`${p}a`)).kv, kv);
          assert.equal(await s.currentRevision(), kv.modRevision);
        }));

      it('get of a missing key returns no kv and the current revision', () =>
        withBackend(async (s, p) => {
          await s.create(`${p}other`, 'x');
          const got = await s.get(`${p}missing`);
          assert.equal(got.kv, undefined);
          assert.equal(got.revision, await s.currentRevision());
        }));

      it('values round-trip unchanged (unicode, empty, large)', () =>
        withBackend(async (s, p) => {
          const values = ['', 'ünïcødé ✓ 𝄞 \u0000 end', JSON.stringify({ big: 'x'.repeat(256 * 1024) })];
          for (const [i, v] of values.entries()) await s.create(`${p}${i}`, v);
          for (const [i, v] of values.entries()) assert.equal((await s.get(`${p}${i}`)).kv?.value, v);
          const l = await s.list(p);
          assert.deepEqual(
            l.kvs.map((kv) => kv.value),
            values,
          );
        }));

      it('many parallel creates get distinct increasing revisions', () =>
        withBackend(async (s, p) => {
          const before = await s.currentRevision();
          const n = 200;
          const kvs = await Promise.all(Array.from({ length: n }, (_, i) => s.create(`${p}k${i}`, `v${i}`)));
          const revs = kvs.map((kv) => kv.modRevision);
          assert.equal(new Set(revs).size, n, 'revisions are distinct');
          const sorted = [...revs].sort((a, b) => a - b);
          assert.ok(sorted[0]! > before);
          for (let i = 1; i < n; i++) assert.ok(sorted[i]! > sorted[i - 1]!);
          assert.ok((await s.currentRevision()) >= sorted[n - 1]!);
          for (const kv of kvs) assert.deepEqual((await s.get(kv.key)).kv, kv);
          assert.equal((await s.count(p)).count, n);
        }));
    });

    describe('update', () => {
      it('update with the current modRevision replaces the value at a new revision', () =>
        withBackend(async (s, p) => {
          const a = await s.create(`${p}a`, 'one');
          const b = await s.update(`${p}a`, 'two', a.modRevision);
          assert.equal(b.value, 'two');
          assert.ok(b.modRevision > a.modRevision);
          assert.equal(b.createRevision, a.createRevision);
          assert.deepEqual((await s.get(`${p}a`)).kv, b);
          const c = await s.update(`${p}a`, 'three', b.modRevision);
          assert.ok(c.modRevision > b.modRevision);
          assert.equal(c.createRevision, a.createRevision);
        }));

      it('update with a stale modRevision throws RevisionMismatchError carrying the current kv', () =>
        withBackend(async (s, p) => {
          const a = await s.create(`${p}a`, 'one');
          const b = await s.update(`${p}a`, 'two', a.modRevision);
          const err = await s.update(`${p}a`, 'three', a.modRevision).catch((e: unknown) => e);
          assert.ok(err instanceof RevisionMismatchError, `got ${String(err)}`);
          assert.equal(err.key, `${p}a`);
          assert.deepEqual(err.current, b);
          assert.deepEqual((await s.get(`${p}a`)).kv, b);
        }));

      it('only one of two racing updates from the same revision wins', () =>
        withBackend(async (s, p) => {
          const a = await s.create(`${p}a`, 'one');
          const results = await Promise.allSettled([s.update(`${p}a`, 'x', a.modRevision), s.update(`${p}a`, 'y', a.modRevision)]);
          const ok = results.filter((r) => r.status === 'fulfilled');
          const failed = results.filter((r) => r.status === 'rejected');
          assert.equal(ok.length, 1);
          assert.equal(failed.length, 1);
          assert.ok((failed[0] as PromiseRejectedResult).reason instanceof RevisionMismatchError);
          assert.deepEqual((await s.get(`${p}a`)).kv, (ok[0] as PromiseFulfilledResult<unknown>).value);
        }));

      it('update of a missing or deleted key throws KeyNotFoundError', () =>
        withBackend(async (s, p) => {
          const err1 = await s.update(`${p}missing`, 'x', 1).catch((e: unknown) => e);
          assert.ok(err1 instanceof KeyNotFoundError, `got ${String(err1)}`);
          assert.equal(err1.key, `${p}missing`);
          const a = await s.create(`${p}a`, 'one');
          await s.delete(`${p}a`);
          const err2 = await s.update(`${p}a`, 'x', a.modRevision).catch((e: unknown) => e);
          assert.ok(err2 instanceof KeyNotFoundError, `got ${String(err2)}`);
        }));
    });

    describe('delete', () => {
      it('delete returns the last value at the deletion revision, and the key is gone', () =>
        withBackend(async (s, p) => {
          const a = await s.create(`${p}a`, 'one');
          const b = await s.update(`${p}a`, 'two', a.modRevision);
          const d = await s.delete(`${p}a`);
          assert.equal(d.key, `${p}a`);
          assert.equal(d.value, 'two');
          assert.equal(d.createRevision, a.createRevision);
          assert.ok(d.modRevision > b.modRevision);
          assert.equal(await s.currentRevision(), d.modRevision);
          assert.equal((await s.get(`${p}a`)).kv, undefined);
          assert.equal((await s.list(p)).kvs.length, 0);
        }));

      it('delete with an expected modRevision checks it', () =>
        withBackend(async (s, p) => {
          const a = await s.create(`${p}a`, 'one');
          const b = await s.update(`${p}a`, 'two', a.modRevision);
          const err = await s.delete(`${p}a`, a.modRevision).catch((e: unknown) => e);
          assert.ok(err instanceof RevisionMismatchError, `got ${String(err)}`);
          assert.deepEqual(err.current, b);
          assert.deepEqual((await s.get(`${p}a`)).kv, b);
          const d = await s.delete(`${p}a`, b.modRevision);
          assert.equal(d.value, 'two');
          assert.equal((await s.get(`${p}a`)).kv, undefined);
        }));

      it('delete of a missing or already deleted key throws KeyNotFoundError', () =>
        withBackend(async (s, p) => {
          const err1 = await s.delete(`${p}missing`).catch((e: unknown) => e);
          assert.ok(err1 instanceof KeyNotFoundError, `got ${String(err1)}`);
          await s.create(`${p}a`, 'one');
          await s.delete(`${p}a`);
          const err2 = await s.delete(`${p}a`).catch((e: unknown) => e);
          assert.ok(err2 instanceof KeyNotFoundError, `got ${String(err2)}`);
        }));

      it('a deleted key can be created again, with a new createRevision', () =>
        withBackend(async (s, p) => {
          const a = await s.create(`${p}a`, 'one');
          await s.delete(`${p}a`);
          const again = await s.create(`${p}a`, 'two');
          assert.ok(again.createRevision > a.createRevision);
          assert.equal(again.createRevision, again.modRevision);
          assert.deepEqual((await s.get(`${p}a`)).kv, again);
          const err = await s.create(`${p}a`, 'three').catch((e: unknown) => e);
          assert.ok(err instanceof KeyExistsError);
        }));
    });

    describe('list and count', () => {
      it('list returns the live keys under the prefix in key order', () =>
        withBackend(async (s, p) => {
          for (const k of ['b', 'a/2', 'c', 'a/1']) await s.create(`${p}x/${k}`, k);
          await s.create(`${p}xy/1`, 'sibling prefix');
          await s.create(`${p}x`, 'the prefix without its slash');
          await s.create(`${p}x/gone`, 'deleted');
          await s.delete(`${p}x/gone`);
          const l = await s.list(`${p}x/`);
          assert.deepEqual(
            l.kvs.map((kv) => kv.key),
            ['a/1', 'a/2', 'b', 'c'].map((k) => `${p}x/${k}`),
          );
          assert.deepEqual(
            l.kvs.map((kv) => kv.value),
            ['a/1', 'a/2', 'b', 'c'],
          );
          assert.equal(l.more, false);
          assert.equal(l.remaining, 0);
          assert.equal(l.revision, await s.currentRevision());
          assert.equal((await s.list(`${p}nothing/`)).kvs.length, 0);
        }));

      it('list pages with limit and startAfter, reporting more and remaining', () =>
        withBackend(async (s, p) => {
          const keys = ['k1', 'k2', 'k3', 'k4', 'k5'].map((k) => `${p}${k}`);
          for (const k of keys) await s.create(k, k);
          const p1 = await s.list(p, { limit: 2 });
          assert.deepEqual(
            p1.kvs.map((kv) => kv.key),
            keys.slice(0, 2),
          );
          assert.equal(p1.more, true);
          assert.equal(p1.remaining, 3);
          const p2 = await s.list(p, { limit: 2, startAfter: keys[1], revision: p1.revision });
          assert.deepEqual(
            p2.kvs.map((kv) => kv.key),
            keys.slice(2, 4),
          );
          assert.equal(p2.more, true);
          assert.equal(p2.remaining, 1);
          assert.equal(p2.revision, p1.revision);
          const p3 = await s.list(p, { limit: 2, startAfter: keys[3], revision: p1.revision });
          assert.deepEqual(
            p3.kvs.map((kv) => kv.key),
            keys.slice(4),
          );
          assert.equal(p3.more, false);
          assert.equal(p3.remaining, 0);
          const exact = await s.list(p, { limit: 5 });
          assert.equal(exact.kvs.length, 5);
          assert.equal(exact.more, false);
          // a startAfter before the prefix starts at the prefix
          const before = await s.list(p, { startAfter: '/', limit: 1 });
          assert.deepEqual(
            before.kvs.map((kv) => kv.key),
            keys.slice(0, 1),
          );
        }));

      it('list and get at an older revision see the state of that revision', () =>
        withBackend(async (s, p) => {
          const a1 = await s.create(`${p}a`, 'a1');
          const b1 = await s.create(`${p}b`, 'b1');
          const at = b1.modRevision;
          const a2 = await s.update(`${p}a`, 'a2', a1.modRevision);
          await s.delete(`${p}b`);
          await s.create(`${p}c`, 'c1');
          const old = await s.list(p, { revision: at });
          assert.equal(old.revision, at);
          assert.deepEqual(old.kvs, [a1, b1]);
          assert.deepEqual((await s.get(`${p}a`, { revision: at })).kv, a1);
          assert.deepEqual((await s.get(`${p}b`, { revision: at })).kv, b1);
          assert.equal((await s.get(`${p}c`, { revision: at })).kv, undefined);
          assert.equal((await s.get(`${p}a`, { revision: at })).revision, at);
          assert.equal((await s.get(`${p}b`, { revision: a1.modRevision })).kv, undefined, 'b did not exist yet');
          const now = await s.list(p);
          assert.deepEqual(
            now.kvs.map((kv) => kv.value),
            ['a2', 'c1'],
          );
          assert.deepEqual(now.kvs[0], a2);
        }));

      it('paging at a fixed revision ignores later writes', () =>
        withBackend(async (s, p) => {
          for (const k of ['k1', 'k2', 'k3', 'k4']) await s.create(`${p}${k}`, k);
          const p1 = await s.list(p, { limit: 2 });
          await s.delete(`${p}k3`);
          await s.create(`${p}k25`, 'new');
          const k4 = (await s.get(`${p}k4`)).kv!;
          await s.update(`${p}k4`, 'changed', k4.modRevision);
          const p2 = await s.list(p, { limit: 2, startAfter: p1.kvs[1]!.key, revision: p1.revision });
          assert.deepEqual(
            p2.kvs.map((kv) => [kv.key, kv.value]),
            [
              [`${p}k3`, 'k3'],
              [`${p}k4`, 'k4'],
            ],
          );
          assert.equal(p2.more, false);
        }));

      it('count counts the live keys under the prefix', () =>
        withBackend(async (s, p) => {
          for (const k of ['a', 'b', 'c']) await s.create(`${p}x/${k}`, k);
          await s.create(`${p}xy`, 'sibling');
          await s.delete(`${p}x/b`);
          const c = await s.count(`${p}x/`);
          assert.equal(c.count, 2);
          assert.equal(c.revision, await s.currentRevision());
          assert.equal((await s.count(`${p}none/`)).count, 0);
          assert.equal((await s.count(p)).count, 3);
        }));

      it('reads beyond the current revision throw FutureRevisionError', () =>
        withBackend(async (s, p) => {
          await s.create(`${p}a`, 'x');
          const future = (await s.currentRevision()) + 1_000_000;
          const e1 = await s.get(`${p}a`, { revision: future }).catch((e: unknown) => e);
          assert.ok(e1 instanceof FutureRevisionError, `got ${String(e1)}`);
          assert.equal(e1.requested, future);
          const e2 = await s.list(p, { revision: future }).catch((e: unknown) => e);
          assert.ok(e2 instanceof FutureRevisionError, `got ${String(e2)}`);
          const e3 = await s.compact(future).catch((e: unknown) => e);
          assert.ok(e3 instanceof FutureRevisionError, `got ${String(e3)}`);
        }));
    });

    describe('watch', () => {
      it('delivers live create, update and delete events with prevKv, in revision order', () =>
        withBackend(async (s, p) => {
          const from = await s.currentRevision();
          const w = collect(s, p);
          await w.start(from);
          const a = await s.create(`${p}a`, 'one');
          const b = await s.update(`${p}a`, 'two', a.modRevision);
          const d = await s.delete(`${p}a`);
          const events = await w.waitFor(3);
          w.stop();
          assert.deepEqual(events, [
            { type: 'create', kv: a },
            { type: 'update', kv: b, prevKv: a },
            { type: 'delete', kv: d, prevKv: b },
          ]);
        }));

      it('replays history after the revision, then continues live without gaps or duplicates', () =>
        withBackend(async (s, p) => {
          const from = await s.currentRevision();
          const written: number[] = [];
          for (let i = 0; i < 30; i++) written.push((await s.create(`${p}k${i}`, `v${i}`)).modRevision);
          const k0 = (await s.get(`${p}k0`)).kv!;
          written.push((await s.update(`${p}k0`, 'v0b', k0.modRevision)).modRevision);
          written.push((await s.delete(`${p}k1`)).modRevision);
          await s.create(`/elsewhere-${p}`, 'not mine');
          const w = collect(s, p);
          await w.start(from + 10); // skip the first 10 writes
          // writes racing with the replay
          const racing = await Promise.all(Array.from({ length: 30 }, (_, i) => s.create(`${p}r${i}`, `r${i}`)));
          written.push(...racing.map((kv) => kv.modRevision));
          const expected = written.filter((r) => r > from + 10).sort((x, y) => x - y);
          const events = await w.waitFor(expected.length);
          w.stop();
          assert.deepEqual(
            events.map((e) => e.kv.modRevision),
            expected,
          );
          const upd = events.find((e) => e.type === 'update')!;
          assert.equal(upd.kv.value, 'v0b');
          assert.equal(upd.prevKv?.value, 'v0');
          assert.equal(upd.prevKv?.modRevision, k0.modRevision);
          const del = events.find((e) => e.type === 'delete')!;
          assert.equal(del.kv.key, `${p}k1`);
          assert.equal(del.prevKv?.value, 'v1');
          assert.equal(events.filter((e) => e.type === 'create').length, expected.length - 2);
        }));

      it('only sees keys under its prefix', () =>
        withBackend(async (s, p) => {
          const from = await s.currentRevision();
          const w = collect(s, `${p}x/`);
          await w.start(from);
          await s.create(`${p}xy`, 'sibling');
          await s.create(`${p}x`, 'parent');
          await s.create(`${p}y/1`, 'other');
          const mine = await s.create(`${p}x/1`, 'mine');
          const events = await w.waitFor(1);
          w.stop();
          assert.deepEqual(events, [{ type: 'create', kv: mine }]);
          // the same holds when replaying
          const r = collect(s, `${p}x/`);
          await r.start(from);
          const replayed = await r.waitFor(1);
          r.stop();
          assert.deepEqual(replayed, [{ type: 'create', kv: mine }]);
        }));

      it('a stopped watcher receives nothing more', () =>
        withBackend(async (s, p) => {
          const from = await s.currentRevision();
          const stopped = collect(s, p);
          const barrier = collect(s, p);
          await stopped.start(from);
          await barrier.start(from);
          await s.create(`${p}a`, 'one');
          await stopped.waitFor(1);
          stopped.stop();
          stopped.stop(); // idempotent
          await s.create(`${p}b`, 'two');
          await barrier.waitFor(2);
          barrier.stop();
          assert.equal(stopped.events.length, 1);
        }));

      it('watching from the current revision delivers only later events', () =>
        withBackend(async (s, p) => {
          await s.create(`${p}old`, 'old');
          const w = collect(s, p);
          await w.start(await s.currentRevision());
          const n = await s.create(`${p}new`, 'new');
          const events = await w.waitFor(1);
          w.stop();
          assert.deepEqual(events, [{ type: 'create', kv: n }]);
        }));
    });

    describe('compaction', () => {
      it('drops history below the revision; reads and watches there throw CompactedError', () =>
        withBackend(async (s, p) => {
          const a1 = await s.create(`${p}a`, 'a1');
          const b1 = await s.create(`${p}b`, 'b1');
          const a2 = await s.update(`${p}a`, 'a2', a1.modRevision);
          await s.delete(`${p}b`);
          const c1 = await s.create(`${p}c`, 'c1');
          const at = c1.modRevision;
          const a3 = await s.update(`${p}a`, 'a3', a2.modRevision);
          await s.compact(at);
          assert.ok((await s.compactedRevision()) >= at);

          const e1 = await s.get(`${p}a`, { revision: b1.modRevision }).catch((e: unknown) => e);
          assert.ok(e1 instanceof CompactedError, `got ${String(e1)}`);
          assert.equal(e1.requested, b1.modRevision);
          const e2 = await s.list(p, { revision: at - 1 }).catch((e: unknown) => e);
          assert.ok(e2 instanceof CompactedError, `got ${String(e2)}`);
          const e3 = await s.watch(p, at - 1, { onEvents: () => {} }).catch((e: unknown) => e);
          assert.ok(e3 instanceof CompactedError, `got ${String(e3)}`);

          // the compacted revision itself still reads exactly
          assert.deepEqual((await s.list(p, { revision: at })).kvs, [a2, c1]);
          assert.deepEqual((await s.get(`${p}a`, { revision: at })).kv, a2);
          assert.equal((await s.get(`${p}b`, { revision: at })).kv, undefined);
          // live keys are kept
          assert.deepEqual((await s.list(p)).kvs, [a3, c1]);
          // a compacted-away deleted key can be created again
          const b2 = await s.create(`${p}b`, 'b2');
          assert.deepEqual((await s.get(`${p}b`)).kv, b2);

          // watching from the compacted revision works
          const w = collect(s, p);
          await w.start(at);
          const events = await w.waitFor(2);
          w.stop();
          assert.deepEqual(events, [
            { type: 'update', kv: a3, prevKv: a2 },
            { type: 'create', kv: b2 },
          ]);
          // compacting again at or below is harmless
          await s.compact(at);
          assert.deepEqual((await s.get(`${p}a`)).kv, a3);
        }));
    });

    describe('lifecycle', () => {
      it('calls after close fail', async () => {
        const s = await newBackend();
        await s.close();
        await assert.rejects(s.get('/registry/x'));
        await assert.rejects(s.create('/registry/x', 'v'));
        await s.close(); // idempotent
      });
    });
  });
}

/** A watcher that records every event, with a promise for "n events arrived". */
function collect(s: Storage, prefix: string) {
  const events: WatchEvent[] = [];
  let error: Error | undefined;
  let watcher: Watcher | undefined;
  let wake: (() => void) | undefined;
  return {
    events,
    async start(afterRevision: number): Promise<void> {
      watcher = await s.watch(prefix, afterRevision, {
        onEvents(batch) {
          for (const ev of batch) {
            const last = events.length > 0 ? events[events.length - 1]!.kv.modRevision : afterRevision;
            if (ev.kv.modRevision <= last) {
              error ??= new Error(`watch event at revision ${ev.kv.modRevision} after ${last}: duplicate or out of order`);
            }
            events.push(ev);
          }
          wake?.();
        },
        onError(err) {
          error = err;
          wake?.();
        },
      });
    },
    /** Resolves with the events once at least `n` arrived; rejects on a watch error or after WAIT_MS. */
    async waitFor(n: number): Promise<WatchEvent[]> {
      const deadline = Date.now() + WAIT_MS;
      while (events.length < n) {
        if (error) throw error;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for ${n} events, got ${events.length}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
      if (error) throw error;
      return events.slice(0, n);
    },
    /** Stops the watcher; throws if any event arrived duplicated or out of order. */
    stop(): void {
      watcher?.stop();
      if (error) throw error;
    },
  };
}

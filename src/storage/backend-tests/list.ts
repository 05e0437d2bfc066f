/** Shared storage cases: list (paging, historical reads), count, future revisions. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FutureRevisionError } from '../interface.js';
import type { WithBackend } from './with-backend.js';

/** Registers the list cases. */
export function listCases(withBackend: WithBackend): void {
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
}

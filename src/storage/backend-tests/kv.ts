/** Shared storage cases: create, get, update, delete. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyExistsError, KeyNotFoundError, RevisionMismatchError } from '../interface.js';
import type { WithBackend } from './with-backend.js';

/** Registers the kv cases. */
export function kvCases(withBackend: WithBackend): void {
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
}

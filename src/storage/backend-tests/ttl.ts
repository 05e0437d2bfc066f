/** Shared storage cases: keys written with a TTL expire as ordinary deletes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Storage } from '../interface.js';
import { collect } from './watch.js';
import type { WithBackend } from './with-backend.js';

/**
 * Registers the TTL cases. `expire(s)` makes every TTL written so far run out (a
 * backend with an injectable clock moves it and sweeps); without it the case waits
 * for the backend's own clock (TTLs of 1 s).
 */
export function ttlCases(withBackend: WithBackend, expire?: (s: Storage) => Promise<void>): void {
  describe('ttl', () => {
    it('a key written with a TTL is deleted when it runs out (watchers see a delete); a later write without TTL keeps a key', () =>
      withBackend(async (s, p) => {
        const w = collect(s, p);
        await w.start(await s.currentRevision());
        const kept1 = await s.create(`${p}kept-by-update`, 'v1', { ttlSeconds: 1 });
        const kept2 = await s.update(`${p}kept-by-update`, 'v2', kept1.modRevision);
        const forever = await s.create(`${p}forever`, 'x');
        const ev = await s.create(`${p}event`, 'e1', { ttlSeconds: 1 });
        const ev2 = await s.update(`${p}event`, 'e2', ev.modRevision, { ttlSeconds: 1 });
        await expire?.(s);
        const events = await w.waitFor(6);
        w.stop();
        const del = events[5]!;
        assert.equal(del.type, 'delete');
        assert.equal(del.kv.key, `${p}event`);
        assert.equal(del.kv.value, 'e2');
        assert.deepEqual(del.prevKv, ev2);
        assert.equal((await s.get(`${p}event`)).kv, undefined);
        assert.deepEqual((await s.get(`${p}kept-by-update`)).kv, kept2);
        assert.deepEqual((await s.get(`${p}forever`)).kv, forever);
        assert.equal(w.events.length, 6, 'only the expired key was deleted');
      }));
  });
}

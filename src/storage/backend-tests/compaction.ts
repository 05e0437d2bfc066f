/** Shared storage cases: compaction and CompactedError. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompactedError } from '../interface.js';
import { collect } from './watch.js';
import type { WithBackend } from './with-backend.js';

/** Registers the compaction cases. */
export function compactionCases(withBackend: WithBackend): void {
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
}

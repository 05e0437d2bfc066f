/** Shared storage cases: watch (live, replay, prefix isolation, stop). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Storage, WatchEvent, Watcher } from '../interface.js';
import type { WithBackend } from './with-backend.js';

/** Registers the watch cases. */
export function watchCases(withBackend: WithBackend): void {
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
        const written: number[] = [];
        for (let i = 0; i < 30; i++) written.push((await s.create(`${p}k${i}`, `v${i}`)).modRevision);
        const k0 = (await s.get(`${p}k0`)).kv!;
        written.push((await s.update(`${p}k0`, 'v0b', k0.modRevision)).modRevision);
        written.push((await s.delete(`${p}k1`)).modRevision);
        await s.create(`/elsewhere-${p}`, 'not mine');
        const w = collect(s, p);
        const skipTo = written[9]!; // skip the first 10 writes
        await w.start(skipTo);
        // writes racing with the replay
        const racing = await Promise.all(Array.from({ length: 30 }, (_, i) => s.create(`${p}r${i}`, `r${i}`)));
        written.push(...racing.map((kv) => kv.modRevision));
        const expected = written.filter((r) => r > skipTo).sort((x, y) => x - y);
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
}

/** How long a case waits for watch events before failing (ms). */
const WAIT_MS = 10_000;

/** A watcher that records every event, with a promise for "n events arrived". */
export function collect(s: Storage, prefix: string) {
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

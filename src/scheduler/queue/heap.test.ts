import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Heap } from './heap.js';

interface Item {
  key: string;
  v: number;
}

/** A small deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('Heap', () => {
  it('pops in less() order through random adds, updates and deletes, with lookups consistent', () => {
    for (const seed of [1, 2, 3, 42]) {
      const rnd = rng(seed);
      const h = new Heap<Item>(
        (x) => x.key,
        (a, b) => a.v < b.v || (a.v === b.v && a.key < b.key),
      );
      const model = new Map<string, number>();
      for (let step = 0; step < 3000; step++) {
        const key = `k${Math.floor(rnd() * 200)}`;
        const op = rnd();
        if (op < 0.5) {
          const v = Math.floor(rnd() * 100);
          h.addOrUpdate({ key, v });
          model.set(key, v);
        } else if (op < 0.7) {
          assert.equal(h.delete(key)?.key, model.has(key) ? key : undefined);
          model.delete(key);
        } else if (op < 0.85) {
          const top = h.pop();
          const want = [...model].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))[0];
          assert.deepEqual(top ? [top.key, top.v] : undefined, want);
          if (want) model.delete(want[0]);
        } else {
          assert.equal(h.has(key), model.has(key));
          assert.equal(h.get(key)?.v, model.get(key));
        }
        assert.equal(h.length, model.size);
      }
      const drained: number[] = [];
      for (let x = h.pop(); x; x = h.pop()) drained.push(x.v);
      assert.deepEqual(
        drained,
        [...model.values()].sort((a, b) => a - b),
      );
    }
  });
});

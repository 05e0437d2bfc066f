import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonSteps, runNow, runSliced, type Steps } from './sliced.js';

test('jsonSteps: the bytes of JSON.stringify at every depth, undefined members left out', () => {
  const values: unknown[] = [
    {},
    { a: 1 },
    { a: undefined, b: { c: [1, { d: 2 }], e: 'é"\n\u2028', f: null, g: {}, h: true, i: 1.5e-7 } },
    { x: { y: { z: { w: { v: 'deep' } } } } },
    [1, 'two', { three: 3 }],
    'text',
    null,
  ];
  for (const v of values) {
    for (const depth of [0, 1, 2, 3, 6]) assert.ok(runNow(jsonSteps(v, depth)).equals(Buffer.from(JSON.stringify(v))), `${JSON.stringify(v)} at depth ${depth}`);
  }
});

test('jsonSteps yields between the members it writes whole', () => {
  const big = { paths: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`/p${i}`, { get: { i } }])) };
  const steps = jsonSteps(big, 2);
  let yields = 0;
  for (let r = steps.next(); !r.done; r = steps.next()) yields++;
  assert.equal(yields, Math.floor(100 / 16), 'a step after every 16 values written whole');
});

test('runSliced lets the event loop run between slices and returns what runNow returns', async () => {
  function* count(n: number): Steps<number> {
    let s = 0;
    for (let i = 0; i < n; i++) {
      const until = performance.now() + 1;
      while (performance.now() < until);
      s += i;
      yield;
    }
    return s;
  }
  let turns = 0;
  const tick = setInterval(() => turns++, 0);
  const got = await runSliced(count(40), 4);
  clearInterval(tick);
  assert.equal(got, runNow(count(40)));
  assert.ok(turns > 0, 'a timer ran while the steps ran');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PodWorkers } from './pod-workers.js';
import { FakeClock } from '../util/fake-clock.js';

test('pod workers: a sync picks its next run; a later sync replaces it; a throwing sync is retried after the back-off period', async () => {
  const clock = new FakeClock(0);
  const runs: number[] = [];
  let answer: number | undefined | 'throw' = 60_000;
  const w = new PodWorkers(
    async () => {
      runs.push(clock.now());
      if (answer === 'throw') throw new Error('boom');
      return answer === undefined ? undefined : clock.now() + answer;
    },
    clock,
    () => undefined,
    10_000,
  );
  w.wake('a');
  await w.idle();
  assert.deepEqual(runs, [0]);
  assert.equal(w.nextSync('a'), 60_000);
  await clock.advance(59_000);
  assert.deepEqual(runs, [0], 'not before its time');
  // an event wakes it early; that sync's answer replaces the pending one
  answer = 5_000;
  w.wake('a');
  await w.idle();
  assert.deepEqual(runs, [0, 59_000]);
  assert.equal(w.nextSync('a'), 64_000);
  answer = 'throw';
  await clock.advance(5_000);
  assert.deepEqual(runs, [0, 59_000, 64_000]);
  assert.equal(w.nextSync('a'), 74_000, 'retried 10 s after the failure');
  answer = undefined;
  await clock.advance(10_000);
  assert.deepEqual(runs, [0, 59_000, 64_000, 74_000]);
  assert.equal(w.nextSync('a'), undefined, 'no timed sync for a pod that is gone');
  assert.equal(clock.pending, 0);
  await clock.advance(120_000);
  assert.equal(runs.length, 4);
  // close cancels pending timers
  answer = 1_000;
  w.wake('b');
  await w.idle();
  assert.equal(clock.pending, 1);
  await w.close();
  assert.equal(clock.pending, 0);
});

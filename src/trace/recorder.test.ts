import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PodTraceRecorder } from './recorder.js';
import { toPodTrace } from './podtrace.js';

const pod = { uid: 'u1', namespace: 'default', name: 'nginx' };

/** A recorder on a hand-driven clock (ms since the epoch). */
function fixture(o: { maxPods?: number; maxSteps?: number } = {}) {
  let t = 1_700_000_000_000;
  const r = new PodTraceRecorder({ ...o, now: () => t });
  return { r, at: (ms: number) => (t = 1_700_000_000_000 + ms) };
}

describe('PodTraceRecorder', () => {
  it('keeps the path contiguous: each step starts where the previous ended, so durations add up to the total', () => {
    const { r, at } = fixture();
    at(0);
    r.step(pod, 'RequestReceived');
    at(1.25);
    r.step(pod, 'Authentication');
    at(2);
    r.step(pod, 'Authorization');
    at(10.5);
    r.step(pod, 'StorageCommit');
    at(40);
    r.step(pod, 'Running');
    const t = r.get('default', 'nginx')!;
    assert.deepEqual(
      t.steps.map((s) => [s.name, s.start - 1_700_000_000_000, s.end - 1_700_000_000_000, s.level]),
      [
        ['RequestReceived', 0, 0, 0],
        ['Authentication', 0, 1.25, 0],
        ['Authorization', 1.25, 2, 0],
        ['StorageCommit', 2, 10.5, 0],
        ['Running', 10.5, 40, 0],
      ],
    );
    const pt = toPodTrace(t, 1_700_000_000_100);
    const sum = pt.status.steps.filter((s) => !s.detail).reduce((a, s) => a + s.durationMilliseconds, 0);
    assert.equal(sum, 40);
    assert.equal(pt.status.summary.runningMilliseconds, 40);
    assert.equal(pt.status.phase, 'Running');
    assert.equal(pt.status.steps[1]!.startTime, '2023-11-14T22:13:20.000000Z');
    assert.equal(pt.status.steps[1]!.endTime, '2023-11-14T22:13:20.001250Z');
  });

  it('keeps late reports and steps that began before the path’s last end as details', () => {
    const { r, at } = fixture();
    at(0);
    r.step(pod, 'RequestReceived');
    at(5);
    r.step(pod, 'BindingCommit');
    at(7);
    r.step(pod, 'KubeletWatchReceived');
    at(9);
    r.step(pod, 'BindRequest', { start: 1_700_000_000_000 + 3 });
    at(6);
    r.step(pod, 'Response');
    const steps = r.get('default', 'nginx')!.steps;
    assert.deepEqual(
      steps.map((s) => [s.name, s.level]),
      [
        ['RequestReceived', 0],
        ['BindingCommit', 0],
        ['KubeletWatchReceived', 0],
        ['BindRequest', 1],
        ['Response', 1],
      ],
    );
    assert.equal(steps[3]!.start, 1_700_000_000_003);
  });

  it('bounds steps per pod (the head kept, the oldest later step dropped) and pods (oldest trace dropped)', () => {
    const { r, at } = fixture({ maxSteps: 32, maxPods: 2 });
    for (let i = 0; i < 40; i++) {
      at(i);
      r.step(pod, i === 39 ? 'FailedScheduling' : 'QueueWait', { message: i === 39 ? 'last' : undefined });
    }
    const t = r.get('default', 'nginx')!;
    assert.equal(t.steps.length, 32);
    assert.equal(t.dropped, 8);
    assert.equal(t.steps[31]!.message, 'last');
    assert.equal(t.steps[0]!.end, 1_700_000_000_000);
    r.step({ uid: 'u2', namespace: 'default', name: 'b' }, 'RequestReceived');
    r.step({ uid: 'u3', namespace: 'default', name: 'c' }, 'RequestReceived');
    assert.equal(r.size, 2);
    assert.equal(r.get('default', 'nginx'), undefined);
  });

  it('drops a trace with its pod and tells subscribers', () => {
    const { r } = fixture();
    const seen: string[] = [];
    r.subscribe((c) => seen.push(`${c.pod.name}:${c.step?.name ?? 'dropped'}`));
    r.step(pod, 'RequestReceived');
    r.drop('u1');
    assert.equal(r.get('default', 'nginx'), undefined);
    assert.deepEqual(seen, ['nginx:RequestReceived', 'nginx:dropped']);
  });

  it('holds at most 2 KB of heap per pod for a trace of the nginx pod’s 45 steps', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { r, at } = fixture();
    const n = 2000;
    const names = ['Authentication', 'MutatingAdmission', 'Filter', 'CreateContainer', 'StorageCommit'] as const;
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let p = 0; p < n; p++) {
      const k = { uid: `0f6c2d4e-${String(p).padStart(4, '0')}-4b8e-9a51-3c7e2f1d9b${String(p).padStart(2, '0')}`, namespace: 'default', name: `nginx-${p}` };
      for (let i = 0; i < 45; i++) {
        at(i);
        const name = names[i % names.length]!;
        r.step(k, name, { detail: name === 'CreateContainer' ? `nginx-${p}`.slice(0, 5) : undefined });
      }
    }
    gc();
    const perPod = (process.memoryUsage().heapUsed - before) / n;
    assert.equal(r.size, n);
    console.log(`pod trace heap: ${perPod.toFixed(0)} bytes per pod`);
    assert.ok(perPod <= 2048, `${perPod.toFixed(0)} bytes per pod`);
  });
});

/**
 * Lifecycle hooks and termination on the simulated runtime (fake clock): postStart
 * failures kill and restart the container, preStop runs inside the grace period and
 * StopContainer gets what is left of it (at least 2 s).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { R } from '../client/types.js';
import { newHarness, type Harness } from './testing/harness.js';

/** StopContainer calls with a grace period (the sim's StopPodSandbox stops what is left with 0 itself). */
function spyStops(h: Harness): { timeout: number; at: number }[] {
  const calls: { timeout: number; at: number }[] = [];
  const orig = h.runtime.stopContainer.bind(h.runtime);
  h.runtime.stopContainer = async (id: string, timeout: number) => {
    if (timeout > 0) calls.push({ timeout, at: h.clock.now() });
    return orig(id, timeout);
  };
  return calls;
}

describe('kubelet lifecycle hooks', () => {
  test('postStart failing: FailedPostStartHook, Killing "FailedPostStartHook", PostStartHookError, then a restart', async () => {
    const h = await newHarness();
    try {
      const p = await h.createPod({
        metadata: { name: 'hook' },
        spec: {
          terminationGracePeriodSeconds: 5,
          containers: [
            { name: 'c', image: 'busybox:1.28', command: ['sh', '-c', 'sleep 3600'], lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo nope; exit 3'] } } } },
          ],
        },
      });
      await h.until(() => h.events('hook').some((e) => e.reason === 'FailedPostStartHook'));
      const ev = h.events('hook');
      assert.equal(ev.find((e) => e.reason === 'FailedPostStartHook')?.message, 'PostStartHook failed');
      assert.equal(ev.find((e) => e.reason === 'FailedPostStartHook')?.type, 'Warning');
      assert.ok(ev.some((e) => e.reason === 'Killing' && e.message === 'FailedPostStartHook'));
      await h.until(() => h.pod('hook')?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'PostStartHookError');
      assert.equal(
        h.pod('hook')!.status!.containerStatuses![0]!.state!.waiting!.message,
        `Exec lifecycle hook ([sh -c echo nope; exit 3]) for Container "c" in Pod "hook_default(${p.metadata!.uid})" failed - error: command 'sh -c echo nope; exit 3' exited with 3: , message: "nope\\n"`,
      );
      await h.until(() => (h.pod('hook')?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, 30_000);
    } finally {
      await h.close();
    }
  });

  test('preStop runs before the stop; its time comes off the grace period', async () => {
    const h = await newHarness();
    try {
      await h.createPod({
        metadata: { name: 'drain' },
        spec: {
          terminationGracePeriodSeconds: 30,
          containers: [{ name: 'c', image: 'busybox:1.28', command: ['sh', '-c', 'sleep 3600'], lifecycle: { preStop: { exec: { command: ['sh', '-c', 'sleep 5'] } } } }],
        },
      });
      await h.until(() => h.pod('drain')?.status?.phase === 'Running');
      const stops = spyStops(h);
      const t0 = h.clock.now();
      await h.client.delete(R.pods, 'default', 'drain');
      await h.until(() => !h.pod('drain'), 60_000);
      assert.equal(stops.length, 1);
      assert.ok(stops[0]!.at - t0 >= 5000, `StopContainer after the 5 s preStop (at +${stops[0]!.at - t0} ms)`);
      assert.equal(stops[0]!.timeout, 25, '30 s grace − 5 s of preStop');
      assert.ok(!h.events('drain').some((e) => e.reason === 'FailedPreStopHook'));
    } finally {
      await h.close();
    }
  });

  test('a preStop longer than the grace period is cut off (StopContainer gets the 2 s minimum); a failing one records FailedPreStopHook', async () => {
    const h = await newHarness();
    try {
      await h.createPod({
        metadata: { name: 'slow' },
        spec: {
          terminationGracePeriodSeconds: 3,
          containers: [{ name: 'c', image: 'busybox:1.28', command: ['sh', '-c', 'sleep 3600'], lifecycle: { preStop: { exec: { command: ['sh', '-c', 'sleep 100'] } } } }],
        },
      });
      await h.createPod({
        metadata: { name: 'broken' },
        spec: {
          terminationGracePeriodSeconds: 10,
          containers: [{ name: 'c', image: 'busybox:1.28', command: ['sh', '-c', 'sleep 3600'], lifecycle: { preStop: { exec: { command: ['sh', '-c', 'exit 1'] } } } }],
        },
      });
      await h.until(() => h.pod('slow')?.status?.phase === 'Running' && h.pod('broken')?.status?.phase === 'Running');
      const stops = spyStops(h);
      const t0 = h.clock.now();
      await h.client.delete(R.pods, 'default', 'slow');
      await h.client.delete(R.pods, 'default', 'broken');
      await h.until(() => !h.pod('slow') && !h.pod('broken'), 60_000);
      const byTimeout = stops.map((s) => s.timeout).sort();
      assert.deepEqual(byTimeout, [10, 2]);
      const slowStop = stops.find((s) => s.timeout === 2)!;
      assert.ok(slowStop.at - t0 >= 3000 && slowStop.at - t0 < 5000, `cut off after the 3 s grace period (+${slowStop.at - t0} ms)`);
      const failed = h.events('broken').find((e) => e.reason === 'FailedPreStopHook');
      assert.deepEqual([failed?.type, failed?.message], ['Warning', 'PreStopHook failed']);
    } finally {
      await h.close();
    }
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newHarness, type Harness } from './testing/harness.js';

/** How often `reason` was recorded for pod `name` (aggregated events summed). */
function count(h: Harness, name: string, reason: string, message?: string): number {
  return h
    .events(name)
    .filter((e) => e.reason === reason && (message === undefined || e.message === message))
    .reduce((n, e) => n + e.count, 0);
}

describe('kubelet back-off and sync cadence', () => {
  test('a container killed by a failed liveness probe restarts through the crash-loop back-off (upstream doBackOff)', async () => {
    const h = await newHarness();
    try {
      const pod = await h.createPod({
        metadata: { name: 'live' },
        spec: {
          terminationGracePeriodSeconds: 2,
          containers: [
            { name: 'c', image: 'busybox', command: ['sleep', '3600'], livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, periodSeconds: 1, failureThreshold: 1 } },
          ],
        },
      });
      const uid = pod.metadata!.uid!;
      const cs = () => h.pod('live')?.status?.containerStatuses?.[0];
      // 1st kill: no exited instance yet, so no back-off; 2nd kill: the previous exit is
      // older than nothing recorded, so the back-off starts at 10 s and the restart is immediate
      await h.until(() => cs()?.restartCount === 2, 15_000);
      assert.equal(cs()!.lastState?.terminated?.exitCode, 137, 'killed after the grace period');
      // 3rd kill: the previous exit is 2 s old, inside the 10 s back-off
      await h.until(() => cs()?.state?.waiting?.reason === 'CrashLoopBackOff', 10_000);
      const t0 = h.clock.now();
      assert.equal(cs()!.state!.waiting!.message, `back-off 10s restarting failed container=c pod=live_default(${uid})`);
      assert.equal(cs()!.restartCount, 2);
      assert.equal(cs()!.lastState?.terminated?.exitCode, 137);
      assert.ok(count(h, 'live', 'BackOff', `Back-off restarting failed container c in pod live_default(${uid})`) >= 1);
      assert.ok(count(h, 'live', 'Killing', 'Container c failed liveness probe, will be restarted') >= 3);
      await h.until(() => cs()?.restartCount === 3, 15_000);
      const waited = h.clock.now() - t0;
      assert.ok(waited >= 7_000 && waited <= 11_000, `restarted when the 10 s back-off ended (${waited} ms)`);
      await h.until(() => cs()?.state?.waiting?.reason === 'CrashLoopBackOff', 10_000);
      assert.equal(cs()!.state!.waiting!.message, `back-off 20s restarting failed container=c pod=live_default(${uid})`);
    } finally {
      await h.close();
    }
  });

  test('an idle running pod is synced every 60–90 s; a runtime change wakes it within the 1 s relist', async () => {
    const h = await newHarness();
    try {
      const pod = await h.createPod({ metadata: { name: 'idle' }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } });
      const uid = pod.metadata!.uid!;
      await h.until(() => h.pod('idle')?.status?.phase === 'Running');
      await h.clock.advance(3_000);
      const k = h.kubelet.kubelet;
      const before = k.syncs;
      await h.clock.advance(30_000);
      assert.ok(k.syncs - before <= 1, `at most one sync in 30 s idle (${k.syncs - before})`);
      const next = k.nextSync(uid)!;
      assert.ok(next > h.clock.now() && next - h.clock.now() <= 90_000, 'a resync is pending within 60–90 s');
      await h.clock.advance(next - h.clock.now() + 100);
      assert.ok(k.syncs > before, 'the minute resync ran');
      // the container dies behind the kubelet's back: the relist notices, the pod restarts it at once
      const [ctr] = await h.runtime.listContainers();
      await h.runtime.stopContainer(ctr.id, 0);
      await h.clock.advance(1_500);
      assert.equal(h.pod('idle')!.status!.containerStatuses![0].restartCount, 1);
    } finally {
      await h.close();
    }
  });

  test('image pull and crash-loop back-off: BackOff events about every 10 s, not every second', async () => {
    const h = await newHarness();
    try {
      await h.createPod({ metadata: { name: 'bad' }, spec: { containers: [{ name: 'c', image: 'nginx:fail-pull', imagePullPolicy: 'IfNotPresent' }] } });
      const crash = await h.createPod({ metadata: { name: 'crash' }, spec: { containers: [{ name: 'c', image: 'busybox:exit-1-after-1000ms' }] } });
      await h.clock.advance(60_000);
      // pulls at 0, 10 s, 30 s (back-off 10 s, 20 s, 40 s); BackOff at the syncs in between, 10 s apart
      assert.equal(count(h, 'bad', 'Pulling'), 3);
      const pullBackOff = count(h, 'bad', 'BackOff', 'Back-off pulling image "nginx:fail-pull"');
      assert.ok(pullBackOff >= 2 && pullBackOff <= 7, `image BackOff events in 60 s: ${pullBackOff}`);
      const crashBackOff = count(h, 'crash', 'BackOff', `Back-off restarting failed container c in pod crash_default(${crash.metadata!.uid})`);
      assert.ok(crashBackOff >= 2 && crashBackOff <= 9, `crash BackOff events in 60 s: ${crashBackOff}`);
      assert.equal(h.pod('crash')!.status!.containerStatuses![0].restartCount, 3, 'restarts at 1 s, 12 s, 33 s');
    } finally {
      await h.close();
    }
  });
});

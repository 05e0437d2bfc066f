/**
 * Container garbage collection and log cleanup on the simulated runtime: one exited
 * container per name stays (lastState, logs -p), older ones and their log files go;
 * the pod's log directory goes with the pod.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { R } from '../client/types.js';
import { newHarness } from './testing/harness.js';

test('a crash-looping container keeps only its newest exited predecessor and its log', async () => {
  const h = await newHarness();
  try {
    const p = await h.createPod({ metadata: { name: 'crash' }, spec: { containers: [{ name: 'c', image: 'busybox:1.28', command: ['sh', '-c', 'exit 1'] }] } });
    await h.until(() => (h.pod('crash')?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 3, 200_000, 1000);
    await h.clock.advance(2000);
    const ctrs = await h.runtime.listContainers({ labelSelector: { 'io.kubernetes.pod.uid': p.metadata!.uid! } });
    assert.ok(ctrs.length <= 2, `${ctrs.length} containers left`);
    assert.equal(ctrs.filter((c) => c.state === 'CONTAINER_EXITED').length >= 1, true);
    const logDir = join(h.dataDir, 'kubelet', 'logs', `default_crash_${p.metadata!.uid}`, 'c');
    assert.ok(readdirSync(logDir).length <= 2, `log files: ${readdirSync(logDir)}`);
    const cs = h.pod('crash')!.status!.containerStatuses![0]!;
    assert.equal((cs.lastState?.terminated ?? cs.state?.terminated)?.exitCode, 1);
    await h.client.delete(R.pods, 'default', 'crash');
    await h.until(() => !h.pod('crash'), 60_000);
    assert.ok(!existsSync(join(h.dataDir, 'kubelet', 'logs', `default_crash_${p.metadata!.uid}`)), 'pod log directory removed with the pod');
  } finally {
    await h.close();
  }
});

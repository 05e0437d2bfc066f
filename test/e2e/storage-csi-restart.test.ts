/**
 * A CSI volume after a server restart that lost its staging (what a host reboot does to
 * the mounts, or a switch of `--runtime` on the same data dir), with the real kubectl on
 * the simulated runtime: the kubelet's `vol_data.json` survives, the staging does not.
 * As upstream's kubelet (reconstruction marks device mounts uncertain, so MountDevice runs
 * again), the restarted kubelet calls NodeStageVolume again and the pod runs with its data;
 * before, it trusted the record and NodePublishVolume failed "is not staged" forever.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';
import { rwoClaim } from './storage-support.js';

const MANIFEST = `${rwoClaim('data', '1Gi')}---
apiVersion: v1
kind: Pod
metadata:
  name: writer
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'echo hello > /data/hello; sleep 3600']
    volumeMounts:
    - name: data
      mountPath: /data
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: data
`;

interface PodStatus {
  status: { conditions?: { type: string; status: string }[] };
}

describe('e2e: CSI volume re-staged after a restart (sim runtime)', { timeout: 240_000 }, () => {
  let c: Cluster;
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-restage-'));

  before(async () => {
    c = await startCluster({ dir, args: ['--v', '4'] });
  });
  after(async () => {
    await c?.stop();
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  const pod = (): PodStatus => {
    const r = c.kubectl(['get', 'pod', 'writer', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as PodStatus;
  };
  const ready = (p: PodStatus): boolean => !!p.status.conditions?.some((x) => x.type === 'Ready' && x.status === 'True');

  it('runs the pod again with its data once the restarted kubelet has staged the volume again', async () => {
    const r = c.kubectl(['apply', '-f', '-'], { input: MANIFEST });
    assert.equal(r.code, 0, r.stderr);
    await eventually(() => ready(pod()), 60_000);
    const pv = c.kubectl(['get', 'pvc', 'data', '-o', 'jsonpath={.spec.volumeName}']).stdout;
    const handle = c.kubectl(['get', 'pv', pv, '-o', 'jsonpath={.spec.csi.volumeHandle}']).stdout;
    const calls = (rpc: string): number => c.log().split(`calling ${rpc} rpc [volid=${handle},`).length - 1;
    const stageCalls = (): number => calls('NodeStageVolume');
    const publishCalls = (): number => calls('NodePublishVolume');
    // the server's output reaches this process between the synchronous kubectl calls
    await eventually(() => stageCalls() === 1 && publishCalls() === 1);
    const driverDir = join(dir, 'kubelet', 'plugins', 'kubernetes.io', 'csi', 'hostpath.csi.k8ts.io');
    const [device] = fs.readdirSync(driverDir);
    const staging = join(driverDir, device!, 'globalmount');
    const volume = join(dir, 'storage', handle);
    assert.equal(fs.readlinkSync(staging), volume);
    assert.ok(fs.existsSync(join(driverDir, device!, 'vol_data.json')));

    fs.writeFileSync(join(volume, 'before'), 'kept\n');
    await c.stop();
    fs.unlinkSync(staging); // the reboot: the staging is gone, the kubelet's record stays
    await c.restart();

    // the proving events: the restarted kubelet stages, then publishes the volume again
    await eventually(() => stageCalls() === 2 && publishCalls() >= 2, 120_000);
    await eventually(() => ready(pod()), 60_000);
    assert.equal(fs.readlinkSync(staging), volume);
    const cat = c.kubectl(['exec', 'writer', '--', 'cat', '/data/before']);
    assert.equal(cat.code, 0, cat.stderr);
    assert.equal(cat.stdout, 'kept\n');
    const events = c.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=writer,reason=FailedMount', '-o', 'jsonpath={.items[*].message}']);
    assert.equal(events.code, 0, events.stderr);
    assert.doesNotMatch(events.stdout, /is not staged/);
  });
});

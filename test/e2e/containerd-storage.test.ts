/**
 * Persistent volumes on real containers: the real `k8ts server` with a kubelet on a
 * private containerd (test/support/containerd.ts), whose node agent runs the
 * `k8ts csi-hostpath` driver process publishing with bind mounts. A file one pod
 * writes into its claim is read by the next pod using the claim, which is grown while
 * that pod runs (the kubelet's NodeExpandVolume, as on the simulated runtime); deleting
 * the claim unmounts and deletes the volume.
 *
 * Needs root, containerd, runc, CNI plugins, docker-registry, umoci (scripts/install-deps.sh).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { eventually, type Cluster } from './harness.js';
import { fastSyncKubeletConfig, mountsUnder, shellClaimPod, slowKubectl, startServerOnContainerd, type ContainerdServer } from './storage-support.js';

const pod = (name: string, cmd: string): string => shellClaimPod(name, cmd, 'shared');

describe('e2e: a claim carries data from one pod to the next on containerd', { timeout: 300_000 }, () => {
  let srv: ContainerdServer | undefined;
  let c: Cluster | undefined;
  let kcfg: ReturnType<typeof fastSyncKubeletConfig> | undefined;
  const { kubectl, apply, phase } = slowKubectl(() => c);

  before(async () => {
    // syncFrequency 3s: the kubelet checks mounted claims for expansion on each pod sync (1 min by default)
    kcfg = fastSyncKubeletConfig();
    srv = await startServerOnContainerd(['--kubelet-config', kcfg.file]);
    c = srv.cluster;
  });

  after(async () => {
    try {
      await srv?.stop();
    } finally {
      kcfg?.remove();
    }
  });

  it('the writer’s file is read by the reader; the volume is a bind mount and goes with the claim', async () => {
    apply(`apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: shared
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests: {storage: 64Mi}
`);
    apply(pod('writer', 'echo written-by-writer > /data/msg && sleep 3600'));
    await eventually(() => phase('writer') === 'Running' || undefined, 120_000);
    const pvc = JSON.parse(kubectl('get', 'pvc', 'shared', '-o', 'json'));
    assert.equal(pvc.status.phase, 'Bound');
    const pv = JSON.parse(kubectl('get', 'pv', pvc.spec.volumeName, '-o', 'json'));
    const volDir = join(c!.dir, 'storage', pv.spec.csi.volumeHandle);
    await eventually(() => (fs.existsSync(join(volDir, 'msg')) ? true : undefined), 30_000);
    assert.equal(fs.readFileSync(join(volDir, 'msg'), 'utf8'), 'written-by-writer\n');
    const uid = JSON.parse(kubectl('get', 'pod', 'writer', '-o', 'json')).metadata.uid as string;
    const target = join(c!.dir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~csi', pvc.spec.volumeName, 'mount');
    assert.ok(mountsUnder(target).includes(target), `${target} is a mount point`);

    kubectl('delete', 'pod', 'writer');
    assert.deepEqual(mountsUnder(join(c!.dir, 'kubelet', 'pods', uid)), [], 'unpublished');
    apply(pod('reader', 'cat /data/msg; sleep 3600'));
    await eventually(() => phase('reader') === 'Running' || undefined, 120_000);
    const out = await eventually(() => c!.kubectl(['logs', 'reader']).stdout || undefined, 30_000);
    assert.equal(out, 'written-by-writer\n');
    assert.equal(kubectl('exec', 'reader', '--', 'cat', '/data/msg'), 'written-by-writer\n');

    // grown while the reader runs: the kubelet's NodeExpandVolume on the bind-mounted volume
    kubectl('patch', 'pvc', 'shared', '-p', '{"spec":{"resources":{"requests":{"storage":"96Mi"}}}}');
    await eventually(() => JSON.parse(kubectl('get', 'pvc', 'shared', '-o', 'json')).status?.capacity?.storage === '96Mi' || undefined, 90_000);
    const evs = JSON.parse(kubectl('get', 'events', '--field-selector', 'involvedObject.kind=Pod,involvedObject.name=reader', '-o', 'json')).items as {
      reason: string;
      message: string;
    }[];
    assert.ok(
      evs.some((e) => e.reason === 'FileSystemResizeSuccessful' && e.message === `MountVolume.NodeExpandVolume succeeded for volume "${pvc.spec.volumeName}" e2e-node`),
      JSON.stringify(evs.map((e) => e.reason)),
    );
    assert.equal(kubectl('exec', 'reader', '--', 'cat', '/data/msg'), 'written-by-writer\n', 'still mounted');

    kubectl('delete', 'pod', 'reader');
    kubectl('delete', 'pvc', 'shared');
    await eventually(() => (c!.kubectl(['get', 'pv', pvc.spec.volumeName]).code !== 0 ? true : undefined), 30_000);
    assert.equal(fs.existsSync(volDir), false);
    assert.deepEqual(mountsUnder(join(c!.dir, 'kubelet')), []);
  });
});

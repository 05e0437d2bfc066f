/**
 * Raw block volumes on real containers: a `volumeMode: Block` claim of the default class,
 * provisioned by the `k8ts csi-hostpath` driver process as a sparse backing file,
 * attached to a loop device at NodeStageVolume and bind-mounted onto the publish file;
 * the kubelet hands it to the container as the CRI device /dev/xvda. What one pod writes
 * there with dd, the next pod reads back; unstaging detaches the loop device and the
 * backing file goes with the claim.
 *
 * Needs root, containerd, runc, CNI plugins, docker-registry, umoci, losetup (scripts/install-deps.sh).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { loopDevicesOf } from '../../src/csi/hostpath/block.js';
import { eventually, type Cluster } from './harness.js';
import { mountsUnder, shellClaimPod, slowKubectl, startServerOnContainerd, type ContainerdServer } from './storage-support.js';
import { requirePackages } from '../support/deps.js';

const pod = (name: string, cmd: string): string => shellClaimPod(name, cmd, 'raw', '/dev/xvda');

describe('e2e: a raw block claim carries data from one pod to the next on containerd', { timeout: 300_000 }, () => {
  let srv: ContainerdServer | undefined;
  let c: Cluster | undefined;
  const { kubectl, apply, phase } = slowKubectl(() => c);

  before(async () => {
    requirePackages(['mount'], 'csi-hostpath block volumes (losetup)');
    srv = await startServerOnContainerd();
    c = srv.cluster;
  });

  after(async () => {
    await srv?.stop();
  });

  it('the writer’s bytes on /dev/xvda are read by the reader; the loop device goes with the last pod, the backing file with the claim', async () => {
    apply(`apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: raw
spec:
  accessModes: [ReadWriteOnce]
  volumeMode: Block
  resources:
    requests: {storage: 16Mi}
`);
    apply(pod('writer', 'printf written-by-writer | dd of=/dev/xvda conv=fsync 2>/dev/null && echo done && sleep 3600'));
    await eventually(() => phase('writer') === 'Running' || undefined, 120_000);
    assert.equal(await eventually(() => c!.kubectl(['logs', 'writer']).stdout || undefined, 30_000), 'done\n');
    const pvc = JSON.parse(kubectl('get', 'pvc', 'raw', '-o', 'json'));
    const pvName = pvc.spec.volumeName as string;
    const pv = JSON.parse(kubectl('get', 'pv', pvName, '-o', 'json'));
    const backing = join(c!.dir, 'storage', pv.spec.csi.volumeHandle);
    assert.equal(fs.statSync(backing).size, 16 << 20);
    const uid = JSON.parse(kubectl('get', 'pod', 'writer', '-o', 'json')).metadata.uid as string;
    const publish = join(c!.dir, 'kubelet', 'plugins', 'kubernetes.io', 'csi', 'volumeDevices', 'publish', pvName, uid);
    assert.ok(mountsUnder(publish).includes(publish), `${publish} is a mount point`);
    assert.ok(fs.statSync(publish).isBlockDevice(), 'the loop device is bind-mounted onto the publish file');
    assert.equal(loopDevicesOf(backing).length, 1, 'staged: attached to a loop device');
    assert.equal(kubectl('exec', 'writer', '--', 'sh', '-c', 'test -b /dev/xvda && echo block'), 'block\n');

    kubectl('delete', 'pod', 'writer');
    assert.deepEqual(mountsUnder(join(c!.dir, 'kubelet', 'plugins')), [], 'unpublished');
    assert.deepEqual(loopDevicesOf(backing), [], 'unstaged: the loop device is detached');
    // the bytes are in the backing file at offset 0
    assert.equal(fs.readFileSync(backing).subarray(0, 17).toString(), 'written-by-writer');

    apply(pod('reader', 'dd if=/dev/xvda bs=17 count=1 2>/dev/null; echo; sleep 3600'));
    await eventually(() => phase('reader') === 'Running' || undefined, 120_000);
    assert.equal(await eventually(() => c!.kubectl(['logs', 'reader']).stdout || undefined, 30_000), 'written-by-writer\n');

    kubectl('delete', 'pod', 'reader');
    kubectl('delete', 'pvc', 'raw');
    await eventually(() => (c!.kubectl(['get', 'pv', pvName]).code !== 0 ? true : undefined), 30_000);
    assert.equal(fs.existsSync(backing), false);
    assert.deepEqual(mountsUnder(join(c!.dir, 'kubelet')), []);
  });
});

/**
 * Raw block volumes through CSI on the simulated runtime, driven by the real kubectl: a
 * `volumeMode: Block` claim of the default class is provisioned as a block volume by
 * the `k8ts csi-hostpath` driver; the kubelet stages and publishes it with a block
 * capability at upstream's volumeDevices paths (calls in its log at --v=4) and links it
 * into the pod; a Filesystem claim in volumeDevices fails with upstream's FailedMount
 * text; deleting pod and claim unpublishes, unstages and deletes the backing file.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';
import { claimPod, kubectlHelpers } from './storage-support.js';

interface Obj {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  spec: Record<string, any>;
  status?: Record<string, any>;
}

const CLAIM = (name: string, mode: string) => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
  accessModes: [ReadWriteOnce]
  volumeMode: ${mode}
  resources:
    requests:
      storage: 16Mi
`;

const POD = (name: string, claim: string): string => claimPod(name, claim, { devicePath: '/dev/xvda' });

describe('e2e: raw block volumes through CSI (sim runtime)', { timeout: 180_000 }, () => {
  let c: Cluster;
  const { get, apply, exists, events } = kubectlHelpers<Obj>(() => c);
  const gone = (args: string[]): true | undefined => (exists(args) ? undefined : true);

  before(async () => {
    c = await startCluster({ args: ['--v', '4'] });
  });
  after(async () => {
    await c?.stop();
  });

  it('provisions a Block claim, stages and publishes it at the volumeDevices paths and links it into the pod', async () => {
    apply(CLAIM('raw', 'Block'));
    apply(POD('blk', 'raw'));
    await eventually(() => get(['pod', 'blk']).status?.phase === 'Running' || undefined, 60_000);
    const pvc = get(['pvc', 'raw']);
    assert.equal(pvc.status?.phase, 'Bound');
    assert.equal(pvc.spec.volumeMode, 'Block');
    const pvName = pvc.spec.volumeName as string;
    const pv = get(['pv', pvName]);
    assert.equal(pv.spec.volumeMode, 'Block');
    const handle = pv.spec.csi.volumeHandle as string;
    // the driver's backing file: sparse, of the claimed size
    const backing = join(c.dir, 'storage', handle);
    const st = fs.statSync(backing);
    assert.ok(st.isFile(), `${backing} is a file`);
    assert.equal(st.size, 16 << 20);

    const uid = get(['pod', 'blk']).metadata.uid;
    const plugins = join(c.dir, 'kubelet', 'plugins', 'kubernetes.io', 'csi', 'volumeDevices');
    const staging = join(plugins, 'staging', pvName);
    const publish = join(plugins, 'publish', pvName, uid);
    const podDevice = join(c.dir, 'kubelet', 'pods', uid, 'volumeDevices', 'kubernetes.io~csi', pvName);
    assert.ok(fs.existsSync(publish), `${publish} exists`);
    assert.equal(fs.readlinkSync(podDevice), publish);
    assert.equal(fs.realpathSync(podDevice), backing);
    const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await eventually(
      () => new RegExp(`kubernetes\\.io/csi: calling NodeStageVolume rpc \\[volid=${esc(handle)},staging_target_path=${esc(staging)}\\]`).test(c.log()) || undefined,
    );
    await eventually(() => new RegExp(`kubernetes\\.io/csi: calling NodePublishVolume rpc \\[volid=${esc(handle)},target_path=${esc(publish)}\\]`).test(c.log()) || undefined);

    // a Filesystem claim in volumeDevices: upstream's FailedMount, the pod stays Pending
    apply(CLAIM('fsclaim', 'Filesystem'));
    apply(POD('wrong', 'fsclaim'));
    const ev = await eventually(() => events('Pod', 'wrong').find((e) => e.reason === 'FailedMount'), 60_000);
    assert.equal(ev.type, 'Warning');
    assert.equal(
      ev.message,
      'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: error processing PVC default/fsclaim: volume data has volumeMode Filesystem, but is specified in volumeDevices',
    );
    assert.equal(get(['pod', 'wrong']).status?.phase, 'Pending');

    // teardown: unpublish and unstage with the pod; the backing file goes with the claim (reclaim Delete)
    assert.equal(c.kubectl(['delete', 'pod', 'blk', 'wrong', '--grace-period=1']).code, 0);
    await eventually(() => new RegExp(`kubernetes\\.io/csi: calling NodeUnpublishVolume rpc \\[volid=${esc(handle)},target_path=${esc(publish)}\\]`).test(c.log()) || undefined);
    await eventually(
      () => new RegExp(`kubernetes\\.io/csi: calling NodeUnstageVolume rpc \\[volid=${esc(handle)},staging_target_path=${esc(staging)}\\]`).test(c.log()) || undefined,
    );
    assert.equal(fs.existsSync(publish), false);
    assert.equal(fs.existsSync(staging), false);
    assert.equal(c.kubectl(['delete', 'pvc', 'raw', 'fsclaim']).code, 0);
    await eventually(() => gone(['pv', pvName]), 30_000);
    assert.equal(fs.existsSync(backing), false, 'the backing file is deleted');
  });
});

/**
 * The kubelet's CSI plugin with raw block volumes against csi-hostpath over its socket
 * (registered as the plugin watcher would), on an in-process API server: a Block claim
 * in volumeDevices is staged and published at upstream's paths with a `block`
 * capability and handed to the container as a CRI device; teardown unpublishes and
 * unstages only when no other pod uses it; a claim used the wrong way fails with
 * upstream's text.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../../api/resource.js';
import { SR } from '../../../client/storage-resources.js';
import { R } from '../../../client/types.js';
import { CSIClient } from '../../../csi/client.js';
import { HostPathDriver } from '../../../csi/hostpath/driver.js';
import { startTestCluster, type TestCluster } from '../../../controllers/util/test-cluster.js';
import { blockDevices } from '../../kuberuntime/container-config.js';
import { CSIDrivers } from './drivers.js';
import { MountStepError } from './errors.js';
import { CSIVolumePlugin } from './mounter.js';

type PVC = PersistentVolumeClaim & KObject;
const NODE = 'node-b';
const DRIVER = 'block.csi.k8ts.io';

describe('kubelet CSI raw block volumes (volumeDevices)', { timeout: 60_000 }, () => {
  let c: TestCluster;
  let dir: string;
  let drivers: CSIDrivers;
  let hostpath: HostPathDriver;
  let client: CSIClient;
  let plugin: CSIVolumePlugin;
  const log: string[] = [];
  const kd = (): string => join(dir, 'kubelet');

  before(async () => {
    c = await startTestCluster();
    dir = fs.mkdtempSync(join(tmpdir(), 'k8ts-block-'));
    await c.client.create(R.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
    await c.client.create(SR.csidrivers, '', { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: DRIVER }, spec: { attachRequired: false } });
    drivers = new CSIDrivers(c.client, NODE, () => undefined);
    const sock = join(dir, 'csi.sock');
    hostpath = new HostPathDriver({ name: DRIVER, nodeId: NODE, dataDir: join(dir, 'driver'), endpoint: sock, publishMode: 'symlink' });
    await hostpath.start();
    client = new CSIClient(sock);
    await drivers.register(DRIVER, sock);
    plugin = new CSIVolumePlugin(kd(), NODE, c.client, drivers, (l) => log.push(l));
  });
  after(async () => {
    drivers?.close();
    client?.close();
    await hostpath?.stop();
    await c?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A bound claim `name` of `volumeMode` on a csi-hostpath volume of the same mode. */
  async function boundClaim(name: string, volumeMode: 'Block' | 'Filesystem'): Promise<{ pv: string; handle: string }> {
    const access = volumeMode === 'Block' ? { block: {} } : { mount: { fsType: '', mountFlags: [] } };
    const vol = await client.createVolume({ name, capacityRange: { requiredBytes: 4 << 20 }, volumeCapabilities: [{ ...access, accessMode: { mode: 'SINGLE_NODE_WRITER' } }] });
    const pv = `pv-${name}`;
    const pvc = await c.client.create<PVC>(R.persistentvolumeclaims, 'default', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: 'default' },
      spec: { volumeName: pv, volumeMode, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '4Mi' } } },
    });
    await c.client.create(R.persistentvolumes, '', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: pv },
      spec: {
        capacity: { storage: '4Mi' },
        volumeMode,
        accessModes: ['ReadWriteOnce'],
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name, uid: pvc.metadata!.uid },
        csi: { driver: DRIVER, volumeHandle: vol.volumeId },
      },
    });
    await c.client.update(
      R.persistentvolumeclaims,
      'default',
      { ...pvc, status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '4Mi' } } },
      { subresource: 'status' },
    );
    return { pv, handle: vol.volumeId };
  }

  const pod = (uid: string, claim: string, use: 'devices' | 'mounts'): Pod => ({
    metadata: { name: `p-${uid}`, namespace: 'default', uid },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'busybox',
          ...(use === 'devices' ? { volumeDevices: [{ name: 'data', devicePath: '/dev/xvda' }] } : { volumeMounts: [{ name: 'data', mountPath: '/data' }] }),
        },
      ],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }],
    },
  });

  it('stages and publishes at upstream paths, links the pod device, and the container gets it as a CRI device', async () => {
    const { pv, handle } = await boundClaim('blk', 'Block');
    const p1 = pod('uid-1', 'blk', 'devices');
    const link = await plugin.setUp(p1, p1.spec!.volumes![0]!);
    const staging = join(kd(), 'plugins', 'kubernetes.io', 'csi', 'volumeDevices', 'staging', pv);
    const publish1 = join(kd(), 'plugins', 'kubernetes.io', 'csi', 'volumeDevices', 'publish', pv, 'uid-1');
    assert.equal(link, join(kd(), 'pods', 'uid-1', 'volumeDevices', 'kubernetes.io~csi', pv));
    assert.equal(fs.readlinkSync(link), publish1);
    // csi-hostpath in symlink mode: staging and publish paths are links to the backing file
    assert.equal(fs.readlinkSync(staging), hostpath.volumePath(handle));
    assert.equal(fs.readlinkSync(publish1), hostpath.volumePath(handle));
    assert.equal(fs.statSync(link).size, 4 << 20);
    assert.ok(log.includes(`kubernetes.io/csi: calling NodeStageVolume rpc [volid=${handle},staging_target_path=${staging}]`), log.join('\n'));
    assert.ok(log.includes(`kubernetes.io/csi: calling NodePublishVolume rpc [volid=${handle},target_path=${publish1}]`), log.join('\n'));
    assert.deepEqual(blockDevices(p1, p1.spec!.containers[0]!, new Map([['data', link]])), [{ containerPath: '/dev/xvda', hostPath: link, permissions: 'mrw' }]);
    const ro: Pod = { ...p1, spec: { ...p1.spec!, volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'blk', readOnly: true } }] } };
    assert.equal(blockDevices(ro, ro.spec!.containers[0]!, new Map([['data', link]]))[0]!.permissions, 'r');

    // a second pod on the node: published again, staged once
    const p2 = pod('uid-2', 'blk', 'devices');
    const stages = log.filter((l) => l.includes('NodeStageVolume rpc')).length;
    await plugin.setUp(p2, p2.spec!.volumes![0]!);
    assert.equal(log.filter((l) => l.includes('NodeStageVolume rpc')).length, stages);
    await plugin.tearDownPod('uid-1');
    assert.equal(fs.existsSync(publish1), false);
    assert.equal(fs.existsSync(link), false);
    assert.equal(fs.readlinkSync(staging), hostpath.volumePath(handle), 'still staged for uid-2');
    assert.equal(log.filter((l) => l.includes('NodeUnstageVolume rpc')).length, 0);
    await plugin.tearDownPod('uid-2');
    assert.ok(log.includes(`kubernetes.io/csi: calling NodeUnstageVolume rpc [volid=${handle},staging_target_path=${staging}]`), log.join('\n'));
    assert.equal(fs.existsSync(staging), false);
    assert.deepEqual(fs.readdirSync(join(kd(), 'plugins', 'kubernetes.io', 'csi', 'volumeDevices', 'publish')), []);
    assert.equal(fs.existsSync(join(kd(), 'plugins', 'kubernetes.io', 'csi', 'volumeDevices', pv)), false);
  });

  it('a restarted kubelet stages again a volume whose staging a reboot lost (its record survives)', async () => {
    const { pv, handle } = await boundClaim('blk-reboot', 'Block');
    const p5 = pod('uid-5', 'blk-reboot', 'devices');
    await plugin.setUp(p5, p5.spec!.volumes![0]!);
    const staging = join(kd(), 'plugins', 'kubernetes.io', 'csi', 'volumeDevices', 'staging', pv);
    const stageLine = `kubernetes.io/csi: calling NodeStageVolume rpc [volid=${handle},staging_target_path=${staging}]`;
    assert.equal(log.filter((l) => l === stageLine).length, 1);
    fs.unlinkSync(staging); // the reboot
    const restarted = new CSIVolumePlugin(kd(), NODE, c.client, drivers, (l) => log.push(l));
    const link = await restarted.setUp(p5, p5.spec!.volumes![0]!);
    assert.equal(log.filter((l) => l === stageLine).length, 2);
    assert.equal(fs.readlinkSync(staging), hostpath.volumePath(handle));
    assert.equal(fs.statSync(link).size, 4 << 20);
    // staged by this kubelet now: the next map does not stage again
    await restarted.setUp(p5, p5.spec!.volumes![0]!);
    assert.equal(log.filter((l) => l === stageLine).length, 2);
    await restarted.tearDownPod('uid-5');
    assert.equal(fs.existsSync(staging), false);
  });

  it('a Filesystem claim in volumeDevices and a Block claim in volumeMounts fail with upstream texts', async () => {
    await boundClaim('fsc', 'Filesystem');
    const p = pod('uid-3', 'fsc', 'devices');
    const e1 = await plugin.setUp(p, p.spec!.volumes![0]!).catch((e: unknown) => e);
    assert.ok(e1 instanceof MountStepError);
    assert.equal(
      e1.eventMessage,
      'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: error processing PVC default/fsc: volume data has volumeMode Filesystem, but is specified in volumeDevices',
    );
    await boundClaim('blk2', 'Block');
    const q = pod('uid-4', 'blk2', 'mounts');
    const e2 = await plugin.setUp(q, q.spec!.volumes![0]!).catch((e: unknown) => e);
    assert.equal(
      (e2 as MountStepError).eventMessage,
      'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: error processing PVC default/blk2: volume data has volumeMode Block, but is specified in volumeMounts',
    );
    const c0 = p.spec!.containers[0]!;
    assert.throws(() => blockDevices(p, c0, new Map()), { message: 'cannot find volume "data" to pass into container "app"' });
  });
});

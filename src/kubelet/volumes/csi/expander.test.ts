/**
 * The kubelet's NodeExpandVolume against csi-hostpath over its socket (registered as the
 * plugin watcher would), on an in-process API server: online expansion of a mounted
 * claim, expansion at mount time, an infeasible failure at the node, a read-only claim.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PersistentVolumeClaim, PersistentVolumeClaimCondition, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../../api/resource.js';
import { R } from '../../../client/types.js';
import { CSIClient } from '../../../csi/client.js';
import { HostPathDriver } from '../../../csi/hostpath/driver.js';
import { startTestCluster, type TestCluster } from '../../../controllers/util/test-cluster.js';
import { FakeClock } from '../../../util/fake-clock.js';
import { CSIDrivers } from './drivers.js';
import { CSINodeExpander, expandAtMount } from './expander.js';
import { MountStepError } from './errors.js';

type PVC = PersistentVolumeClaim & KObject;
const NODE = 'node-k';
const MOUNT = { mount: { fsType: '', mountFlags: [] }, accessMode: { mode: 'SINGLE_NODE_WRITER' as const } };
const PENDING_CONDITIONS = [
  { type: 'Resizing', status: 'True', lastProbeTime: null, lastTransitionTime: '2025-01-01T00:00:00Z' },
  {
    type: 'FileSystemResizePending',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: '2025-01-01T00:00:00Z',
    message: 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.',
  },
];

describe('kubelet CSI node expansion (NodeExpandVolume)', { timeout: 60_000 }, () => {
  let c: TestCluster;
  let dir: string;
  let drivers: CSIDrivers;
  let expander: CSINodeExpander;
  const hostpaths: HostPathDriver[] = [];
  const clients: CSIClient[] = [];
  const log: string[] = [];
  const grpc: string[] = [];

  before(async () => {
    c = await startTestCluster();
    dir = fs.mkdtempSync(join(tmpdir(), 'k8ts-expander-'));
    await c.client.create(R.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
    drivers = new CSIDrivers(
      c.client,
      NODE,
      (l) => log.push(l),
      (l) => grpc.push(l),
    );
    for (const [name, max] of [
      ['ok.csi.k8ts.io', undefined],
      ['small.csi.k8ts.io', 1 << 20],
    ] as const) {
      const sock = join(dir, `${name}.sock`);
      const d = new HostPathDriver({ name, nodeId: NODE, dataDir: join(dir, name), endpoint: sock, publishMode: 'symlink', maxVolumeExpansionSizeNode: max });
      await d.start();
      hostpaths.push(d);
      clients.push(new CSIClient(sock));
      await drivers.register(name, sock);
    }
    expander = new CSINodeExpander({
      client: c.client,
      drivers,
      recorder: c.recorder,
      clock: new FakeClock(),
      nodeName: NODE,
      kubeletDir: join(dir, 'kubelet'),
      log: (l) => log.push(l),
    });
  });
  after(async () => {
    drivers?.close();
    for (const x of clients) x.close();
    for (const d of hostpaths) await d.stop();
    await c?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A claim the external-resizer has expanded on the controller (PV 2Mi, claim 1Mi,
   * NodeResizePending), its volume staged and published for `pod` as the mounter does.
   */
  async function expandedOnController(
    name: string,
    driver: 0 | 1,
    pod: Pod,
    status: Partial<PersistentVolumeClaim['status']> = {},
  ): Promise<{ target: string; staging: string; handle: string }> {
    const vol = await clients[driver]!.createVolume({ name, capacityRange: { requiredBytes: 1 << 20 }, volumeCapabilities: [MOUNT] });
    const pvc = await c.client.create<PVC>(R.persistentvolumeclaims, 'default', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: 'default' },
      spec: { volumeName: `pv-${name}`, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Mi' } } },
    });
    await c.client.create(R.persistentvolumes, '', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `pv-${name}` },
      spec: {
        capacity: { storage: '2Mi' },
        accessModes: ['ReadWriteOnce'],
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name, uid: pvc.metadata!.uid },
        csi: { driver: hostpaths[driver]!.name, volumeHandle: vol.volumeId },
      },
    });
    await c.client.update(
      R.persistentvolumeclaims,
      'default',
      {
        ...pvc,
        status: {
          phase: 'Bound',
          accessModes: ['ReadWriteOnce'],
          capacity: { storage: '1Mi' },
          allocatedResources: { storage: '2Mi' },
          allocatedResourceStatuses: { storage: 'NodeResizePending' },
          conditions: PENDING_CONDITIONS as unknown as PersistentVolumeClaimCondition[],
          ...status,
        },
      },
      { subresource: 'status' },
    );
    const vdir = join(dir, 'kubelet', 'pods', pod.metadata!.uid!, 'volumes', 'kubernetes.io~csi', `pv-${name}`);
    const staging = join(dir, 'kubelet', 'plugins', name, 'globalmount');
    fs.mkdirSync(staging, { recursive: true });
    fs.mkdirSync(vdir, { recursive: true });
    const target = join(vdir, 'mount');
    await clients[driver]!.nodeStageVolume({ volumeId: vol.volumeId, stagingTargetPath: staging, volumeCapability: MOUNT });
    await clients[driver]!.nodePublishVolume({ volumeId: vol.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: MOUNT });
    fs.writeFileSync(
      join(vdir, 'vol_data.json'),
      JSON.stringify({ driverName: hostpaths[driver]!.name, volumeHandle: vol.volumeId, specVolID: `pv-${name}`, stagingPath: staging }),
    );
    return { target, staging, handle: vol.volumeId };
  }

  const podOf = (name: string, claim: string, readOnly = false): { pod: Pod; v: Volume } => {
    const v: Volume = { name: 'data', persistentVolumeClaim: { claimName: claim, readOnly } };
    return { pod: { metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { nodeName: NODE, containers: [], volumes: [v] } }, v };
  };
  const getPVC = (name: string): Promise<PVC> => c.client.get<PVC>(R.persistentvolumeclaims, 'default', name);
  const eventsOf = (kind: string, name: string): string[] =>
    c.recorder.events.filter((e) => e.obj.kind === kind && e.obj.metadata?.name === name).map((e) => `${e.type} ${e.reason}: ${e.message}`);

  it('expands a mounted claim online and finishes its status', async () => {
    const { pod, v } = podOf('web', 'a');
    const { target, staging, handle } = await expandedOnController('a', 0, pod);
    await expander.inUse(pod, v);
    const pvc = await getPVC('a');
    assert.deepEqual(pvc.status?.capacity, { storage: '2Mi' });
    assert.equal(pvc.status?.conditions, undefined, 'the resize conditions are removed');
    assert.equal(pvc.status?.allocatedResourceStatuses, undefined);
    assert.deepEqual(pvc.status?.allocatedResources, { storage: '2Mi' }, 'allocatedResources stays');
    const msg = 'Normal FileSystemResizeSuccessful: MountVolume.NodeExpandVolume succeeded for volume "pv-a" node-k';
    assert.deepEqual(eventsOf('Pod', 'web'), [msg]);
    assert.deepEqual(eventsOf('PersistentVolumeClaim', 'a'), [msg]);
    assert.ok(log.includes(`kubernetes.io/csi: Expander.NodeExpand(${target})`), log.join('\n'));
    assert.ok(log.includes(`kubernetes.io/csi: calling NodeExpandVolume rpc [volid=${handle},volume_path=${target},required_bytes=2097152]`), log.join('\n'));
    const req = grpc.find((l) => l.includes('GRPC call: /csi.v1.Node/NodeExpandVolume'));
    assert.ok(req);
    assert.match(req, new RegExp(`"volumePath":"${target}","stagingTargetPath":"${staging}","capacityRange":\\{"requiredBytes":2097152\\}`));
    // once done, a later sync does nothing
    const n = grpc.length;
    await expander.inUse(pod, v);
    assert.equal(grpc.slice(n).filter((l) => l.includes('NodeExpandVolume')).length, 0);
    assert.equal(eventsOf('Pod', 'web').length, 1);
  });

  it('marks an infeasible node expansion NodeResizeInfeasible with NodeResizeError, and tells the pod VolumeResizeFailed', async () => {
    const { pod, v } = podOf('small', 'b');
    await expandedOnController('b', 1, pod);
    await expander.inUse(pod, v);
    const pvc = await getPVC('b');
    const err = 'Expander.NodeExpand failed to expand the volume : rpc error: code = OutOfRange desc = Requested capacity 2097152 exceeds maximum allowed 1048576';
    assert.deepEqual(pvc.status?.capacity, { storage: '1Mi' });
    assert.deepEqual(pvc.status?.allocatedResourceStatuses, { storage: 'NodeResizeInfeasible' });
    assert.deepEqual(
      pvc.status?.conditions?.map((x) => [x.type, x.message]),
      [
        ['Resizing', undefined],
        ['FileSystemResizePending', 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.'],
        ['NodeResizeError', `failed to expand pvc with ${err}`],
      ],
    );
    assert.deepEqual(eventsOf('Pod', 'small'), [`Warning VolumeResizeFailed: NodeExpandVolume.NodeExpandVolume failed for volume "pv-b" : ${err}`]);
    assert.deepEqual(eventsOf('PersistentVolumeClaim', 'b'), []);
    // NodeResizeInfeasible: the kubelet leaves it to the resizer (no retry from the node)
    const n = grpc.length;
    await expander.inUse(pod, v);
    assert.equal(grpc.slice(n).filter((l) => l.includes('GRPC call: /csi.v1.Node/NodeExpandVolume')).length, 0);
  });

  it('expands at mount time, and fails the mount with upstream’s text when the driver refuses', async () => {
    const ok = podOf('late', 'c');
    const paths = await expandedOnController('c', 0, ok.pod);
    assert.equal(await expandAtMount(expander, 'MountVolume.Setup', ok.pod, ok.v, 'pv-c', { volumePath: paths.target, stagingPath: paths.staging }), true);
    assert.deepEqual((await getPVC('c')).status?.capacity, { storage: '2Mi' });
    assert.deepEqual(eventsOf('Pod', 'late'), ['Normal FileSystemResizeSuccessful: MountVolume.NodeExpandVolume succeeded for volume "pv-c" node-k']);

    const bad = podOf('late-small', 'd');
    const p2 = await expandedOnController('d', 1, bad.pod);
    const e = await expandAtMount(expander, 'MountVolume.MountDevice', bad.pod, bad.v, 'pv-d', { volumePath: p2.staging, stagingPath: p2.staging }).catch((x: unknown) => x);
    assert.ok(e instanceof MountStepError);
    assert.equal(
      e.eventMessage,
      'MountVolume.MountDevice failed while expanding volume for volume "pv-d" : Expander.NodeExpand failed to expand the volume : rpc error: code = OutOfRange desc = Requested capacity 2097152 exceeds maximum allowed 1048576',
    );
    assert.equal(e.reason, 'FailedMount');
  });

  it('does not expand a claim the pod mounts read-only: FileSystemResizeFailed at mount, nothing online', async () => {
    const ro = podOf('reader', 'e', true);
    const paths = await expandedOnController('e', 0, ro.pod);
    const n = grpc.length;
    await expander.inUse(ro.pod, ro.v);
    assert.equal(await expandAtMount(expander, 'MountVolume.Setup', ro.pod, ro.v, 'pv-e', { volumePath: paths.target }), true);
    assert.equal(grpc.slice(n).filter((l) => l.includes('GRPC call: /csi.v1.Node/NodeExpandVolume')).length, 0);
    const msg = 'Warning FileSystemResizeFailed: MountVolume.NodeExpandVolume failed for volume "pv-e" requested read-only file system';
    assert.deepEqual(eventsOf('Pod', 'reader'), [msg]);
    assert.deepEqual(eventsOf('PersistentVolumeClaim', 'e'), [msg]);
    assert.deepEqual((await getPVC('e')).status?.capacity, { storage: '1Mi' });
  });

  it('waits while the controller has not handed the expansion to the node', async () => {
    const w = podOf('waiting', 'f');
    const paths = await expandedOnController('f', 0, w.pod, { allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' } });
    const n = grpc.length;
    assert.equal(await expandAtMount(expander, 'MountVolume.Setup', w.pod, w.v, 'pv-f', { volumePath: paths.target }), false);
    await expander.inUse(w.pod, w.v);
    assert.equal(grpc.slice(n).filter((l) => l.includes('GRPC call: /csi.v1.Node/NodeExpandVolume')).length, 0);
    assert.deepEqual((await getPVC('f')).status?.allocatedResourceStatuses, { storage: 'ControllerResizeInProgress' });
    assert.deepEqual(eventsOf('Pod', 'waiting'), []);
  });
});

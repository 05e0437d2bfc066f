/**
 * The built-in sidecars and the volume controllers against the csi-hostpath driver over
 * its real unix socket (the gRPC API any driver serves), on an in-process API server:
 * provisioning (Immediate binding, claimed by this node), binding by the PV controller,
 * attach through a VolumeAttachment (ControllerPublishVolume) and detach, expansion,
 * and deletion on reclaim Delete.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import type { KObject } from '../../api/resource.js';
import { SR } from '../../client/storage-resources.js';
import { R } from '../../client/types.js';
import { CSIClient } from '../../csi/client.js';
import { HostPathDriver, TOPOLOGY_KEY } from '../../csi/hostpath/driver.js';
import { startTestCluster, waitFor, type TestCluster } from '../util/test-cluster.js';
import type { RunningController } from '../util/context.js';
import { startPersistentVolumeController } from '../volume/persistentvolume/controller.js';
import { attachmentName, startAttachDetachController } from '../volume/attachdetach/controller.js';
import { startExternalProvisioner } from './provisioner.js';
import { startExternalAttacher, attacherFinalizer } from './attacher.js';
import { startExternalResizer } from './resizer.js';
import { startCapacityTracking } from './capacity.js';
import type { CSIStorageCapacity } from 'kubernetes-types/storage/v1.js';

const DRIVER = 'attach.csi.k8ts.io';
const NODE = 'node-1';

describe('CSI sidecars against csi-hostpath over its socket', { timeout: 60_000 }, () => {
  let c: TestCluster;
  let driver: HostPathDriver;
  let csi: CSIClient;
  let dir: string;
  const calls: string[] = [];
  const running: RunningController[] = [];

  before(async () => {
    c = await startTestCluster();
    dir = fs.mkdtempSync(join(tmpdir(), 'k8ts-csi-'));
    const sock = join(dir, 'csi.sock');
    driver = new HostPathDriver({ name: DRIVER, nodeId: `${NODE}-id`, dataDir: dir, endpoint: sock, publishMode: 'symlink', attachRequired: true });
    await driver.start();
    csi = new CSIClient(sock, { log: (l) => l.startsWith('GRPC call') && calls.push(l.split(' ')[2]!) });
    const { client } = c;
    await client.create(R.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE, labels: { [TOPOLOGY_KEY]: `${NODE}-id` } } });
    await client.create(SR.csinodes, '', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: { name: NODE },
      spec: { drivers: [{ name: DRIVER, nodeID: `${NODE}-id`, topologyKeys: [TOPOLOGY_KEY] }] },
    });
    await client.create(SR.csidrivers, '', { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: DRIVER }, spec: { attachRequired: true } });
    await client.create(SR.storageclasses, '', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast' },
      provisioner: DRIVER,
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'Immediate',
      allowVolumeExpansion: true,
    });
    const ctx = { client, recorder: c.recorder, informers: c.informers };
    running.push(await startPersistentVolumeController(ctx), await startAttachDetachController(ctx));
    const side = { client, csi, driverName: DRIVER, nodeName: NODE, recorder: c.recorder };
    running.push(await startExternalProvisioner(side), await startExternalAttacher(side), await startExternalResizer(side), await startCapacityTracking(side));
  });
  after(async () => {
    for (const r of running.reverse()) await r.stop();
    csi?.close();
    await driver?.stop();
    await c?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('provisions, binds, attaches, expands, detaches and deletes', async () => {
    const { client } = c;
    await client.create(R.persistentvolumeclaims, 'default', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'default' },
      spec: { storageClassName: 'fast', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
    });
    const pvc = await waitFor(
      async () => {
        const p = await client.get<PersistentVolumeClaim & KObject>(R.persistentvolumeclaims, 'default', 'data');
        return p.status?.phase === 'Bound' ? p : undefined;
      },
      20_000,
      'claim Bound',
    );
    assert.equal(pvc.metadata?.annotations?.['volume.kubernetes.io/selected-node'], NODE, 'Immediate: this node claimed it');
    assert.deepEqual(pvc.status?.capacity, { storage: '1Mi' });
    const pv = await client.get<PersistentVolume & KObject>(R.persistentvolumes, '', pvc.spec!.volumeName!);
    const handle = pv.spec!.csi!.volumeHandle;
    assert.ok(fs.existsSync(driver.volumePath(handle)));
    assert.deepEqual(pv.spec?.nodeAffinity?.required?.nodeSelectorTerms, [{ matchExpressions: [{ key: TOPOLOGY_KEY, operator: 'In', values: [`${NODE}-id`] }] }]);
    assert.ok(calls.includes('/csi.v1.Controller/CreateVolume'));

    // a pod on the node: VolumeAttachment, ControllerPublishVolume, attached
    await client.create(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'user', namespace: 'default' },
      spec: { nodeName: NODE, containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] },
    });
    const vaName = attachmentName(handle, DRIVER, NODE);
    const va = await waitFor(
      async () => {
        const v = await client.get<VolumeAttachment & KObject>(SR.volumeattachments, '', vaName).catch(() => undefined);
        return v?.status?.attached ? v : undefined;
      },
      20_000,
      'attached',
    );
    assert.deepEqual(va.spec, { attacher: DRIVER, nodeName: NODE, source: { persistentVolumeName: pv.metadata!.name } });
    assert.deepEqual(va.status?.attachmentMetadata, { node: `${NODE}-id` });
    assert.deepEqual(va.metadata?.finalizers, [attacherFinalizer(DRIVER)]);
    assert.equal(attacherFinalizer(DRIVER), 'external-attacher/attach-csi-k8ts-io');
    await waitFor(() => c.recorder.lines().includes(`SuccessfulAttachVolume: AttachVolume.Attach succeeded for volume "${pv.metadata!.name}" `), 10_000, 'SuccessfulAttachVolume');

    // expansion: the controller's part (the node's NodeExpandVolume is the kubelet's, not running here)
    const cur = await client.get<PersistentVolumeClaim & KObject>(R.persistentvolumeclaims, 'default', 'data');
    await client.update(R.persistentvolumeclaims, 'default', { ...cur, spec: { ...cur.spec, resources: { requests: { storage: '2Mi' } } } });
    await waitFor(
      async () =>
        (await client.get<PersistentVolumeClaim & KObject>(R.persistentvolumeclaims, 'default', 'data')).status?.allocatedResourceStatuses?.storage === 'NodeResizePending',
      20_000,
      'expanded on the controller',
    );
    assert.equal((await client.get<PersistentVolume & KObject>(R.persistentvolumes, '', pv.metadata!.name!)).spec?.capacity?.storage, '2Mi');
    assert.ok(c.recorder.lines().includes(`Resizing: External resizer is resizing volume ${pv.metadata!.name}`));
    assert.ok(calls.includes('/csi.v1.Controller/ControllerExpandVolume'));

    // the pod goes: detach (ControllerUnpublishVolume, finalizer removed, VolumeAttachment gone)
    await client.delete(R.pods, 'default', 'user', { gracePeriodSeconds: 0 });
    await waitFor(async () => !(await client.get(SR.volumeattachments, '', vaName).catch(() => undefined)), 20_000, 'detached');
    assert.ok(calls.includes('/csi.v1.Controller/ControllerUnpublishVolume'));

    // the claim goes: Released, DeleteVolume, PV deleted
    await client.delete(R.persistentvolumeclaims, 'default', 'data');
    await waitFor(async () => !(await client.get(R.persistentvolumes, '', pv.metadata!.name!).catch(() => undefined)), 20_000, 'PV deleted');
    assert.equal(fs.existsSync(driver.volumePath(handle)), false);
    assert.ok(calls.includes('/csi.v1.Controller/DeleteVolume'));
  });

  it('publishes the node’s capacity per StorageClass (GetCapacity)', async () => {
    const list = await waitFor(
      async () => {
        const l = await c.client.list<CSIStorageCapacity & KObject>(
          { group: 'storage.k8s.io', version: 'v1', resource: 'csistoragecapacities', kind: 'CSIStorageCapacity', namespaced: true },
          'kube-system',
        );
        return l.items.length ? l.items : undefined;
      },
      10_000,
      'CSIStorageCapacity',
    );
    assert.equal(list.length, 1);
    assert.equal(list[0]!.storageClassName, 'fast');
    assert.deepEqual(list[0]!.nodeTopology, { matchLabels: { [TOPOLOGY_KEY]: `${NODE}-id` } });
    assert.match(String(list[0]!.capacity), /^\d+(Ki|Mi|Gi|Ti)?$/);
  });

  it('reports a failed attach as FailedAttachVolume with the driver’s error', async () => {
    const { client } = c;
    // a static PV whose volume does not exist: ControllerPublishVolume answers NotFound
    await client.create(R.persistentvolumes, '', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'ghost' },
      spec: {
        capacity: { storage: '1Mi' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: '',
        persistentVolumeReclaimPolicy: 'Retain',
        csi: { driver: DRIVER, volumeHandle: 'no-such-volume' },
      },
    });
    await client.create(R.persistentvolumeclaims, 'default', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'ghost', namespace: 'default' },
      spec: { storageClassName: '', volumeName: 'ghost', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
    });
    await client.create(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'ghost-user', namespace: 'default' },
      spec: { nodeName: NODE, containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'ghost' } }] },
    });
    const want = 'FailedAttachVolume: AttachVolume.Attach failed for volume "ghost" : rpc error: code = NotFound desc = volume id "no-such-volume" not found';
    await waitFor(() => c.recorder.lines().includes(want), 20_000, want);
    const va = await client.get<VolumeAttachment & KObject>(SR.volumeattachments, '', attachmentName('no-such-volume', DRIVER, NODE));
    assert.equal(va.status?.attached, false);
    assert.equal(va.status?.attachError?.message, 'rpc error: code = NotFound desc = volume id "no-such-volume" not found');
    const pod = await client.get<Pod & KObject>(R.pods, 'default', 'ghost-user');
    assert.equal(pod.spec?.nodeName, NODE);
  });
});

/**
 * Persistent volumes through CSI on the simulated runtime, driven by the real kubectl:
 * the default StorageClass `local-path` (DefaultStorageClass admission), a claim that
 * waits for its first consumer, is provisioned on the pod's node by the built-in
 * external-provisioner over the `k8ts csi-hostpath` driver's socket and bound by the
 * PV controller; the kubelet stages and publishes it into the pod's directory (CSI
 * calls in its log at --v=4); reclaim Delete and Retain; a StatefulSet's claims kept
 * across a pod's restart. Expansion is storage-csi-resize.test.ts.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';
import { claimPod, kubectlHelpers, rwoClaim } from './storage-support.js';

interface Obj {
  metadata: { name: string; uid: string; annotations?: Record<string, string>; finalizers?: string[]; deletionTimestamp?: string };
  spec: Record<string, any>;
  status?: Record<string, any>;
}

const CLAIM = rwoClaim('data', '1Gi');

describe('e2e: volumes through CSI (sim runtime)', { timeout: 180_000 }, () => {
  let c: Cluster;
  const { get, tryGet, apply, events } = kubectlHelpers<Obj>(() => c);

  before(async () => {
    c = await startCluster({ args: ['--v', '4'] });
  });
  after(async () => {
    await c?.stop();
  });

  it('creates the default StorageClass local-path and registers the driver in CSINode', async () => {
    const sc = get(['storageclass', 'local-path']) as unknown as Record<string, any>;
    assert.equal(sc.provisioner, 'hostpath.csi.k8ts.io');
    assert.equal(sc.volumeBindingMode, 'WaitForFirstConsumer');
    assert.equal(sc.reclaimPolicy, 'Delete');
    assert.equal(sc.metadata.annotations['storageclass.kubernetes.io/is-default-class'], 'true');
    const r = c.kubectl(['get', 'storageclass']);
    assert.match(r.stdout, /local-path \(default\)\s+hostpath\.csi\.k8ts\.io\s+Delete\s+WaitForFirstConsumer\s+true/);
    const csinode = await eventually(() => {
      const n = tryGet(['csinode', 'e2e-node']);
      return n?.spec.drivers?.length ? n : undefined;
    }, 30_000);
    assert.deepEqual(csinode.spec.drivers, [{ name: 'hostpath.csi.k8ts.io', nodeID: 'e2e-node', topologyKeys: ['topology.hostpath.csi.k8ts.io/node'] }]);
    // storage capacity tracking: the driver's capacity for local-path on this node
    const caps = await eventually(() => {
      const r = c.kubectl(['get', 'csistoragecapacities', '-n', 'kube-system', '-o', 'json']);
      const items = (JSON.parse(r.stdout) as { items: { storageClassName: string; nodeTopology: unknown }[] }).items;
      return items.length ? items : undefined;
    }, 30_000);
    assert.equal(caps[0]!.storageClassName, 'local-path');
    assert.deepEqual(caps[0]!.nodeTopology, { matchLabels: { 'topology.hostpath.csi.k8ts.io/node': 'e2e-node' } });
    const node = get(['node', 'e2e-node']) as unknown as { metadata: { labels: Record<string, string> } };
    assert.equal(node.metadata.labels['topology.hostpath.csi.k8ts.io/node'], 'e2e-node');
  });

  it('provisions a claim of the default class on its first consumer’s node, binds it and publishes it into the pod', async () => {
    apply(CLAIM);
    const pvc0 = get(['pvc', 'data']);
    assert.equal(pvc0.spec.storageClassName, 'local-path', 'DefaultStorageClass admission');
    assert.deepEqual(pvc0.metadata.finalizers, ['kubernetes.io/pvc-protection']);
    await eventually(() => events('PersistentVolumeClaim', 'data').find((e) => e.reason === 'WaitForFirstConsumer'));
    assert.equal(get(['pvc', 'data']).status?.phase, 'Pending');
    const wffc = events('PersistentVolumeClaim', 'data').find((e) => e.reason === 'WaitForFirstConsumer')!;
    assert.equal(wffc.message, 'waiting for first consumer to be created before binding');
    assert.equal(wffc.source?.component, 'persistentvolume-controller');

    apply(claimPod('writer', 'data'));
    await eventually(() => get(['pod', 'writer']).status?.phase === 'Running' || undefined, 60_000);
    const pvc = get(['pvc', 'data']);
    assert.equal(pvc.status?.phase, 'Bound');
    assert.equal(pvc.metadata.annotations?.['volume.kubernetes.io/selected-node'], 'e2e-node');
    assert.equal(pvc.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'], 'hostpath.csi.k8ts.io');
    assert.equal(pvc.metadata.annotations?.['pv.kubernetes.io/bind-completed'], 'yes');
    assert.deepEqual(pvc.status?.capacity, { storage: '1Gi' });
    const pvName = pvc.spec.volumeName as string;
    assert.equal(pvName, `pvc-${pvc.metadata.uid}`);
    const pv = get(['pv', pvName]);
    assert.equal(pv.status?.phase, 'Bound');
    assert.equal(pv.spec.csi.driver, 'hostpath.csi.k8ts.io');
    assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Delete');
    assert.deepEqual(pv.spec.nodeAffinity, {
      required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.hostpath.csi.k8ts.io/node', operator: 'In', values: ['e2e-node'] }] }] },
    });
    assert.equal(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by'], 'hostpath.csi.k8ts.io');
    const reasons = events('PersistentVolumeClaim', 'data').map((e) => e.reason);
    for (const r of ['ExternalProvisioning', 'Provisioning', 'ProvisioningSucceeded']) assert.ok(reasons.includes(r), `${r} in ${reasons.join(',')}`);
    const ext = events('PersistentVolumeClaim', 'data').find((e) => e.reason === 'ExternalProvisioning')!;
    assert.equal(
      ext.message,
      "Waiting for a volume to be created either by the external provisioner 'hostpath.csi.k8ts.io' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
    );
    assert.equal(events('PersistentVolumeClaim', 'data').find((e) => e.reason === 'Provisioning')!.message, 'External provisioner is provisioning volume for claim "default/data"');
    assert.equal(events('PersistentVolumeClaim', 'data').find((e) => e.reason === 'ProvisioningSucceeded')!.message, `Successfully provisioned volume ${pvName}`);

    // the publish target, and the volume's directory under <data-dir>/storage/ behind it
    const uid = get(['pod', 'writer']).metadata.uid;
    const mount = join(c.dir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~csi', pvName, 'mount');
    assert.ok(fs.existsSync(mount), `${mount} exists`);
    const volDir = join(c.dir, 'storage', pv.spec.csi.volumeHandle as string);
    assert.equal(fs.realpathSync(mount), volDir);
    fs.writeFileSync(join(mount, 'hello.txt'), 'hi');
    assert.equal(fs.readFileSync(join(volDir, 'hello.txt'), 'utf8'), 'hi');
    // staged once per node at the global mount
    const vd = JSON.parse(fs.readFileSync(join(mount, '..', 'vol_data.json'), 'utf8')) as { driverName: string; stagingPath: string };
    assert.equal(vd.driverName, 'hostpath.csi.k8ts.io');
    assert.match(vd.stagingPath, /kubelet\/plugins\/kubernetes\.io\/csi\/hostpath\.csi\.k8ts\.io\/[0-9a-f]{64}\/globalmount$/);
    // the kubelet's CSI calls at --v=4
    await eventually(() => /kubernetes\.io\/csi: calling NodeStageVolume rpc \[volid=[^,]+,staging_target_path=\S+\/globalmount\]/.test(c.log()) || undefined);
    await eventually(() => /kubernetes\.io\/csi: calling NodePublishVolume rpc \[volid=[^,]+,target_path=\S+\/mount\]/.test(c.log()) || undefined);

    // reclaim Delete: the claim outlives its pod (pvc-protection), then PV and data go
    assert.equal(c.kubectl(['delete', 'pvc', 'data', '--wait=false']).code, 0);
    await eventually(() => get(['pvc', 'data']).metadata.deletionTimestamp);
    assert.equal(get(['pv', pvName]).status?.phase, 'Bound');
    assert.equal(c.kubectl(['delete', 'pod', 'writer', '--grace-period=1']).code, 0);
    await eventually(() => (tryGet(['pvc', 'data']) ? undefined : true), 30_000);
    await eventually(() => (tryGet(['pv', pvName]) ? undefined : true), 30_000);
    assert.equal(fs.existsSync(volDir), false, 'the volume directory is deleted');
    assert.equal(fs.existsSync(mount), false);
    assert.equal(fs.existsSync(vd.stagingPath), false, 'unstaged');
    await eventually(() => /kubernetes\.io\/csi: calling NodeUnpublishVolume rpc \[volid=/.test(c.log()) || undefined);
    await eventually(() => /kubernetes\.io\/csi: calling NodeUnstageVolume rpc \[volid=/.test(c.log()) || undefined);
  });

  it('keeps a volume of a Retain class Released with its data', async () => {
    apply(`apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: keep
provisioner: hostpath.csi.k8ts.io
reclaimPolicy: Retain
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: kept
spec:
  storageClassName: keep
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 100Mi
---
${claimPod('keeper', 'kept')}`);
    await eventually(() => get(['pod', 'keeper']).status?.phase === 'Running' || undefined, 60_000);
    const pvName = get(['pvc', 'kept']).spec.volumeName as string;
    const pv = get(['pv', pvName]);
    assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Retain');
    const volDir = join(c.dir, 'storage', pv.spec.csi.volumeHandle as string);
    const uid = get(['pod', 'keeper']).metadata.uid;
    fs.writeFileSync(join(c.dir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~csi', pvName, 'mount', 'keep.txt'), 'kept');
    assert.equal(c.kubectl(['delete', 'pod', 'keeper', '--grace-period=1']).code, 0);
    assert.equal(c.kubectl(['delete', 'pvc', 'kept']).code, 0);
    await eventually(() => get(['pv', pvName]).status?.phase === 'Released' || undefined, 30_000);
    assert.equal(fs.readFileSync(join(volDir, 'keep.txt'), 'utf8'), 'kept');
    const r = c.kubectl(['get', 'pv', pvName]);
    assert.match(r.stdout, new RegExp(`${pvName}\\s+100Mi\\s+RWO\\s+Retain\\s+Released\\s+default/kept\\s+keep`));
  });

  it('gives each StatefulSet replica its own bound claim and keeps it across a pod restart', async () => {
    apply(`apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  replicas: 2
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: busybox:1.36
        command: [sh, -c, 'sleep 3600']
        volumeMounts:
        - {name: data, mountPath: /data}
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 64Mi
`);
    await eventually(() => (get(['sts', 'db']).status?.readyReplicas === 2 ? true : undefined), 90_000);
    const before = ['data-db-0', 'data-db-1'].map((n) => {
      const p = get(['pvc', n]);
      assert.equal(p.status?.phase, 'Bound');
      return p.spec.volumeName as string;
    });
    assert.notEqual(before[0], before[1]);
    const oldUid = get(['pod', 'db-0']).metadata.uid;
    assert.equal(c.kubectl(['delete', 'pod', 'db-0', '--grace-period=1']).code, 0);
    await eventually(() => {
      const p = tryGet(['pod', 'db-0']);
      return p && p.metadata.uid !== oldUid && p.status?.phase === 'Running' ? true : undefined;
    }, 60_000);
    assert.equal(get(['pvc', 'data-db-0']).spec.volumeName, before[0]);
    const uid = get(['pod', 'db-0']).metadata.uid;
    assert.ok(fs.existsSync(join(c.dir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~csi', before[0]!, 'mount')));
  });
});

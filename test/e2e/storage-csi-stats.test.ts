/**
 * The node side of CSI volumes, driven by the real kubectl through the API server's
 * nodes/proxy: NodeGetVolumeStats of the `k8ts csi-hostpath` driver process feeding the
 * kubelet's `kubelet_volume_stats_*` metrics (`/metrics`) and the pods' volume stats in
 * `/stats/summary` (pvcRef), calculated every `--volume-stats-agg-period` (lowered to 1s
 * here); and, for a driver whose CSIDriver requires attach (served by this test, which
 * also plays its external-attacher), the kubelet's `status.volumesInUse` and the
 * attach/detach controller's `status.volumesAttached`, the detach following the unmount.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';
import { kubectlHelpers, rwoClaim, serveTestDriver, type TestDriver } from './storage-support.js';

const ATTACH_DRIVER = 'attach.csi.example.com';

/** A busybox pod (`sleep 3600`) mounting claim `claim` at /data; `specLines` (YAML, indented) go before its containers. */
const podUsing = (name: string, claim: string, specLines = ''): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
${specLines}  containers:
  - name: app
    image: busybox:1.36
    command: [sleep, '3600']
    volumeMounts:
    - {name: data, mountPath: /data}
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: ${claim}}
`;

describe('e2e: CSI volume stats, volumesInUse and volumesAttached', { timeout: 180_000 }, () => {
  let c: Cluster;
  let driver: TestDriver | undefined;

  const { get, apply } = kubectlHelpers(() => c);
  const raw = (path: string): string => {
    const r = c.kubectl(['get', '--raw', path]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  const jsonpath = (args: string[], expr: string): string => {
    const r = c.kubectl(['get', ...args, '-o', `jsonpath=${expr}`]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };

  before(async () => {
    // sim-node-0 runs no CSI driver: its CSINode comes from the kubelet's start alone
    c = await startCluster({ args: ['--v', '4', '--volume-stats-agg-period', '1s', '--sim-nodes', '1'] });
    // a third-party driver that requires attach: Node service only (its attacher is this test)
    driver = await serveTestDriver(join(c.dir, 'kubelet'), ATTACH_DRIVER, 'e2e-node', {
      NodePublishVolume: async (req: { targetPath: string }) => (fs.mkdirSync(req.targetPath, { recursive: true }), {}),
      NodeUnpublishVolume: async (req: { targetPath: string }) => (fs.rmSync(req.targetPath, { recursive: true, force: true }), {}),
    });
  });
  after(async () => {
    await driver?.stop();
    await c?.stop();
  });

  it('a node without CSI drivers has its CSINode from the kubelet’s start', async () => {
    const n = await eventually(() => {
      const r = c.kubectl(['get', 'csinode', 'sim-node-0', '-o', 'json']);
      return r.code === 0 ? JSON.parse(r.stdout) : undefined;
    }, 30_000);
    assert.deepEqual(n.spec, { drivers: [] });
    assert.deepEqual(
      n.metadata.ownerReferences.map((o: { kind: string; name: string; uid: string }) => [o.kind, o.name, o.uid]),
      [['Node', 'sim-node-0', get(['node', 'sim-node-0']).metadata.uid]],
    );
  });

  it('NodeGetVolumeStats of a default-class claim shows in /metrics and /stats/summary', async () => {
    apply(`${rwoClaim('stats-data', '1Gi')}---
${podUsing('stats-writer', 'stats-data')}`);
    await eventually(() => get(['pod', 'stats-writer']).status?.phase === 'Running' || undefined, 60_000);
    const pvName = get(['pvc', 'stats-data']).spec.volumeName as string;
    const uid = get(['pod', 'stats-writer']).metadata.uid as string;
    const mount = join(c.dir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~csi', pvName, 'mount');
    fs.writeFileSync(join(mount, 'blob.bin'), Buffer.alloc(123_456, 7));

    const series = 'kubelet_volume_stats_used_bytes{namespace="default",persistentvolumeclaim="stats-data"}';
    const metrics = await eventually(() => {
      const text = raw('/api/v1/nodes/e2e-node/proxy/metrics');
      return text.includes(`${series} 123456\n`) ? text : undefined;
    }, 30_000);
    assert.ok(
      metrics.startsWith('# HELP kubelet_node_name [ALPHA] The node\'s name. The count is always 1.\n# TYPE kubelet_node_name gauge\nkubelet_node_name{node="e2e-node"} 1\n'),
      metrics,
    );
    assert.ok(metrics.includes('# HELP kubelet_volume_stats_used_bytes [ALPHA] Number of used bytes in the volume\n# TYPE kubelet_volume_stats_used_bytes gauge\n'), metrics);
    assert.ok(metrics.includes('kubelet_volume_stats_capacity_bytes{namespace="default",persistentvolumeclaim="stats-data"} 1.073741824e+09\n'), metrics);
    assert.ok(metrics.includes('kubelet_volume_stats_available_bytes{namespace="default",persistentvolumeclaim="stats-data"} 1.073618368e+09\n'), metrics);
    // the driver reports no INODES usage: upstream reports 0
    assert.ok(metrics.includes('kubelet_volume_stats_inodes{namespace="default",persistentvolumeclaim="stats-data"} 0\n'), metrics);

    // nodes/proxy: the node's name, or name:<kubelet port>; an unknown node is NotFound
    const port = get(['node', 'e2e-node']).status.daemonEndpoints.kubeletEndpoint.Port as number;
    assert.ok(raw(`/api/v1/nodes/e2e-node:${port}/proxy/metrics`).includes(`${series} 123456\n`));
    const missing = c.kubectl(['get', '--raw', '/api/v1/nodes/nope/proxy/metrics']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim(), 'Error from server (NotFound): nodes "nope" not found');
    const summary = JSON.parse(raw('/api/v1/nodes/e2e-node/proxy/stats/summary')) as {
      pods: { podRef: { name: string }; volume?: Record<string, unknown>[] }[];
    };
    const vol = summary.pods.find((p) => p.podRef.name === 'stats-writer')?.volume?.find((v) => v.name === 'data');
    assert.ok(vol, JSON.stringify(summary.pods));
    assert.deepEqual(vol.pvcRef, { name: 'stats-data', namespace: 'default' });
    assert.equal(vol.usedBytes, 123_456);
    assert.equal(vol.capacityBytes, 1 << 30);
    assert.equal(vol.availableBytes, (1 << 30) - 123_456);
    assert.match(String(vol.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // the server's log reaches this process between its (synchronous) kubectl calls
    await eventually(() => /kubernetes\.io\/csi: calling NodeGetVolumeStats rpc \[volid=[^,]+,target_path=\S+\/mount\]/.test(c.log()) || undefined);
  });

  it('volumesInUse and volumesAttached follow a volume of a driver that requires attach', async () => {
    apply(`apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: ${ATTACH_DRIVER}
spec:
  attachRequired: true
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: att-pv
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  csi:
    driver: ${ATTACH_DRIVER}
    volumeHandle: vol-att
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: att-claim
spec:
  storageClassName: ""
  volumeName: att-pv
  accessModes: [ReadWriteOnce]
  resources:
    requests: {storage: 1Gi}
---
${podUsing('att-user', 'att-claim', '  nodeSelector: {kubernetes.io/hostname: e2e-node}\n')}`);
    const unique = `kubernetes.io/csi/${ATTACH_DRIVER}^vol-att`;
    // the attach/detach controller's VolumeAttachment; this test is the driver's external-attacher
    const va = await eventually(() => {
      const items = get(['volumeattachments']).items as { metadata: { name: string }; spec: { attacher: string; nodeName: string } }[];
      return items.find((v) => v.spec.attacher === ATTACH_DRIVER);
    }, 30_000);
    assert.equal(va.spec.nodeName, 'e2e-node');
    // wanted by a pod on the node: in use before it is even attached (upstream reports desired volumes)
    await eventually(() => (jsonpath(['node', 'e2e-node'], '{.status.volumesInUse}') === JSON.stringify([unique]) ? true : undefined), 30_000);
    const r = c.kubectl(['patch', 'volumeattachment', va.metadata.name, '--subresource=status', '--type=merge', '-p', '{"status":{"attached":true}}']);
    assert.equal(r.code, 0, r.stderr);
    await eventually(() => get(['pod', 'att-user']).status?.phase === 'Running' || undefined, 60_000);
    const attached = await eventually(() => get(['node', 'e2e-node']).status.volumesAttached, 30_000);
    assert.deepEqual(attached, [{ name: unique, devicePath: '' }]);
    // the default-class volume of the other running pod is not attachable: not in use as far as attach goes
    assert.equal(jsonpath(['node', 'e2e-node'], '{.status.volumesInUse}'), JSON.stringify([unique]));

    // the pod goes: unpublished, out of volumesInUse, then out of volumesAttached and detached
    // --wait=false: this process serves the driver, so it must not block in kubectl while the kubelet unpublishes
    const del = c.kubectl(['delete', 'pod', 'att-user', '--grace-period=1', '--wait=false']);
    assert.equal(del.code, 0, del.stderr);
    await eventually(() => (jsonpath(['node', 'e2e-node'], '{.status.volumesInUse}') === '' ? true : undefined), 60_000);
    await eventually(() => (c.kubectl(['get', 'volumeattachment', va.metadata.name]).code !== 0 ? true : undefined), 30_000);
    assert.equal(get(['node', 'e2e-node']).status.volumesAttached, undefined);
  });
});

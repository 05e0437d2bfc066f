/**
 * A third-party CSI driver, served by this test process over the same gRPC API any
 * driver speaks (csi.v1 Identity/Node on a unix socket, registered through a
 * pluginregistration.v1 socket in the kubelet's plugins_registry), whose
 * NodePublishVolume fails: the kubelet records FailedMount with upstream's text and
 * the pod stays ContainerCreating. Also a CSI ephemeral inline volume of the built-in
 * driver, published into the pod and deleted with it.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';
import { CSIError, grpc } from '../../src/csi/grpc.js';
import { kubectlHelpers, serveTestDriver, type TestDriver } from './storage-support.js';

const DRIVER = 'fail.csi.example.com';

describe('e2e: a CSI driver that fails NodePublishVolume; CSI inline volumes', { timeout: 120_000 }, () => {
  let c: Cluster;
  let driver: TestDriver | undefined;
  const publishes: { volumeId: string; targetPath: string; readonly: boolean; volumeContext: Record<string, string> }[] = [];

  const { get, apply } = kubectlHelpers(() => c);

  before(async () => {
    c = await startCluster({ args: ['--v', '4'] });
    driver = await serveTestDriver(join(c.dir, 'kubelet'), DRIVER, 'e2e-node-id', {
      NodePublishVolume: async (req: (typeof publishes)[number]) => {
        publishes.push(req);
        throw new CSIError(grpc.status.INTERNAL, 'publish failed: injected by the test');
      },
      NodeUnpublishVolume: async () => ({}),
    });
  });
  after(async () => {
    await driver?.stop();
    await c?.stop();
  });

  it('registers the driver: CSINode gets its node ID', async () => {
    assert.deepEqual(await driver!.registrar.registered, { pluginRegistered: true, error: '' });
    const n = await eventually(() => get(['csinode', 'e2e-node']).spec.drivers?.find((d: { name: string }) => d.name === DRIVER));
    assert.deepEqual(n, { name: DRIVER, nodeID: 'e2e-node-id', topologyKeys: [] });
  });

  it('FailedMount and ContainerCreating when NodePublishVolume fails', async () => {
    apply(`apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: ${DRIVER}
spec:
  attachRequired: false
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: fail-pv
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  csi:
    driver: ${DRIVER}
    volumeHandle: vol-1
    volumeAttributes: {color: blue}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: fail-claim
spec:
  storageClassName: ""
  volumeName: fail-pv
  accessModes: [ReadWriteOnce]
  resources:
    requests: {storage: 1Gi}
---
apiVersion: v1
kind: Pod
metadata:
  name: stuck
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sleep, '3600']
    volumeMounts:
    - {name: data, mountPath: /data, readOnly: true}
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: fail-claim, readOnly: true}
`);
    await eventually(() => (get(['pvc', 'fail-claim']).status?.phase === 'Bound' ? true : undefined), 30_000);
    assert.equal(get(['pv', 'fail-pv']).status.phase, 'Bound');
    const ev = await eventually(() => {
      const r = c.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=stuck,reason=FailedMount', '-o', 'json']);
      // before the PV controller bound the claim, the kubelet may have reported it unbound
      return (JSON.parse(r.stdout) as { items: { message: string; type: string; source: { component: string } }[] }).items.find((e) => e.message.startsWith('MountVolume.SetUp'));
    }, 30_000);
    assert.equal(ev.type, 'Warning');
    assert.equal(ev.source.component, 'kubelet');
    assert.equal(ev.message, 'MountVolume.SetUp failed for volume "fail-pv" : rpc error: code = Internal desc = publish failed: injected by the test');
    const uid = get(['pod', 'stuck']).metadata.uid as string;
    const p = publishes[0]!;
    assert.equal(p.volumeId, 'vol-1');
    assert.equal(p.targetPath, join(c.dir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~csi', 'fail-pv', 'mount'));
    assert.equal(p.readonly, true);
    assert.deepEqual(p.volumeContext, { color: 'blue' });
    const row = c.kubectl(['get', 'pod', 'stuck', '--no-headers']).stdout;
    assert.match(row, /^stuck\s+0\/1\s+ContainerCreating\s+0\s/);
    assert.equal(get(['pod', 'stuck']).status.containerStatuses[0].state.waiting.reason, 'ContainerCreating');
    assert.match(c.log(), /kubernetes\.io\/csi: calling NodePublishVolume rpc \[volid=vol-1,target_path=/);
  });

  it('publishes a CSI ephemeral inline volume of the built-in driver and deletes it with the pod', async () => {
    apply(`apiVersion: v1
kind: Pod
metadata:
  name: inline
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sleep, '3600']
    volumeMounts:
    - {name: scratch, mountPath: /scratch}
  volumes:
  - name: scratch
    csi:
      driver: hostpath.csi.k8ts.io
      volumeAttributes: {size: small}
`);
    await eventually(() => (get(['pod', 'inline']).status?.phase === 'Running' ? true : undefined), 60_000);
    const uid = get(['pod', 'inline']).metadata.uid as string;
    const mount = join(c.dir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~csi', 'scratch', 'mount');
    const target = fs.realpathSync(mount);
    assert.match(target, new RegExp(`^${c.dir}/storage/csi-[0-9a-f]{64}$`));
    assert.equal(c.kubectl(['delete', 'pod', 'inline', '--grace-period=1']).code, 0);
    await eventually(() => (fs.existsSync(target) ? undefined : true), 30_000);
  });
});

/**
 * Volume expansion through CSI on the simulated runtime, driven by the real kubectl, as
 * upstream v1.32 (RecoverVolumeExpansionFailure on): a claim of the expandable default
 * class `local-path` grown while its pod runs — the expand controller's ExternalExpanding,
 * the external-resizer's ControllerExpandVolume (the driver asks for node expansion), the
 * kubelet's NodeExpandVolume on its next sync of the pod (`syncFrequency: 3s` here; 1 min
 * by default), the claim's capacity and cleared conditions; a claim grown while no pod
 * uses it, expanded when the next pod mounts it; upstream's admission and validation
 * errors for a class without allowVolumeExpansion and for shrinking.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';
import { claimPod, fastSyncKubeletConfig, kubectlHelpers, type Ev } from './storage-support.js';

interface Obj {
  metadata: { name: string; uid: string };
  spec: Record<string, any>;
  status?: Record<string, any>;
}

const CLAIM = (name: string, size: string, cls?: string) => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
  accessModes: [ReadWriteOnce]${cls ? `\n  storageClassName: ${cls}` : ''}
  resources:
    requests:
      storage: ${size}
`;

const POD = (name: string, claim: string): string => claimPod(name, claim, { gracePeriod: 1 });

describe('e2e: volume expansion through CSI (sim runtime)', { timeout: 240_000 }, () => {
  let c: Cluster;
  let kcfg: ReturnType<typeof fastSyncKubeletConfig> | undefined;
  const { get, apply, events } = kubectlHelpers<Obj>(() => c);
  const running = (pod: string) => eventually(() => get(['pod', pod]).status?.phase === 'Running' || undefined, 90_000);

  before(async () => {
    kcfg = fastSyncKubeletConfig();
    c = await startCluster({ args: ['--v', '4', '--kubelet-config', kcfg.file] });
  });
  after(async () => {
    await c?.stop();
    kcfg?.remove();
  });

  it('grows a mounted claim online: ControllerExpandVolume, then the kubelet’s NodeExpandVolume', async () => {
    apply(`${CLAIM('data', '64Mi')}---\n${POD('web', 'data')}`);
    await running('web');
    const pvName = get(['pvc', 'data']).spec.volumeName as string;
    const handle = get(['pv', pvName]).spec.csi.volumeHandle as string;

    const r = c.kubectl(['patch', 'pvc', 'data', '-p', '{"spec":{"resources":{"requests":{"storage":"128Mi"}}}}']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'persistentvolumeclaim/data patched\n');
    await eventually(() => /^data\s+Bound\s+\S+\s+128Mi\s+RWO\s+local-path\s/m.test(c.kubectl(['get', 'pvc', 'data']).stdout) || undefined, 90_000);

    const pvc = get(['pvc', 'data']);
    assert.equal(pvc.status?.conditions, undefined, 'the resize conditions are gone');
    assert.equal(pvc.status?.allocatedResourceStatuses, undefined);
    assert.deepEqual(pvc.status?.allocatedResources, { storage: '128Mi' });
    assert.equal(get(['pv', pvName]).spec.capacity.storage, '128Mi');

    const evs = events('PersistentVolumeClaim', 'data');
    const find = (reason: string): Ev => {
      const e = evs.find((x) => x.reason === reason);
      assert.ok(e, `${reason} in ${evs.map((x) => x.reason).join(',')}`);
      return e;
    };
    assert.deepEqual(
      [find('ExternalExpanding')].map((e) => [e.type, e.source?.component, e.message]),
      [['Warning', 'volume_expand', 'waiting for an external controller to expand this PVC']],
    );
    assert.deepEqual(
      [find('Resizing'), find('FileSystemResizeRequired')].map((e) => [e.type, e.source?.component, e.message]),
      [
        ['Normal', 'external-resizer hostpath.csi.k8ts.io', `External resizer is resizing volume ${pvName}`],
        ['Normal', 'external-resizer hostpath.csi.k8ts.io', 'Require file system resize of volume on node'],
      ],
    );
    const ok = find('FileSystemResizeSuccessful');
    assert.deepEqual([ok.type, ok.source?.component, ok.message], ['Normal', 'kubelet', `MountVolume.NodeExpandVolume succeeded for volume "${pvName}" e2e-node`]);
    assert.equal(evs.filter((x) => x.reason === 'VolumeResizeSuccessful').length, 0, 'the node finished it, not the resizer');
    assert.ok(events('Pod', 'web').some((e) => e.reason === 'FileSystemResizeSuccessful' && e.message === ok.message));

    // kubectl describe shows them in upstream's columns
    const d = c.kubectl(['describe', 'pvc', 'data']);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /^Capacity:\s+128Mi$/m);
    assert.match(d.stdout, /^\s+Warning\s+ExternalExpanding\s+\S+\s+volume_expand\s+waiting for an external controller to expand this PVC$/m);
    assert.match(
      d.stdout,
      new RegExp(`^\\s+Normal\\s+FileSystemResizeSuccessful\\s+\\S+\\s+kubelet\\s+MountVolume\\.NodeExpandVolume succeeded for volume "${pvName}" e2e-node$`, 'm'),
    );

    // the kubelet's CSI call at --v=4, on the publish target with the staging path
    const uid = get(['pod', 'web']).metadata.uid;
    const target = join(c.dir, 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~csi', pvName, 'mount');
    const line = `kubernetes.io/csi: calling NodeExpandVolume rpc [volid=${handle},volume_path=${target},required_bytes=134217728]`;
    await eventually(() => c.log().includes(line) || undefined);
  });

  it('grows a claim no pod uses on the controller, and on the node when the next pod mounts it', async () => {
    apply(`${CLAIM('cold', '64Mi')}---\n${POD('first', 'cold')}`);
    await running('first');
    const pvName = get(['pvc', 'cold']).spec.volumeName as string;
    assert.equal(c.kubectl(['delete', 'pod', 'first']).code, 0);
    assert.equal(c.kubectl(['patch', 'pvc', 'cold', '-p', '{"spec":{"resources":{"requests":{"storage":"96Mi"}}}}']).code, 0);
    const pending = await eventually(() => {
      const p = get(['pvc', 'cold']);
      return p.status?.allocatedResourceStatuses?.storage === 'NodeResizePending' ? p : undefined;
    }, 60_000);
    assert.deepEqual(pending.status?.capacity, { storage: '64Mi' });
    assert.deepEqual(pending.status?.allocatedResources, { storage: '96Mi' });
    assert.deepEqual(
      ((pending.status?.conditions ?? []) as { type: string; message?: string }[]).map((x) => [x.type, x.message]),
      [
        ['Resizing', undefined],
        ['FileSystemResizePending', 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.'],
      ],
    );
    assert.equal(get(['pv', pvName]).spec.capacity.storage, '96Mi');
    assert.match(c.kubectl(['get', 'pvc', 'cold']).stdout, /^cold\s+Bound\s+\S+\s+64Mi\s/m);
    const d = c.kubectl(['describe', 'pvc', 'cold']);
    assert.match(d.stdout, /^\s+FileSystemResizePending\s+True\s+.*Waiting for user to \(re-\)start a pod to finish file system resize of volume on node\.$/m);

    // the next pod: staged afresh, expanded right after NodeStageVolume (volume_path = the global mount)
    apply(POD('second', 'cold'));
    await running('second');
    await eventually(() => get(['pvc', 'cold']).status?.capacity?.storage === '96Mi' || undefined, 30_000);
    assert.equal(get(['pvc', 'cold']).status?.conditions, undefined);
    await eventually(() => /kubernetes\.io\/csi: calling NodeExpandVolume rpc \[volid=[^,]+,volume_path=\S+\/globalmount,required_bytes=100663296\]/.test(c.log()) || undefined);
    assert.ok(
      events('Pod', 'second').some((e) => e.reason === 'FileSystemResizeSuccessful' && e.message === `MountVolume.NodeExpandVolume succeeded for volume "${pvName}" e2e-node`),
    );
  });

  it('refuses to grow a claim whose class does not allow expansion, and to shrink one, with upstream’s errors', async () => {
    apply(`apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fixed
provisioner: hostpath.csi.k8ts.io
volumeBindingMode: WaitForFirstConsumer
---
${CLAIM('fixed-data', '32Mi', 'fixed')}---
${POD('fixed-user', 'fixed-data')}`);
    await running('fixed-user');
    const grow = c.kubectl(['patch', 'pvc', 'fixed-data', '-p', '{"spec":{"resources":{"requests":{"storage":"64Mi"}}}}']);
    assert.equal(grow.code, 1);
    assert.equal(
      grow.stderr,
      'Error from server (Forbidden): persistentvolumeclaims "fixed-data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize\n',
    );
    const shrink = c.kubectl(['patch', 'pvc', 'data', '-p', '{"spec":{"resources":{"requests":{"storage":"32Mi"}}}}']);
    assert.equal(shrink.code, 1);
    assert.equal(shrink.stderr, 'The PersistentVolumeClaim "data" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity\n');
    assert.equal(get(['pvc', 'data']).spec.resources.requests.storage, '128Mi');
  });
});

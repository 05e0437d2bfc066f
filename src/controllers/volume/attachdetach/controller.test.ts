/**
 * The attach/detach controller's node-side bookkeeping on an in-process API server:
 * an attached VolumeAttachment shows in the node's status.volumesAttached (unique name,
 * empty device path); a volume no pod needs stays attached while the node's kubelet
 * reports it in status.volumesInUse and is detached once it leaves (volumesAttached
 * first), or after maxWaitForUnmountDuration on a fake clock.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from 'kubernetes-types/core/v1.js';
import type { VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import type { KObject } from '../../../api/resource.js';
import { SR } from '../../../client/storage-resources.js';
import { R } from '../../../client/types.js';
import { FakeClock } from '../../../util/fake-clock.js';
import { startTestCluster, waitFor, type TestCluster } from '../../util/test-cluster.js';
import type { RunningController } from '../../util/context.js';
import { attachmentName, MAX_WAIT_FOR_UNMOUNT_MS, startAttachDetachController, uniqueVolumeName } from './controller.js';

const DRIVER = 'attach.example.com';
const NODE = 'node-a';

describe('attach/detach controller: volumesAttached and volumesInUse', { timeout: 60_000 }, () => {
  let c: TestCluster;
  let ctrl: RunningController;
  const clock = new FakeClock(Date.now());

  const node = (): Promise<Node & KObject> => c.client.get<Node & KObject>(R.nodes, '', NODE);
  const va = (handle: string): Promise<(VolumeAttachment & KObject) | undefined> =>
    c.client.get<VolumeAttachment & KObject>(SR.volumeattachments, '', attachmentName(handle, DRIVER, NODE)).catch(() => undefined);
  const setInUse = (names: string[] | null): Promise<unknown> => c.client.patch(R.nodes, '', NODE, 'merge', { status: { volumesInUse: names } }, { subresource: 'status' });

  /** A claim bound to a CSI PV of `handle` and a pod on NODE using it. */
  async function podWithVolume(name: string, handle: string): Promise<void> {
    await c.client.create(R.persistentvolumes, '', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `pv-${name}` },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        csi: { driver: DRIVER, volumeHandle: handle },
        claimRef: { namespace: 'default', name: `claim-${name}` },
      },
    });
    await c.client.create(R.persistentvolumeclaims, 'default', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: `claim-${name}` },
      spec: { accessModes: ['ReadWriteOnce'], volumeName: `pv-${name}`, resources: { requests: { storage: '1Gi' } } },
    });
    await c.client.create(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { nodeName: NODE, containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: `claim-${name}` } }] },
    });
  }

  /** Plays the external-attacher: marks the attachment attached. */
  async function attach(handle: string): Promise<void> {
    const v = await waitFor(() => va(handle), 10_000, `VolumeAttachment of ${handle}`);
    await c.client.patch(SR.volumeattachments, '', v.metadata!.name!, 'merge', { status: { attached: true } }, { subresource: 'status' });
  }

  before(async () => {
    c = await startTestCluster();
    await c.client.create(R.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
    await c.client.create(SR.csidrivers, '', { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: DRIVER }, spec: { attachRequired: true } });
    ctrl = await startAttachDetachController({ client: c.client, recorder: c.recorder, informers: c.informers, clock });
  });
  after(async () => {
    await ctrl?.stop();
    await c?.stop();
  });

  it('lists attached volumes in the node status and detaches only after the kubelet stopped using them', async () => {
    await podWithVolume('p1', 'vol-1');
    await attach('vol-1');
    const unique = uniqueVolumeName(DRIVER, 'vol-1');
    assert.equal(unique, 'kubernetes.io/csi/attach.example.com^vol-1');
    await waitFor(async () => (await node()).status?.volumesAttached?.length, 10_000, 'volumesAttached');
    assert.deepEqual((await node()).status?.volumesAttached, [{ name: unique, devicePath: '' }]);

    // the kubelet reports it in use; the pod goes: the controller waits (its 6-minute deadline is armed)
    await setInUse([unique]);
    const timersBefore = clock.pending;
    await c.client.delete(R.pods, 'default', 'p1', { gracePeriodSeconds: 0 });
    await waitFor(() => clock.pending > timersBefore, 10_000, 'the unmount wait');
    assert.ok(await va('vol-1'), 'still attached while in use');
    assert.deepEqual((await node()).status?.volumesAttached, [{ name: unique, devicePath: '' }]);

    // unmounted: out of volumesAttached, then detached
    await setInUse(null);
    await waitFor(async () => !(await va('vol-1')), 10_000, 'detached');
    assert.equal((await node()).status?.volumesAttached, undefined);
  });

  it('detaches a volume still reported in use after maxWaitForUnmountDuration', async () => {
    await clock.advance(MAX_WAIT_FOR_UNMOUNT_MS); // the first test's wait runs out (nothing left to detach)
    await podWithVolume('p2', 'vol-2');
    await attach('vol-2');
    const unique = uniqueVolumeName(DRIVER, 'vol-2');
    await waitFor(async () => (await node()).status?.volumesAttached?.some((a) => a.name === unique), 10_000, 'volumesAttached');
    await setInUse([unique]);
    const timersBefore = clock.pending;
    await c.client.delete(R.pods, 'default', 'p2', { gracePeriodSeconds: 0 });
    await waitFor(() => clock.pending > timersBefore, 10_000, 'the unmount wait');
    assert.ok(await va('vol-2'));
    await clock.advance(MAX_WAIT_FOR_UNMOUNT_MS);
    await waitFor(async () => !(await va('vol-2')), 10_000, 'detached after the wait');
    assert.equal((await node()).status?.volumesAttached, undefined);
  });
});

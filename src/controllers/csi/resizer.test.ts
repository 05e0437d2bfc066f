/**
 * The built-in external-resizer against csi-hostpath over its socket, on an in-process API
 * server, with RecoverVolumeExpansionFailure on (v1.32): the claim's allocatedResources,
 * allocatedResourceStatuses, resize conditions and events, the PV's capacity, and the
 * infeasible failure; plus the choice of the size to expand to.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { R } from '../../client/types.js';
import { CSIClient } from '../../csi/client.js';
import { HostPathDriver, TOPOLOGY_KEY } from '../../csi/hostpath/driver.js';
import { startTestCluster, waitFor, type TestCluster } from '../util/test-cluster.js';
import type { RunningController } from '../util/context.js';
import { claimNeedsResize, expansionTarget, startExternalResizer } from './resizer.js';

type PVC = PersistentVolumeClaim & KObject;
const DRIVER = 'resize.csi.k8ts.io';
const NODE = 'node-r';
const MOUNT = { mount: { fsType: '', mountFlags: [] }, accessMode: { mode: 'SINGLE_NODE_WRITER' as const } };

describe('external-resizer (RecoverVolumeExpansionFailure on)', { timeout: 60_000 }, () => {
  let c: TestCluster;
  let driver: HostPathDriver;
  let csi: CSIClient;
  let dir: string;
  let resizer: RunningController;
  const calls: string[] = [];

  before(async () => {
    c = await startTestCluster();
    dir = fs.mkdtempSync(join(tmpdir(), 'k8ts-resizer-'));
    const sock = join(dir, 'csi.sock');
    driver = new HostPathDriver({ name: DRIVER, nodeId: NODE, dataDir: dir, endpoint: sock, publishMode: 'symlink' });
    await driver.start();
    csi = new CSIClient(sock, { log: (l) => l.startsWith('GRPC call') && calls.push(l) });
    await c.client.create(R.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE, labels: { [TOPOLOGY_KEY]: NODE } } });
    resizer = await startExternalResizer({ client: c.client, csi, driverName: DRIVER, nodeName: NODE, recorder: c.recorder });
  });
  after(async () => {
    await resizer?.stop();
    csi?.close();
    await driver?.stop();
    await c?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A claim bound to a PV of this driver (what the PV controller would leave), 1Mi. */
  async function boundPair(name: string, handle: string): Promise<void> {
    const pvc = await c.client.create<PVC>(R.persistentvolumeclaims, 'default', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: 'default' },
      spec: { storageClassName: 'fast', volumeName: `pv-${name}`, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
    });
    await c.client.create(R.persistentvolumes, '', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `pv-${name}` },
      spec: {
        capacity: { storage: '1Mi' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'fast',
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name, uid: pvc.metadata!.uid },
        csi: { driver: DRIVER, volumeHandle: handle },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: TOPOLOGY_KEY, operator: 'In', values: [NODE] }] }] } },
      },
    });
    await c.client.update(
      R.persistentvolumeclaims,
      'default',
      { ...pvc, status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Mi' } } },
      { subresource: 'status' },
    );
  }

  const getPVC = (name: string): Promise<PVC> => c.client.get<PVC>(R.persistentvolumeclaims, 'default', name);
  async function grow(name: string, size: string): Promise<void> {
    const cur = await getPVC(name);
    await c.client.update(R.persistentvolumeclaims, 'default', { ...cur, spec: { ...cur.spec, resources: { requests: { storage: size } } } });
  }

  it('expands on the controller, records the PV capacity and hands the claim to the node', async () => {
    const vol = await csi.createVolume({ name: 'a', capacityRange: { requiredBytes: 1 << 20 }, volumeCapabilities: [MOUNT] });
    await boundPair('a', vol.volumeId);
    await grow('a', '2Mi');
    const pvc = await waitFor(async () => {
      const p = await getPVC('a');
      return p.status?.allocatedResourceStatuses?.storage === 'NodeResizePending' ? p : undefined;
    }, 20_000);
    assert.deepEqual(pvc.status?.capacity, { storage: '1Mi' }, 'the capacity is the kubelet’s to update');
    assert.deepEqual(pvc.status?.allocatedResources, { storage: '2Mi' });
    assert.deepEqual(pvc.status?.allocatedResourceStatuses, { storage: 'NodeResizePending' });
    assert.deepEqual(
      pvc.status?.conditions?.map((x) => [x.type, x.status, x.message]),
      [
        ['Resizing', 'True', undefined],
        ['FileSystemResizePending', 'True', 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.'],
      ],
    );
    const pv = await c.client.get<PersistentVolume & KObject>(R.persistentvolumes, '', 'pv-a');
    assert.equal(pv.spec?.capacity?.storage, '2Mi');
    const expand = calls.find((l) => l.includes('/csi.v1.Controller/ControllerExpandVolume'));
    assert.ok(expand);
    assert.match(expand, /"capacityRange":\{"requiredBytes":2097152\}/);
    assert.match(expand, /"volumeCapability":\{"mount":\{"fsType":"","mountFlags":\[\]\},"accessMode":\{"mode":"SINGLE_NODE_WRITER"\}\}/);
    const lines = c.recorder.lines();
    assert.ok(lines.includes('Resizing: External resizer is resizing volume pv-a'), lines.join('\n'));
    assert.ok(lines.includes('FileSystemResizeRequired: Require file system resize of volume on node'), lines.join('\n'));
    assert.equal(lines.filter((l) => l.startsWith('VolumeResizeSuccessful')).length, 0, 'no VolumeResizeSuccessful while the node still has to expand');
    assert.equal(c.recorder.events.find((e) => e.reason === 'Resizing')?.type, 'Normal');
  });

  it('marks an infeasible expansion ControllerResizeInfeasible with the ControllerResizeError condition', async () => {
    await boundPair('ghost', 'no-such-volume');
    await grow('ghost', '3Mi');
    const pvc = await waitFor(async () => {
      const p = await getPVC('ghost');
      return p.status?.allocatedResourceStatuses?.storage === 'ControllerResizeInfeasible' ? p : undefined;
    }, 20_000);
    assert.deepEqual(pvc.status?.allocatedResources, { storage: '3Mi' });
    assert.deepEqual(pvc.status?.capacity, { storage: '1Mi' });
    assert.deepEqual(
      pvc.status?.conditions?.map((x) => [x.type, x.message]),
      [
        ['Resizing', undefined],
        ['ControllerResizeError', 'failed to expand pvc with rpc error: code = NotFound desc = volume id "no-such-volume" not found'],
      ],
    );
    const want = 'VolumeResizeFailed: resize volume "pv-ghost" by resizer "resize.csi.k8ts.io" failed: rpc error: code = NotFound desc = volume id "no-such-volume" not found';
    await waitFor(() => c.recorder.lines().includes(want), 10_000, want);
    assert.equal(c.recorder.events.find((e) => e.reason === 'VolumeResizeFailed')?.type, 'Warning');
    assert.equal((await c.client.get<PersistentVolume & KObject>(R.persistentvolumes, '', 'pv-ghost')).spec?.capacity?.storage, '1Mi');
  });

  it('chooses the size to expand to as upstream expandAndRecover', () => {
    const claim = (spec: string, status: Partial<PersistentVolumeClaim['status']>): PersistentVolumeClaim => ({
      spec: { volumeName: 'pv', resources: { requests: { storage: spec } } },
      status: { phase: 'Bound', capacity: { storage: '1Gi' }, ...status },
    });
    const pv = (size: string): PersistentVolume => ({ spec: { capacity: { storage: size } } });
    assert.equal(claimNeedsResize(claim('2Gi', {})), true);
    assert.equal(claimNeedsResize(claim('1Gi', {})), false);
    assert.equal(claimNeedsResize({ ...claim('2Gi', {}), status: { phase: 'Pending' } }), false);
    // a fresh request
    assert.equal(expansionTarget(claim('2Gi', {}), pv('1Gi'), false), '2Gi');
    // the node is still expanding to what was allocated: wait for it
    assert.equal(
      expansionTarget(claim('3Gi', { allocatedResources: { storage: '2Gi' }, allocatedResourceStatuses: { storage: 'NodeResizePending' } }), pv('2Gi'), false),
      undefined,
    );
    assert.equal(
      expansionTarget(claim('2Gi', { allocatedResources: { storage: '2Gi' }, allocatedResourceStatuses: { storage: 'NodeResizeInProgress' } }), pv('2Gi'), false),
      undefined,
    );
    // a controller expansion that may still run goes on to the allocated size; after a final error to the new request
    const inProgress = claim('3Gi', { allocatedResources: { storage: '2Gi' }, allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' } });
    assert.equal(expansionTarget(inProgress, pv('1Gi'), false), '2Gi');
    assert.equal(expansionTarget(inProgress, pv('1Gi'), true), '3Gi');
    // the user lowered an infeasible request: recover to it
    assert.equal(
      expansionTarget(claim('2Gi', { allocatedResources: { storage: '9Gi' }, allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' } }), pv('1Gi'), true),
      '2Gi',
    );
    // the node failed infeasibly after the controller expanded: the allocated size again
    assert.equal(
      expansionTarget(claim('2Gi', { allocatedResources: { storage: '2Gi' }, allocatedResourceStatuses: { storage: 'NodeResizeInfeasible' } }), pv('2Gi'), false),
      '2Gi',
    );
  });
});

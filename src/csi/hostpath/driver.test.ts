/** csi-hostpath through the CSI client over its unix socket: what any CO sees. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CSIClient } from '../client.js';
import { CSIError } from '../grpc.js';
import { DRIVER_NAME, HostPathDriver, TOPOLOGY_KEY } from './driver.js';

const MOUNT = { mount: { fsType: '', mountFlags: [] }, accessMode: { mode: 'SINGLE_NODE_WRITER' as const } };

describe('csi-hostpath over gRPC', () => {
  let dir: string;
  let d: HostPathDriver;
  let c: CSIClient;
  before(async () => {
    dir = fs.mkdtempSync(join(tmpdir(), 'k8ts-hostpath-'));
    d = new HostPathDriver({ nodeId: 'n1', dataDir: dir, endpoint: join(dir, 'csi.sock'), publishMode: 'symlink' });
    await d.start();
    c = new CSIClient(`unix://${join(dir, 'csi.sock')}`);
  });
  after(async () => {
    c.close();
    await d.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('Identity and capabilities', async () => {
    assert.equal((await c.getPluginInfo()).name, DRIVER_NAME);
    assert.deepEqual(await c.getPluginCapabilities(), { services: ['CONTROLLER_SERVICE', 'VOLUME_ACCESSIBILITY_CONSTRAINTS'], expansion: ['ONLINE'] });
    assert.equal(await c.probe(), true);
    assert.deepEqual(await c.controllerGetCapabilities(), ['CREATE_DELETE_VOLUME', 'EXPAND_VOLUME', 'GET_CAPACITY']);
    assert.ok((await c.getCapacity({ segments: { [TOPOLOGY_KEY]: 'n1' } })) > 0);
    assert.equal(await c.getCapacity({ segments: { [TOPOLOGY_KEY]: 'n2' } }), 0);
    assert.deepEqual(await c.nodeGetCapabilities(), ['STAGE_UNSTAGE_VOLUME', 'GET_VOLUME_STATS', 'EXPAND_VOLUME']);
    assert.deepEqual(await c.nodeGetInfo(), { nodeId: 'n1', maxVolumesPerNode: 0, accessibleTopology: { segments: { [TOPOLOGY_KEY]: 'n1' } } });
  });

  it('CreateVolume is idempotent by name; errors carry gRPC codes', async () => {
    const a = await c.createVolume({ name: 'pvc-1', capacityRange: { requiredBytes: 1024 }, volumeCapabilities: [MOUNT] });
    const b = await c.createVolume({ name: 'pvc-1', capacityRange: { requiredBytes: 1024 }, volumeCapabilities: [MOUNT] });
    assert.equal(a.volumeId, b.volumeId);
    assert.deepEqual(a.accessibleTopology, [{ segments: { [TOPOLOGY_KEY]: 'n1' } }]);
    const e1 = await c.createVolume({ name: '', volumeCapabilities: [MOUNT] }).catch((e: unknown) => e);
    assert.ok(e1 instanceof CSIError);
    assert.equal(e1.message, 'rpc error: code = InvalidArgument desc = Name missing in request');
    const e2 = await c.createVolume({ name: 'pvc-1', capacityRange: { requiredBytes: 4096 }, volumeCapabilities: [MOUNT] }).catch((e: unknown) => e);
    assert.equal((e2 as Error).message, 'rpc error: code = AlreadyExists desc = Volume with the same name: pvc-1 but with different size already exist');
    const e3 = await c
      .createVolume({ name: 'pvc-2', volumeCapabilities: [MOUNT], accessibilityRequirements: { requisite: [{ segments: { [TOPOLOGY_KEY]: 'n2' } }], preferred: [] } })
      .catch((e: unknown) => e);
    assert.equal((e3 as CSIError).codeName, 'ResourceExhausted');
  });

  it('stage, publish, stats, unpublish, unstage, delete', async () => {
    const v = await c.createVolume({ name: 'pvc-3', capacityRange: { requiredBytes: 1 << 20 }, volumeCapabilities: [MOUNT] });
    const staging = join(dir, 'staging', 'globalmount');
    const target = join(dir, 'pod', 'mount');
    fs.mkdirSync(staging, { recursive: true });
    fs.mkdirSync(join(dir, 'pod'));
    const unstaged = await c.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: MOUNT }).catch((e: unknown) => e);
    assert.equal((unstaged as CSIError).codeName, 'FailedPrecondition');
    await c.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: MOUNT });
    await c.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: MOUNT });
    fs.writeFileSync(join(target, 'f'), 'abc');
    assert.equal(fs.readFileSync(join(d.volumePath(v.volumeId), 'f'), 'utf8'), 'abc');
    assert.deepEqual(await c.nodeGetVolumeStats(v.volumeId, target), [{ unit: 'BYTES', total: 1 << 20, used: 3, available: (1 << 20) - 3 }]);
    await c.nodeUnpublishVolume(v.volumeId, target);
    await c.nodeUnpublishVolume(v.volumeId, target); // idempotent
    assert.equal(fs.existsSync(target), false);
    await c.nodeUnstageVolume(v.volumeId, staging);
    await c.deleteVolume(v.volumeId);
    await c.deleteVolume(v.volumeId);
    assert.equal(fs.existsSync(d.volumePath(v.volumeId)), false);
    const gone = await c.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: MOUNT }).catch((e: unknown) => e);
    assert.equal((gone as Error).message, `rpc error: code = NotFound desc = volume id ${JSON.stringify(v.volumeId)} not found`);
  });

  it('NodeStageVolume again over a stale staging link or a lost one (a restarted node) makes the volume publishable', async () => {
    const v = await c.createVolume({ name: 'pvc-restage', volumeCapabilities: [MOUNT] });
    const staging = join(dir, 'restage', 'globalmount');
    const target = join(dir, 'restage-pod', 'mount');
    fs.mkdirSync(join(dir, 'restage'));
    fs.mkdirSync(join(dir, 'restage-pod'));
    fs.symlinkSync(join(dir, 'elsewhere'), staging, 'dir');
    await c.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: MOUNT });
    assert.equal(fs.readlinkSync(staging), d.volumePath(v.volumeId));
    fs.unlinkSync(staging); // what a reboot leaves: the kubelet's record, no staging
    const lost = await c.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: MOUNT }).catch((e: unknown) => e);
    assert.equal((lost as Error).message, `rpc error: code = FailedPrecondition desc = volume ${JSON.stringify(v.volumeId)} is not staged at ${staging}`);
    await c.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: MOUNT });
    await c.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: MOUNT });
    assert.equal(fs.readlinkSync(target), d.volumePath(v.volumeId));
  });

  it('ControllerExpandVolume asks for node expansion, as csi-driver-host-path; NodeExpandVolume checks the path and the node limit', async () => {
    const v = await c.createVolume({ name: 'pvc-4', capacityRange: { requiredBytes: 1 << 20 }, volumeCapabilities: [MOUNT] });
    assert.deepEqual(await c.controllerExpandVolume({ volumeId: v.volumeId, capacityRange: { requiredBytes: 2 << 20 } }), { capacityBytes: 2 << 20, nodeExpansionRequired: true });
    // never shrinks
    assert.deepEqual(await c.controllerExpandVolume({ volumeId: v.volumeId, capacityRange: { requiredBytes: 1 << 20 } }), { capacityBytes: 2 << 20, nodeExpansionRequired: true });
    const e1 = await c.controllerExpandVolume({ volumeId: 'nope', capacityRange: { requiredBytes: 1 } }).catch((e: unknown) => e);
    assert.equal((e1 as Error).message, 'rpc error: code = NotFound desc = volume id "nope" not found');
    const target = join(dir, 'expand', 'mount');
    fs.mkdirSync(target, { recursive: true });
    assert.equal(await c.nodeExpandVolume({ volumeId: v.volumeId, volumePath: target, capacityRange: { requiredBytes: 2 << 20 }, volumeCapability: MOUNT }), 2 << 20);
    const e2 = await c.nodeExpandVolume({ volumeId: v.volumeId, volumePath: join(dir, 'missing'), capacityRange: { requiredBytes: 2 << 20 } }).catch((e: unknown) => e);
    assert.match((e2 as Error).message, /^rpc error: code = InvalidArgument desc = Could not get file information from \S+\/missing: ENOENT/);
    const e3 = await c.nodeExpandVolume({ volumeId: v.volumeId, volumePath: '', capacityRange: { requiredBytes: 1 } }).catch((e: unknown) => e);
    assert.equal((e3 as Error).message, 'rpc error: code = InvalidArgument desc = Volume path not provided');
    // --max-volume-expansion-size-node
    const sock = join(dir, 'limited.sock');
    const limited = new HostPathDriver({ nodeId: 'n1', dataDir: dir, endpoint: sock, publishMode: 'symlink', maxVolumeExpansionSizeNode: 1 << 20 });
    await limited.start();
    const lc = new CSIClient(sock);
    try {
      const e4 = await lc.nodeExpandVolume({ volumeId: v.volumeId, volumePath: target, capacityRange: { requiredBytes: 2 << 20 } }).catch((e: unknown) => e);
      assert.equal((e4 as Error).message, `rpc error: code = OutOfRange desc = Requested capacity ${2 << 20} exceeds maximum allowed ${1 << 20}`);
    } finally {
      lc.close();
      await limited.stop();
    }
  });
});

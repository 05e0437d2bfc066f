/**
 * csi-hostpath raw block volumes through the CSI client over its unix socket: a sparse
 * backing file, staged and published as symbolic links (simulated containers) or as a
 * loop device bind-mounted onto the target file (real containers, root).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requirePackages, requireRoot } from '../../../test/support/deps.js';
import { CSIClient } from '../client.js';
import type { CSIError } from '../grpc.js';
import { loopDevicesOf } from './block.js';
import { HostPathDriver } from './driver.js';
import type { PublishMode } from './mount.js';

const BLOCK = { block: {}, accessMode: { mode: 'SINGLE_NODE_WRITER' as const } };
const MOUNT = { mount: { fsType: '', mountFlags: [] }, accessMode: { mode: 'SINGLE_NODE_WRITER' as const } };
const MiB = 1 << 20;

for (const mode of ['symlink', 'bind'] as PublishMode[]) {
  describe(`csi-hostpath block volumes (${mode})`, () => {
    let dir: string;
    let d: HostPathDriver;
    let c: CSIClient;
    before(async () => {
      if (mode === 'bind') {
        requireRoot('loop devices and bind mounts of block volumes');
        requirePackages(['mount'], 'loop devices of block volumes (losetup)');
      }
      dir = fs.mkdtempSync(join(tmpdir(), 'k8ts-hostpath-block-'));
      d = new HostPathDriver({ nodeId: 'n1', dataDir: dir, endpoint: join(dir, 'csi.sock'), publishMode: mode });
      await d.start();
      c = new CSIClient(`unix://${join(dir, 'csi.sock')}`);
    });
    after(async () => {
      c.close();
      await d.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('CreateVolume makes a sparse backing file of the capacity; mixed access types are refused', async () => {
      const v = await c.createVolume({ name: 'pvc-b1', capacityRange: { requiredBytes: 64 * MiB }, volumeCapabilities: [BLOCK] });
      const st = fs.statSync(d.volumePath(v.volumeId));
      assert.ok(st.isFile());
      assert.equal(st.size, 64 * MiB);
      assert.ok(st.blocks * 512 < MiB, `sparse: ${st.blocks} blocks allocated`);
      const both = await c.createVolume({ name: 'pvc-b2', volumeCapabilities: [BLOCK, MOUNT] }).catch((e: unknown) => e);
      assert.equal((both as Error).message, 'rpc error: code = InvalidArgument desc = cannot have both block and mount access type');
      const asMount = await c.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: join(dir, 'x'), volumeCapability: MOUNT }).catch((e: unknown) => e);
      assert.equal((asMount as Error).message, 'rpc error: code = InvalidArgument desc = cannot publish a non-mount volume as mount volume');
      const fsVol = await c.createVolume({ name: 'pvc-f1', capacityRange: { requiredBytes: MiB }, volumeCapabilities: [MOUNT] });
      const asBlock = await c.nodePublishVolume({ volumeId: fsVol.volumeId, targetPath: join(dir, 'y'), volumeCapability: BLOCK }).catch((e: unknown) => e);
      assert.equal((asBlock as Error).message, 'rpc error: code = InvalidArgument desc = cannot publish a non-block volume as block volume');
      await c.deleteVolume(v.volumeId);
      await c.deleteVolume(fsVol.volumeId);
    });

    it('stage, publish, write through the target, unpublish, unstage, delete', async () => {
      const v = await c.createVolume({ name: 'pvc-b3', capacityRange: { requiredBytes: 8 * MiB }, volumeCapabilities: [BLOCK] });
      const file = d.volumePath(v.volumeId);
      const staging = join(dir, 'volumeDevices', 'staging', 'pv-b3');
      const target = join(dir, 'volumeDevices', 'publish', 'pv-b3', 'pod-uid');
      fs.mkdirSync(staging, { recursive: true, mode: 0o750 });
      fs.mkdirSync(join(target, '..'), { recursive: true, mode: 0o750 });
      const unstaged = await c.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: BLOCK }).catch((e: unknown) => e);
      assert.equal((unstaged as CSIError).codeName, 'FailedPrecondition');
      await c.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: BLOCK });
      await c.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: BLOCK }); // idempotent
      if (mode === 'bind') assert.equal(loopDevicesOf(file).length, 1);
      await c.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: BLOCK });
      await c.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: BLOCK });
      if (mode === 'bind') assert.ok(fs.statSync(target).isBlockDevice(), 'the loop device is bind-mounted onto the target file');
      else assert.equal(fs.readlinkSync(target), file);
      // bytes written at an offset of the device land at that offset of the backing file
      const fd = fs.openSync(target, 'r+');
      fs.writeSync(fd, Buffer.from('block-data'), 0, 10, MiB);
      if (mode === 'bind') fs.fsyncSync(fd);
      fs.closeSync(fd);
      if (mode === 'bind') spawnSync('blockdev', ['--flushbufs', loopDevicesOf(file)[0]!]);
      const back = Buffer.alloc(10);
      const bfd = fs.openSync(file, 'r');
      fs.readSync(bfd, back, 0, 10, MiB);
      fs.closeSync(bfd);
      assert.equal(back.toString(), 'block-data');
      assert.deepEqual(await c.nodeGetVolumeStats(v.volumeId, target), [{ unit: 'BYTES', total: 8 * MiB, used: 0, available: 0 }]);
      await c.nodeUnpublishVolume(v.volumeId, target);
      await c.nodeUnpublishVolume(v.volumeId, target);
      assert.equal(fs.existsSync(target), false);
      await c.nodeUnstageVolume(v.volumeId, staging);
      assert.equal(loopDevicesOf(file).length, 0);
      await c.deleteVolume(v.volumeId);
      assert.equal(fs.existsSync(file), false);
    });

    it('DeleteVolume of a still-staged volume detaches its loop device; ControllerExpandVolume grows the backing file', async () => {
      const v = await c.createVolume({ name: 'pvc-b4', capacityRange: { requiredBytes: 4 * MiB }, volumeCapabilities: [BLOCK] });
      const file = d.volumePath(v.volumeId);
      assert.deepEqual(await c.controllerExpandVolume({ volumeId: v.volumeId, capacityRange: { requiredBytes: 6 * MiB } }), {
        capacityBytes: 6 * MiB,
        nodeExpansionRequired: false,
      });
      assert.equal(fs.statSync(file).size, 6 * MiB);
      const staging = join(dir, 'staging-b4');
      fs.mkdirSync(staging);
      await c.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: BLOCK });
      await c.deleteVolume(v.volumeId);
      assert.equal(loopDevicesOf(file).length, 0);
      assert.equal(fs.existsSync(file), false);
    });
  });
}

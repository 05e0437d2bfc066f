/**
 * Raw block volumes of the csi-hostpath driver, as kubernetes-csi's csi-driver-host-path
 * keeps them: a sparse backing file of the requested capacity
 * (`<dataDir>/storage/<volume-id>.img`) attached to a loop device (`losetup`, util-linux)
 * at NodeStageVolume, the loop device bind-mounted onto the target file at
 * NodePublishVolume. Where containers are simulated (publish mode `symlink`) no root
 * and no loop device are needed: the staging and target paths become symbolic links to
 * the backing file.
 *
 * @see https://github.com/kubernetes-csi/csi-driver-host-path/blob/master/pkg/hostpath/nodeserver.go
 * @see https://github.com/kubernetes-csi/csi-driver-host-path/blob/master/pkg/hostpath/hostpath.go
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { isMountPoint, type PublishMode } from './mount.js';

function losetup(args: string[]): string {
  const r = spawnSync('losetup', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`losetup ${args.join(' ')} failed: ${r.error?.message ?? `exit status ${r.status}`}: ${(r.stderr ?? '').trim()}`);
  return r.stdout ?? '';
}

/** Makes the sparse backing file of a block volume (`capacityBytes` long, no blocks allocated). */
export function createBackingFile(file: string, capacityBytes: number): void {
  const fd = fs.openSync(file, 'wx', 0o600);
  try {
    fs.ftruncateSync(fd, capacityBytes);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The loop devices `file` is attached to (`losetup -j`, e.g. `/dev/loop3`); none when it
 * is not attached or losetup cannot run.
 */
export function loopDevicesOf(file: string): string[] {
  const r = spawnSync('losetup', ['-j', file], { encoding: 'utf8' });
  if (r.status !== 0) return [];
  return (r.stdout ?? '')
    .split('\n')
    .map((l) => l.slice(0, l.indexOf(':')))
    .filter((d) => d.startsWith('/dev/'));
}

/**
 * Attaches `file` to a loop device unless it is already attached; returns the device.
 * @throws Error with losetup's output
 */
export function attachLoop(file: string): string {
  return loopDevicesOf(file)[0] ?? losetup(['-f', '--show', file]).trim();
}

/** Detaches every loop device `file` is attached to (nothing attached is no error). */
export function detachLoops(file: string): void {
  for (const d of loopDevicesOf(file)) losetup(['-d', d]);
}

/** Is the block volume staged at `stagingPath` (bind: its file has a loop device; symlink: the link points at it)? */
export function isBlockStaged(file: string, stagingPath: string, mode: PublishMode): boolean {
  if (mode === 'bind') return loopDevicesOf(file).length > 0;
  try {
    return fs.readlinkSync(stagingPath) === file;
  } catch {
    return false;
  }
}

/** NodeStageVolume of a block volume: attach the loop device (bind), or link the staging path to the file (symlink). */
export function stageBlock(file: string, stagingPath: string, mode: PublishMode): void {
  if (mode === 'bind') {
    attachLoop(file);
    return;
  }
  if (isBlockStaged(file, stagingPath, mode)) return;
  replaceWithLink(file, stagingPath);
}

/** NodeUnstageVolume of a block volume: detach the loop device (bind) or remove the link. */
export function unstageBlock(file: string, stagingPath: string, mode: PublishMode): void {
  if (mode === 'bind') detachLoops(file);
  try {
    if (fs.lstatSync(stagingPath).isSymbolicLink()) fs.unlinkSync(stagingPath);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/**
 * NodePublishVolume of a block volume: the target file is made (the CO makes only its
 * parent) and the loop device bind-mounted onto it, read-only for readonly publishes;
 * in symlink mode the target becomes a link to the backing file.
 * @throws Error with mount's or losetup's output
 */
export function publishBlock(file: string, target: string, mode: PublishMode, readonly: boolean): void {
  if (mode === 'symlink') {
    try {
      if (fs.readlinkSync(target) === file) return;
    } catch {
      // not published yet
    }
    replaceWithLink(file, target);
    return;
  }
  if (isMountPoint(target)) return;
  const dev = attachLoop(file);
  fs.closeSync(fs.openSync(target, 'a', 0o660));
  mount(['--bind', dev, target]);
  if (readonly) mount(['-o', 'remount,bind,ro', target]);
}

function mount(args: string[]): void {
  const r = spawnSync('mount', args, { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(
      `mount failed: ${r.error?.message ?? `exit status ${r.status}`}\nMounting command: mount\nMounting arguments: ${args.join(' ')}\nOutput: ${(r.stderr ?? '').trim()}`,
    );
}

/** `target` (absent, an empty directory or a file left by an earlier attempt) becomes a link to `file`. */
function replaceWithLink(file: string, target: string): void {
  try {
    if (fs.lstatSync(target).isDirectory()) fs.rmdirSync(target);
    else fs.unlinkSync(target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  fs.symlinkSync(file, target, 'file');
}

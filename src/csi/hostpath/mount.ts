/**
 * How the csi-hostpath driver makes a volume directory appear at a target path: a bind
 * mount (`mount --bind`, remounted read-only for readonly publishes) where containers
 * are real processes, or a symbolic link where they are simulated (no mount is left
 * behind by a killed simulated cluster).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';

export type PublishMode = 'bind' | 'symlink';

function run(args: string[]): void {
  const r = spawnSync('mount', args, { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(
      `mount failed: ${r.error?.message ?? `exit status ${r.status}`}\nMounting command: mount\nMounting arguments: ${args.join(' ')}\nOutput: ${(r.stderr ?? '').trim()}`,
    );
}

/** Is `p` itself a mount point (per /proc/self/mountinfo)? */
export function isMountPoint(p: string): boolean {
  let text = '';
  try {
    text = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return false;
  }
  for (const line of text.split('\n')) {
    const mp = line.split(' ')[4];
    if (mp && mp.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))) === p) return true;
  }
  return false;
}

/** Is `p` already published (a mount point, or a symlink to `source`)? */
export function isPublished(p: string, source: string, mode: PublishMode): boolean {
  if (mode === 'bind') return isMountPoint(p);
  try {
    return fs.readlinkSync(p) === source;
  } catch {
    return false;
  }
}

/**
 * Makes `source` (a directory) visible at `target`.
 * @throws Error with mount's output when the bind mount fails
 */
export function publish(source: string, target: string, mode: PublishMode, readonly: boolean): void {
  if (isPublished(target, source, mode)) return;
  if (mode === 'bind') {
    // a link left by the simulated runtime's driver gives way to the mount point
    if (isSymlink(target)) fs.unlinkSync(target);
    fs.mkdirSync(target, { recursive: true });
    run(['--bind', source, target]);
    if (readonly) run(['-o', 'remount,bind,ro', target]);
    return;
  }
  // a bind mount left by a run on real containers, an empty directory made by an earlier
  // attempt or a stale link gives way to the link
  if (isMountPoint(target)) unpublish(target);
  try {
    if (fs.lstatSync(target).isDirectory()) fs.rmdirSync(target);
    else fs.unlinkSync(target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  fs.symlinkSync(source, target, 'dir');
}

function isSymlink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Undoes {@link publish} and removes `target`; nothing there is no error. */
export function unpublish(target: string): void {
  if (isMountPoint(target)) {
    const r = spawnSync('umount', [target], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`unmount failed: exit status ${r.status}\nUnmounting arguments: ${target}\nOutput: ${(r.stderr ?? '').trim()}`);
  }
  try {
    const st = fs.lstatSync(target);
    // a block volume's target is a file; a directory is removed only when empty
    if (st.isDirectory()) fs.rmdirSync(target);
    else fs.unlinkSync(target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/**
 * The few mount operations volumes need (tmpfs for emptyDir medium Memory, and
 * unmounting whatever is below a pod directory before it is deleted), through the
 * system's mount/umount, reading /proc/self/mountinfo.
 *
 * @see https://github.com/kubernetes/mount-utils
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';

/** Thrown when mount or umount fails; carries their stderr. */
class MountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MountError';
  }
}

/** Mount points at or below `dir`, deepest first. */
function mountsUnder(dir: string): string[] {
  let text = '';
  try {
    text = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const mp = line.split(' ')[4];
    if (!mp) continue;
    const p = mp.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`)) out.push(p);
  }
  return out.sort((a, b) => b.length - a.length);
}

/** Is `dir` itself a mount point? */
export function isMountPoint(dir: string): boolean {
  return mountsUnder(dir).includes(dir);
}

/**
 * Mounts a tmpfs on `dir` (`size=<bytes>` when given).
 * @throws MountError with mount's message
 */
export function mountTmpfs(dir: string, sizeBytes?: number): void {
  const args = ['-t', 'tmpfs', ...(sizeBytes ? ['-o', `size=${sizeBytes}`] : []), 'tmpfs', dir];
  const r = spawnSync('mount', args, { encoding: 'utf8' });
  if (r.status !== 0)
    throw new MountError(
      `mount failed: ${r.error?.message ?? `exit status ${r.status}`}\nMounting command: mount\nMounting arguments: ${args.join(' ')}\nOutput: ${(r.stderr ?? '').trim()}`,
    );
}

/** Unmounts everything at or below `dir` (deepest first; lazily when busy). Returns what stayed mounted. */
export function unmountUnder(dir: string): string[] {
  for (const m of mountsUnder(dir)) {
    const r = spawnSync('umount', [m], { stdio: 'ignore' });
    if (r.status !== 0) spawnSync('umount', ['-l', m], { stdio: 'ignore' });
  }
  return mountsUnder(dir);
}

/**
 * Temporary directories for tests that may hold mounts (containerd snapshots, pod
 * netns): `remove()` unmounts whatever is mounted below the directory first.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  path: string;
  /** Unmounts everything below `path` (deepest first), then deletes it. */
  remove(): void;
}

/** Mount points at or below `dir`, deepest first (from /proc/self/mountinfo). */
export function mountsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const mp = line.split(' ')[4];
    if (!mp) continue;
    const p = mp.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (p === dir || p.startsWith(dir + '/')) out.push(p);
  }
  return out.sort((a, b) => b.length - a.length);
}

/** Lazily unmounts every mount at or below `dir`. */
export function unmountUnder(dir: string): void {
  for (const m of mountsUnder(dir)) spawnSync('umount', ['-l', m], { stdio: 'ignore' });
}

/** A new directory under the OS temp dir (`/tmp/<prefix>XXXXXX`). */
export function makeTempDir(prefix = 'k8ts-test-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    remove() {
      unmountUnder(path);
      rmSync(path, { recursive: true, force: true });
    },
  };
}

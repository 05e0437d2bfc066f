/**
 * fsGroup: a volume's files are given the pod's fsGroup as group, and group read/write
 * permission (read-only for configMap/secret/downwardAPI/projected volumes);
 * directories also get the setgid bit and group execute, so new files inherit the group
 * (upstream SetVolumeOwnership). With fsGroupChangePolicy OnRootMismatch nothing is
 * walked when the volume's root already has the group and permissions.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/volume_linux.go
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const RW = 0o660;
const RO = 0o440;
const EXEC = 0o110;
const SETGID = 0o2000;

function change(file: string, gid: number, readonly: boolean): void {
  const st = fs.lstatSync(file);
  fs.lchownSync(file, -1 as unknown as number, gid);
  if (st.isSymbolicLink()) return; // chmod would follow it and override the target's mode
  let mask = readonly ? RO : RW;
  if (st.isDirectory()) mask |= SETGID | EXEC;
  fs.chmodSync(file, (st.mode & 0o7777) | mask);
}

function rootMatches(dir: string, gid: number, readonly: boolean): boolean {
  try {
    const st = fs.statSync(dir);
    const want = (readonly ? RO : RW) | SETGID | EXEC;
    return st.gid === gid && (st.mode & want) === want;
  } catch {
    return false;
  }
}

/**
 * Applies `gid` to `dir` and everything below it (symlinks are not followed).
 * @throws Error when chown/chmod fail (e.g. not root)
 */
export function setVolumeOwnership(dir: string, gid: number, readonly: boolean, policy: 'Always' | 'OnRootMismatch' = 'Always'): void {
  if (policy === 'OnRootMismatch' && rootMatches(dir, gid, readonly)) return;
  const walk = (p: string): void => {
    change(p, gid, readonly);
    const st = fs.lstatSync(p);
    if (!st.isDirectory()) return;
    for (const e of fs.readdirSync(p)) walk(path.join(p, e));
  };
  walk(dir);
}

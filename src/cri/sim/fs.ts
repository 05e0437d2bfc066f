/**
 * The filesystem a simulated container sees: its volume mounts (real host
 * directories) layered under an in-memory writable layer (the container's own
 * rootfs, lost when the container is removed or restarted).
 *
 * Host files are written only when the mount is writable and its hostPath lies under
 * one of `writableHostRoots` (the kubelet's pod directories); any other mount
 * (e.g. a hostPath volume onto `/var/log`) is read-only to the simulation, and writes
 * to it land in the memory layer instead, so a simulated pod never changes the host.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Mount } from '../api.js';

export type EntryKind = 'file' | 'dir';

export class SimFs {
  private readonly files = new Map<string, string>();
  private readonly dirs = new Set<string>(['/', '/tmp', '/etc', '/var', '/bin', '/usr', '/root', '/home', '/proc', '/dev']);
  private readonly deleted = new Set<string>();
  private readonly mounts: Mount[];

  constructor(
    mounts: Mount[],
    private readonly writableHostRoots: string[],
    private readonly cwd = '/',
  ) {
    this.mounts = [...mounts].sort((a, b) => b.containerPath.length - a.containerPath.length);
    for (const m of this.mounts) this.dirs.add(m.containerPath);
  }

  /** Absolute, normalised container path. */
  resolve(p: string): string {
    return path.posix.resolve(this.cwd, p);
  }

  private hostPathOf(p: string): { host: string; writable: boolean } | undefined {
    for (const m of this.mounts) {
      if (p === m.containerPath || p.startsWith(m.containerPath.endsWith('/') ? m.containerPath : `${m.containerPath}/`)) {
        const host = path.join(m.hostPath, p.slice(m.containerPath.length));
        const writable = !m.readonly && this.writableHostRoots.some((r) => host === r || host.startsWith(`${r}/`));
        return { host, writable };
      }
    }
    return undefined;
  }

  kind(p0: string): EntryKind | undefined {
    const p = this.resolve(p0);
    if (this.files.has(p)) return 'file';
    if (this.dirs.has(p)) return 'dir';
    if (this.deleted.has(p)) return undefined;
    const h = this.hostPathOf(p);
    if (!h) return undefined;
    try {
      return fs.statSync(h.host).isDirectory() ? 'dir' : 'file';
    } catch {
      return undefined;
    }
  }

  read(p0: string): string | undefined {
    const p = this.resolve(p0);
    const mem = this.files.get(p);
    if (mem !== undefined) return mem;
    if (this.deleted.has(p)) return undefined;
    const h = this.hostPathOf(p);
    if (!h) return undefined;
    try {
      return fs.readFileSync(h.host, 'utf8');
    } catch {
      return undefined;
    }
  }

  write(p0: string, data: string, append = false): void {
    const p = this.resolve(p0);
    this.deleted.delete(p);
    const h = this.hostPathOf(p);
    if (h?.writable && !this.files.has(p)) {
      try {
        fs.mkdirSync(path.dirname(h.host), { recursive: true });
        if (append) fs.appendFileSync(h.host, data);
        else fs.writeFileSync(h.host, data);
        return;
      } catch {
        // fall through to the memory layer
      }
    }
    const prev = append ? (this.read(p) ?? '') : '';
    this.files.set(p, prev + data);
    for (let d = path.posix.dirname(p); d !== '/'; d = path.posix.dirname(d)) this.dirs.add(d);
  }

  mkdir(p0: string): void {
    const p = this.resolve(p0);
    this.deleted.delete(p);
    const h = this.hostPathOf(p);
    if (h?.writable) {
      try {
        fs.mkdirSync(h.host, { recursive: true });
        return;
      } catch {
        // memory layer
      }
    }
    for (let d = p; d !== '/'; d = path.posix.dirname(d)) this.dirs.add(d);
  }

  /** Removes a file or (recursively) a directory; false when it did not exist. */
  remove(p0: string): boolean {
    const p = this.resolve(p0);
    const existed = this.kind(p) !== undefined;
    this.files.delete(p);
    this.dirs.delete(p);
    for (const k of [...this.files.keys()]) if (k.startsWith(`${p}/`)) this.files.delete(k);
    const h = this.hostPathOf(p);
    if (h?.writable) {
      try {
        fs.rmSync(h.host, { recursive: true, force: true });
      } catch {
        // ignore
      }
    } else if (h) this.deleted.add(p);
    return existed;
  }

  /** Names in a directory (sorted), or undefined when it is not a directory. */
  list(p0: string): string[] | undefined {
    const p = this.resolve(p0);
    if (this.kind(p) !== 'dir') return undefined;
    const names = new Set<string>();
    const prefix = p === '/' ? '/' : `${p}/`;
    for (const k of [...this.files.keys(), ...this.dirs]) {
      if (k.startsWith(prefix) && k !== p) names.add(k.slice(prefix.length).split('/')[0]);
    }
    const h = this.hostPathOf(p);
    if (h) {
      try {
        for (const n of fs.readdirSync(h.host)) if (!this.deleted.has(`${prefix}${n}`)) names.add(n);
      } catch {
        // not on the host
      }
    }
    return [...names].filter((n) => n).sort();
  }
}

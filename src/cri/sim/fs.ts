/**
 * The filesystem a simulated container sees: its volume mounts (real host
 * directories and files) layered under an in-memory writable layer (the container's
 * own rootfs, seeded with a few image files, lost when the container is removed or
 * restarted; kept across a runtime restart through {@link SimFs.snapshot}).
 *
 * Host files are written only when the mount is writable and its hostPath lies under
 * one of `writableHostRoots` (the kubelet's pod directories); any other writable mount
 * (e.g. a hostPath volume onto `/var/log`) takes writes in the memory layer instead, so
 * a simulated pod never changes the host. Writes under a `readonly` mount fail with
 * EROFS, as in a real container.
 *
 * Metadata is real where it can be: host files show their size, mtime and mode (the
 * process's own uid/gid shown as root, as files the kubelet creates are root's
 * upstream); files the container creates belong to its user, with the group of a
 * setgid parent directory (an fsGroup volume) or else the user's group. Permissions
 * are shown, not enforced.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Mount } from '../api.js';

export type EntryKind = 'file' | 'dir';

/** What `ls -l` shows of one entry (lstat: a symlink is reported as such). */
export interface SimStat {
  kind: EntryKind | 'symlink';
  /** bytes */
  size: number;
  /** ms since epoch */
  mtimeMs: number;
  uid: number;
  gid: number;
  /** permission bits including setuid/setgid/sticky (0o7777) */
  mode: number;
  nlink: number;
  /** 512-byte blocks allocated */
  blocks: number;
  /** symlink target */
  target?: string;
}

/** A filesystem error with the errno name a real call reports. */
export class FsError extends Error {
  constructor(
    readonly code: 'ENOENT' | 'EROFS' | 'EISDIR' | 'ENOTDIR' | 'EEXIST',
    readonly path: string,
  ) {
    super(FsError.text[code]);
  }
  /** strerror texts */
  static readonly text = {
    ENOENT: 'No such file or directory',
    EROFS: 'Read-only file system',
    EISDIR: 'Is a directory',
    ENOTDIR: 'Not a directory',
    EEXIST: 'File exists',
  } as const;
}

/** One entry of the memory layer. */
export interface MemEntry {
  kind: EntryKind;
  data?: string;
  mtimeMs: number;
  uid: number;
  gid: number;
  mode: number;
}

/** The serialisable state of a container's memory layer. */
export interface SimFsSnapshot {
  entries: [string, MemEntry][];
  deleted: string[];
  /** owners of host files the container created */
  owners: [string, { uid: number; gid: number }][];
}

export interface SimFsOptions {
  mounts: Mount[];
  writableHostRoots: string[];
  /** working directory (default /) */
  cwd?: string;
  /** the container's user: owner of what it creates */
  uid?: number;
  gid?: number;
  /** ms since epoch (default Date.now) */
  now?: () => number;
  /** image files (path → content) put in the memory layer; ignored when restoring */
  seed?: Record<string, string>;
  /** restores a layer saved with {@link SimFs.snapshot} */
  snapshot?: SimFsSnapshot;
  /** called after every change (persistence) */
  onChange?: () => void;
}

const BASE_DIRS: [string, number][] = [
  ['/', 0o755],
  ['/bin', 0o755],
  ['/dev', 0o755],
  ['/etc', 0o755],
  ['/home', 0o755],
  ['/proc', 0o555],
  ['/root', 0o700],
  ['/sys', 0o555],
  ['/tmp', 0o1777],
  ['/usr', 0o755],
  ['/usr/bin', 0o755],
  ['/usr/local', 0o755],
  ['/usr/local/bin', 0o755],
  ['/usr/sbin', 0o755],
  ['/sbin', 0o755],
  ['/var', 0o755],
  ['/var/log', 0o755],
  ['/run', 0o755],
];

const HOST_UID = process.getuid?.() ?? 0;
const HOST_GID = process.getgid?.() ?? 0;

interface Shared {
  entries: Map<string, MemEntry>;
  deleted: Set<string>;
  owners: Map<string, { uid: number; gid: number }>;
  mounts: Mount[];
  writableHostRoots: string[];
  uid: number;
  gid: number;
  now: () => number;
  onChange?: () => void;
}

export class SimFs {
  private readonly s: Shared;
  readonly cwd: string;

  constructor(o: SimFsOptions) {
    const now = o.now ?? Date.now;
    this.s = {
      entries: new Map(),
      deleted: new Set(),
      owners: new Map(),
      mounts: [...o.mounts].sort((a, b) => b.containerPath.length - a.containerPath.length),
      writableHostRoots: o.writableHostRoots,
      uid: o.uid ?? 0,
      gid: o.gid ?? 0,
      now,
      onChange: o.onChange,
    };
    this.cwd = path.posix.resolve('/', o.cwd || '/');
    if (o.snapshot) {
      for (const [p, e] of o.snapshot.entries) this.s.entries.set(p, e);
      for (const p of o.snapshot.deleted) this.s.deleted.add(p);
      for (const [p, w] of o.snapshot.owners) this.s.owners.set(p, w);
      return;
    }
    const t = now();
    for (const [d, mode] of BASE_DIRS) this.s.entries.set(d, { kind: 'dir', mtimeMs: t, uid: 0, gid: 0, mode });
    for (const m of this.s.mounts) this.rootDirs(path.posix.dirname(m.containerPath), t);
    if (!this.mountOf(this.cwd)) this.rootDirs(this.cwd, t);
    for (const [p, data] of Object.entries(o.seed ?? {})) {
      if (this.mountOf(p)) continue; // a volume hides the image's files
      this.rootDirs(path.posix.dirname(p), t);
      this.s.entries.set(p, { kind: 'file', data, mtimeMs: t, uid: 0, gid: 0, mode: 0o644 });
    }
  }

  /** A view of the same filesystem with another working directory. */
  at(cwd: string): SimFs {
    const v = Object.create(SimFs.prototype) as { s: Shared; cwd: string };
    v.s = this.s;
    v.cwd = this.resolve(cwd);
    return v as unknown as SimFs;
  }

  /** The layer's state for persistence. */
  snapshot(): SimFsSnapshot {
    return { entries: [...this.s.entries], deleted: [...this.s.deleted], owners: [...this.s.owners] };
  }

  /** Absolute, normalised container path. */
  resolve(p: string): string {
    return path.posix.resolve(this.cwd, p);
  }

  private rootDirs(dir: string, t: number): void {
    for (let d = dir; ; d = path.posix.dirname(d)) {
      if (!this.s.entries.has(d)) this.s.entries.set(d, { kind: 'dir', mtimeMs: t, uid: 0, gid: 0, mode: 0o755 });
      if (d === '/') break;
    }
  }

  private changed(): void {
    this.s.onChange?.();
  }

  private mountOf(p: string): { m: Mount; host: string; writable: boolean } | undefined {
    for (const m of this.s.mounts) {
      if (p === m.containerPath || p.startsWith(m.containerPath.endsWith('/') ? m.containerPath : `${m.containerPath}/`)) {
        const host = path.join(m.hostPath, p.slice(m.containerPath.length));
        const writable = !m.readonly && this.s.writableHostRoots.some((r) => host === r || host.startsWith(`${r}/`));
        return { m, host, writable };
      }
    }
    return undefined;
  }

  private hostStat(p: string, follow: boolean): fs.Stats | undefined {
    if (this.s.deleted.has(p)) return undefined;
    const h = this.mountOf(p);
    if (!h) return undefined;
    try {
      return follow ? fs.statSync(h.host) : fs.lstatSync(h.host);
    } catch {
      return undefined;
    }
  }

  kind(p0: string): EntryKind | undefined {
    const p = this.resolve(p0);
    const e = this.s.entries.get(p);
    if (e) return e.kind;
    if (this.s.deleted.has(p)) return undefined;
    const h = this.mountOf(p);
    if (!h) return undefined;
    const st = this.hostStat(p, true);
    if (st) return st.isDirectory() ? 'dir' : 'file';
    // a mount point always exists in the container
    return p === h.m.containerPath ? 'dir' : undefined;
  }

  read(p0: string): string | undefined {
    const p = this.resolve(p0);
    const e = this.s.entries.get(p);
    if (e) return e.kind === 'file' ? (e.data ?? '') : undefined;
    if (this.s.deleted.has(p)) return undefined;
    const h = this.mountOf(p);
    if (!h) return undefined;
    try {
      return fs.readFileSync(h.host, 'utf8');
    } catch {
      return undefined;
    }
  }

  /** Owner and mode of what the container creates in `dir`: setgid directories pass their group on. */
  private newOwner(dir: string): { uid: number; gid: number; setgid: boolean } {
    const st = this.lstat(dir);
    const setgid = !!st && st.kind === 'dir' && (st.mode & 0o2000) !== 0;
    return { uid: this.s.uid, gid: setgid ? st!.gid : this.s.gid, setgid };
  }

  /**
   * Writes (or appends to) a file. Parent directories must exist.
   * @throws FsError ENOENT (no parent), EISDIR, EROFS (read-only mount)
   */
  write(p0: string, data: string, append = false): void {
    const p = this.resolve(p0);
    const dir = path.posix.dirname(p);
    if (this.kind(dir) !== 'dir') throw new FsError('ENOENT', p);
    const k = this.kind(p);
    if (k === 'dir') throw new FsError('EISDIR', p);
    const h = this.mountOf(p);
    if (h?.m.readonly) throw new FsError('EROFS', p);
    const mem = this.s.entries.get(p);
    if (h?.writable && !mem) {
      try {
        const existed = fs.existsSync(h.host);
        if (append) fs.appendFileSync(h.host, data);
        else fs.writeFileSync(h.host, data);
        this.s.deleted.delete(p);
        if (!existed) {
          const o = this.newOwner(dir);
          this.s.owners.set(p, { uid: o.uid, gid: o.gid });
        }
        this.changed();
        return;
      } catch {
        // fall through to the memory layer
      }
    }
    const prev = append ? (this.read(p) ?? '') : '';
    const t = this.s.now();
    if (mem) {
      mem.data = prev + data;
      mem.mtimeMs = t;
    } else {
      const st = k ? this.lstat(p) : undefined;
      const o = this.newOwner(dir);
      this.s.entries.set(p, { kind: 'file', data: prev + data, mtimeMs: t, uid: st?.uid ?? o.uid, gid: st?.gid ?? o.gid, mode: st?.mode ?? 0o644 });
    }
    this.s.deleted.delete(p);
    this.changed();
  }

  /** Sets a file's mtime to now, creating it empty when missing (`touch`). @throws FsError as {@link write} */
  touch(p0: string): void {
    const p = this.resolve(p0);
    if (this.kind(p) === undefined) return this.write(p, '');
    const e = this.s.entries.get(p);
    const t = this.s.now();
    if (e) e.mtimeMs = t;
    else {
      const h = this.mountOf(p);
      if (h?.m.readonly) throw new FsError('EROFS', p);
      if (h?.writable) {
        try {
          fs.utimesSync(h.host, t / 1000, t / 1000);
        } catch {
          // leave it
        }
      }
    }
    this.changed();
  }

  /**
   * Creates a directory (`parents`: with missing parents, no error when it exists).
   * @throws FsError EEXIST, ENOENT, EROFS
   */
  mkdir(p0: string, parents = true): void {
    const p = this.resolve(p0);
    const k = this.kind(p);
    if (k !== undefined) {
      if (parents && k === 'dir') return;
      throw new FsError('EEXIST', p);
    }
    const dir = path.posix.dirname(p);
    if (this.kind(dir) !== 'dir') {
      if (!parents) throw new FsError('ENOENT', p);
      this.mkdir(dir, true);
    }
    const h = this.mountOf(p);
    if (h?.m.readonly) throw new FsError('EROFS', p);
    const o = this.newOwner(dir);
    if (h?.writable) {
      try {
        fs.mkdirSync(h.host, { recursive: true });
        this.s.deleted.delete(p);
        this.s.owners.set(p, { uid: o.uid, gid: o.gid });
        this.changed();
        return;
      } catch {
        // memory layer
      }
    }
    this.s.deleted.delete(p);
    this.s.entries.set(p, { kind: 'dir', mtimeMs: this.s.now(), uid: o.uid, gid: o.gid, mode: o.setgid ? 0o2755 : 0o755 });
    this.changed();
  }

  /** Removes a file or (recursively) a directory; false when it did not exist. @throws FsError EROFS */
  remove(p0: string): boolean {
    const p = this.resolve(p0);
    const existed = this.kind(p) !== undefined;
    if (!existed) return false;
    const h = this.mountOf(p);
    if (h?.m.readonly) throw new FsError('EROFS', p);
    this.s.entries.delete(p);
    for (const k of [...this.s.entries.keys()]) if (k.startsWith(`${p}/`)) this.s.entries.delete(k);
    for (const k of [...this.s.owners.keys()]) if (k === p || k.startsWith(`${p}/`)) this.s.owners.delete(k);
    if (h?.writable) {
      try {
        fs.rmSync(h.host, { recursive: true, force: true });
      } catch {
        // ignore
      }
    } else if (h) this.s.deleted.add(p);
    this.changed();
    return true;
  }

  /** Names in a directory (sorted), or undefined when it is not a directory. */
  list(p0: string): string[] | undefined {
    const p = this.resolve(p0);
    if (this.kind(p) !== 'dir') return undefined;
    const names = new Set<string>();
    const prefix = p === '/' ? '/' : `${p}/`;
    for (const k of this.s.entries.keys()) {
      if (k.startsWith(prefix) && k !== p) {
        const rest = k.slice(prefix.length);
        if (!rest.includes('/')) names.add(rest);
      }
    }
    for (const m of this.s.mounts) {
      if (m.containerPath.startsWith(prefix) && !m.containerPath.slice(prefix.length).includes('/')) names.add(m.containerPath.slice(prefix.length));
    }
    const h = this.mountOf(p);
    if (h) {
      try {
        for (const n of fs.readdirSync(h.host)) if (!this.s.deleted.has(`${prefix}${n}`)) names.add(n);
      } catch {
        // not on the host
      }
    }
    return [...names].filter((n) => n && !this.s.deleted.has(`${prefix}${n}`)).sort();
  }

  /** Metadata of an entry without following a final symlink; undefined when missing. */
  lstat(p0: string): SimStat | undefined {
    const p = this.resolve(p0);
    const e = this.s.entries.get(p);
    if (e) {
      const size = e.kind === 'file' ? Buffer.byteLength(e.data ?? '') : 4096;
      return { kind: e.kind, size, mtimeMs: e.mtimeMs, uid: e.uid, gid: e.gid, mode: e.mode, nlink: e.kind === 'dir' ? 2 : 1, blocks: Math.ceil(size / 4096) * 8 };
    }
    const st = this.hostStat(p, false);
    if (!st) {
      const h = this.mountOf(p);
      if (h && p === h.m.containerPath && !this.s.deleted.has(p)) {
        return { kind: 'dir', size: 4096, mtimeMs: this.s.now(), uid: 0, gid: 0, mode: 0o755, nlink: 2, blocks: 8 };
      }
      return undefined;
    }
    const own = this.s.owners.get(p);
    const kind = st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : 'file';
    let target: string | undefined;
    if (kind === 'symlink') {
      try {
        target = fs.readlinkSync(this.mountOf(p)!.host);
      } catch {
        target = '';
      }
    }
    return {
      kind,
      size: st.size,
      mtimeMs: st.mtimeMs,
      uid: own?.uid ?? (st.uid === HOST_UID ? 0 : st.uid),
      gid: own?.gid ?? (st.gid === HOST_GID ? 0 : st.gid),
      mode: st.mode & 0o7777,
      nlink: st.nlink,
      blocks: st.blocks,
      ...(target !== undefined ? { target } : {}),
    };
  }
}

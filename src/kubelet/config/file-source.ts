/**
 * The kubelet's file config source (`--pod-manifest-path` / `staticPodPath`): the pods
 * described by the files of a directory (or one file), re-read when the directory
 * changes (inotify through fs.watch) and every `fileCheckFrequency` (20 s), handed
 * to the kubelet as the complete set each time it changes (upstream's SET semantics).
 *
 * Files whose names start with `.` are ignored, as are subdirectories. A file that
 * cannot be decoded or fails validation is logged and skipped; if it held a valid pod
 * before, that pod stays (a half-written file never stops a running pod). A directory
 * that does not exist is an empty set until it appears.
 *
 * The pods are kept by full name (`<namespace>/<name>`), as upstream's store keyed by
 * namespace and name, so of two files naming the same pod only one pod runs, without a
 * warning: a full re-read (at start and every period) puts the files in by name, so the
 * last file by name wins; a file written since (a watch event) puts its pod in, so it
 * wins until the next full re-read; a removed file takes out the pod under its name,
 * whichever file that pod came from, until the next full re-read brings the other
 * file's pod back.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/config/file.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/config/file_linux.go (consumeWatchEvent)
 */
import { type FSWatcher, readdirSync, readFileSync, statSync, watch } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import { CONFIG_SEEN_ANNOTATION, decodeStaticPod, podFullName } from './static-pod.js';

/** Upstream fileCheckFrequency default: 20 s. */
export const DEFAULT_FILE_CHECK_FREQUENCY_MS = 20_000;

export interface FileSourceOptions {
  /** the manifest directory or file */
  path: string;
  nodeName: string;
  clock: Clock;
  /** called with every static pod each time the set changes (also once after the first read) */
  onPods: (pods: Pod[]) => void;
  /** rescan period, ms (default 20 000) */
  periodMs?: number;
  log?: (msg: string, err?: unknown) => void;
}

interface Entry {
  /** mtime, ctime, size and inode: a cheap change check */
  stamp: string;
  pod?: Pod;
}

/** A pod in the set and the file it came from. */
interface Stored {
  pod: Pod;
  file: string;
}

/** Time formatted as upstream kubetypes.Timestamp.GetString (RFC 3339 with nanoseconds). */
function seenTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2006-01-02T15:04:05.000Z
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}000000Z`;
}

export class FileSource {
  private readonly path: string;
  private readonly files = new Map<string, Entry>();
  /** the set: pods by full name (upstream's store keyed by namespace/name) */
  private readonly store = new Map<string, Stored>();
  /** the full name each file's pod was last stored under (upstream fileKeyMapping) */
  private readonly fileKey = new Map<string, string>();
  /** first-seen time per pod UID, kept as long as the pod is in the set */
  private readonly seen = new Map<string, string>();
  /** the UIDs last handed out (undefined: nothing handed out yet) */
  private last?: string;
  private watcher?: FSWatcher;
  private timer?: TimerHandle;
  private scanQueued = false;
  private stopped = false;

  constructor(private readonly o: FileSourceOptions) {
    this.path = resolve(o.path);
  }

  /** Reads the manifests once (synchronously, so the first set is known at once), then watches. */
  start(): void {
    this.scan();
    this.tick();
  }

  stop(): void {
    this.stopped = true;
    this.watcher?.close();
    this.watcher = undefined;
    if (this.timer) this.o.clock.clearTimeout(this.timer);
  }

  private tick(): void {
    this.timer = this.o.clock.setTimeout(() => {
      if (this.stopped) return;
      this.scan();
      this.tick();
    }, this.o.periodMs ?? DEFAULT_FILE_CHECK_FREQUENCY_MS);
  }

  /** Watches the path (again) when it exists; a change queues one scan. */
  private ensureWatch(): void {
    if (this.watcher || this.stopped) return;
    try {
      this.watcher = watch(this.path, () => this.queueScan());
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      // not there yet: the periodic scan retries
    }
  }

  private queueScan(): void {
    if (this.scanQueued || this.stopped) return;
    this.scanQueued = true;
    setImmediate(() => {
      this.scanQueued = false;
      if (!this.stopped) this.scanChanges();
    });
  }

  /** The manifest files now: every regular, non-hidden file of the directory (or the one file). */
  private listFiles(): string[] {
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(this.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.o.log?.(`unable to read config path ${JSON.stringify(this.path)}`, e);
      return [];
    }
    if (st.isFile()) return [this.path];
    if (!st.isDirectory()) return [];
    return readdirSync(this.path, { withFileTypes: true })
      .filter((d) => !d.name.startsWith('.') && (d.isFile() || d.isSymbolicLink()))
      .map((d) => join(this.path, d.name))
      .sort();
  }

  /**
   * A full re-read (upstream listConfig): the set becomes the pods of every file, put in
   * by file name (of two files naming one pod, the last wins); handed to the kubelet when
   * it differs from the last one.
   */
  scan(): void {
    this.ensureWatch();
    const files = this.listFiles();
    this.forgetGone(files);
    this.store.clear();
    for (const f of files) {
      this.readFile(f);
      this.put(f);
    }
    this.send();
  }

  /**
   * What a watch event brings (upstream consumeWatchEvent): each file written since it was
   * last read puts its pod in (replacing a pod of the same name from another file); each
   * removed file takes out the pod under its pod's name.
   */
  scanChanges(): void {
    this.ensureWatch();
    const files = this.listFiles();
    for (const f of this.forgetGone(files)) {
      const key = this.fileKey.get(f);
      this.fileKey.delete(f);
      if (key !== undefined) this.store.delete(key);
    }
    for (const f of files) if (this.readFile(f)) this.put(f);
    this.send();
  }

  /** Drops the entries of files no longer there; returns their names. */
  private forgetGone(files: string[]): string[] {
    const present = new Set(files);
    const gone = [...this.files.keys()].filter((f) => !present.has(f));
    for (const f of gone) this.files.delete(f);
    return gone;
  }

  /** Stores file `f`'s pod (if it has one) under its full name. */
  private put(f: string): void {
    const pod = this.files.get(f)?.pod;
    if (!pod) return;
    const key = podFullName(pod);
    this.fileKey.set(f, key);
    this.store.set(key, { pod, file: f });
  }

  /** Hands the set (ordered by file name) to the kubelet when its pods differ from the last set handed out. */
  private send(): void {
    const pods = [...this.store.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)).map((s) => s.pod);
    const uids = new Set(pods.map((p) => p.metadata!.uid!));
    for (const uid of this.seen.keys()) if (!uids.has(uid)) this.seen.delete(uid);
    const now = seenTime(this.o.clock.now());
    const out = pods.map((p) => {
      const uid = p.metadata!.uid!;
      if (!this.seen.has(uid)) this.seen.set(uid, now);
      return { ...p, metadata: { ...p.metadata, annotations: { ...p.metadata!.annotations, [CONFIG_SEEN_ANNOTATION]: this.seen.get(uid)! } } };
    });
    const key = [...uids].sort().join(',');
    if (key === this.last) return;
    this.last = key;
    this.o.onPods(out);
  }

  /**
   * Reads file `f` unless it is unchanged since the last read.
   * @returns whether it was read and holds a new valid pod (a file that fails keeps its last pod)
   */
  private readFile(f: string): boolean {
    let stamp: string;
    try {
      const st = statSync(f);
      if (!st.isFile()) return false;
      stamp = `${st.mtimeMs}:${st.ctimeMs}:${st.size}:${st.ino}`;
    } catch {
      this.files.delete(f);
      return false;
    }
    const prev = this.files.get(f);
    if (prev?.stamp === stamp) return false;
    try {
      const pod = decodeStaticPod(readFileSync(f, 'utf8'), f, this.o.nodeName);
      this.files.set(f, { stamp, pod });
      return true;
    } catch (e) {
      this.o.log?.(`could not process manifest file ${JSON.stringify(f)}: ${(e as Error).message}`);
      this.files.set(f, { stamp, pod: prev?.pod });
      return false;
    }
  }
}

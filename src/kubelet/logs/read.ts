/**
 * Reading a container's CRI-format log file the way `kubectl logs` expects:
 * tailLines (last N file lines), since (skip older entries), timestamps (prefix each
 * line with its RFC3339Nano time), limitBytes (stop after N bytes, cutting a line),
 * stream selection, partial (P) entries joined into their line, and follow (keep
 * reading as the file grows until the container stops, then drain and end).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/logs/logs.go (ReadLogs)
 */
import * as fs from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { parseCRILogLine } from './cri-log.js';
import type { LogStream } from '../../api/core/v1/pod/log-options.js';
import { findTailLineStart } from './tail.js';

/** What to read (already validated). */
export interface ReadLogOptions {
  follow?: boolean;
  /** last N lines (of the file); undefined = all */
  tailLines?: number;
  /** stop after this many bytes; undefined = no limit */
  limitBytes?: number;
  /** skip entries older than this (ms since epoch) */
  sinceMs?: number;
  timestamps?: boolean;
  /** which stream(s) to show (default All) */
  stream?: LogStream;
}

/** Where the log bytes go (with the stream they came from); a returned promise is awaited (backpressure). */
type LogSink = (chunk: Buffer, stream: 'stdout' | 'stderr') => void | Promise<void>;

/** What reading needs from outside: container state, cancellation, file-change notification. */
interface ReadLogDeps {
  /** follow: is the container still running? (it stops following once false) */
  isRunning?: () => Promise<boolean>;
  /** follow: re-check interval in ms when no file change is seen (default 1000) */
  pollMs?: number;
  /** stops reading (client gone) */
  signal?: AbortSignal;
  /** called once the file is open, before anything is written (e.g. to send response headers) */
  onOpen?: () => void;
  /** called once the start position is fixed: anything appended from now on is read (attach with stdin) */
  onPositioned?: () => void;
  /** file-change notification (default fs.watch); returns an unsubscribe function */
  watch?: (path: string, onChange: () => void) => () => void;
}

/** Thrown when the log file cannot be opened (the kubelet answers 400 with this text). */
export class LogFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogFileError';
  }
}

const CHUNK = 64 * 1024;

function defaultWatch(path: string, onChange: () => void): () => void {
  try {
    const w = fs.watch(path, { persistent: false }, () => onChange());
    w.on('error', () => undefined);
    return () => w.close();
  } catch {
    return () => undefined;
  }
}

/** Formats output for one parsed entry: stream filter, since, timestamps, partial joining. */
class LogWriter {
  private remain: number;
  /** per stream: the next entry starts a new line (gets a timestamp prefix) */
  private atLineStart = { stdout: true, stderr: true };

  constructor(
    private readonly o: ReadLogOptions,
    private readonly sink: LogSink,
  ) {
    this.remain = o.limitBytes ?? Number.POSITIVE_INFINITY;
  }

  /** false once the byte limit is reached */
  async write(line: Buffer): Promise<boolean> {
    const e = parseCRILogLine(line);
    if (typeof e === 'string') return true; // upstream logs and skips unparseable lines
    const startsLine = this.atLineStart[e.stream];
    this.atLineStart[e.stream] = !e.partial;
    if (this.o.sinceMs !== undefined && e.timeMs < this.o.sinceMs) return true;
    const want = this.o.stream ?? 'All';
    if (want !== 'All' && (want === 'Stdout') !== (e.stream === 'stdout')) return true;
    let out = e.content;
    if (this.o.timestamps && startsLine) out = Buffer.concat([Buffer.from(`${e.timestamp} `, 'latin1'), out]);
    if (out.length > this.remain) out = out.subarray(0, this.remain);
    if (out.length) await this.sink(out, e.stream);
    this.remain -= out.length;
    return this.remain > 0;
  }
}

/**
 * Streams the log file at `path` into `sink`.
 * @throws LogFileError when the file cannot be opened
 */
export async function readLogs(path: string, o: ReadLogOptions, sink: LogSink, deps: ReadLogDeps = {}): Promise<void> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file or directory' : (e as Error).message;
    throw new LogFileError(`failed to try resolving symlinks in path ${JSON.stringify(path)}: lstat ${path}: ${why}`);
  }
  deps.onOpen?.();
  const writer = new LogWriter(o, sink);
  const limited = o.tailLines !== undefined && !o.follow;
  let left = o.tailLines ?? 0;
  const signal = deps.signal;
  let unwatch: (() => void) | undefined;
  try {
    let ino = (await fh.stat()).ino;
    let pos = o.tailLines !== undefined ? await findTailLineStart(fh, (await fh.stat()).size, o.tailLines) : 0;
    deps.onPositioned?.();
    let carry: Buffer = Buffer.alloc(0);
    const buf = Buffer.allocUnsafe(CHUNK);
    let stopping = false; // follow: container stopped, drain to EOF once more
    let wake: (() => void) | undefined;
    for (;;) {
      if (signal?.aborted) return;
      if (limited && left <= 0) return;
      const { bytesRead } = await fh.read(buf, 0, CHUNK, pos);
      if (bytesRead > 0) {
        pos += bytesRead;
        const data = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
        let start = 0;
        for (let nl = data.indexOf(0x0a, start); nl >= 0; nl = data.indexOf(0x0a, start)) {
          if (limited && left <= 0) return;
          if (!(await writer.write(data.subarray(start, nl + 1)))) return;
          if (limited) left--;
          start = nl + 1;
          if (signal?.aborted) return;
        }
        carry = Buffer.from(data.subarray(start));
        continue;
      }
      // end of file
      if (!o.follow) {
        if (carry.length && !(limited && left <= 0)) await writer.write(carry);
        return;
      }
      if (stopping) return;
      const running = deps.isRunning ? await deps.isRunning().catch(() => false) : false;
      if (!running) {
        stopping = true; // read what was written before the container stopped, then end
        continue;
      }
      unwatch ??= (deps.watch ?? defaultWatch)(path, () => wake?.());
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, deps.pollMs ?? 1000);
        function done(): void {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          wake = undefined;
          resolve();
        }
        wake = done;
        signal?.addEventListener('abort', done, { once: true });
      });
      // the runtime may have replaced the file (rotation): follow the new one from its start
      const now = await stat(path).catch(() => undefined);
      if (now && now.ino !== ino) {
        const nfh = await open(path, 'r').catch(() => undefined);
        if (nfh) {
          await fh.close();
          fh = nfh;
          ino = now.ino;
          pos = 0;
          carry = Buffer.alloc(0);
          unwatch?.();
          unwatch = undefined;
        }
      } else if (now && now.size < pos) {
        pos = 0; // truncated
        carry = Buffer.alloc(0);
      }
    }
  } finally {
    unwatch?.();
    await fh.close().catch(() => undefined);
  }
}

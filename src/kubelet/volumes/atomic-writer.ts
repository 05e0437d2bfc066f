/**
 * Writes a set of files into a volume directory the way upstream's AtomicWriter
 * does: the files live in a timestamped `..<time>` directory, `..data` points at
 * it, and each user-visible top-level name is a symlink into `..data`, so a
 * reader never sees a half-updated volume. Unchanged payloads are not rewritten.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/util/atomic_writer.go
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface FileProjection {
  data: Buffer;
  /** permission bits, e.g. 0o644 */
  mode: number;
  /** owner uid of the file (a projected token's FsUser); undefined = the kubelet's own */
  fsUser?: number;
}

function tsDirName(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `..${d.getUTCFullYear()}_${p(d.getUTCMonth() + 1)}_${p(d.getUTCDate())}_${p(d.getUTCHours())}_${p(d.getUTCMinutes())}_${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}${String(process.hrtime()[1] % 1_000_000).padStart(6, '0')}`;
}

function sameAsCurrent(dataDir: string, payload: Map<string, FileProjection>): boolean {
  try {
    let count = 0;
    const walk = (rel: string): boolean => {
      for (const e of fs.readdirSync(path.join(dataDir, rel), { withFileTypes: true })) {
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (!walk(r)) return false;
          continue;
        }
        const want = payload.get(r);
        if (!want) return false;
        const st = fs.statSync(path.join(dataDir, r));
        if ((st.mode & 0o777) !== want.mode || (want.fsUser !== undefined && st.uid !== want.fsUser) || !fs.readFileSync(path.join(dataDir, r)).equals(want.data)) return false;
        count++;
      }
      return true;
    };
    return walk('') && count === payload.size;
  } catch {
    return false;
  }
}

/** Writes `payload` (relative path → file) into `dir`; returns whether anything changed. */
export function writeAtomic(dir: string, payload: Map<string, FileProjection>, nowMs: number): boolean {
  fs.mkdirSync(dir, { recursive: true });
  const dataLink = path.join(dir, '..data');
  let oldTs: string | undefined;
  try {
    oldTs = fs.readlinkSync(dataLink);
  } catch {
    oldTs = undefined;
  }
  if (oldTs && sameAsCurrent(path.join(dir, oldTs), payload)) return false;
  const ts = tsDirName(nowMs);
  const tsDir = path.join(dir, ts);
  fs.mkdirSync(tsDir, { recursive: true });
  for (const [rel, f] of payload) {
    const file = path.join(tsDir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, f.data, { mode: f.mode });
    fs.chmodSync(file, f.mode);
    if (f.fsUser !== undefined) fs.chownSync(file, f.fsUser, -1 as unknown as number);
  }
  const tmp = path.join(dir, '..data_tmp');
  fs.rmSync(tmp, { force: true });
  fs.symlinkSync(ts, tmp);
  fs.renameSync(tmp, dataLink);
  const top = new Set([...payload.keys()].map((k) => k.split('/')[0]));
  for (const name of top) {
    const link = path.join(dir, name);
    if (!fs.existsSync(link)) fs.symlinkSync(path.posix.join('..data', name), link);
  }
  for (const e of fs.readdirSync(dir)) {
    if (e.startsWith('..')) {
      if (e !== '..data' && e !== ts) fs.rmSync(path.join(dir, e), { recursive: true, force: true });
    } else if (!top.has(e)) fs.rmSync(path.join(dir, e), { recursive: true, force: true });
  }
  return true;
}

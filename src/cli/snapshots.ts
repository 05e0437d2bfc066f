/**
 * Storage snapshots as k3s takes them, for both backends: files named
 * `<prefix>-<node>-<unix seconds>` in the snapshot directory (`--etcd-snapshot-dir`,
 * default `<data-dir>/db/snapshots`) — `on-demand-…` from `k8ts etcd-snapshot save`,
 * `etcd-snapshot-…` from the server's schedule (`--etcd-snapshot-schedule-cron`, default
 * every 12 hours, keeping `--etcd-snapshot-retention` = 5 of them).
 *
 * The server takes them (it owns the database): on schedule, and on `POST /db/snapshot`
 * (the path k3s' supervisor serves for `etcd-snapshot save`), which the CLI calls with
 * the admin credentials.
 *
 * @see https://docs.k3s.io/cli/etcd-snapshot
 */
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ApiRequest, ResponseWriter } from '../apiserver/http/types.js';
import { parseSchedule } from '../api/batch/v1/cronjob/schedule.js';
import type { Storage } from '../storage/interface.js';
import { saveSnapshot, type SnapshotInfo } from '../storage/snapshot.js';

/** k3s' name prefixes: on-demand saves and scheduled ones. */
export const ON_DEMAND_PREFIX = 'on-demand';
export const SCHEDULED_PREFIX = 'etcd-snapshot';
/** k3s defaults: every 12 hours, keep 5. */
export const DEFAULT_SNAPSHOT_CRON = '0 */12 * * *';
export const DEFAULT_SNAPSHOT_RETENTION = 5;

/** The server's snapshot settings (`--etcd-snapshot-*`). */
export interface SnapshotConfig {
  /** absolute snapshot directory */
  dir: string;
  /** cron schedule; undefined: no scheduled snapshots (`--etcd-disable-snapshots`) */
  cron?: string;
  /** scheduled snapshots kept */
  retention: number;
}

/** The default snapshot directory of a data dir (k3s: `<data-dir>/server/db/snapshots`). */
export const defaultSnapshotDir = (dataDir: string): string => join(resolve(dataDir), 'db', 'snapshots');

/** One snapshot file, as `etcd-snapshot ls` prints it. */
export interface SnapshotFile {
  name: string;
  location: string;
  size: number;
  /** RFC 3339, seconds */
  created: string;
  mtimeMs: number;
}

/** The snapshots in `dir`, oldest first (an absent directory holds none). */
export function listSnapshots(dir: string): SnapshotFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => !n.startsWith('.') && !n.endsWith('.part'))
    .map((name) => {
      const st = statSync(join(dir, name));
      return {
        name,
        location: `file://${join(resolve(dir), name)}`,
        size: st.size,
        created: new Date(Math.floor(st.mtimeMs / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
        mtimeMs: st.mtimeMs,
      };
    })
    .filter((f) => statSync(join(dir, f.name)).isFile())
    .sort((a, b) => a.mtimeMs - b.mtimeMs || a.name.localeCompare(b.name));
}

/** k3s' `etcd-snapshot ls` table. */
export function formatSnapshotTable(files: SnapshotFile[]): string {
  const rows = [['Name', 'Location', 'Size', 'Created'], ...files.map((f) => [f.name, f.location, String(f.size), f.created])];
  const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i < 3 ? c.padEnd(w[i]! + 1) : c)).join(' ')).join('\n');
}

/**
 * Deletes the oldest snapshots named `<prefix>-<node>-…` beyond `retention`.
 * @returns the names deleted
 */
export function pruneSnapshots(dir: string, prefix: string, node: string, retention: number): string[] {
  const mine = listSnapshots(dir).filter((f) => f.name.startsWith(`${prefix}-${node}-`));
  const gone = mine.slice(0, Math.max(0, mine.length - retention));
  for (const f of gone) rmSync(join(dir, f.name), { force: true });
  return gone.map((f) => f.name);
}

/** Saves a snapshot named `<prefix>-<node>-<unix seconds>` in `dir`. */
export async function takeSnapshot(storage: Storage, dir: string, prefix: string, node: string, nowMs = Date.now()): Promise<SnapshotInfo & { name: string; location: string }> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = `${prefix}-${node}-${Math.floor(nowMs / 1000)}`;
  const file = join(dir, name);
  const info = await saveSnapshot(storage, file);
  return { ...info, name, location: `file://${file}` };
}

const NAME_RE = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * `POST /db/snapshot` with `{"name": "<prefix>"}` (optional, default on-demand): takes a
 * snapshot, answers 200 with `{name, location, size, revision, backend}`; a bad body 400,
 * another method 405.
 */
export function snapshotHandler(storage: Storage, cfg: SnapshotConfig, node: string): (req: ApiRequest, res: ResponseWriter) => Promise<void> {
  return async (req, res) => {
    const reply = (status: number, body: unknown): void => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(`${JSON.stringify(body)}\n`);
    };
    if (req.method !== 'POST') return reply(405, { message: 'method not allowed: POST only' });
    let prefix = ON_DEMAND_PREFIX;
    try {
      const body = req.body?.length ? (JSON.parse(req.body.toString('utf8')) as { name?: unknown }) : {};
      if (body.name !== undefined) {
        if (typeof body.name !== 'string' || !NAME_RE.test(body.name)) throw new Error('name must be lower-case letters, digits, "-" and "."');
        prefix = body.name;
      }
    } catch (e) {
      return reply(400, { message: `invalid snapshot request: ${(e as Error).message}` });
    }
    try {
      reply(200, await takeSnapshot(storage, cfg.dir, prefix, node));
    } catch (e) {
      reply(500, { message: `snapshot failed: ${(e as Error).message}` });
    }
  };
}

/**
 * Takes scheduled snapshots on `cfg.cron` and prunes them to `cfg.retention`.
 * @throws ScheduleError for a malformed cron expression (robfig's message)
 * @returns stop
 */
export function startSnapshotSchedule(storage: Storage, cfg: SnapshotConfig, node: string, log: (msg: string) => void = () => undefined): () => void {
  if (!cfg.cron) return () => undefined;
  const sched = parseSchedule(cfg.cron);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = (): void => {
    const next = sched.next(Date.now());
    if (next === undefined || stopped) return;
    // timers hold at most ~24.8 days; a longer wait re-arms
    timer = setTimeout(() => void fire(next), Math.min(next - Date.now(), 2 ** 31 - 1));
    timer.unref();
  };
  const fire = async (due: number): Promise<void> => {
    if (Date.now() >= due) {
      try {
        const s = await takeSnapshot(storage, cfg.dir, SCHEDULED_PREFIX, node);
        log(`Saved snapshot ${s.name}`);
        pruneSnapshots(cfg.dir, SCHEDULED_PREFIX, node, cfg.retention);
      } catch (e) {
        log(`scheduled snapshot failed: ${(e as Error).message}`);
      }
    }
    arm();
  };
  arm();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

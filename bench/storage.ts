/**
 * Storage backend benchmark: the embedded SQLite (durable settings as shipped) and a
 * real etcd (Debian's etcd-server, started here on loopback under a temp dir, plain
 * HTTP), side by side in one run. Prints creates/s, updates/s, gets/s and the time to
 * list 10k keys; each figure also per CPU-second (in brackets) — this process' CPU for
 * SQLite, this process' plus etcd's for etcd — for busy machines.
 *
 * Usage: node --import tsx bench/storage.ts [--n 50000] [--concurrency 64] [--synchronous normal|full] [--backends sqlite,etcd]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStorage, type KeyValue, type Storage } from '../src/storage/index.js';
import type { Synchronous } from '../src/storage/sqlite/schema.js';
import { startTestEtcd, type TestEtcd } from '../test/support/etcd.js';

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '50000' },
    concurrency: { type: 'string', default: '64' },
    synchronous: { type: 'string', default: 'normal' },
    backends: { type: 'string', default: 'sqlite,etcd' },
  },
});
const N = Number(args.n);
const CONCURRENCY = Number(args.concurrency);
const SYNCHRONOUS = args.synchronous as Synchronous;
const BACKENDS = String(args.backends).split(',') as ('sqlite' | 'etcd')[];

/** CPU ms used so far by this process and the etcd being measured (if any). */
let cpuMs: () => number = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** CPU ms a process used so far (utime + stime from /proc/<pid>/stat, at 100 ticks/s). */
function procCpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) * 10;
}

const SMALL = JSON.stringify({ kind: 'ConfigMap', data: { k: 'v'.repeat(64) } }); // ~100 bytes
const POD = JSON.stringify({ kind: 'Pod', pad: 'x'.repeat(3000) }); // ~3 KB, a typical pod

/**
 * Runs `total` calls of `op(i)` with `concurrency` in flight. Returns ops/s of wall
 * time and, in brackets, ops/s of this process' CPU time (user + system), which
 * stays meaningful when other processes compete for the cores.
 */
async function rate(total: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<string> {
  let next = 0;
  const t0 = performance.now();
  const c0 = cpuMs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await op(next++);
    }),
  );
  const wallMs = performance.now() - t0;
  const used = cpuMs() - c0;
  return `${Math.round((total / wallMs) * 1000)} (cpu ${Math.round((total / used) * 1000)})`;
}

/** Elapsed wall ms of `fn` and, in brackets, CPU ms. */
async function timed(fn: () => Promise<unknown>): Promise<string> {
  const t0 = performance.now();
  const c0 = cpuMs();
  await fn();
  return `${(performance.now() - t0).toFixed(1)} (cpu ${(cpuMs() - c0).toFixed(1)})`;
}

/** Runs `fn` on a fresh, empty backend of the kind being measured. */
let fresh: (fn: (s: Storage) => Promise<void>) => Promise<void>;

function freshSqlite(fn: (s: Storage) => Promise<void>): Promise<void> {
  return (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-bench-storage-'));
    const s = await openStorage({ kind: 'sqlite', dataDir: dir, synchronous: SYNCHRONOUS, compaction: false });
    try {
      await fn(s);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  })();
}

async function freshEtcd(fn: (s: Storage) => Promise<void>): Promise<void> {
  const etcd: TestEtcd = await startTestEtcd();
  const own = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  cpuMs = () => own() + procCpuMs(etcd.proc.pid);
  const s = await openStorage({ kind: 'etcd', endpoints: [etcd.endpoint], compactionIntervalMs: false });
  try {
    await fn(s);
  } finally {
    await s.close();
    await etcd.stop();
    cpuMs = own;
  }
}

function row(name: string, value: string): void {
  console.log(`${name.padEnd(52)} ${value}`);
}

for (const backend of BACKENDS) {
  if (backend === 'sqlite') {
    fresh = freshSqlite;
    console.log(`storage bench: sqlite, synchronous=${SYNCHRONOUS}, n=${N}, concurrency=${CONCURRENCY}; (cpu …) = per CPU-second of this process`);
  } else {
    fresh = freshEtcd;
    console.log(`storage bench: etcd ${etcdVersionOf()}, loopback http, n=${N}, concurrency=${CONCURRENCY}; (cpu …) = per CPU-second of this process + etcd`);
  }
  await runAll();
}

function etcdVersionOf(): string {
  return spawnSync('etcd', ['--version'], { encoding: 'utf8' }).stdout?.match(/etcd Version: (\S+)/)?.[1] ?? '?';
}

async function runAll(): Promise<void> {
  await fresh(async (s) => {
    row(`creates/s (~100 B values, ${CONCURRENCY} in flight)`, await rate(N, CONCURRENCY, (i) => s.create(`/registry/configmaps/default/cm-${i}`, SMALL)));
    row(`creates/s (~3 KB pods, ${CONCURRENCY} in flight)`, await rate(N, CONCURRENCY, (i) => s.create(`/registry/pods/default/pod-${i}`, POD)));
    row('creates/s (~100 B values, 1 in flight)', await rate(Math.min(N, 10_000), 1, (i) => s.create(`/registry/seq/default/s-${i}`, SMALL)));

    const latest: KeyValue[] = (await s.list('/registry/pods/default/')).kvs;
    row(
      `updates/s (CAS, ~3 KB pods, ${CONCURRENCY} in flight)`,
      await rate(N, CONCURRENCY, async (i) => {
        const j = i % latest.length;
        latest[j] = await s.update(latest[j]!.key, POD, latest[j]!.modRevision);
      }),
    );
    row('gets/s (~3 KB pods, sequential)', await rate(N, 1, (i) => s.get(latest[(i * 7919) % latest.length]!.key)));

    let events = 0;
    const w = await s.watch('/registry/', await s.currentRevision(), { onEvents: (e) => (events += e.length) });
    row(`creates/s with a watcher (~3 KB pods, ${CONCURRENCY} in flight)`, await rate(N, CONCURRENCY, (i) => s.create(`/registry/pods/watched/pod-${i}`, POD)));
    // etcd delivers events over the network after the writes are acknowledged: wait for them
    const deadline = Date.now() + 60_000;
    while (events < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    w.stop();
    if (events !== N) throw new Error(`watcher saw ${events} events, expected ${N}`);
  });

  await fresh(async (s) => {
    const keys = 10_000;
    // setup, not measured (bounded concurrency: etcd refuses a burst of 10k with "too many requests")
    await rate(keys, CONCURRENCY, (i) => s.create(`/registry/pods/ns/pod-${String(i).padStart(5, '0')}`, POD));
    // some history, as a live cluster has
    for (let i = 0; i < keys; i += 4) {
      const { kv } = await s.get(`/registry/pods/ns/pod-${String(i).padStart(5, '0')}`);
      await s.update(kv!.key, POD, kv!.modRevision);
    }
    let listed = 0;
    row(
      'list 10k keys (~3 KB each), ms',
      await timed(async () => {
        listed = (await s.list('/registry/pods/ns/')).kvs.length;
      }),
    );
    if (listed !== keys) throw new Error(`listed ${listed}`);
    let pages = 0;
    const paged = await timed(async () => {
      let page = await s.list('/registry/pods/ns/', { limit: 500 });
      pages = 1;
      while (page.more) {
        page = await s.list('/registry/pods/ns/', { limit: 500, startAfter: page.kvs[page.kvs.length - 1]!.key, revision: page.revision });
        pages++;
      }
    });
    row(`list 10k keys in ${pages} pages of 500, ms`, paged);
    let counted = 0;
    const countMs = await timed(async () => {
      counted = (await s.count('/registry/pods/')).count;
    });
    row(`count ${counted} keys, ms`, countMs);
  });
}

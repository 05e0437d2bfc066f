/**
 * Storage backend benchmark (embedded SQLite, durable settings as shipped).
 * Prints creates/s, updates/s, gets/s and the time to list 10k keys; each figure
 * also in CPU time of this process (in brackets), for busy machines.
 *
 * Usage: node --import tsx bench/storage.ts [--n 50000] [--concurrency 64] [--synchronous normal|full]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStorage, type KeyValue, type Storage } from '../src/storage/index.js';
import type { Synchronous } from '../src/storage/sqlite/schema.js';

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '50000' },
    concurrency: { type: 'string', default: '64' },
    synchronous: { type: 'string', default: 'normal' },
  },
});
const N = Number(args.n);
const CONCURRENCY = Number(args.concurrency);
const SYNCHRONOUS = args.synchronous as Synchronous;

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
  const c0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await op(next++);
    }),
  );
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const cpuMs = (c.user + c.system) / 1000;
  return `${Math.round((total / wallMs) * 1000)} (cpu ${Math.round((total / cpuMs) * 1000)})`;
}

/** Elapsed wall ms of `fn` and, in brackets, CPU ms. */
async function timed(fn: () => Promise<unknown>): Promise<string> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  return `${(performance.now() - t0).toFixed(1)} (cpu ${((c.user + c.system) / 1000).toFixed(1)})`;
}

async function fresh(fn: (s: Storage) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-bench-storage-'));
  const s = await openStorage({ kind: 'sqlite', dataDir: dir, synchronous: SYNCHRONOUS, compaction: false });
  try {
    await fn(s);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function row(name: string, value: string): void {
  console.log(`${name.padEnd(52)} ${value}`);
}

console.log(`storage bench: sqlite, synchronous=${SYNCHRONOUS}, n=${N}, concurrency=${CONCURRENCY}`);

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
  row(
    `creates/s with a watcher (~3 KB pods, ${CONCURRENCY} in flight)`,
    await rate(N, CONCURRENCY, (i) => s.create(`/registry/pods/watched/pod-${i}`, POD)),
  );
  w.stop();
  if (events !== N) throw new Error(`watcher saw ${events} events, expected ${N}`);
});

await fresh(async (s) => {
  const keys = 10_000;
  await Promise.all(Array.from({ length: keys }, (_, i) => s.create(`/registry/pods/ns/pod-${String(i).padStart(5, '0')}`, POD)));
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

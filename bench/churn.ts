/**
 * Bounded-disk benchmark: a steady cluster workload written straight to a storage
 * backend for a few minutes, printing the database size over time, to show it stops
 * growing once compaction (and, for Events, the TTL) bounds the history.
 *
 * Workload, per second: every one of `--nodes` node Leases renewed every 10 s (as the
 * kubelet does), `--pods` pods created and each deleted `--pod-lifetime` later, and
 * two Events per pod (written with the `--event-ttl` TTL, as the API server does).
 * The automatic compactor runs every `--compaction-interval`.
 *
 * SQLite: size of `state.db` + `state.db-wal` (the file keeps its high-water mark:
 * freed pages are reused, not returned). etcd: Maintenance.Status dbSize (file) and
 * dbSizeInUse (etcd never shrinks its file without a defrag).
 *
 * Usage: node --import tsx bench/churn.ts [--backends sqlite,etcd] [--minutes 3] [--nodes 300]
 *          [--pods 10] [--pod-lifetime 30] [--event-ttl 60] [--compaction-interval 30] [--retain 1000]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EtcdClient } from '../src/storage/etcd/client.js';
import { openStorage, sqliteFile, type KeyValue, type Storage } from '../src/storage/index.js';
import { startTestEtcd } from '../test/support/etcd.js';

const { values: a } = parseArgs({
  options: {
    backends: { type: 'string', default: 'sqlite' },
    minutes: { type: 'string', default: '3' },
    nodes: { type: 'string', default: '300' },
    pods: { type: 'string', default: '10' },
    'pod-lifetime': { type: 'string', default: '30' },
    'event-ttl': { type: 'string', default: '60' },
    'compaction-interval': { type: 'string', default: '30' },
    retain: { type: 'string', default: '1000' },
  },
});
const MINUTES = Number(a.minutes);
const NODES = Number(a.nodes);
const PODS_PER_S = Number(a.pods);
const POD_LIFETIME_MS = Number(a['pod-lifetime']) * 1000;
const EVENT_TTL_S = Number(a['event-ttl']);
const COMPACT_MS = Number(a['compaction-interval']) * 1000;
const RETAIN = Number(a.retain);

const LEASE = (n: number, t: number) =>
  JSON.stringify({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: `node-${n}`, namespace: 'kube-node-lease' },
    spec: { holderIdentity: `node-${n}`, leaseDurationSeconds: 40, renewTime: new Date(t).toISOString() },
  });
const POD = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `churn-${i}`, namespace: 'default' }, pad: 'x'.repeat(3000) });
const EVENT = (i: number, r: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: `churn-${i}.${r}` }, reason: r, message: 'm'.repeat(200) });

const mb = (b: number) => (b / 1048576).toFixed(1);

/** Runs the workload on `s`, calling `size()` every 10 s. */
async function churn(s: Storage, size: () => Promise<string>): Promise<void> {
  const leases = new Map<number, KeyValue>();
  for (let n = 0; n < NODES; n++) leases.set(n, await s.create(`/registry/leases/kube-node-lease/node-${n}`, LEASE(n, Date.now())));
  const live: { key: string; at: number }[] = [];
  let podSeq = 0;
  let leaseCursor = 0;
  let writes = 0;
  let errors = 0;
  const t0 = Date.now();
  const end = t0 + MINUTES * 60_000;
  const count = <T>(p: Promise<T>) =>
    p.then(
      () => void writes++,
      () => void errors++,
    );
  const tick = 100; // ms
  let lastReport = 0;
  console.log(`  t(s)  revision  writes  ${'size'.padEnd(28)}`);
  while (Date.now() < end) {
    const now = Date.now();
    const jobs: Promise<void>[] = [];
    // each node renews every 10 s: NODES / 100 renewals per 100 ms
    for (let k = 0; k < NODES / 100; k++) {
      const n = leaseCursor++ % NODES;
      const cur = leases.get(n)!;
      jobs.push(count(s.update(cur.key, LEASE(n, now), cur.modRevision).then((kv) => void leases.set(n, kv))));
    }
    for (let k = 0; k < PODS_PER_S / 10; k++) {
      const i = podSeq++;
      const key = `/registry/pods/default/churn-${i}`;
      jobs.push(count(s.create(key, POD(i))));
      live.push({ key, at: now });
      for (const r of ['Scheduled', 'Started']) jobs.push(count(s.create(`/registry/events/default/churn-${i}.${r}`, EVENT(i, r), { ttlSeconds: EVENT_TTL_S })));
    }
    while (live.length > 0 && live[0]!.at + POD_LIFETIME_MS <= now) jobs.push(count(s.delete(live.shift()!.key)));
    await Promise.all(jobs);
    if (now - lastReport >= 10_000) {
      lastReport = now;
      console.log(`  ${String(Math.round((now - t0) / 1000)).padStart(4)}  ${String(await s.currentRevision()).padStart(8)}  ${String(writes).padStart(6)}  ${await size()}`);
    }
    const wait = tick - (Date.now() - now);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  console.log(
    `  done: ${writes} writes, ${errors} failed; events live at the end: ${(await s.count('/registry/events/')).count}, pods: ${(await s.count('/registry/pods/')).count}`,
  );
}

for (const backend of String(a.backends).split(',')) {
  console.log(
    `churn bench: ${backend}, ${MINUTES} min, ${NODES} node leases renewed every 10 s, ${PODS_PER_S} pods/s living ${POD_LIFETIME_MS / 1000} s, 2 events per pod (TTL ${EVENT_TTL_S} s), compaction every ${COMPACT_MS / 1000} s`,
  );
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-churn-'));
    const s = await openStorage({ kind: 'sqlite', dataDir: dir, compaction: { intervalMs: COMPACT_MS, retainRevisions: RETAIN } });
    const file = sqliteFile(dir);
    const sz = (f: string) => {
      try {
        return statSync(f).size;
      } catch {
        return 0;
      }
    };
    try {
      await churn(s, async () => `db ${mb(sz(file))} MB + wal ${mb(sz(`${file}-wal`))} MB = ${mb(sz(file) + sz(`${file}-wal`))} MB; compacted rev ${await s.compactedRevision()}`);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  } else if (backend === 'etcd') {
    const etcd = await startTestEtcd();
    const s = await openStorage({ kind: 'etcd', endpoints: [etcd.endpoint], compactionIntervalMs: COMPACT_MS });
    const c = new EtcdClient({ endpoints: [etcd.endpoint] });
    try {
      console.log(`  etcd ${etcd.version}; compactor: kube-apiserver's (to the previous interval's revision)`);
      await churn(s, async () => {
        const st = await c.status();
        return `dbSize ${mb(Number(st.dbSize))} MB, in use ${mb(Number(st.dbSizeInUse))} MB`;
      });
    } finally {
      c.close();
      await s.close();
      await etcd.stop();
    }
  } else throw new Error(`unknown backend ${backend}`);
}

/**
 * Scale benchmark (`npm run bench:scale`): `k8ts server --runtime sim --kwok-nodes N` as a
 * child process, driven from this process as an independent load generator (HTTPS with
 * client certificates, 64 concurrent clients), in two runs:
 *
 * A. nodes + pods: N kwok-style simulated nodes (default 5,000) registered — time until all
 *    are Ready (watched); then P pods (default 10,000) created through the API — time from
 *    the first create until all are Running (watched), server CPU per pod, pods per server
 *    CPU-second, RSS per node and per pod above the idle server, steady CPU with all pods
 *    Running, DB size.
 * B. churn: 300 nodes renewing leases and a steady pod create/delete churn (default 12
 *    minutes; compaction every minute, Event TTL 2 minutes) — DB size (with WAL) and RSS
 *    per minute; DB growth per day and RSS growth per minute are the least-squares slope
 *    of the samples after the warm-up (default 4 minutes: the first compaction cycles and
 *    Event expiries are behind), i.e. of the plateau, not of the warm-up's climb.
 *
 * Figures are printed and compared with the previous run's stored in bench/scale-results.json
 * (rewritten with `--save`), with the machine's load average during the run.
 *
 * Usage: npm run bench:scale [-- --nodes 5000 --pods 10000 --concurrency 64 --churn-minutes 12 --churn-warmup 4 --skip-churn|--only-churn --save --server-arg=<k8ts server flag>…]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt, freePort, ROOT } from '../test/e2e/harness.js';
import { httpsCall, kubeconfigAgent } from './support/https.js';

const { values: a } = parseArgs({
  options: {
    nodes: { type: 'string', default: '5000' },
    pods: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '64' },
    'churn-nodes': { type: 'string', default: '300' },
    'churn-minutes': { type: 'string', default: '12' },
    'churn-warmup': { type: 'string', default: '4' },
    'churn-pods': { type: 'string', default: '10' },
    'skip-churn': { type: 'boolean', default: false },
    'only-churn': { type: 'boolean', default: false },
    save: { type: 'boolean', default: false },
    /** extra `k8ts server` flags for the kwok servers (repeatable), e.g. --server-arg=--kwok-worker */
    'server-arg': { type: 'string', multiple: true, default: [] },
  },
});
const SERVER_ARGS = a['server-arg'] ?? [];
const NODES = Number(a.nodes);
const PODS = Number(a.pods);
const CONC = Number(a.concurrency);
const RESULTS = join(ROOT, 'bench', 'scale-results.json');
const TICK = 100; // USER_HZ

/** The fields of watched nodes and pods this benchmark reads. */
interface WatchedObject {
  metadata: { name: string };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}

/** CPU-s of process `pid` (all its threads), or of its thread `tid` (the main thread: tid = pid). */
function cpuSeconds(pid: number, tid?: number): number {
  const f = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(parts[11]) + Number(parts[12])) / TICK;
}
function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}
function dbMB(dir: string): number {
  let s = 0;
  for (const f of ['db/state.db', 'db/state.db-wal']) if (existsSync(join(dir, f))) s += statSync(join(dir, f)).size;
  return s / 1024 / 1024;
}
/** Least-squares slope of (x, y) points (y per x unit). */
function slope(points: [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((t, p) => t + p[0], 0) / n;
  const my = points.reduce((t, p) => t + p[1], 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Server {
  proc: ChildProcess;
  pid: number;
  dir: string;
  call(method: string, path: string, body?: string): Promise<{ status: number; body: string }>;
  /** streams watch events of `path` (a list path) to `on` until stop() */
  watch(path: string, on: (type: string, obj: WatchedObject) => void): { stop(): void };
  stop(): Promise<void>;
}

async function startServer(args: string[]): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-scale-'));
  const port = await freePort();
  const prof = process.env.PROF && args.length ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF] : [];
  // PROF_SRC=1: run the sources through tsx so a profile names files and lines
  // K8TS_ENTRY=path: another bundle (a before/after pair); K8TS_NODE_FLAGS: extra node/V8 flags
  const bundle = process.env.K8TS_ENTRY ?? join(ROOT, 'dist/k8ts.mjs');
  const entry = process.env.PROF_SRC ? ['--import', 'tsx', join(ROOT, 'src/cli/main.ts')] : [bundle];
  const flags = (process.env.K8TS_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...flags, ...prof, ...entry, 'server', '--data-dir', dir, '--secure-port', String(port), '--runtime', 'sim', '--disable-agent', ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // the server never outlives the benchmark (a crash of this process would leave it running)
  const killOnExit = (): void => void proc.kill('SIGKILL');
  process.once('exit', killOnExit);
  const kc = join(dir, 'kubeconfig.yaml');
  let agent: Agent | undefined;
  const call: Server['call'] = (method, path, body) => httpsCall(port, agent, method, path, body);
  const t0 = performance.now();
  let exited: number | null | undefined;
  proc.once('exit', (code) => (exited = code));
  for (;;) {
    if (exited !== undefined) throw new Error(`k8ts server exited (code ${exited}) before it was ready`);
    if (!agent && existsSync(kc)) {
      try {
        agent = kubeconfigAgent(kc, CONC + 4);
      } catch {
        /* half-written */
      }
    }
    if (agent) {
      try {
        if ((await call('GET', '/readyz')).status === 200) break;
      } catch {
        /* not yet */
      }
    }
    if (performance.now() - t0 > 60_000) throw new Error('server did not become ready');
    await sleep(10);
  }
  const watch: Server['watch'] = (path, on) => {
    let buf = '';
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'GET',
        path: `${path}${path.includes('?') ? '&' : '?'}watch=1&allowWatchBookmarks=false`,
        agent: new Agent({ ...agent!.options, keepAlive: false }),
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let i = buf.indexOf('\n');
          while (i >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line.trim()) {
              const e = JSON.parse(line) as { type: string; object: WatchedObject };
              on(e.type, e.object);
            }
            i = buf.indexOf('\n');
          }
        });
      },
    );
    req.on('error', () => undefined);
    req.end();
    return { stop: () => req.destroy() };
  };
  return {
    proc,
    pid: proc.pid!,
    dir,
    call,
    watch,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      process.off('exit', killOnExit);
      agent?.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Steady CPU (% of one core) over `ms`. */
async function steadyCPU(pid: number, ms: number): Promise<number> {
  const c0 = cpuSeconds(pid);
  await sleep(ms);
  return ((cpuSeconds(pid) - c0) / (ms / 1000)) * 100;
}

const ready = (n: WatchedObject): boolean => (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

const figures: Record<string, number> = {};
const fig = (name: string, v: number, unit: string, target?: string): void => {
  figures[name] = Math.round(v * 100) / 100;
  console.log(`  ${name.padEnd(34)} ${v.toFixed(v < 10 ? 2 : 0).padStart(10)} ${unit}${target ? `   (target ${target})` : ''}`);
};

async function idleBaseline(): Promise<number> {
  const s = await startServer([]);
  await sleep(3000);
  const rss = rssMB(s.pid);
  fig('idle RSS', rss, 'MB', '≤ 150 MB');
  fig('idle CPU', await steadyCPU(s.pid, 5000), '% of a core', '~0 %');
  await s.stop();
  return rss;
}

async function nodesAndPods(idleRSS: number): Promise<void> {
  console.log(`--- A: ${NODES} kwok nodes, then ${PODS} pods (${CONC} concurrent clients)`);
  const t0 = performance.now();
  const s = await startServer(['--kwok-nodes', String(NODES), '--cluster-cidr', '10.128.0.0/9', ...SERVER_ARGS]);
  const c0 = cpuSeconds(s.pid);
  const readyNodes = new Set<string>();
  let nodesDone!: () => void;
  const nodesP = new Promise<void>((r) => (nodesDone = r));
  const nw = s.watch('/api/v1/nodes', (type, n) => {
    if (type !== 'DELETED' && ready(n)) readyNodes.add(n.metadata.name);
    if (readyNodes.size >= NODES) nodesDone();
  });
  await nodesP;
  nw.stop();
  const tNodes = (performance.now() - t0) / 1000;
  fig('nodes Ready (from server start)', tNodes, 's', '≤ 15 s');
  fig('server CPU for the nodes', cpuSeconds(s.pid) - c0, 'CPU-s');
  await sleep(2000);
  const rssNodes = rssMB(s.pid);
  fig('RSS per node above idle', ((rssNodes - idleRSS) * 1024) / NODES, 'KB', '≤ 20 KB');

  const running = new Set<string>();
  let podsDone!: () => void;
  const podsP = new Promise<void>((r) => (podsDone = r));
  const pw = s.watch('/api/v1/namespaces/default/pods', (type, p) => {
    if (type !== 'DELETED' && p.status?.phase === 'Running') running.add(p.metadata.name);
    if (running.size >= PODS) podsDone();
  });
  const sa = await s.call('POST', '/api/v1/namespaces/default/serviceaccounts', JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }));
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`default ServiceAccount: ${sa.status}`);
  const pod = (i: number): string =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `scale-${i}`, labels: { app: 'scale' } },
      spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '10Mi' } } }] },
    });
  let next = 0;
  let failures = 0;
  const cp0 = cpuSeconds(s.pid);
  const main0 = cpuSeconds(s.pid, s.pid);
  const w0 = performance.now();
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      while (next < PODS) {
        const i = next++;
        // a reset connection (a loaded machine) counts as a failure, it does not end the run
        const r = await s.call('POST', '/api/v1/namespaces/default/pods', pod(i)).catch((e: Error) => ({ status: 0, body: e.message }));
        if (r.status !== 201 && ++failures < 5) console.error(r.status, r.body.slice(0, 300));
      }
    }),
  );
  const tCreated = (performance.now() - w0) / 1000;
  await podsP;
  const tRunning = (performance.now() - w0) / 1000;
  pw.stop();
  const cpu = cpuSeconds(s.pid) - cp0;
  const mainCPU = cpuSeconds(s.pid, s.pid) - main0;
  fig('pods created (API)', PODS / tCreated, 'pods/s');
  fig('pods Running (after first create)', tRunning, 's', '≤ 15 s');
  fig('pods per server CPU-second', PODS / cpu, 'pods/CPU-s', '≥ 1,000');
  fig('server CPU per pod', (cpu / PODS) * 1000, 'ms');
  // the API server's thread (the rest: GC helpers, worker threads)
  fig('main-thread CPU per pod', (mainCPU / PODS) * 1000, 'ms');
  if (failures) console.log(`  create failures: ${failures}`);
  await sleep(5000);
  fig('RSS per pod above nodes', ((rssMB(s.pid) - rssNodes) * 1024) / PODS, 'KB', '≤ 40 KB');
  fig('RSS total', rssMB(s.pid), 'MB');
  fig('steady CPU with pods Running', await steadyCPU(s.pid, 10_000), '% of a core', '≤ 3 %');
  fig('DB size (with WAL)', dbMB(s.dir), 'MB');
  await s.stop();
}

async function churn(): Promise<void> {
  const nodes = Number(a['churn-nodes']);
  const minutes = Number(a['churn-minutes']);
  const perSec = Number(a['churn-pods']);
  console.log(`--- B: churn: ${nodes} kwok nodes, ${perSec} pods/s created and deleted 30 s later, ${minutes} min`);
  const s = await startServer(['--kwok-nodes', String(nodes), '--cluster-cidr', '10.128.0.0/9', '--etcd-compaction-interval', '1m', '--event-ttl', '2m', ...SERVER_ARGS]);
  const sa = await s.call('POST', '/api/v1/namespaces/default/serviceaccounts', JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }));
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`default ServiceAccount: ${sa.status}`);
  let i = 0;
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const t = performance.now();
      for (let k = 0; k < perSec; k++) {
        const n = i++;
        void s
          .call(
            'POST',
            '/api/v1/namespaces/default/pods',
            JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `churn-${n}` }, spec: { containers: [{ name: 'c', image: 'pause' }] } }),
          )
          .catch(() => undefined);
        setTimeout(() => void s.call('DELETE', `/api/v1/namespaces/default/pods/churn-${n}`).catch(() => undefined), 30_000);
      }
      await sleep(Math.max(0, 1000 - (performance.now() - t)));
    }
  })();
  const samples: { min: number; db: number; rss: number }[] = [];
  let cpu = cpuSeconds(s.pid);
  for (let m = 1; m <= minutes; m++) {
    await sleep(60_000);
    samples.push({ min: m, db: dbMB(s.dir), rss: rssMB(s.pid) });
    const c = cpuSeconds(s.pid);
    console.log(
      `  minute ${m}: DB ${samples.at(-1)!.db.toFixed(1)} MB, RSS ${samples.at(-1)!.rss.toFixed(0)} MB, server CPU ${(c - cpu).toFixed(1)} CPU-s, load ${loadavg()[0]!.toFixed(1)}`,
    );
    cpu = c;
  }
  stop = true;
  await loop;
  const warmup = Number(a['churn-warmup']);
  const plateau = samples.filter((x) => x.min >= warmup);
  if (plateau.length >= 2) {
    const first = plateau[0]!;
    const last = plateau.at(-1)!;
    console.log(
      `  plateau: minutes ${first.min}–${last.min} (after a ${warmup}-minute warm-up): DB ${first.db.toFixed(1)} → ${last.db.toFixed(1)} MB, RSS ${first.rss.toFixed(0)} → ${last.rss.toFixed(0)} MB`,
    );
    fig('churn DB size at the end', last.db, 'MB');
    fig('churn DB growth per day (plateau)', Math.max(0, slope(plateau.map((x) => [x.min, x.db]))) * 60 * 24, 'MB', '≤ 200 MB');
    fig('churn RSS growth per minute (plateau)', slope(plateau.map((x) => [x.min, x.rss])), 'MB');
  } else console.log(`  fewer than 2 samples after the ${warmup}-minute warm-up: no plateau figures (use --churn-minutes ≥ ${warmup + 6})`);
  await s.stop();
}

ensureBuilt();
const load0 = loadavg()[0]!;
console.log(`k8ts bench:scale — ${new Date().toISOString()}, load average at start ${load0.toFixed(2)}`);
if (!a['only-churn']) await nodesAndPods(await idleBaseline());
if (!a['skip-churn']) await churn();
console.log(`load average at end ${loadavg()[0]!.toFixed(2)} (a loaded machine slows every figure)`);
if (existsSync(RESULTS)) {
  const prev = JSON.parse(readFileSync(RESULTS, 'utf8')) as { date: string; figures: Record<string, number> };
  console.log(`--- compared with the stored run of ${prev.date}`);
  for (const [k, v] of Object.entries(figures)) if (k in prev.figures) console.log(`  ${k.padEnd(34)} ${String(prev.figures[k]).padStart(10)} → ${v}`);
}
if (a.save) writeFileSync(RESULTS, `${JSON.stringify({ date: new Date().toISOString(), nodes: NODES, pods: PODS, load: load0, figures }, null, 2)}\n`);

/**
 * API server benchmark: starts `k8ts server` (no kubelet, scheduler idle on no nodes)
 * as a child process and measures, over HTTPS with client certificates:
 * - cold start to /readyz (ms)
 * - idle RSS (MB) and idle CPU (%) over 5 s
 * - pod creates/s with N concurrent clients (durable: each 201 is a committed write),
 *   and creates per server CPU-second (from /proc/<pid>/stat)
 * - list of all pods (ms), as JSON
 *
 * By default the API server runs alone (--disable-scheduler --disable-controller-manager);
 * `--all` keeps the scheduler and controllers in the measured process.
 *
 * Each storage backend is measured in turn in one run: the embedded SQLite, then a
 * real etcd (Debian's etcd-server on loopback, started here; `k8ts server
 * --etcd-servers`), where creates per CPU-second are also given for the server and etcd
 * together; `--rounds N` alternates them N times (the machine's load changes between
 * runs). The run ends with one table, the backends side by side, each row with the
 * 1-minute load average at its start and end (the machine is shared: figures under
 * load are pessimistic).
 *
 * Server flags: PROF=<dir> writes a CPU profile of the server there; SERVER_NODE_FLAGS='…' passes node flags to it.
 *
 * Usage: npm run bench:api [-- --pods 20000 --concurrency 64 --all --backends sqlite,etcd --rounds 1 --pod-trace=false]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'node:https';
import { ensureBuilt, freePort, ROOT } from '../test/e2e/harness.js';
import { httpsCall, kubeconfigAgent } from './support/https.js';
import { startTestEtcd, type TestEtcd } from '../test/support/etcd.js';

const args = process.argv.slice(2);
const arg = (n: string, d: number): number => {
  const i = args.indexOf(`--${n}`);
  return i >= 0 ? Number(args[i + 1]) : d;
};
const PODS = arg('pods', 20000);
const CONC = arg('concurrency', 64);
const bi = args.indexOf('--backends');
const BACKENDS = (bi >= 0 ? args[bi + 1]! : 'sqlite,etcd').split(',');
const ROUNDS = arg('rounds', 1);

/** One backend's figures, for the side-by-side table. */
interface Result {
  backend: string;
  round: number;
  podsPerSec: number;
  perServerCPU: number;
  /** creates per CPU-second of server + etcd (etcd only) */
  perServerEtcdCPU?: number;
  failures: number;
  /** 1-minute load average when the creates started and ended */
  load: [number, number];
}
const load1 = (): number => loadavg()[0]!;

function cpuTicks(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return Number(parts[11]) + Number(parts[12]); // utime + stime (fields 14, 15)
}
function rssMB(pid: number): number {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(s);
  return m ? Number(m[1]) / 1024 : 0;
}
const TICK = 100; // USER_HZ

/** User and system CPU ticks per thread name ('main': the JS thread; V8 GC helpers, libuv pool …) of a process. */
function threadTicks(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : f.slice(f.indexOf('(') + 1, f.lastIndexOf(')')).replace(/[0-9]+$/, '');
      const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
      out.set(`${name} user`, (out.get(`${name} user`) ?? 0) + Number(parts[11]));
      out.set(`${name} sys`, (out.get(`${name} sys`) ?? 0) + Number(parts[12]));
    } catch {
      /* thread exited */
    }
  }
  return out;
}

async function main(backend: string, round: number): Promise<Result> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-bench-'));
  const port = await freePort();
  let etcd: TestEtcd | undefined;
  if (backend === 'etcd') etcd = await startTestEtcd();
  else if (backend !== 'sqlite') throw new Error(`unknown backend ${backend}`);
  console.log(`--- storage: ${etcd ? `etcd ${etcd.version} (${etcd.endpoint})` : 'sqlite'}`);
  const storageArgs = etcd ? ['--etcd-servers', etcd.endpoint] : [];
  const t0 = performance.now();
  const proc = spawn(
    process.execPath,
    [
      ...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF] : []),
      // SERVER_NODE_FLAGS: node flags for the server process only (e.g. V8 GC flags to compare)
      ...(process.env.SERVER_NODE_FLAGS ? process.env.SERVER_NODE_FLAGS.split(' ').filter(Boolean) : []),
      join(ROOT, 'dist/k8ts.mjs'),
      'server',
      '--data-dir',
      dir,
      '--secure-port',
      String(port),
      '--disable-agent',
      ...storageArgs,
      ...(args.includes('--all') ? [] : ['--disable-scheduler', '--disable-controller-manager']),
      // the pod creation trace is on by default; `--pod-trace=false` measures without it
      ...(args.includes('--pod-trace=false') ? ['--pod-trace=false'] : []),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const kc = join(dir, 'kubeconfig.yaml');
  let agent: Agent | undefined;
  const call = (method: string, path: string, body?: string) => httpsCall(port, agent, method, path, body);
  for (;;) {
    if (existsSync(kc)) {
      if (!agent) {
        agent = kubeconfigAgent(kc, CONC);
      }
      try {
        const r = await call('GET', '/readyz');
        if (r.status === 200) break;
      } catch {
        /* not yet */
      }
    }
    if (performance.now() - t0 > 30_000) throw new Error('server did not become ready');
    await new Promise((r) => setTimeout(r, 5));
  }
  const ready = performance.now() - t0;
  console.log(`cold start to /readyz: ${ready.toFixed(0)} ms (includes first-start certificate generation)`);

  await new Promise((r) => setTimeout(r, 1000));
  const idle0 = cpuTicks(proc.pid!);
  await new Promise((r) => setTimeout(r, 5000));
  const idleCPU = ((cpuTicks(proc.pid!) - idle0) / TICK / 5) * 100;
  console.log(`idle: RSS ${rssMB(proc.pid!).toFixed(0)} MB, CPU ${idleCPU.toFixed(1)} %`);

  const pod = (i: number): string =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `bench-${i}`, labels: { app: 'bench' } },
      spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '10Mi' } } }] },
    });
  // without the controller manager nobody creates the default ServiceAccount, which
  // ServiceAccount admission requires: create it as the controller would
  const sa = await call('POST', '/api/v1/namespaces/default/serviceaccounts', JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }));
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`creating the default ServiceAccount: ${sa.status} ${sa.body}`);
  let next = 0;
  let failures = 0;
  const loadStart = load1();
  const c0 = cpuTicks(proc.pid!);
  const e0 = etcd ? cpuTicks(etcd.proc.pid) : 0;
  const th0 = threadTicks(proc.pid!);
  const w0 = performance.now();
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      while (next < PODS) {
        const i = next++;
        const r = await call('POST', '/api/v1/namespaces/default/pods', pod(i));
        if (r.status !== 201) {
          failures++;
          if (failures < 5) console.error(r.status, r.body.slice(0, 300));
        }
      }
    }),
  );
  const secs = (performance.now() - w0) / 1000;
  const cpu = (cpuTicks(proc.pid!) - c0) / TICK;
  const etcdCPU = etcd ? (cpuTicks(etcd.proc.pid) - e0) / TICK : 0;
  const result: Result = {
    backend: etcd ? `etcd ${etcd.version}` : 'sqlite',
    round,
    podsPerSec: PODS / secs,
    perServerCPU: PODS / cpu,
    ...(etcd ? { perServerEtcdCPU: PODS / (cpu + etcdCPU) } : {}),
    failures,
    load: [loadStart, load1()],
  };
  console.log(
    `pod create: ${PODS} pods, ${CONC} concurrent: ${(PODS / secs).toFixed(0)} pods/s; server CPU ${cpu.toFixed(2)} s → ${(PODS / cpu).toFixed(0)} creates per CPU-second; failures ${failures}`,
  );
  if (etcd) console.log(`  etcd CPU ${etcdCPU.toFixed(2)} s → ${(PODS / (cpu + etcdCPU)).toFixed(0)} creates per CPU-second of server + etcd`);
  const th1 = threadTicks(proc.pid!);
  console.log(
    `  server CPU by thread: ${[...th1]
      .map(([n, t]) => [n, (t - (th0.get(n) ?? 0)) / TICK] as const)
      .filter(([, s]) => s > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([n, s]) => `${n} ${s.toFixed(2)} s`)
      .join(', ')}`,
  );
  const l0 = performance.now();
  const l = await call('GET', '/api/v1/namespaces/default/pods');
  console.log(`list ${PODS} pods: ${(performance.now() - l0).toFixed(0)} ms, ${(l.body.length / 1e6).toFixed(1)} MB`);
  console.log(`RSS after: ${rssMB(proc.pid!).toFixed(0)} MB`);
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  agent?.destroy();
  await etcd?.stop();
  rmSync(dir, { recursive: true, force: true });
  return result;
}

const results: Result[] = [];
for (let round = 1; round <= ROUNDS; round++) for (const b of BACKENDS) results.push(await main(b, round));

console.log(`\n=== ${PODS} pod creates, ${CONC} concurrent HTTPS clients, side by side (load average: 1-minute, at start → end of the creates, on ${cpus().length} CPUs)`);
const cells = (r: Result): string[] => [
  r.backend,
  String(r.round),
  r.podsPerSec.toFixed(0),
  r.perServerCPU.toFixed(0),
  r.perServerEtcdCPU === undefined ? '—' : r.perServerEtcdCPU.toFixed(0),
  String(r.failures),
  `${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)}`,
];
const head = ['storage', 'round', 'creates/s', 'creates per server CPU-s', 'per server+etcd CPU-s', 'failures', 'load average'];
const rows = [head, ...results.map(cells)];
const widths = head.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));

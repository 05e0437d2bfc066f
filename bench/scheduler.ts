/**
 * Scheduler benchmark in the manner of upstream's scheduler_perf: for each workload a
 * fresh `k8ts server` (real API server + SQLite storage, in its own process) gets its
 * Nodes created through the API, then the scheduler (in this process, over HTTPS, as
 * kube-scheduler runs) schedules the init pods and then the measured pods while they are
 * being created. Printed per workload: pods/s (average over the measured phase and
 * p50/p90/p99 of the per-second throughput samples, as scheduler_perf's
 * SchedulingThroughput), CPU seconds of both processes, RSS, and the time split per
 * extension point.
 *
 * Usage: npm run bench:scheduler [-- --quick] [-- --only SchedulingBasic]
 *
 * @see https://github.com/kubernetes/kubernetes/tree/v1.32.0/test/integration/scheduler_perf
 */
import type { KObject } from '../src/api/resource.js';
import { R, type Client } from '../src/client/types.js';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { Session } from 'node:inspector';
import { performance } from 'node:perf_hooks';
import { MessageChannel, Worker } from 'node:worker_threads';
import { startScheduler } from '../src/scheduler/index.js';
import { ADMIN, cpuSeconds, parallel, rssMiB, SCHEDULER, startBenchServer, startInProcessAPI } from './scheduler-cluster.js';
import { cpuSecondsOf, threadCpuSeconds } from './scheduler-cpu.js';
import { servePort } from './scheduler-port.js';
import type { FromWorker, ToWorker } from './scheduler-worker.js';
import { nodeDefault, podHighPriorityLargeCPU, serviceDefault, workloads, type PodOp, type Workload } from './scheduler-workloads.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const MODE = (args.includes('--mode') ? args[args.indexOf('--mode') + 1] : 'worker') as 'worker' | 'inprocess' | 'https';
const CREATE_CONCURRENCY = 32;
const TIMEOUT_MS = 600_000;

/**
 * Starts a CPU profile of this thread (the API server's in worker/inprocess mode);
 * the returned function stops it and gives the profile (BENCH_API_PROFILE=<file>).
 */
async function startThreadProfile(): Promise<() => Promise<object>> {
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<{ profile?: object }>((resolve, reject) => session.post(method, (err, res) => (err ? reject(err) : resolve(res as { profile?: object }))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return async () => {
    const r = await post('Profiler.stop');
    session.disconnect();
    return r.profile ?? {};
  };
}

/**
 * Starts a sampling heap profile of this thread (allocations by call site over the
 * measured phase, BENCH_API_HEAP_PROFILE=<file.heapprofile>); the returned function
 * stops it and gives the profile.
 */
async function startThreadHeapProfile(): Promise<() => Promise<object>> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<{ profile?: object }>((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res as { profile?: object }))));
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  return async () => {
    const r = await post('HeapProfiler.stopSampling');
    session.disconnect();
    return r.profile ?? {};
  };
}

/** CPU seconds and name of each thread of this process (BENCH_THREADS=1 prints them per measured phase). */
function threadTimes(): Map<string, { name: string; cpu: number }> {
  const out = new Map<string, { name: string; cpu: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      out.set(tid, { name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(), cpu: cpuSecondsOf(stat) });
    } catch {
      /* the thread ended */
    }
  }
  return out;
}

/** scheduler_perf's percentile: the sorted sample at ceil(n·p/100) − 1. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.max(0, Math.ceil((sorted.length * p) / 100) - 1)]!;
}

interface Result {
  name: string;
  pods: number;
  seconds: number;
  avg: number;
  p50: number;
  p90: number;
  p99: number;
  /** CPU seconds of every process involved during the measured phase */
  cpu: number;
  /** busy share of the scheduler's event loop during the measured phase */
  schedELU: number;
  /** CPU seconds of the scheduler's thread during the measured phase (NaN if unknown) */
  schedCPU: number;
  /** CPU seconds of the API server's thread (with the benchmark's pod-creating client in worker/inprocess mode) or process (https) */
  apiThreadCPU: number;
  /** busy share of the API server's event loop (NaN when in another process) */
  apiELU: number;
  /** the scheduler's requests during the measured phase by kind (worker mode) */
  requests?: Map<string, number>;
  /** MiB resident, all processes */
  rss: number;
  totals: Map<string, number>;
  failed?: string;
}

/**
 * `k8ts server` (mode https) runs upstream's full admission chain: pods need the
 * namespace's `default` ServiceAccount (its controller is off here) and get their
 * priority from a PriorityClass (Priority admission). scheduler_perf's API server runs
 * without those plugins; the in-thread harnesses do too.
 */
async function prepareFullAdmission(c: Client, namespaces: string[]): Promise<void> {
  for (const ns of namespaces) {
    await c
      .create({ group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true }, ns, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'default', namespace: ns },
      })
      .catch(() => undefined);
  }
  await c.create(R.priorityclasses, '', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'bench-p10' }, value: 10 }).catch(() => undefined);
}

function forFullAdmission(pod: KObject): KObject {
  const spec = pod.spec as { priority?: number; priorityClassName?: string };
  if (MODE === 'https' && spec.priority !== undefined) {
    spec.priorityClassName = `bench-p${spec.priority}`;
    delete spec.priority;
  }
  return pod;
}

async function createPods(c: Client, op: PodOp, prefix: string): Promise<void> {
  await parallel(op.count, CREATE_CONCURRENCY, (i) => c.create(R.pods, op.namespace, forFullAdmission(op.template(`${prefix}-${i}`, op.namespace) as KObject)));
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = TIMEOUT_MS): Promise<void> {
  const t0 = performance.now();
  while (!cond()) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Upstream's churn op, mode recreate: each second create one node, one large high-priority pod and one service, deleting the previous ones. */
function startChurn(c: Client): () => Promise<void> {
  let n = 0;
  let stopped = false;
  let prev: { node: string; pod: string; svc: string } | undefined;
  const loop = (async () => {
    while (!stopped) {
      const cur = { node: `node-churn-${n}`, pod: `pod-h-${n}`, svc: `service-${n}` };
      n++;
      const ops: Promise<unknown>[] = [
        c.create(R.nodes, '', nodeDefault(cur.node) as KObject),
        c.create(R.pods, 'default', forFullAdmission(podHighPriorityLargeCPU(cur.pod, 'default') as KObject)),
        c.create(R.services, 'default', serviceDefault(cur.svc) as KObject),
      ];
      if (prev) {
        ops.push(c.delete(R.nodes, '', prev.node), c.delete(R.pods, 'default', prev.pod, { gracePeriodSeconds: 0 }), c.delete(R.services, 'default', prev.svc));
      }
      await Promise.allSettled(ops);
      prev = cur;
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

/** The scheduler under test, wherever it runs. */
interface SchedulerHandle {
  /** bound pods so far */
  bound(): number;
  /** start of the measured phase: clear totals */
  measure(): void;
  /** end of the measured phase: extension point totals (ms), the scheduler thread's busy share and CPU seconds */
  finish(): Promise<{ totals: Map<string, number>; elu: number; cpu: number; requests?: Map<string, number> }>;
  stop(): Promise<void>;
}

/** Where the API server runs and how the scheduler reaches it. */
interface Harness {
  admin: Client;
  startScheduler(): Promise<SchedulerHandle>;
  /** CPU seconds so far of the API server's process */
  apiCPU(): number;
  /** CPU seconds so far of the API server's thread (its process in https mode) */
  apiThreadCPU(): number;
  /** the API server's busy share since the last call (thread ELU) or NaN */
  apiELU(): number;
  apiRSS(): number;
  stop(): Promise<void>;
}

/** Scheduler in a worker thread, API server in this thread: each has a core. */
async function workerHarness(): Promise<Harness> {
  const api = await startInProcessAPI();
  const requests = new Map<string, number>();
  let elu0 = performance.eventLoopUtilization();
  return {
    admin: api.clientFor(ADMIN),
    async startScheduler() {
      const { port1, port2 } = new MessageChannel();
      servePort(api.api, SCHEDULER, port1, requests);
      // a JS trampoline registers tsx in the worker before loading the TypeScript entry
      const entry = new URL('./scheduler-worker.ts', import.meta.url).href;
      const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
      const worker = new Worker(boot, { eval: true, workerData: { port: port2 }, transferList: [port2] });
      let bound = 0;
      let onTotals: ((m: FromWorker & { t: 'totals' }) => void) | undefined;
      const ready = new Promise<void>((resolve, reject) => {
        worker.once('error', reject);
        worker.on('message', (m: FromWorker) => {
          if (m.t === 'ready') resolve();
          else if (m.t === 'bound') bound += m.n;
          else onTotals?.(m);
        });
      });
      await ready;
      return {
        bound: () => bound,
        measure: () => {
          requests.clear();
          worker.postMessage({ t: 'measure' } satisfies ToWorker);
        },
        finish: () =>
          new Promise((resolve) => {
            onTotals = (m) => resolve({ totals: new Map(m.totals), elu: m.elu, cpu: m.cpu, requests: new Map(requests) });
            worker.postMessage({ t: 'finish' } satisfies ToWorker);
          }),
        async stop() {
          const exited = new Promise((r) => worker.once('exit', r));
          worker.postMessage({ t: 'stop' } satisfies ToWorker);
          await exited;
          port1.close();
        },
      };
    },
    apiCPU: () => {
      const c = process.cpuUsage();
      return (c.user + c.system) / 1e6;
    },
    apiThreadCPU: threadCpuSeconds,
    apiELU: () => {
      const u = performance.eventLoopUtilization(elu0).utilization;
      elu0 = performance.eventLoopUtilization();
      return u;
    },
    apiRSS: () => process.memoryUsage().rss / 1048576,
    stop: () => api.stop(),
  };
}

/** The scheduler in this thread: on the API server's loopback (`inprocess`, as `k8ts server`) or over HTTPS to a server process (`https`). */
async function localHarness(mode: 'inprocess' | 'https'): Promise<Harness> {
  const inproc = mode === 'inprocess' ? await startInProcessAPI() : undefined;
  const server = mode === 'https' ? await startBenchServer() : undefined;
  const admin = inproc ? inproc.clientFor(ADMIN) : server!.client();
  let elu0 = performance.eventLoopUtilization();
  return {
    admin,
    async startScheduler() {
      const client = inproc ? inproc.clientFor(SCHEDULER) : server!.client();
      const running = await startScheduler({ client });
      let bound = 0;
      running.scheduler.onBound = () => bound++;
      let e0 = performance.eventLoopUtilization();
      let c0 = threadCpuSeconds();
      return {
        bound: () => bound,
        measure: () => {
          running.metrics.extensionPointTotals.clear();
          e0 = performance.eventLoopUtilization();
          c0 = threadCpuSeconds();
        },
        finish: async () => ({
          totals: new Map(running.metrics.extensionPointTotals),
          elu: performance.eventLoopUtilization(e0).utilization,
          // in-process: one thread runs both, so this is the thread's total
          cpu: threadCpuSeconds() - c0,
        }),
        stop: () => running.stop(),
      };
    },
    apiCPU: () => (server ? cpuSeconds(server.pid) : (process.cpuUsage().user + process.cpuUsage().system) / 1e6),
    apiThreadCPU: () => (server ? cpuSeconds(server.pid) : threadCpuSeconds()),
    apiELU: () => {
      if (server) return Number.NaN;
      const u = performance.eventLoopUtilization(elu0).utilization;
      elu0 = performance.eventLoopUtilization();
      return u;
    },
    apiRSS: () => (server ? rssMiB(server.pid) : process.memoryUsage().rss / 1048576),
    stop: async () => {
      await inproc?.stop();
      await server?.stop();
    },
  };
}

async function run(w: Workload): Promise<Result> {
  const h = MODE === 'worker' ? await workerHarness() : await localHarness(MODE);
  const admin = h.admin;
  let sched: SchedulerHandle | undefined;
  try {
    for (const ns of w.namespaces ?? []) await admin.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    if (MODE === 'https') await prepareFullAdmission(admin, ['default', ...(w.namespaces ?? [])]);
    await parallel(w.nodes, 64, (i) => admin.create(R.nodes, '', nodeDefault(`node-${i}`, w.nodeLabels?.(i)) as KObject));
    sched = await h.startScheduler();
    const s = sched;
    for (const [k, op] of w.init.entries()) {
      const before = s.bound();
      await createPods(admin, op, `init${k}`);
      if (!op.skipWait) await waitFor(() => s.bound() - before >= op.count, `init pods of ${w.name}`);
    }
    const stopChurn = w.churn ? startChurn(admin) : undefined;

    // measured phase
    const apiProfile = process.env.BENCH_API_PROFILE ? await startThreadProfile() : undefined;
    const apiHeapProfile = process.env.BENCH_API_HEAP_PROFILE ? await startThreadHeapProfile() : undefined;
    s.measure();
    const base = s.bound();
    const measured = () => s.bound() - base;
    const t0 = process.env.BENCH_THREADS ? threadTimes() : undefined;
    const c0 = process.cpuUsage();
    const a0 = h.apiCPU();
    const at0 = h.apiThreadCPU();
    h.apiELU();
    const samples: number[] = [];
    let last = 0;
    const m0 = performance.now();
    const sampler = setInterval(() => {
      const b = measured();
      samples.push(b - last);
      last = b;
    }, 1000);
    const creating = createPods(admin, w.measure, 'measure');
    let failed: string | undefined;
    try {
      await waitFor(() => measured() >= w.measure.count, `measured pods of ${w.name}`);
    } catch (e) {
      failed = (e as Error).message;
    }
    const seconds = (performance.now() - m0) / 1000;
    clearInterval(sampler);
    await creating.catch(() => undefined);
    const cu = process.cpuUsage(c0);
    if (t0) {
      const t1 = threadTimes();
      const by = new Map<string, number>();
      for (const [tid, v] of t1) by.set(`${tid === String(process.pid) ? 'main' : tid}:${v.name}`, v.cpu - (t0.get(tid)?.cpu ?? 0));
      process.stderr.write(
        `  threads' CPU s: ${[...by]
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${v.toFixed(2)}`)
          .join(', ')}\n`,
      );
    }
    const apiCPU = h.apiCPU() - a0;
    const apiThreadCPU = h.apiThreadCPU() - at0;
    const apiELU = h.apiELU();
    const { totals, elu, cpu: schedCPU, requests } = await s.finish();
    if (apiProfile) writeFileSync(process.env.BENCH_API_PROFILE!, JSON.stringify(await apiProfile()));
    if (apiHeapProfile) writeFileSync(process.env.BENCH_API_HEAP_PROFILE!, JSON.stringify(await apiHeapProfile()));
    await stopChurn?.();
    const done = measured();
    const rest = seconds - samples.length;
    if (rest >= 0.5) samples.push(Math.round((done - last) / rest));
    const sorted = [...samples].sort((a, b) => a - b);
    return {
      name: w.name,
      pods: done,
      seconds,
      avg: done / seconds,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      cpu: MODE === 'https' ? (cu.user + cu.system) / 1e6 + apiCPU : apiCPU,
      schedELU: elu,
      schedCPU,
      apiThreadCPU,
      requests,
      apiELU,
      rss: MODE === 'https' ? process.memoryUsage().rss / 1048576 + h.apiRSS() : h.apiRSS(),
      totals,
      failed,
    };
  } finally {
    await sched?.stop();
    await h.stop();
  }
}

/**
 * How much of a core the threads got during the measured phase, and the rate their CPU
 * per pod allows when each thread has a core of its own and all threads (GC helpers
 * included) fit the machine's cores: pods ÷ the largest of API thread CPU, scheduler
 * thread CPU and process CPU ÷ cores. On a loaded machine the event loops are busy
 * (runnable) while on CPU only part of the time; this shows how much of the measured
 * rate is the machine's load. An estimate from /proc, not a measurement.
 */
function capacity(r: Result): string | undefined {
  if (MODE !== 'worker' || Number.isNaN(r.apiThreadCPU) || Number.isNaN(r.schedCPU) || r.seconds <= 0) return undefined;
  const share = (cpu: number) => `${((100 * cpu) / r.seconds).toFixed(0)}%`;
  const bound = Math.max(r.apiThreadCPU, r.schedCPU, r.cpu / CORES);
  const est = bound > 0 ? (r.pods / bound).toFixed(0) : '-';
  return `on CPU during the measured phase: API thread ${share(r.apiThreadCPU)}, scheduler thread ${share(r.schedCPU)}, process ${share(r.cpu)} (${CORES} cores); with a core per thread: est. ${est} pods/s`;
}

const CORES = cpus().length;

const CYCLE_POINTS = ['PreFilter', 'Filter', 'PostFilter', 'PreScore', 'Score', 'Reserve', 'Permit'];

function table(rs: Result[]): string {
  const head = ['workload', 'pods', 'pods/s avg', 'p50', 'p90', 'p99', 'CPU s', 'pods/CPU-s', 'sched busy', 'api busy', 'sched µs/pod', 'api µs/pod', 'RSS MiB'];
  const pct = (x: number) => (Number.isNaN(x) ? '-' : `${(100 * x).toFixed(0)}%`);
  const rows = rs.map((r) => [
    r.name + (r.failed ? ' (INCOMPLETE)' : ''),
    String(r.pods),
    r.avg.toFixed(0),
    String(r.p50),
    String(r.p90),
    String(r.p99),
    r.cpu.toFixed(1),
    (r.pods / r.cpu).toFixed(0),
    pct(r.schedELU),
    pct(r.apiELU),
    Number.isNaN(r.schedCPU) ? '-' : ((1e6 * r.schedCPU) / Math.max(1, r.pods)).toFixed(0),
    Number.isNaN(r.apiThreadCPU) || MODE === 'inprocess' ? '-' : ((1e6 * r.apiThreadCPU) / Math.max(1, r.pods)).toFixed(0),
    r.rss.toFixed(0),
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ');
  const out = [line(head), line(w.map((n) => '-'.repeat(n))), ...rows.map(line)];
  out.push('', 'scheduling cycle (µs per attempt, attempts per measured pod) and its split by extension point; binding latency (ms, API round trip):');
  for (const r of rs) {
    const t = r.totals;
    const cycle = t.get('SchedulingCycle') ?? 0;
    const cycles = Math.max(1, t.get('Cycles') ?? 0);
    const n = Math.max(1, r.pods);
    const parts = CYCLE_POINTS.filter((k) => t.has(k)).map((k) => `${k} ${((100 * t.get(k)!) / (cycle || 1)).toFixed(0)}%`);
    const other = cycle - CYCLE_POINTS.reduce((a, k) => a + (t.get(k) ?? 0), 0);
    parts.push(`other ${((100 * other) / (cycle || 1)).toFixed(0)}%`);
    out.push(
      `  ${r.name.padEnd(w[0]!)}  cycle ${((1000 * cycle) / cycles).toFixed(0)} µs × ${(cycles / n).toFixed(2)}: ${parts.join(', ')}; bind ${((t.get('Bind') ?? 0) / n).toFixed(1)} ms`,
    );
    if (r.requests?.size) {
      const reqs = [...r.requests].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`);
      out.push(`  ${''.padEnd(w[0]!)}  scheduler requests: ${reqs.join(', ')}`);
    }
    const cap = capacity(r);
    if (cap !== undefined) out.push(`  ${''.padEnd(w[0]!)}  ${cap}`);
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const list = workloads(quick).filter((w) => !only || w.name.startsWith(only));
  const results: Result[] = [];
  for (const w of list) {
    process.stderr.write(`running ${w.name} …\n`);
    const r = await run(w);
    results.push(r);
    process.stderr.write(`  ${r.pods} pods in ${r.seconds.toFixed(1)} s: ${r.avg.toFixed(0)} pods/s${r.failed ? ` (${r.failed})` : ''}\n`);
  }
  console.log(table(results));
  const where = {
    worker: 'API server (SQLite) in the main thread, scheduler in a worker thread (MessagePort transport into the API request pipeline)',
    inprocess: 'API server and scheduler in one thread (in-process transport, as `k8ts server`)',
    https: 'API server in a `k8ts server` process, scheduler in the benchmark process over HTTPS',
  }[MODE];
  console.log(`\nmode ${MODE}: ${where}; node ${process.version}, ${CORES} CPUs.`);
  console.log('pods/s = measured pods bound per second (binding acknowledged by the API server) while they are being created; p50/p90/p99 over 1-second samples.');
  console.log(
    'sched µs/pod = CPU of the scheduler thread per measured pod (in-process: of the one thread running everything); api µs/pod = CPU of the API server thread per pod, including the benchmark client creating the pods in worker mode (https: the server process). Both from /proc, robust to machine load.',
  );
}

void (async () => {
  try {
    await main();
    process.exit(0);
  } catch (e) {
    console.error(e);
    process.exit(1);
  }
})();

/**
 * Pod startup latency on real containers: N pods (image already present) created
 * through the API on a node whose kubelet runs them on a private containerd through
 * CRI (test/e2e/containerd-cluster.ts: API server, scheduler, kubelet in this process).
 * Measures, per pod, the time from the create request to `status.phase=Running` as
 * seen by a watch (upstream's pod startup SLI: p99 ≤ 5 s; our target on a 2-core
 * machine: p99 ≤ 1 s), and splits it into consecutive phases whose sum is the total:
 *
 *   schedule  create sent → the watch sees spec.nodeName
 *   kubelet   bound → RunPodSandbox called (kubelet watch, runtime status, volumes, cgroup)
 *   sandbox   RunPodSandbox + PodSandboxStatus (incl. CNI)
 *   image     → CreateContainer called (ImageStatus, env, container config)
 *   create    CreateContainer
 *   start     StartContainer
 *   status    StartContainer done → the watch sees Running (runtime status, PATCH, watch)
 *
 * The CRI calls are timed by wrapping the runtime's methods in place (the kubelet holds
 * the same object), so the kubelet's logic is untouched; the CRI table shows every method's latency.
 *
 * Run: `npm run bench:pod-startup` (root, scripts/install-deps.sh done).
 * Options: `--pods N` (default 50), `--interval MS` between creates (default 100;
 * 0 = all at once), `--warmup N` pods started and deleted first (default 2),
 * `--target MS` p99 target checked for the exit code (default 1000), `--profile FILE`
 * writes a CPU profile of this process during the measured run (.cpuprofile), `--trace
 * on|off|both` the pod creation trace (default on, as `k8ts server`; both: one cluster
 * each, one after the other, and the CPU per pod compared).
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { Pod as PodT } from 'kubernetes-types/core/v1.js';
import { R, type Client } from '../src/client/types.js';
import type { Runtime } from '../src/cri/api.js';
import { startContainerdCluster } from '../test/e2e/containerd-cluster.js';

type Pod = PodT & { [k: string]: unknown };

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : def;
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${name} wants a non-negative integer`);
  return v;
}
const PODS = Math.max(1, arg('pods', 50));
const INTERVAL = arg('interval', 100);
const WARMUP = arg('warmup', 2);
const TARGET = arg('target', 1000);
const NS = 'bench';
/** `--trace on|off|both`: the pod creation trace as `k8ts server` has it (default on); both = a run each, compared */
const TRACE = ((i) => (i >= 0 ? process.argv[i + 1] : 'on'))(process.argv.indexOf('--trace'));
if (TRACE !== 'on' && TRACE !== 'off' && TRACE !== 'both') throw new Error('--trace wants on, off or both');
const PROFILE = ((i) => (i >= 0 ? process.argv[i + 1] : undefined))(process.argv.indexOf('--profile'));

// ------------------------------------------------------------------ CRI timing

/** One timed CRI call: method, start and end (performance.now() ms), first argument, result. */
export interface CRICall {
  method: string;
  start: number;
  end: number;
  arg: unknown;
  result: unknown;
  ok: boolean;
}

const TIMED = [
  'runPodSandbox',
  'stopPodSandbox',
  'removePodSandbox',
  'podSandboxStatus',
  'listPodSandbox',
  'createContainer',
  'startContainer',
  'stopContainer',
  'removeContainer',
  'listContainers',
  'containerStatus',
  'execSync',
  'imageStatus',
  'pullImage',
  'listImages',
] as const;

/**
 * Wraps each CRI method of `rt` in place with a timer reporting to `onCall`, so code
 * that already holds `rt` (the kubelet) is measured without changes. Returns a
 * function that restores the original methods.
 */
export function timeRuntime(rt: Runtime, onCall: (c: CRICall) => void): () => void {
  const target = rt as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const saved = new Map<string, (...a: unknown[]) => Promise<unknown>>();
  for (const m of TIMED) {
    const orig = target[m]!;
    saved.set(m, orig);
    target[m] = async function (this: unknown, ...a: unknown[]) {
      const start = performance.now();
      try {
        const result = await orig.apply(rt, a);
        onCall({ method: m, start, end: performance.now(), arg: a[0], result, ok: true });
        return result;
      } catch (e) {
        onCall({ method: m, start, end: performance.now(), arg: a[0], result: e, ok: false });
        throw e;
      }
    };
  }
  return () => {
    for (const [m, f] of saved) target[m] = f;
  };
}

// ------------------------------------------------------------------ helpers

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
}
const f = (ms: number): string => (Number.isFinite(ms) ? ms.toFixed(0) : '-').padStart(7);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function podManifest(name: string, image: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, labels: { app: 'pod-startup-bench' } },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'main',
          image,
          imagePullPolicy: 'IfNotPresent',
          command: ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 1; done"],
        },
      ],
    },
  };
}

interface Seen {
  created?: number;
  bound?: number;
  running?: number;
  uid?: string;
}

/** Watches pods of NS, noting when each is first seen bound and Running. */
function watchPods(admin: Client, rv: string, seen: Map<string, Seen>, onChange: () => void): { stop(): void } {
  const h = admin.watch<Pod>(R.pods, NS, { resourceVersion: rv }, (e) => {
    const now = performance.now();
    const p = e.object;
    const name = p.metadata?.name;
    if (!name || e.type === 'DELETED' || e.type === 'BOOKMARK' || e.type === 'ERROR') return;
    const s = seen.get(name) ?? {};
    seen.set(name, s);
    s.uid ??= p.metadata?.uid;
    if (s.bound === undefined && p.spec?.nodeName) s.bound = now;
    if (s.running === undefined && p.status?.phase === 'Running') s.running = now;
    onChange();
  });
  return { stop: () => h.stop() };
}

/** Creates `names` at INTERVAL and resolves when the watch saw all Running. */
async function runBatch(admin: Client, names: string[], image: string, seen: Map<string, Seen>, timeoutMs: number): Promise<void> {
  const rv = (await admin.list(R.pods, NS, { limit: 1 })).metadata.resourceVersion ?? '0';
  let wake = (): void => {};
  const allRunning = (): boolean => names.every((n) => seen.get(n)?.running !== undefined);
  const w = watchPods(admin, rv, seen, () => wake());
  try {
    const creates: Promise<unknown>[] = [];
    for (const [i, name] of names.entries()) {
      if (i > 0 && INTERVAL > 0) await sleep(INTERVAL);
      const s = seen.get(name) ?? {};
      seen.set(name, s);
      s.created = performance.now();
      creates.push(admin.create(R.pods, NS, podManifest(name, image)));
    }
    await Promise.all(creates);
    const deadline = Date.now() + timeoutMs;
    while (!allRunning()) {
      if (Date.now() > deadline) {
        const missing = names.filter((n) => seen.get(n)?.running === undefined);
        throw new Error(`${missing.length} pods not Running after ${timeoutMs} ms: ${missing.slice(0, 5).join(', ')}…`);
      }
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 200);
      });
    }
  } finally {
    w.stop();
  }
}

/** Deletes every pod of NS and waits until the kubelet has removed them all. */
async function deleteAll(admin: Client, timeoutMs = 120_000): Promise<void> {
  await admin.deleteCollection(R.pods, NS, {});
  const deadline = Date.now() + timeoutMs;
  while ((await admin.list(R.pods, NS)).items.length > 0) {
    if (Date.now() > deadline) throw new Error('pods not deleted in time');
    await sleep(250);
  }
}

// ------------------------------------------------------------------ main

const PHASES = ['schedule', 'kubelet', 'sandbox', 'image', 'create', 'start', 'status'] as const;
type PhaseName = (typeof PHASES)[number];

/** Splits each pod's create→Running time into PHASES from the watch times and the CRI calls. */
function phases(seen: Map<string, Seen>, names: string[], calls: CRICall[]): Map<string, Record<PhaseName, number> & { total: number }> {
  const byUid = new Map<
    string,
    { sandboxStart?: number; sandboxEnd?: number; sandboxId?: string; createStart?: number; createEnd?: number; containerId?: string; startStart?: number; startEnd?: number }
  >();
  const sbToUid = new Map<string, string>();
  const ctrToUid = new Map<string, string>();
  for (const c of calls) {
    if (!c.ok) continue;
    if (c.method === 'runPodSandbox') {
      const uid = (c.arg as { metadata: { uid: string } }).metadata.uid;
      const e = byUid.get(uid) ?? {};
      byUid.set(uid, e);
      if (e.sandboxStart === undefined) {
        e.sandboxStart = c.start;
        e.sandboxEnd = c.end;
        e.sandboxId = c.result as string;
        sbToUid.set(e.sandboxId, uid);
      }
    } else if (c.method === 'podSandboxStatus') {
      const uid = sbToUid.get(c.arg as string);
      const e = uid ? byUid.get(uid) : undefined;
      // the status call right after RunPodSandbox (the pod IP) belongs to the sandbox phase
      if (e && e.createStart === undefined && e.sandboxEnd !== undefined && c.start >= e.sandboxEnd) e.sandboxEnd = Math.max(e.sandboxEnd, c.end);
    } else if (c.method === 'createContainer') {
      const uid = sbToUid.get(c.arg as string);
      const e = uid ? byUid.get(uid) : undefined;
      if (e && e.createStart === undefined) {
        e.createStart = c.start;
        e.createEnd = c.end;
        e.containerId = c.result as string;
        ctrToUid.set(e.containerId, uid!);
      }
    } else if (c.method === 'startContainer') {
      const uid = ctrToUid.get(c.arg as string);
      const e = uid ? byUid.get(uid) : undefined;
      if (e && e.startStart === undefined) {
        e.startStart = c.start;
        e.startEnd = c.end;
      }
    }
  }
  const out = new Map<string, Record<PhaseName, number> & { total: number }>();
  for (const n of names) {
    const s = seen.get(n)!;
    const e = byUid.get(s.uid ?? '');
    if (!e || s.created === undefined || s.bound === undefined || s.running === undefined || e.startEnd === undefined) continue;
    // the scheduler may bind before the watch event arrives, the kubelet may even start first: clamp
    const bound = Math.min(s.bound, e.sandboxStart!);
    out.set(n, {
      schedule: bound - s.created,
      kubelet: e.sandboxStart! - bound,
      sandbox: e.sandboxEnd! - e.sandboxStart!,
      image: e.createStart! - e.sandboxEnd!,
      create: e.createEnd! - e.createStart!,
      start: e.startEnd - e.startStart!,
      status: s.running - e.startEnd,
      total: s.running - s.created,
    });
  }
  return out;
}

/**
 * CPU time (ms) of process `pid` so far, from /proc (0 when unreadable): user+system, and
 * with `children` also that of its children it has reaped (runc and CNI plugins run by
 * containerd; runc run by a shim).
 */
function procCpuMs(pid: number | undefined, children = false): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime, stime, cutime, cstime in clock ticks (USER_HZ = 100)
    const ticks = Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
    return (ticks * 1000) / 100;
  } catch {
    return 0;
  }
}

/** PIDs of the containerd shims serving the containerd whose socket is `socket` (they name it in their command line). */
function shimPids(socket: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (argv.includes('containerd-shim') && argv.includes(socket)) out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

/** CPU (ms, incl. reaped children) of the shims of `socket`, keyed by PID, so a later reading can subtract per shim. */
function shimCpu(socket: string): Map<number, number> {
  return new Map(shimPids(socket).map((pid) => [pid, procCpuMs(pid, true)]));
}

function report(seen: Map<string, Seen>, names: string[], calls: CRICall[], wallMs: number): number {
  const totals = names.map((n) => seen.get(n)!.running! - seen.get(n)!.created!);
  const ph = phases(seen, names, calls);
  const rows = [...ph.values()];
  const lines: string[] = [];
  lines.push(
    `pod startup (create → Running seen by a watch), ${names.length} pods, interval ${INTERVAL} ms, wall ${(wallMs / 1000).toFixed(1)} s (${((names.length * 1000) / wallMs).toFixed(1)} pods/s)`,
  );
  lines.push(`  p50 ${f(pct(totals, 50))} ms   p90 ${f(pct(totals, 90))} ms   p99 ${f(pct(totals, 99))} ms   max ${f(Math.max(...totals))} ms   (target p99 ≤ ${TARGET} ms)`);
  lines.push('');
  lines.push(`per phase, ms (${rows.length} pods with a full CRI trace; phases add up to the total)`);
  lines.push(`  ${'phase'.padEnd(10)}${'p50'.padStart(7)}${'p90'.padStart(7)}${'p99'.padStart(7)}${'mean'.padStart(7)}`);
  for (const p of [...PHASES, 'total'] as const) {
    const xs = rows.map((r) => r[p]);
    const mean = xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
    lines.push(`  ${p.padEnd(10)}${f(pct(xs, 50))}${f(pct(xs, 90))}${f(pct(xs, 99))}${f(mean)}`);
  }
  lines.push('');
  lines.push('CRI calls during the run, ms');
  lines.push(`  ${'method'.padEnd(18)}${'count'.padStart(7)}${'p50'.padStart(7)}${'p90'.padStart(7)}${'p99'.padStart(7)}${'max'.padStart(7)}`);
  const byMethod = new Map<string, number[]>();
  for (const c of calls) {
    const xs = byMethod.get(c.method) ?? [];
    byMethod.set(c.method, xs);
    xs.push(c.end - c.start);
  }
  for (const [m, xs] of [...byMethod].sort((a, b) => b[1].length - a[1].length)) {
    lines.push(`  ${m.padEnd(18)}${String(xs.length).padStart(7)}${f(pct(xs, 50))}${f(pct(xs, 90))}${f(pct(xs, 99))}${f(Math.max(...xs))}`);
  }
  console.log(lines.join('\n'));
  return pct(totals, 99);
}

/** What one measured run gives for the summary line. */
interface Measured {
  p99: number;
  /** CPU of this process (API server, scheduler, kubelet) per pod, ms */
  cpuPerPodMs: number;
}

/** Starts a cluster (pod creation trace on or off), runs the warm-up and the measured batch, prints the report. */
async function measure(trace: boolean): Promise<Measured> {
  console.log(`\n=== pod creation trace ${trace ? 'on (as k8ts server by default)' : 'off (--pod-trace=false)'} ===`);
  const load0 = execFileSync('uptime', { encoding: 'utf8' }).trim();
  const cluster = await startContainerdCluster('bench-node', { trace });
  try {
    const image = `${cluster.registry}/k8ts/busybox:1.36`;
    await cluster.runtime.pullImage({ image });
    await cluster.admin.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    // the node must be Ready before the scheduler binds to it
    for (let i = 0; ; i++) {
      const nodes = (await cluster.admin.list(R.nodes, '')).items as { status?: { conditions?: { type: string; status: string }[] } }[];
      if (nodes.some((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))) break;
      if (i > 300) throw new Error('node not Ready');
      await sleep(100);
    }
    if (WARMUP > 0) {
      await runBatch(
        cluster.admin,
        Array.from({ length: WARMUP }, (_, i) => `warmup-${i}`),
        image,
        new Map(),
        60_000,
      );
      await deleteAll(cluster.admin);
    }
    const calls: CRICall[] = [];
    const restore = timeRuntime(cluster.runtime, (c) => calls.push(c));
    const names = Array.from({ length: PODS }, (_, i) => `pod-${String(i).padStart(3, '0')}`);
    const seen = new Map<string, Seen>();
    const ctrdPid = cluster.ctrd.containerd.pid;
    const socket = cluster.ctrd.containerd.paths.socket;
    const cpu0 = { node: process.cpuUsage(), ctrd: procCpuMs(ctrdPid), ctrdKids: procCpuMs(ctrdPid, true) - procCpuMs(ctrdPid), shims: shimCpu(socket) };
    const session = PROFILE ? new Session() : undefined;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    // how long callbacks of this process (API server, scheduler, kubelet) wait for its one thread
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const t0 = performance.now();
    await runBatch(cluster.admin, names, image, seen, 300_000);
    const wall = performance.now() - t0;
    loopDelay.disable();
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(PROFILE!, JSON.stringify(profile));
      session.disconnect();
    }
    const nodeCpu = process.cpuUsage(cpu0.node);
    const ctrdCpu = procCpuMs(ctrdPid) - cpu0.ctrd;
    const ctrdKidsCpu = procCpuMs(ctrdPid, true) - procCpuMs(ctrdPid) - cpu0.ctrdKids;
    let shimsCpu = 0;
    for (const [pid, ms] of shimCpu(socket)) shimsCpu += ms - (cpu0.shims.get(pid) ?? 0);
    restore();
    console.log(`load before: ${load0}`);
    const p99 = report(seen, names, calls, wall);
    const perPod = (x: number): string => `${x.toFixed(0)} ms (${(x / PODS).toFixed(0)}/pod)`;
    console.log(
      `\nCPU during the run: this process (API server, scheduler, kubelet) ${perPod((nodeCpu.user + nodeCpu.system) / 1000)}, containerd ${perPod(ctrdCpu)}, ` +
        `its reaped children (CNI plugins, shim start, runc) ${perPod(ctrdKidsCpu)}, shims with their runc calls ${perPod(shimsCpu)}`,
    );
    const q = (p: number): string => (loopDelay.percentile(p) / 1e6).toFixed(0);
    console.log(`event loop delay of this process, ms: p50 ${q(50)}, p99 ${q(99)}, max ${(loopDelay.max / 1e6).toFixed(0)}`);
    console.log(`load after:  ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
    await deleteAll(cluster.admin);
    return { p99, cpuPerPodMs: (nodeCpu.user + nodeCpu.system) / 1000 / PODS };
  } finally {
    await cluster.stop();
  }
}

const modes = TRACE === 'both' ? [true, false] : [TRACE === 'on'];
const results: Measured[] = [];
for (const m of modes) results.push(await measure(m));
if (results.length === 2) {
  const [on, off] = results as [Measured, Measured];
  console.log(
    `\ntrace on vs off: this process's CPU per pod ${on.cpuPerPodMs.toFixed(1)} vs ${off.cpuPerPodMs.toFixed(1)} ms ` +
      `(${(((on.cpuPerPodMs - off.cpuPerPodMs) / off.cpuPerPodMs) * 100).toFixed(1)} %), p99 ${on.p99.toFixed(0)} vs ${off.p99.toFixed(0)} ms`,
  );
}
process.exit(results.every((r) => r.p99 <= TARGET) ? 0 : 1);

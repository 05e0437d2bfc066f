/**
 * Overhead of the pod creation trace: the same pod-creation run against `k8ts server
 * --runtime sim --sim-nodes 2` (three nodes, room for 330 pods) with the trace on (default) and off (`--pod-trace=false`), back to back
 * (alternating, `--rounds` each): pods created at `--interval` ms by one client, each
 * followed to Running by a watch; prints create→Running p50/p99, the server's CPU per pod
 * (from /proc/<pid>/stat) and the server's RSS, and the difference.
 *
 * With `--attribute`, one more trace-on run under `node --cpu-prof` measures the trace's
 * own cost directly: the share of the server's busy CPU samples whose stack holds a frame of
 * the trace code (src/trace/, src/kubelet/trace.ts, src/scheduler/trace.ts,
 * src/apiserver/filters/trace.ts), mapped through the bundle's source map. Whole-run on/off
 * differences on this machine vary by more than the 3 % target between identical runs.
 *
 * Usage: node --import tsx bench/pod-trace.ts [--pods 200] [--interval 20] [--rounds 2] [--attribute]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { clientFromKubeconfig } from '../src/cli/kubeconfig-load.js';
import { R } from '../src/client/types.js';
import { freePort } from '../test/e2e/harness.js';
import { attribute } from './support/cpu-attribution.js';

const ROOT = new URL('..', import.meta.url).pathname;
/** the trace's code: the recorder and the components' hooks into it */
const TRACE_SOURCES = ['src/trace/', 'src/kubelet/trace.ts', 'src/scheduler/trace.ts', 'src/apiserver/filters/trace.ts'];
const arg = (n: string, d: number): number => {
  const i = process.argv.indexOf(`--${n}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const PODS = arg('pods', 200);
const INTERVAL = arg('interval', 20);
const ROUNDS = arg('rounds', 2);
const TICK = 100; // USER_HZ

const cpuSeconds = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / TICK;
};
const rssMB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const pct = (a: number[], q: number): number => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(q * (a.length - 1) + 0.5))]!;

interface Result {
  p50: number;
  p99: number;
  cpuPerPodMs: number;
  rss: number;
}

async function run(trace: boolean, profileDir?: string): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-bench-trace-'));
  const port = await freePort();
  const proc: ChildProcess = spawn(
    process.execPath,
    [
      ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []),
      join(ROOT, 'dist/k8ts.mjs'),
      'server',
      '--runtime',
      'sim',
      '--data-dir',
      dir,
      '--secure-port',
      String(port),
      '--node-name',
      'bench-node',
      '--sim-nodes',
      '2',
      ...(trace ? [] : ['--pod-trace=false']),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const kc = join(dir, 'kubeconfig.yaml');
  await new Promise<void>((resolve) => proc.stdout!.on('data', (d: Buffer) => d.toString().includes('is running') && resolve()));
  while (!existsSync(kc)) await new Promise((r) => setTimeout(r, 50));
  const { client, transport } = clientFromKubeconfig(kc);
  const created = new Map<string, number>();
  const running = new Map<string, number>();
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const w = client.watch(R.pods, 'default', {}, (e) => {
    const p = e.object as unknown as Pod;
    const n = p.metadata?.name ?? '';
    if (p.status?.phase === 'Running' && created.has(n) && !running.has(n)) {
      running.set(n, performance.now());
      if (running.size === PODS) done();
    }
  });
  const create = async (name: string): Promise<void> => {
    for (;;) {
      try {
        await client.create(R.pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } as never);
        return;
      } catch (e) {
        // the default ServiceAccount may not exist yet right after start
        if (!/serviceaccount/i.test(String(e))) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  // the default ServiceAccount exists (the ServiceAccount admission plugin needs it)
  for (;;) {
    try {
      await client.get(R.serviceaccounts, 'default', 'default');
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await new Promise((r) => setTimeout(r, 1000));
  const cpu0 = cpuSeconds(proc.pid!);
  for (let i = 0; i < PODS; i++) {
    const name = `p-${i}`;
    created.set(name, performance.now());
    void create(name);
    if (INTERVAL) await new Promise((r) => setTimeout(r, INTERVAL));
  }
  await all;
  const cpu = cpuSeconds(proc.pid!) - cpu0;
  const rss = rssMB(proc.pid!);
  w.stop();
  transport.close();
  const lat = [...running].map(([n, t]) => t - created.get(n)!);
  proc.kill('SIGTERM');
  await new Promise((r) => proc.on('exit', r));
  rmSync(dir, { recursive: true, force: true });
  return { p50: pct(lat, 0.5), p99: pct(lat, 0.99), cpuPerPodMs: (cpu * 1000) / PODS, rss };
}

const results: Record<'on' | 'off', Result[]> = { on: [], off: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const mode of r % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
    const x = await run(mode === 'on');
    results[mode].push(x);
    console.log(
      `trace ${mode.padEnd(3)}: ${PODS} pods, create→Running p50 ${x.p50.toFixed(0)} ms p99 ${x.p99.toFixed(0)} ms, server CPU ${x.cpuPerPodMs.toFixed(2)} ms/pod, RSS ${x.rss.toFixed(0)} MB`,
    );
  }
}
const avg = (xs: Result[], k: keyof Result): number => xs.reduce((a, x) => a + x[k], 0) / xs.length;
if (ROUNDS > 0) {
  const on = avg(results.on, 'cpuPerPodMs');
  const off = avg(results.off, 'cpuPerPodMs');
  console.log(`server CPU per pod: on ${on.toFixed(2)} ms, off ${off.toFixed(2)} ms: ${(((on - off) / off) * 100).toFixed(1)} % (target ≤ 3 %)`);
  console.log(
    `create→Running p50: on ${avg(results.on, 'p50').toFixed(0)} ms, off ${avg(results.off, 'p50').toFixed(0)} ms; p99: on ${avg(results.on, 'p99').toFixed(0)} ms, off ${avg(results.off, 'p99').toFixed(0)} ms`,
  );
}

if (process.argv.includes('--attribute')) {
  const profDir = mkdtempSync(join(tmpdir(), 'k8ts-bench-trace-prof-'));
  const x = await run(true, profDir);
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no CPU profile written in ${profDir}`);
  const a = attribute(join(profDir, file), join(ROOT, 'dist/k8ts.mjs.map'), TRACE_SOURCES);
  rmSync(profDir, { recursive: true, force: true });
  console.log(
    `trace code's share of the server's busy CPU (profiled run, ${PODS} pods, ${x.cpuPerPodMs.toFixed(2)} ms/pod): ${(a.share * 100).toFixed(2)} % ` +
      `(${a.matched} of ${a.busy} samples; target ≤ 3 %); garbage collection ${((a.gc / a.busy) * 100).toFixed(1)} % of busy samples, attributed to nobody`,
  );
  for (const [f, n] of Object.entries(a.byFile).sort((l, r) => r[1] - l[1])) console.log(`  ${f}: ${n} samples`);
}

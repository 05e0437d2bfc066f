/**
 * CRI latency on a private containerd (images from a local registry, already pulled):
 * RunPodSandbox / CreateContainer / StartContainer p50 and p99, and the wall time to
 * start pods (sandbox + one container running) one at a time and 10 in parallel.
 *
 * Run: `npm run bench:cri` (root, scripts/install-deps.sh done).
 * Options: `--serial N` pods started one by one (default 10), `--parallel N` pods
 * started together (default 10), `--rounds N` parallel rounds (default 3).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ContainerConfig, PodSandboxConfig } from '../src/cri/api.js';
import { RemoteRuntime } from '../src/cri/remote/remote.js';
import { startRegistry } from '../test/support/registry.js';
import { publishTestImages } from '../test/support/images.js';
import { startTestContainerd } from '../test/support/containerd.js';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : def;
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} wants a positive integer`);
  return v;
}
const SERIAL = arg('serial', 10);
const PARALLEL = arg('parallel', 10);
const ROUNDS = arg('rounds', 3);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
}
const fmt = (ms: number) => ms.toFixed(1).padStart(8);

const registry = await startRegistry();
const images = await publishTestImages(registry.host);
const ctrd = await startTestContainerd({ mirror: registry.host });
const rt = await RemoteRuntime.connect(ctrd.endpoint);
const logRoot = mkdtempSync(join(tmpdir(), 'k8ts-bench-logs-'));
type Lat = { RunPodSandbox: number[]; CreateContainer: number[]; StartContainer: number[] };
const newLat = (): Lat => ({ RunPodSandbox: [], CreateContainer: [], StartContainer: [] });
const serialLat = newLat();
const parallelLat = newLat();

async function startPod(name: string, lat: Lat): Promise<{ sandboxId: string; ms: number }> {
  const uid = randomUUID();
  const logDirectory = join(logRoot, uid);
  mkdirSync(join(logDirectory, 'main'), { recursive: true });
  const sb: PodSandboxConfig = {
    metadata: { name, uid, namespace: 'bench', attempt: 0 },
    hostname: name,
    logDirectory,
    portMappings: [],
    labels: { bench: 'cri' },
    annotations: {},
    linux: { cgroupParent: `${ctrd.cgroupParent}/pod${uid}`, securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } } },
  };
  const c: ContainerConfig = {
    metadata: { name: 'main', attempt: 0 },
    image: { image: images.busybox },
    command: ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 1; done"],
    args: [],
    workingDir: '',
    envs: [],
    mounts: [],
    labels: {},
    annotations: {},
    logPath: 'main/0.log',
    stdin: false,
    stdinOnce: false,
    tty: false,
  };
  const t0 = performance.now();
  const sandboxId = await rt.runPodSandbox(sb);
  const t1 = performance.now();
  const id = await rt.createContainer(sandboxId, c, sb);
  const t2 = performance.now();
  await rt.startContainer(id);
  const t3 = performance.now();
  lat.RunPodSandbox.push(t1 - t0);
  lat.CreateContainer.push(t2 - t1);
  lat.StartContainer.push(t3 - t2);
  return { sandboxId, ms: t3 - t0 };
}

async function removeAll(): Promise<void> {
  const sbs = await rt.listPodSandbox({ labelSelector: { bench: 'cri' } });
  await Promise.all(
    sbs.map(async (s) => {
      await rt.stopPodSandbox(s.id);
      await rt.removePodSandbox(s.id);
    }),
  );
}

try {
  await rt.pullImage({ image: images.busybox });
  await startPod('warmup', newLat()); // pulls the pause image through the mirror
  await removeAll();

  const serial: number[] = [];
  for (let i = 0; i < SERIAL; i++) serial.push((await startPod(`serial-${i}`, serialLat)).ms);
  await removeAll();

  const walls: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    await Promise.all(Array.from({ length: PARALLEL }, (_, i) => startPod(`par-${r}-${i}`, parallelLat)));
    walls.push(performance.now() - t0);
    await removeAll();
  }

  const v = await rt.version();
  console.log(`CRI on ${v.runtimeName} ${v.runtimeVersion} (overlayfs, CNI bridge), image present; ms`);
  console.log(`${'call'.padEnd(34)}${'n'.padStart(5)}${'p50'.padStart(9)}${'p99'.padStart(9)}${'max'.padStart(9)}`);
  for (const [label, lat] of [
    ['1 at a time', serialLat],
    [`${PARALLEL} in parallel`, parallelLat],
  ] as const) {
    for (const [k, xs] of Object.entries(lat)) {
      console.log(`${`${k} (${label})`.padEnd(34)}${String(xs.length).padStart(5)} ${fmt(pct(xs, 50))} ${fmt(pct(xs, 99))} ${fmt(Math.max(...xs))}`);
    }
  }
  console.log(`pod start, 1 at a time   p50 ${fmt(pct(serial, 50))}  p99 ${fmt(pct(serial, 99))}  (n=${serial.length})`);
  console.log(`pod start, ${PARALLEL} in parallel  wall ${walls.map((w) => w.toFixed(0)).join(' / ')} ms over ${ROUNDS} rounds`);
} finally {
  await removeAll().catch(() => {});
  await rt.close();
  await ctrd.stop();
  await registry.stop();
  rmSync(logRoot, { recursive: true, force: true });
}

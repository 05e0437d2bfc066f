/**
 * A private containerd for tests, set up by src/cri/containerd (the same code the
 * agent uses) under a temp dir, with its own bridge, pod subnet and cgroup parent so
 * parallel test files do not collide. `stop()` removes every sandbox and container
 * through CRI, stops containerd by PID, kills its leftover shims by PID, and deletes
 * the bridge, cgroups, CNI cache entries, mounts and files it made.
 *
 * Without root or without a package it needs, `startTestContainerd` throws one line naming
 * what is missing: tests fail, saying so (test/support/deps.ts).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startManagedContainerd, type ManagedContainerd, type ManagedContainerdOptions } from '../../src/cri/containerd/supervisor.js';
import { RemoteRuntime } from '../../src/cri/remote/remote.js';
import { CONTAINERD_PACKAGES, requirePackages, requireRoot } from './deps.js';
import { pidsByCmdline } from './proc.js';
import { makeTempDir, unmountUnder } from './tmp.js';

export interface TestContainerdOptions {
  /** registry `host:port` to use as mirror for docker.io, registry.k8s.io and gcr.io */
  mirror?: string;
  /** pause image (sandbox_image); default registry.k8s.io/pause:3.10 */
  pauseImage?: string;
  /** OCI layout to import as the pause image (offline); else it is pulled (e.g. via `mirror`) */
  pauseImageLayout?: string;
  /** run containerd (so its bridge and pods) in this network namespace file (see ManagedContainerdOptions) */
  netnsPath?: string;
  /** the pod subnet; default: an unused 10.250.N.0/24 */
  podCIDR?: string;
  /** first restart delay after a crash, ms (see ManagedContainerdOptions) */
  restartDelayMs?: number;
  /** the supervisor's started / exited / restarting events (see ManagedContainerdOptions) */
  onEvent?: ManagedContainerdOptions['onEvent'];
}

export interface TestContainerd {
  endpoint: string;
  dataDir: string;
  podCIDR: string;
  bridgeName: string;
  networkName: string;
  /** cgroup parent (cgroupfs path) under which tests put their pods */
  cgroupParent: string;
  containerd: ManagedContainerd;
  stop(): Promise<void>;
}

/** An unused 10.250.N.0/24 (no route on this host points into it). */
function pickPodCIDR(): string {
  const routes = spawnSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' }).stdout ?? '';
  for (let i = 0; i < 64; i++) {
    const n = randomBytes(1)[0]!;
    const cidr = `10.250.${n}.0/24`;
    if (!routes.includes(`10.250.${n}.`)) return cidr;
  }
  throw new Error('no free 10.250.N.0/24 subnet for the test pod network');
}

/** Every cgroup directory for `rel` (cgroup v2: one; v1: one per controller hierarchy). */
function cgroupDirs(rel: string): string[] {
  const root = '/sys/fs/cgroup';
  const roots = existsSync(join(root, 'cgroup.controllers')) ? [root] : readdirSync(root).map((c) => join(root, c));
  return roots.map((r) => join(r, rel.replace(/^\//, ''))).filter((d) => existsSync(d));
}

/** PIDs in the cgroup subtree `rel` (our containers and pause processes). */
export function pidsInCgroup(rel: string): number[] {
  const pids = new Set<number>();
  const walk = (d: string) => {
    try {
      for (const l of readFileSync(join(d, 'cgroup.procs'), 'utf8').split('\n')) if (l) pids.add(Number(l));
      for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(join(d, e.name));
    } catch {
      // removed meanwhile
    }
  };
  for (const d of cgroupDirs(rel)) walk(d);
  return [...pids];
}

function removeCgroupTree(rel: string): void {
  const rmTree = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) rmTree(join(d, e.name));
    try {
      rmdirSync(d);
    } catch {
      // still has processes: left for the kernel to report
    }
  };
  for (const d of cgroupDirs(rel)) rmTree(d);
}

function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/**
 * Starts a private containerd (root only).
 * @throws Error when not root, when a package it needs is missing (one line naming it and
 *   `sudo scripts/install-deps.sh`), or when containerd does not come up.
 */
export async function startTestContainerd(o: TestContainerdOptions = {}): Promise<TestContainerd> {
  requirePackages(CONTAINERD_PACKAGES, 'the test containerd');
  requireRoot('the test containerd');
  const suffix = randomBytes(3).toString('hex');
  const dir = makeTempDir('k8ts-ctrd-');
  const podCIDR = o.podCIDR ?? pickPodCIDR();
  const bridgeName = `k8t-${suffix}`;
  const networkName = `k8ts-test-${suffix}`;
  const cgroupParent = `/k8ts-test-${suffix}`;
  let registriesFile: string | undefined;
  if (o.mirror) {
    registriesFile = join(dir.path, 'registries.yaml');
    writeFileSync(
      registriesFile,
      `mirrors:\n  docker.io:\n    endpoint: ["http://${o.mirror}"]\n  registry.k8s.io:\n    endpoint: ["http://${o.mirror}"]\n  gcr.io:\n    endpoint: ["http://${o.mirror}"]\n`,
    );
  }
  let containerd: ManagedContainerd;
  try {
    containerd = await startManagedContainerd({
      dataDir: dir.path,
      podCIDR,
      pauseImage: o.pauseImage ?? 'registry.k8s.io/pause:3.10',
      pauseImageLayout: o.pauseImageLayout,
      registriesFile,
      bridgeName,
      networkName,
      restartDelayMs: o.restartDelayMs,
      onEvent: o.onEvent,
      netnsPath: o.netnsPath,
    });
  } catch (err) {
    await cleanupHost();
    dir.remove();
    throw err;
  }

  /**
   * Safety net for what CRI could not remove (containerd dead or wedged): container
   * processes in our cgroup tree, then our shims (found by their -address), netns
   * and rootfs mounts under the data dir, the bridge, cgroups, CNI result cache entries.
   */
  async function cleanupHost() {
    const socket = join(dir.path, 'containerd', 'containerd.sock');
    const shims = pidsByCmdline('containerd-shim', socket);
    const ids = new Set<string>();
    for (const pid of shims) {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const i = argv.indexOf('-id');
        if (i >= 0 && argv[i + 1]) ids.add(argv[i + 1]!);
      } catch {
        // gone
      }
    }
    for (let i = 0; i < 20; i++) {
      const pids = pidsInCgroup(cgroupParent);
      if (pids.length === 0) break;
      killPids(pids);
      await new Promise((r) => setTimeout(r, 50));
    }
    killPids(shims);
    unmountUnder(dir.path);
    spawnSync('ip', ['link', 'del', bridgeName], { stdio: 'ignore' });
    removeCgroupTree(cgroupParent);
    const results = '/var/lib/cni/results';
    if (existsSync(results)) {
      for (const f of readdirSync(results)) {
        if (f.startsWith(`${networkName}-`) || [...ids].some((id) => f.includes(`-${id}-`))) rmSync(join(results, f), { force: true });
      }
    }
  }

  return {
    endpoint: containerd.endpoint,
    dataDir: dir.path,
    podCIDR,
    bridgeName,
    networkName,
    cgroupParent,
    containerd,
    async stop() {
      try {
        const rt = await RemoteRuntime.connect(containerd.endpoint, { waitMs: 2000, requestTimeoutMs: 30_000 });
        try {
          for (const s of await rt.listPodSandbox()) {
            await rt.stopPodSandbox(s.id).catch(() => {});
            await rt.removePodSandbox(s.id).catch(() => {});
          }
        } finally {
          await rt.close();
        }
      } catch {
        // containerd already gone: the host cleanup below still runs
      }
      await containerd.stop();
      await cleanupHost();
      dir.remove();
    },
  };
}

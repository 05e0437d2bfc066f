/**
 * Pod-level cgroups, as upstream's podContainerManager with the cgroupfs driver and
 * cgroupsPerQOS: every pod gets `<cgroupRoot>/kubepods[/burstable|/besteffort]/pod<uid>`
 * (Guaranteed pods sit directly under `kubepods`), which the kubelet creates with the
 * pod's aggregate limits before RunPodSandbox (it becomes the sandbox's cgroup_parent)
 * and removes once the pod is gone; containerd and runc only ever remove the
 * containers' own cgroups below it.
 *
 * Pod limits (upstream ResourceConfigForPod): cpu shares from the summed cpu requests
 * (at least 2), a CFS quota only when every container has a cpu limit, a memory limit
 * only when every container has a memory limit; BestEffort pods get 2 shares and no
 * limits. Both cgroup v1 (one directory per controller hierarchy) and the unified v2
 * hierarchy are handled.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/cm/pod_container_manager_linux.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/cm/helpers_linux.go
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { milliOf, podLimits, podRequests, valueOf } from '../../api/core/v1/helpers/resources.js';
import { getPodQOS } from '../../api/core/v1/helpers/qos.js';
import { milliCPUToQuota, milliCPUToShares, QUOTA_PERIOD_US } from '../kuberuntime/resources.js';

/** The limits written to a pod cgroup; undefined = unlimited. */
interface PodResourceConfig {
  cpuShares: number;
  /** µs per `cpuPeriod` */
  cpuQuota?: number;
  /** µs */
  cpuPeriod?: number;
  /** bytes */
  memoryLimit?: number;
}

/** Upstream ResourceConfigForPod (without pids and hugepages). */
export function podResourceConfig(pod: Pod): PodResourceConfig {
  const qos = getPodQOS(pod);
  if (qos === 'BestEffort') return { cpuShares: milliCPUToShares(0) };
  const req = podRequests(pod);
  const lim = podLimits(pod);
  const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const cpuLimited = all.every((c) => c.resources?.limits?.cpu !== undefined);
  const memLimited = all.every((c) => c.resources?.limits?.memory !== undefined);
  const out: PodResourceConfig = { cpuShares: milliCPUToShares(milliOf(req, 'cpu')) };
  if (cpuLimited) {
    out.cpuPeriod = QUOTA_PERIOD_US;
    out.cpuQuota = milliCPUToQuota(milliOf(lim, 'cpu'), QUOTA_PERIOD_US);
  }
  if (memLimited) out.memoryLimit = valueOf(lim, 'memory');
  return out;
}

/** v1 controllers the kubelet writes pod limits into (others are created by runc as needed). */
const V1_CONTROLLERS = ['cpu', 'cpuacct', 'memory', 'pids'] as const;

/** cgroup v1 cpu.shares → v2 cpu.weight (runc's ConvertCPUSharesToCgroupV2Value). */
export function sharesToWeight(shares: number): number {
  if (shares === 0) return 0;
  return 1 + Math.floor(((shares - 2) * 9999) / 262142);
}

export class PodCgroups {
  private readonly v2: boolean;

  /**
   * @param cgroupRoot upstream `--cgroup-root`, e.g. "/" or "/k8ts-test-1a2b3c"
   * @param fsRoot where the cgroup filesystems are mounted (tests pass a temp dir)
   */
  private readonly fsRoot: string;
  private readonly rmdir: (dir: string) => void;

  /**
   * @param cgroupRoot upstream `--cgroup-root`, e.g. "/" or "/k8ts-test-1a2b3c"
   * @param o.fsRoot where the cgroup filesystems are mounted (default /sys/fs/cgroup; tests pass a temp dir)
   * @param o.rmdir removes one empty cgroup directory (default fs.rmdirSync)
   */
  constructor(
    readonly cgroupRoot: string,
    o: { fsRoot?: string; rmdir?: (dir: string) => void } = {},
  ) {
    this.fsRoot = o.fsRoot ?? '/sys/fs/cgroup';
    this.rmdir = o.rmdir ?? ((d) => fs.rmdirSync(d));
    this.v2 = fs.existsSync(path.join(this.fsRoot, 'cgroup.controllers'));
  }

  /** `<root>/kubepods` */
  get kubepods(): string {
    return path.posix.join('/', this.cgroupRoot, 'kubepods');
  }

  /** The pod's cgroup as a cgroupfs path (the sandbox's cgroup_parent). */
  podCgroup(pod: Pod): string {
    const qos = getPodQOS(pod);
    const uid = pod.metadata?.uid ?? '';
    if (qos === 'Guaranteed') return path.posix.join(this.kubepods, `pod${uid}`);
    return path.posix.join(this.kubepods, qos.toLowerCase(), `pod${uid}`);
  }

  /** [controller, directory] of every hierarchy for the cgroupfs path `rel` (v2: one, "v2"; v1: one per mounted hierarchy). */
  private hierarchies(rel: string, only?: readonly string[]): [string, string][] {
    if (this.v2) return [['v2', path.join(this.fsRoot, rel)]];
    let names = this.v1Names();
    if (only) names = names.filter((n) => only.includes(n));
    return names.map((n) => [n, path.join(this.fsRoot, n, rel)]);
  }

  private v1Hierarchies: string[] | undefined;

  /** The mounted v1 hierarchies (directories, not the cpu,cpuacct-style symlinks); read once, they do not change while we run. */
  private v1Names(): string[] {
    if (this.v1Hierarchies) return this.v1Hierarchies;
    try {
      const names = fs.readdirSync(this.fsRoot).filter((n) => {
        try {
          return !fs.lstatSync(path.join(this.fsRoot, n)).isSymbolicLink();
        } catch {
          return false;
        }
      });
      if (names.length) this.v1Hierarchies = names;
      return names;
    } catch {
      return [];
    }
  }

  private dirs(rel: string, only?: readonly string[]): string[] {
    return this.hierarchies(rel, only).map(([, d]) => d);
  }

  /**
   * Creates the pod's cgroup with its limits unless it exists; returns its cgroupfs path.
   * Asynchronous (cgroupfs writes can be slow on a busy host; the event loop keeps going).
   * The common cases take one round trip through the fs thread pool per hierarchy: the
   * recursive mkdir itself tells whether the directory was there already (v1).
   * @throws Error when the cgroup filesystem refuses (not root, read-only cgroupfs)
   */
  async ensure(pod: Pod): Promise<string> {
    const rel = this.podCgroup(pod);
    const hs = this.hierarchies(rel, V1_CONTROLLERS);
    if (this.v2) {
      if (hs.length && (await Promise.all(hs.map(([, d]) => exists(d)))).every(Boolean)) return rel;
      await this.enableV2Controllers(rel); // creates the directories level by level
    } else {
      // mkdir -p answers the first directory it created: undefined when the cgroup existed
      const created = await Promise.all(hs.map(([, d]) => fsp.mkdir(d, { recursive: true })));
      if (hs.length && created.every((c) => c === undefined)) return rel;
    }
    const cfg = podResourceConfig(pod);
    await Promise.all(hs.map(([ctl, d]) => this.writeLimits(d, ctl, cfg)));
    return rel;
  }

  private async enableV2Controllers(rel: string): Promise<void> {
    const parts = rel.split('/').filter(Boolean);
    let cur = this.fsRoot;
    for (const p of parts) {
      const ctl = path.join(cur, 'cgroup.subtree_control');
      for (const c of ['cpu', 'memory', 'pids']) {
        try {
          await fsp.writeFile(ctl, `+${c}`);
        } catch {
          // not available in this subtree: the limit is simply not enforced
        }
      }
      cur = path.join(cur, p);
      await fsp.mkdir(cur, { recursive: true });
    }
  }

  private async writeLimits(dir: string, controller: string, cfg: PodResourceConfig): Promise<void> {
    const w = async (file: string, v: string | number): Promise<void> => {
      try {
        await fsp.writeFile(path.join(dir, file), String(v));
      } catch {
        // a controller file this kernel lacks (e.g. no CFS bandwidth control)
      }
    };
    if (controller === 'v2') {
      await w('cpu.weight', sharesToWeight(cfg.cpuShares));
      if (cfg.cpuQuota !== undefined) await w('cpu.max', `${cfg.cpuQuota} ${cfg.cpuPeriod}`);
      if (cfg.memoryLimit !== undefined) await w('memory.max', cfg.memoryLimit);
      return;
    }
    if (controller === 'cpu') {
      await w('cpu.shares', cfg.cpuShares);
      if (cfg.cpuQuota !== undefined) {
        await w('cpu.cfs_period_us', cfg.cpuPeriod!);
        await w('cpu.cfs_quota_us', cfg.cpuQuota);
      }
    } else if (controller === 'memory' && cfg.memoryLimit !== undefined) await w('memory.limit_in_bytes', cfg.memoryLimit);
  }

  /** Whether a cgroup of pod `uid` exists (in any QoS class). */
  exists(uid: string): boolean {
    return this.cgroupsOf(uid).some((rel) => this.dirs(rel).some((d) => fs.existsSync(d)));
  }

  private cgroupsOf(uid: string): string[] {
    return ['', 'burstable', 'besteffort'].map((q) => path.posix.join(this.kubepods, q, `pod${uid}`));
  }

  /**
   * Kills what still runs in pod `uid`'s cgroups (SIGKILL, as upstream's
   * tryKillingCgroupProcesses) and removes them, deepest first. Returns false when a
   * directory could not be removed yet (processes still exiting): call again later.
   */
  remove(uid: string): boolean {
    let ok = true;
    for (const rel of this.cgroupsOf(uid)) {
      for (const d of this.dirs(rel)) {
        if (!fs.existsSync(d)) continue;
        for (const pid of pidsUnder(d)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        if (!this.rmTree(d)) ok = false;
      }
    }
    return ok;
  }

  /** rmdir of a cgroup tree, children first (cgroupfs directories are removed with rmdir only). */
  private rmTree(dir: string): boolean {
    let ok = true;
    try {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory() && !this.rmTree(path.join(dir, e.name))) ok = false;
      this.rmdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') ok = false;
    }
    return ok;
  }

  /** UIDs that have a pod cgroup (for orphan cleanup after a kubelet restart). */
  podsOnDisk(): string[] {
    const out = new Set<string>();
    for (const q of ['', 'burstable', 'besteffort']) {
      for (const d of this.dirs(path.posix.join(this.kubepods, q), V1_CONTROLLERS)) {
        try {
          for (const n of fs.readdirSync(d)) if (n.startsWith('pod')) out.add(n.slice(3));
        } catch {
          // no such hierarchy yet
        }
      }
    }
    return [...out];
  }
}

function pidsUnder(dir: string): number[] {
  const out: number[] = [];
  const walk = (d: string): void => {
    try {
      for (const l of fs.readFileSync(path.join(d, 'cgroup.procs'), 'utf8').split('\n')) if (l) out.push(Number(l));
      for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
    } catch {
      // removed meanwhile
    }
  };
  walk(dir);
  return out;
}

function exists(p: string): Promise<boolean> {
  return fsp.access(p).then(
    () => true,
    () => false,
  );
}

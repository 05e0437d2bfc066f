/**
 * Statistics of real containers from the cgroup filesystem, as cAdvisor reads them for
 * the kubelet: a container's cgroup is `<pod cgroup>/<container id>` (the kubelet's pod
 * cgroup under `--cgroup-root`, cgroupfs driver); CPU is the cumulative usage
 * (v2 `cpu.stat` usage_usec, v1 `cpuacct.usage`), the working set is the memory usage less
 * the inactive file cache (v2 `memory.current` − `inactive_file`, v1
 * `memory.usage_in_bytes` − `total_inactive_file`). The node's figures come from the root
 * cgroup (v1) or from /proc/stat and /proc/meminfo (v2, whose root has no usage files).
 *
 * @see https://github.com/google/cadvisor/blob/master/container/libcontainer/handler.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/stats/cadvisor_stats_provider.go
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { PodCgroups } from '../cm/pod-cgroups.js';
import type { ContainerStats, CPUStats, MemoryStats, PodStats, StatsProvider, Summary } from './types.js';

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

async function readNumber(file: string): Promise<number | undefined> {
  try {
    const n = Number((await readFile(file, 'utf8')).trim());
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

/** `key value` lines of a cgroup stat file. */
async function readStat(file: string): Promise<Map<string, number>> {
  const m = new Map<string, number>();
  try {
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      const [k, v] = line.trim().split(/\s+/);
      if (k && v !== undefined) m.set(k, Number(v));
    }
  } catch {
    // missing: empty
  }
  return m;
}

export interface CgroupStatsOptions {
  nodeName: string;
  /** the pods the kubelet runs, with the kubelet's status */
  pods: () => Pod[];
  /** upstream --cgroup-root */
  cgroupRoot: string;
  /** where cgroup filesystems are mounted (default /sys/fs/cgroup; tests pass a temp dir) */
  fsRoot?: string;
  /** where /proc is (default /proc) */
  procRoot?: string;
  now?: () => number;
}

export class CgroupStatsProvider implements StatsProvider {
  private readonly fsRoot: string;
  private readonly v2: boolean;
  private readonly cgroups: PodCgroups;
  private readonly startTime = Date.now();

  constructor(private readonly o: CgroupStatsOptions) {
    this.fsRoot = o.fsRoot ?? '/sys/fs/cgroup';
    this.v2 = existsSync(join(this.fsRoot, 'cgroup.controllers'));
    this.cgroups = new PodCgroups(o.cgroupRoot, { fsRoot: this.fsRoot });
  }

  /** CPU and memory of the cgroupfs path `rel`, or undefined when it is gone. */
  private async cgroup(rel: string, time: string): Promise<{ cpu: CPUStats; memory: MemoryStats } | undefined> {
    let cpuNs: number | undefined;
    let usage: number | undefined;
    let inactive: number;
    if (this.v2) {
      const dir = join(this.fsRoot, rel);
      const cpu = await readStat(join(dir, 'cpu.stat'));
      const us = cpu.get('usage_usec');
      cpuNs = us === undefined ? undefined : us * 1000;
      usage = await readNumber(join(dir, 'memory.current'));
      inactive = (await readStat(join(dir, 'memory.stat'))).get('inactive_file') ?? 0;
    } else {
      cpuNs = await readNumber(join(this.fsRoot, 'cpuacct', rel, 'cpuacct.usage'));
      usage = await readNumber(join(this.fsRoot, 'memory', rel, 'memory.usage_in_bytes'));
      inactive = (await readStat(join(this.fsRoot, 'memory', rel, 'memory.stat'))).get('total_inactive_file') ?? 0;
    }
    if (cpuNs === undefined || usage === undefined) return undefined;
    return { cpu: { time, usageCoreNanoSeconds: cpuNs }, memory: { time, workingSetBytes: Math.max(0, usage - inactive), usageBytes: usage } };
  }

  private async node(time: string): Promise<{ cpu?: CPUStats; memory?: MemoryStats }> {
    if (!this.v2) {
      const root = await this.cgroup('/', time);
      if (root) return root;
    }
    const proc = this.o.procRoot ?? '/proc';
    const out: { cpu?: CPUStats; memory?: MemoryStats } = {};
    try {
      const first = (await readFile(join(proc, 'stat'), 'utf8')).split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
      // user nice system idle iowait irq softirq steal: busy time in USER_HZ (100/s)
      const busy = first[0]! + first[1]! + first[2]! + (first[5] ?? 0) + (first[6] ?? 0) + (first[7] ?? 0);
      out.cpu = { time, usageCoreNanoSeconds: busy * 1e7 };
    } catch {
      // no /proc/stat
    }
    try {
      const kv = new Map<string, number>();
      for (const l of (await readFile(join(proc, 'meminfo'), 'utf8')).split('\n')) {
        const m = /^([^:]+):\s+(\d+)/.exec(l);
        if (m) kv.set(m[1]!, Number(m[2]) * 1024);
      }
      const total = kv.get('MemTotal') ?? 0;
      const used = total - (kv.get('MemFree') ?? 0);
      out.memory = { time, workingSetBytes: Math.max(0, used - (kv.get('Inactive(file)') ?? 0)), usageBytes: used };
    } catch {
      // no /proc/meminfo
    }
    return out;
  }

  async summary(): Promise<Summary> {
    const t = (this.o.now ?? Date.now)();
    // the sample time keeps its milliseconds: rates are computed between samples
    const time = new Date(t).toISOString();
    const pods: PodStats[] = [];
    for (const pod of this.o.pods()) {
      const parent = this.cgroups.podCgroup(pod);
      const containers: ContainerStats[] = [];
      for (const cs of pod.status?.containerStatuses ?? []) {
        const started = cs.state?.running?.startedAt;
        const id = cs.containerID?.replace(/^[a-z]+:\/\//, '');
        if (!started || !id) continue;
        const st = await this.cgroup(`${parent}/${id}`, time);
        if (st) containers.push({ name: cs.name, startTime: started, ...st });
      }
      if (!containers.length) continue;
      const podStats = await this.cgroup(parent, time);
      pods.push({
        podRef: { name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '', uid: pod.metadata?.uid ?? '' },
        startTime: pod.status?.startTime ?? containers[0]!.startTime,
        containers,
        ...(podStats ?? {}),
      });
    }
    return { node: { nodeName: this.o.nodeName, startTime: rfc3339(this.startTime), ...(await this.node(time)) }, pods };
  }
}

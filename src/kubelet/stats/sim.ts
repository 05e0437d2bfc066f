/**
 * Synthetic statistics for the simulated runtime, whose containers run no processes:
 * every running container uses a steady CPU rate and a constant working set — by default
 * 1m CPU and 4 MiB, or what the pod's annotations `sim.k8ts.io/cpu-usage` and
 * `sim.k8ts.io/memory-usage` say (quantities, per container), so tests can drive
 * `kubectl top` and the HPA. The cumulative CPU time integrates the rate over time, so a
 * changed annotation changes the rate from then on without the counter going back. The
 * node reports its pods' sums plus a base of 50m and 256 MiB. The `/metrics/resource`
 * exposition names the figures synthetic in a comment line.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { milliValue, tryParseQuantity, value } from '../../apimachinery/quantity.js';
import type { ContainerStats, PodStats, StatsProvider, Summary } from './types.js';

/** Annotation with the synthetic CPU usage of each of the pod's containers (a quantity, e.g. `250m`). */
export const SIM_CPU_USAGE_ANNOTATION = 'sim.k8ts.io/cpu-usage';
/** Annotation with the synthetic memory working set of each of the pod's containers (a quantity, e.g. `64Mi`). */
export const SIM_MEMORY_USAGE_ANNOTATION = 'sim.k8ts.io/memory-usage';
/** The comment line of the simulated runtime's `/metrics/resource`. */
export const SIM_METRICS_COMMENT = 'k8ts: synthetic figures of the simulated runtime (no processes run)';

const DEFAULT_CPU_NANOCORES = 1e6; // 1m
const DEFAULT_MEMORY_BYTES = 4 * 1024 * 1024;
const NODE_BASE_NANOCORES = 50e6;
const NODE_BASE_MEMORY = 256 * 1024 * 1024;

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class SimStatsProvider implements StatsProvider {
  /** container key → [last reading ms, cumulative ns] */
  private readonly cpu = new Map<string, [number, number]>();
  private nodeCum = 0;
  private nodeLast: number;

  /**
   * @param pods the pods the kubelet runs, with the kubelet's status
   * @param now ms since epoch
   */
  constructor(
    private readonly nodeName: string,
    private readonly pods: () => Pod[],
    private readonly now: () => number = Date.now,
    private readonly startTime: number = Date.now(),
  ) {
    this.nodeLast = now();
  }

  async summary(): Promise<Summary> {
    const t = this.now();
    // the sample time keeps its milliseconds: rates are computed between samples
    const time = new Date(t).toISOString();
    const seen = new Set<string>();
    const pods: PodStats[] = [];
    let nodeRate = NODE_BASE_NANOCORES;
    let nodeMem = NODE_BASE_MEMORY;
    for (const pod of this.pods()) {
      const ann = pod.metadata?.annotations ?? {};
      const cpuQ = tryParseQuantity(ann[SIM_CPU_USAGE_ANNOTATION] ?? '');
      const memQ = tryParseQuantity(ann[SIM_MEMORY_USAGE_ANNOTATION] ?? '');
      const rate = cpuQ ? milliValue(cpuQ) * 1e6 : DEFAULT_CPU_NANOCORES;
      const mem = memQ ? value(memQ) : DEFAULT_MEMORY_BYTES;
      const containers: ContainerStats[] = [];
      for (const cs of pod.status?.containerStatuses ?? []) {
        const started = cs.state?.running?.startedAt;
        if (!started || !cs.containerID) continue;
        const key = `${pod.metadata?.uid}/${cs.name}/${cs.containerID}`;
        seen.add(key);
        const startMs = Date.parse(started);
        const prev = this.cpu.get(key) ?? [startMs, 0];
        const cum = prev[1] + (rate * Math.max(0, t - prev[0])) / 1000;
        this.cpu.set(key, [t, cum]);
        containers.push({ name: cs.name, startTime: started, cpu: { time, usageCoreNanoSeconds: Math.round(cum), usageNanoCores: rate }, memory: { time, workingSetBytes: mem } });
      }
      if (!containers.length) continue;
      nodeRate += rate * containers.length;
      nodeMem += mem * containers.length;
      pods.push({
        podRef: { name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '', uid: pod.metadata?.uid ?? '' },
        startTime: pod.status?.startTime ?? containers[0]!.startTime,
        containers,
        cpu: { time, usageCoreNanoSeconds: containers.reduce((s, c) => s + c.cpu!.usageCoreNanoSeconds, 0), usageNanoCores: rate * containers.length },
        memory: { time, workingSetBytes: mem * containers.length },
      });
    }
    for (const k of [...this.cpu.keys()]) if (!seen.has(k)) this.cpu.delete(k);
    this.nodeCum += (nodeRate * Math.max(0, t - this.nodeLast)) / 1000;
    this.nodeLast = t;
    return {
      node: {
        nodeName: this.nodeName,
        startTime: rfc3339(this.startTime),
        cpu: { time, usageCoreNanoSeconds: Math.round(this.nodeCum), usageNanoCores: nodeRate },
        memory: { time, workingSetBytes: nodeMem },
      },
      pods,
    };
  }
}

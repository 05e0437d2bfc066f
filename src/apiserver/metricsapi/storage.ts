/**
 * The metrics API's samples, as metrics-server keeps them: the kubelets' `/metrics/resource`
 * decoded into points (start time, sample time, cumulative CPU, working set) and, per node
 * and per container, the last and the previous point; usage is the CPU rate between them
 * (nano-cores, over the window between the two samples) and the last working set. A
 * container started less than one resolution ago (but at least 10 s) gets a zero point at
 * its start time as its previous one, so a new pod has metrics after one scrape.
 *
 * @see https://github.com/kubernetes-sigs/metrics-server/blob/v0.7.2/pkg/storage/node.go
 * @see https://github.com/kubernetes-sigs/metrics-server/blob/v0.7.2/pkg/storage/pod.go
 * @see https://github.com/kubernetes-sigs/metrics-server/blob/v0.7.2/pkg/scraper/client/resource/decode.go
 */
import { formatQuantity, newQuantity, newScaledQuantity } from '../../apimachinery/quantity.js';

/** One sample of a node or container. */
export interface MetricsPoint {
  /** ms since epoch */
  startTime: number;
  /** ms since epoch */
  timestamp: number;
  /** ns */
  cumulativeCPU: number;
  /** bytes */
  memory: number;
}

/** One kubelet's scrape: the node and its pods' containers (`namespace/name` → container → point). */
export interface MetricsBatch {
  node?: MetricsPoint;
  pods: Map<string, Map<string, MetricsPoint>>;
}

/** A usage figure as the API serves it. */
export interface Usage {
  cpu: string;
  memory: string;
  /** ms since epoch */
  timestamp: number;
  /** ms */
  window: number;
}

const FRESH_CONTAINER_MIN_MS = 10_000;

/** Parses `name{labels} value [timestamp]` lines of the Prometheus text format into a batch. */
export function decodeResourceMetrics(text: string, nodeStart = 0): MetricsBatch {
  const batch: MetricsBatch = { pods: new Map() };
  const node: Partial<MetricsPoint> = {};
  const containers = new Map<string, Partial<MetricsPoint>>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})?\s+(\S+)(?:\s+(-?\d+))?$/.exec(line);
    if (!m) continue;
    const [, name, labelText, valueText, ts] = m;
    const value = Number(valueText);
    if (!Number.isFinite(value)) continue;
    const labels: Record<string, string> = {};
    for (const lm of (labelText ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[lm[1]!] = lm[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    const time = ts === undefined ? undefined : Number(ts);
    const key = `${labels.namespace}/${labels.pod}/${labels.container}`;
    const cont = (): Partial<MetricsPoint> => {
      let c = containers.get(key);
      if (!c) containers.set(key, (c = {}));
      return c;
    };
    switch (name) {
      case 'node_cpu_usage_seconds_total':
        node.cumulativeCPU = Math.round(value * 1e9);
        node.timestamp = time;
        break;
      case 'node_memory_working_set_bytes':
        node.memory = value;
        node.timestamp ??= time;
        break;
      case 'container_cpu_usage_seconds_total':
        cont().cumulativeCPU = Math.round(value * 1e9);
        cont().timestamp = time;
        break;
      case 'container_memory_working_set_bytes':
        cont().memory = value;
        cont().timestamp ??= time;
        break;
      case 'container_start_time_seconds':
        cont().startTime = Math.round(value * 1000);
        break;
    }
  }
  if (node.cumulativeCPU !== undefined && node.memory !== undefined && node.timestamp !== undefined) {
    batch.node = { startTime: nodeStart, timestamp: node.timestamp, cumulativeCPU: node.cumulativeCPU, memory: node.memory };
  }
  for (const [key, c] of containers) {
    if (c.cumulativeCPU === undefined || c.memory === undefined || c.timestamp === undefined) continue;
    const [ns, pod, container] = key.split('/');
    const podKey = `${ns}/${pod}`;
    let p = batch.pods.get(podKey);
    if (!p) batch.pods.set(podKey, (p = new Map()));
    p.set(container!, { startTime: c.startTime ?? 0, timestamp: c.timestamp, cumulativeCPU: c.cumulativeCPU, memory: c.memory });
  }
  return batch;
}

/** Usage between two points (metrics-server resourceUsage); undefined when the counters went back. */
export function resourceUsage(last: MetricsPoint, prev: MetricsPoint): Usage | undefined {
  if (last.startTime < prev.startTime || last.cumulativeCPU < prev.cumulativeCPU) return undefined;
  const window = last.timestamp - prev.timestamp;
  if (window <= 0) return undefined;
  const nanocores = Math.floor((last.cumulativeCPU - prev.cumulativeCPU) / (window / 1000));
  return {
    cpu: formatQuantity(newScaledQuantity(nanocores, -9)),
    memory: formatQuantity(newQuantity(Math.round(last.memory), 'BinarySI')),
    timestamp: last.timestamp,
    window,
  };
}

/** Last and previous points of every node and container, replaced by each round of scrapes. */
export class MetricsStorage {
  private lastNodes = new Map<string, MetricsPoint>();
  private prevNodes = new Map<string, MetricsPoint>();
  private lastPods = new Map<string, Map<string, MetricsPoint>>();
  private prevPods = new Map<string, Map<string, MetricsPoint>>();

  /** @param resolutionMs the scrape period (metrics-server --metric-resolution) */
  constructor(private readonly resolutionMs: number) {}

  /** Stores one round: every node's batch (a node missing from `batches` loses its points). */
  store(batches: Map<string, MetricsBatch>): void {
    const lastNodes = new Map<string, MetricsPoint>();
    const prevNodes = new Map<string, MetricsPoint>();
    const lastPods = new Map<string, Map<string, MetricsPoint>>();
    const prevPods = new Map<string, Map<string, MetricsPoint>>();
    for (const [nodeName, b] of batches) {
      if (b.node) {
        lastNodes.set(nodeName, b.node);
        const old = this.lastNodes.get(nodeName);
        const oldPrev = this.prevNodes.get(nodeName);
        if (old && b.node.timestamp > old.timestamp) prevNodes.set(nodeName, old);
        else if (oldPrev && oldPrev.timestamp < b.node.timestamp) prevNodes.set(nodeName, oldPrev);
      }
      for (const [podKey, containers] of b.pods) {
        lastPods.set(podKey, containers);
        const prev = new Map<string, MetricsPoint>();
        for (const [name, point] of containers) {
          const age = point.timestamp - point.startTime;
          const oldLast = this.lastPods.get(podKey)?.get(name);
          const oldPrev = this.prevPods.get(podKey)?.get(name);
          if (point.startTime < point.timestamp && age < this.resolutionMs && age >= FRESH_CONTAINER_MIN_MS) {
            prev.set(name, { ...point, timestamp: point.startTime, cumulativeCPU: 0 });
          } else if (oldLast && point.startTime < oldLast.timestamp) {
            if (point.timestamp > oldLast.timestamp) prev.set(name, oldLast);
            else if (oldPrev && oldPrev.timestamp < point.timestamp) prev.set(name, oldPrev);
          }
        }
        if (prev.size) prevPods.set(podKey, prev);
      }
    }
    this.lastNodes = lastNodes;
    this.prevNodes = prevNodes;
    this.lastPods = lastPods;
    this.prevPods = prevPods;
  }

  /** The node's usage, or undefined until two samples exist. */
  node(name: string): Usage | undefined {
    const last = this.lastNodes.get(name);
    const prev = this.prevNodes.get(name);
    return last && prev ? resourceUsage(last, prev) : undefined;
  }

  /**
   * The pod's containers' usage and the earliest sample's time and window, or undefined
   * while some container lacks two samples (metrics-server reports a pod whole or not at all).
   */
  pod(namespace: string, name: string): { containers: { name: string; usage: { cpu: string; memory: string } }[]; timestamp: number; window: number } | undefined {
    const key = `${namespace}/${name}`;
    const last = this.lastPods.get(key);
    const prev = this.prevPods.get(key);
    if (!last || !prev) return undefined;
    const containers: { name: string; usage: { cpu: string; memory: string } }[] = [];
    let earliest: Usage | undefined;
    for (const [c, point] of last) {
      const p = prev.get(c);
      if (!p) return undefined;
      const u = resourceUsage(point, p);
      if (!u) continue;
      containers.push({ name: c, usage: { cpu: u.cpu, memory: u.memory } });
      if (!earliest || earliest.timestamp > u.timestamp) earliest = u;
    }
    if (!earliest) return undefined;
    return { containers, timestamp: earliest.timestamp, window: earliest.window };
  }
}

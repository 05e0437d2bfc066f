/**
 * The kubelet's `/metrics/resource` endpoint (upstream's resource metrics collector, all
 * series STABLE since v1.29): the node's, each pod's and each container's cumulative CPU
 * seconds and memory working set, with the sample's time in milliseconds, and the
 * containers' start times — in the Prometheus text format metrics-server scrapes.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/metrics/collectors/resource_metrics.go
 */
import type { Summary } from './types.js';

/** Prometheus text exposition's content type. */
export const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

const ms = (t: string): number => Date.parse(t);
/** Go's %g-like rendering Prometheus uses (1.675264e+07 for large values, plain otherwise). */
export function num(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e6) return String(v);
  if (Math.abs(v) >= 1e21 || (Math.abs(v) >= 1e6 && Number.isInteger(v))) return v.toExponential().replace(/e\+(\d)$/, 'e+0$1');
  return String(v);
}
export const esc = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** The exposition of `s`; `comment` (e.g. that the figures are synthetic) goes first as a `#` line. */
export function resourceMetricsText(s: Summary, comment?: string): string {
  const out: string[] = [];
  if (comment) out.push(`# ${comment}`);
  const family = (name: string, help: string, type: 'counter' | 'gauge', rows: string[]): void => {
    out.push(`# HELP ${name} [STABLE] ${help}`, `# TYPE ${name} ${type}`, ...rows);
  };
  const containers = s.pods.flatMap((p) =>
    p.containers.map((c) => ({ p, c, labels: `container="${esc(c.name)}",namespace="${esc(p.podRef.namespace)}",pod="${esc(p.podRef.name)}"` })),
  );
  const sorted = containers.sort((a, b) => a.labels.localeCompare(b.labels));
  family(
    'container_cpu_usage_seconds_total',
    'Cumulative cpu time consumed by the container in core-seconds',
    'counter',
    sorted.filter((x) => x.c.cpu).map((x) => `container_cpu_usage_seconds_total{${x.labels}} ${num(x.c.cpu!.usageCoreNanoSeconds / 1e9)} ${ms(x.c.cpu!.time)}`),
  );
  family(
    'container_memory_working_set_bytes',
    'Current working set of the container in bytes',
    'gauge',
    sorted.filter((x) => x.c.memory).map((x) => `container_memory_working_set_bytes{${x.labels}} ${num(x.c.memory!.workingSetBytes)} ${ms(x.c.memory!.time)}`),
  );
  family(
    'container_start_time_seconds',
    'Start time of the container since unix epoch in seconds',
    'gauge',
    sorted.map((x) => `container_start_time_seconds{${x.labels}} ${num(ms(x.c.startTime) / 1000)}`),
  );
  if (s.node.cpu) {
    family('node_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the node in core-seconds', 'counter', [
      `node_cpu_usage_seconds_total ${num(s.node.cpu.usageCoreNanoSeconds / 1e9)} ${ms(s.node.cpu.time)}`,
    ]);
  }
  if (s.node.memory) {
    family('node_memory_working_set_bytes', 'Current working set of the node in bytes', 'gauge', [
      `node_memory_working_set_bytes ${num(s.node.memory.workingSetBytes)} ${ms(s.node.memory.time)}`,
    ]);
  }
  const pods = [...s.pods].sort((a, b) => `${a.podRef.namespace}/${a.podRef.name}`.localeCompare(`${b.podRef.namespace}/${b.podRef.name}`));
  const podLabels = (p: (typeof pods)[number]): string => `namespace="${esc(p.podRef.namespace)}",pod="${esc(p.podRef.name)}"`;
  family(
    'pod_cpu_usage_seconds_total',
    'Cumulative cpu time consumed by the pod in core-seconds',
    'counter',
    pods.filter((p) => p.cpu).map((p) => `pod_cpu_usage_seconds_total{${podLabels(p)}} ${num(p.cpu!.usageCoreNanoSeconds / 1e9)} ${ms(p.cpu!.time)}`),
  );
  family(
    'pod_memory_working_set_bytes',
    'Current working set of the pod in bytes',
    'gauge',
    pods.filter((p) => p.memory).map((p) => `pod_memory_working_set_bytes{${podLabels(p)}} ${num(p.memory!.workingSetBytes)} ${ms(p.memory!.time)}`),
  );
  family('resource_scrape_error', '1 if there was an error while getting container metrics, 0 otherwise', 'gauge', ['resource_scrape_error 0']);
  return `${out.join('\n')}\n`;
}

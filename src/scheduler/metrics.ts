/**
 * Prometheus metrics of the scheduler, with upstream's names, labels and buckets, in a
 * registry of their own (served on /metrics by {@link serveMetrics} or by the host
 * process). Hot paths use pre-bound label children, so recording costs no label
 * hashing. Besides Prometheus, per-extension-point totals (ms) are kept in plain
 * numbers for benchmarks ({@link SchedulerMetrics.extensionPointTotals}).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/metrics/metrics.go
 * @see https://kubernetes.io/docs/reference/instrumentation/metrics/
 */
import { createServer, type Server } from 'node:http';
import { exponentialBuckets, Gauge, Registry } from 'prom-client';
import { FastCounter, FastHistogram, type HistogramChild } from '../util/metrics-fast.js';

/** Extension point label values, as upstream. */
export type ExtensionPointName = 'PreFilter' | 'Filter' | 'PostFilter' | 'PreScore' | 'Score' | 'Reserve' | 'Unreserve' | 'Permit' | 'PreBind' | 'Bind' | 'PostBind' | 'PreEnqueue';

/** Every upstream scheduler metric this implementation records. */
export class SchedulerMetrics {
  readonly registry = new Registry();
  readonly scheduleAttempts = new FastCounter(
    'scheduler_schedule_attempts_total',
    "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.",
    ['result', 'profile'],
  );
  readonly schedulingAttemptDuration = new FastHistogram(
    'scheduler_scheduling_attempt_duration_seconds',
    'Scheduling attempt latency in seconds (scheduling algorithm + binding)',
    ['result', 'profile'],
    exponentialBuckets(0.001, 2, 15),
  );
  readonly pendingPods: Gauge<'queue'>;
  readonly preemptionAttempts = new FastCounter('scheduler_preemption_attempts_total', 'Total preemption attempts in the cluster till now');
  readonly preemptionVictims = new FastHistogram('scheduler_preemption_victims', 'Number of selected preemption victims', [], exponentialBuckets(1, 2, 7));
  readonly extensionPointDuration = new FastHistogram(
    'scheduler_framework_extension_point_duration_seconds',
    'Latency for running all plugins of a specific extension point.',
    ['extension_point', 'status', 'profile'],
    exponentialBuckets(0.0001, 2, 12),
  );
  readonly pluginExecutionDuration = new FastHistogram(
    'scheduler_plugin_execution_duration_seconds',
    'Duration for running a plugin at a specific extension point.',
    ['plugin', 'extension_point', 'status'],
    exponentialBuckets(0.00001, 1.5, 20),
  );
  readonly queueIncomingPods = new FastCounter('scheduler_queue_incoming_pods_total', 'Number of pods added to scheduling queues by event and queue type.', ['queue', 'event']);
  readonly podSchedulingAttempts = new FastHistogram('scheduler_pod_scheduling_attempts', 'Number of attempts to successfully schedule a pod.', [], exponentialBuckets(1, 2, 5));
  readonly podSchedulingSLIDuration = new FastHistogram(
    'scheduler_pod_scheduling_sli_duration_seconds',
    'E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve multiple scheduling attempts.',
    ['attempts'],
    exponentialBuckets(0.01, 2, 20),
  );
  readonly cacheSize: Gauge<'type'>;
  /** queue sizes by queue label, read when /metrics is scraped */
  pendingSource: (() => Record<string, number>) | null = null;
  /** cache sizes by type label, read when /metrics is scraped */
  cacheSource: (() => Record<string, number>) | null = null;
  /** ms spent per extension point (all profiles), for benchmarks */
  readonly extensionPointTotals = new Map<string, number>();
  private readonly epChildren = new Map<string, HistogramChild>();

  constructor() {
    const registers = [this.registry];
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    this.pendingPods = new Gauge({
      collect() {
        for (const [k, v] of Object.entries(self.pendingSource?.() ?? {})) this.set({ queue: k }, v);
      },
      name: 'scheduler_pending_pods',
      help: "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.",
      labelNames: ['queue'],
      registers,
    });
    this.cacheSize = new Gauge({
      collect() {
        for (const [k, v] of Object.entries(self.cacheSource?.() ?? {})) this.set({ type: k }, v);
      },
      name: 'scheduler_cache_size',
      help: 'Number of nodes, pods, and assumed (bound) pods in the scheduler cache.',
      labelNames: ['type'],
      registers,
    });
    for (const m of [
      this.scheduleAttempts,
      this.schedulingAttemptDuration,
      this.preemptionAttempts,
      this.preemptionVictims,
      this.extensionPointDuration,
      this.pluginExecutionDuration,
      this.queueIncomingPods,
      this.podSchedulingAttempts,
      this.podSchedulingSLIDuration,
    ]) {
      this.registry.registerMetric(m as unknown as Parameters<Registry['registerMetric']>[0]);
    }
  }

  /** Records one run of an extension point (ms) for a profile. */
  observeExtensionPoint(point: ExtensionPointName, status: string, profile: string, ms: number): void {
    const key = `${point}\x00${status}\x00${profile}`;
    let c = this.epChildren.get(key);
    if (!c) this.epChildren.set(key, (c = this.extensionPointDuration.labels(point, status, profile)));
    c.observe(ms / 1000);
    this.extensionPointTotals.set(point, (this.extensionPointTotals.get(point) ?? 0) + ms);
  }

  /** Prometheus text exposition of every metric. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** Status label of a framework status code ("Success", "Unschedulable", …). */
export { codeName as statusLabel } from './framework/status.js';

/**
 * Serves `/metrics` (Prometheus text) and `/healthz` over plain HTTP, like
 * kube-scheduler's metrics endpoint (which upstream serves on :10259 over HTTPS with
 * delegated authn/authz). Resolves to the listening server.
 */
export function serveMetrics(metrics: SchedulerMetrics, host: string, port: number, healthy: () => boolean = () => true): Promise<Server> {
  const srv = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') {
      void metrics.text().then((t) => {
        res.writeHead(200, { 'Content-Type': metrics.registry.contentType });
        res.end(t);
      });
      return;
    }
    if (req.method === 'GET' && (path === '/healthz' || path === '/livez' || path === '/readyz')) {
      const ok = healthy();
      res.writeHead(ok ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(ok ? 'ok' : 'unhealthy');
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('404 page not found\n');
  });
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(port, host, () => resolve(srv));
  });
}

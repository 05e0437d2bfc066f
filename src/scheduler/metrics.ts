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
import { Counter, exponentialBuckets, Gauge, Histogram, Registry } from 'prom-client';

/** Extension point label values, as upstream. */
export type ExtensionPointName =
  | 'PreFilter'
  | 'Filter'
  | 'PostFilter'
  | 'PreScore'
  | 'Score'
  | 'Reserve'
  | 'Unreserve'
  | 'Permit'
  | 'PreBind'
  | 'Bind'
  | 'PostBind'
  | 'PreEnqueue';

/** Every upstream scheduler metric this implementation records. */
export class SchedulerMetrics {
  readonly registry = new Registry();
  readonly scheduleAttempts: Counter<'result' | 'profile'>;
  readonly schedulingAttemptDuration: Histogram<'result' | 'profile'>;
  readonly pendingPods: Gauge<'queue'>;
  readonly preemptionAttempts: Counter;
  readonly preemptionVictims: Histogram;
  readonly extensionPointDuration: Histogram<'extension_point' | 'status' | 'profile'>;
  readonly pluginExecutionDuration: Histogram<'plugin' | 'extension_point' | 'status'>;
  readonly queueIncomingPods: Counter<'queue' | 'event'>;
  readonly podSchedulingAttempts: Histogram;
  readonly podSchedulingSLIDuration: Histogram<'attempts'>;
  readonly unschedulablePods: Gauge<'plugin' | 'profile'>;
  readonly cacheSize: Gauge<'type'>;
  readonly inFlightEvents: Gauge<'event'>;
  /** queue sizes by queue label, read when /metrics is scraped */
  pendingSource: (() => Record<string, number>) | null = null;
  /** cache sizes by type label, read when /metrics is scraped */
  cacheSource: (() => Record<string, number>) | null = null;
  /** ms spent per extension point (all profiles), for benchmarks */
  readonly extensionPointTotals = new Map<string, number>();
  private readonly epChildren = new Map<string, { observe(v: number): void }>();

  constructor() {
    const registers = [this.registry];
    this.scheduleAttempts = new Counter({
      name: 'scheduler_schedule_attempts_total',
      help: 'Number of attempts to schedule pods, by the result. \'unschedulable\' means a pod could not be scheduled, while \'error\' means an internal scheduler problem.',
      labelNames: ['result', 'profile'],
      registers,
    });
    this.schedulingAttemptDuration = new Histogram({
      name: 'scheduler_scheduling_attempt_duration_seconds',
      help: 'Scheduling attempt latency in seconds (scheduling algorithm + binding)',
      labelNames: ['result', 'profile'],
      buckets: exponentialBuckets(0.001, 2, 15),
      registers,
    });
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
    this.preemptionAttempts = new Counter({ name: 'scheduler_preemption_attempts_total', help: 'Total preemption attempts in the cluster till now', registers });
    this.preemptionVictims = new Histogram({
      name: 'scheduler_preemption_victims',
      help: 'Number of selected preemption victims',
      buckets: exponentialBuckets(1, 2, 7),
      registers,
    });
    this.extensionPointDuration = new Histogram({
      name: 'scheduler_framework_extension_point_duration_seconds',
      help: 'Latency for running all plugins of a specific extension point.',
      labelNames: ['extension_point', 'status', 'profile'],
      buckets: exponentialBuckets(0.0001, 2, 12),
      registers,
    });
    this.pluginExecutionDuration = new Histogram({
      name: 'scheduler_plugin_execution_duration_seconds',
      help: 'Duration for running a plugin at a specific extension point.',
      labelNames: ['plugin', 'extension_point', 'status'],
      buckets: exponentialBuckets(0.00001, 1.5, 20),
      registers,
    });
    this.queueIncomingPods = new Counter({
      name: 'scheduler_queue_incoming_pods_total',
      help: 'Number of pods added to scheduling queues by event and queue type.',
      labelNames: ['queue', 'event'],
      registers,
    });
    this.podSchedulingAttempts = new Histogram({
      name: 'scheduler_pod_scheduling_attempts',
      help: 'Number of attempts to successfully schedule a pod.',
      buckets: exponentialBuckets(1, 2, 5),
      registers,
    });
    this.podSchedulingSLIDuration = new Histogram({
      name: 'scheduler_pod_scheduling_sli_duration_seconds',
      help: 'E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve multiple scheduling attempts.',
      labelNames: ['attempts'],
      buckets: exponentialBuckets(0.01, 2, 20),
      registers,
    });
    this.unschedulablePods = new Gauge({
      name: 'scheduler_unschedulable_pods',
      help: 'The number of unschedulable pods broken down by plugin name. A pod will increment the gauge for all plugins that caused it to not schedule and so this metric have meaning only when broken down by plugin.',
      labelNames: ['plugin', 'profile'],
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
    this.inFlightEvents = new Gauge({
      name: 'scheduler_inflight_events',
      help: 'Number of events currently tracked in the scheduling queue.',
      labelNames: ['event'],
      registers,
    });
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

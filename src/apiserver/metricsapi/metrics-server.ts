/**
 * The built-in metrics server (what k3s ships as metrics-server, here inside the API
 * server): every `resolution` (metrics-server's --metric-resolution, default 15 s) each
 * node's kubelet is scraped at `/metrics/resource` with the API server's kubelet client
 * certificate, the samples are kept as metrics-server keeps them (./storage.ts), and
 * `metrics.k8s.io/v1beta1` is served from them (./api.ts) as a local APIService
 * `v1beta1.metrics.k8s.io` (groupPriorityMinimum 100, versionPriority 100, as
 * metrics-server registers it). An APIService of that name pointing at a Service (a real
 * metrics-server) takes over: the aggregator proxies to it instead. Its ClusterRole
 * `system:aggregated-metrics-reader` is created as metrics-server's manifest does.
 *
 * @see https://github.com/kubernetes-sigs/metrics-server/blob/v0.7.2/pkg/scraper/scraper.go
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { APIService } from '../../api/apiregistration/v1/apiservice/strategy.js';
import type { ObjectLookup } from '../../api/resource.js';
import { isAlreadyExists } from '../../apimachinery/errors.js';
import type { Client, ResourceRef } from '../../client/types.js';
import type { Aggregator } from '../aggregator/aggregator.js';
import { APISERVICES } from '../aggregator/resources.js';
import type { Discovery } from '../discovery.js';
import type { KubeletClient } from '../proxy/kubelet.js';
import { GROUP, METRICS_DEFINITIONS, metricsAPIHandler, VERSION } from './api.js';
import { decodeResourceMetrics, type MetricsBatch, MetricsStorage } from './storage.js';

/** metrics-server's default --metric-resolution, ms. */
export const DEFAULT_METRIC_RESOLUTION_MS = 15_000;

const NODES = { group: '', version: 'v1', resource: 'nodes' };
const CLUSTER_ROLES: ResourceRef = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false };

/**
 * metrics-server's ClusterRole `system:aggregated-metrics-reader`: reading NodeMetrics and
 * PodMetrics, aggregated into the view, edit and admin roles (so whoever may view a
 * namespace may `kubectl top pod` in it).
 * @see https://github.com/kubernetes-sigs/metrics-server/blob/v0.7.2/manifests/base/rbac.yaml
 */
const AGGREGATED_METRICS_READER = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: {
    name: 'system:aggregated-metrics-reader',
    labels: {
      'k8s-app': 'metrics-server',
      'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
      'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
      'rbac.authorization.k8s.io/aggregate-to-view': 'true',
    },
  },
  rules: [{ apiGroups: [GROUP], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }],
};

/** kwok's mark of a node it fakes (no kubelet). @see https://kwok.sigs.k8s.io/docs/user/kwok-manage-nodes-and-pods/ */
const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

export interface MetricsServerOptions {
  kubelets: KubeletClient;
  /** scrape period, ms (default 15 000) */
  resolutionMs?: number;
}

export class MetricsServer {
  readonly storage: MetricsStorage;
  private readonly resolutionMs: number;
  private timer?: NodeJS.Timeout;
  private lookup?: ObjectLookup;
  private stopped = false;

  constructor(private readonly o: MetricsServerOptions) {
    this.resolutionMs = o.resolutionMs ?? DEFAULT_METRIC_RESOLUTION_MS;
    this.storage = new MetricsStorage(this.resolutionMs);
  }

  /** Serves metrics.k8s.io/v1beta1 through the aggregator and lists its kinds in discovery. */
  install(aggregator: Aggregator, discovery: Discovery, lookup: ObjectLookup): void {
    this.lookup = lookup;
    aggregator.addLocal(GROUP, VERSION, metricsAPIHandler(lookup, this.storage));
    for (const d of METRICS_DEFINITIONS) discovery.add(d);
  }

  /** Registers the local APIService (unless one exists) and starts scraping. */
  async start(client: Client): Promise<void> {
    const apiService: APIService = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: `${VERSION}.${GROUP}` },
      spec: { group: GROUP, version: VERSION, groupPriorityMinimum: 100, versionPriority: 100 },
    };
    for (const [ref, obj] of [
      [APISERVICES, apiService],
      [CLUSTER_ROLES, AGGREGATED_METRICS_READER],
    ] as const) {
      try {
        await client.create(ref, '', obj);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
    }
    const loop = async (): Promise<void> => {
      if (this.stopped) return;
      await this.scrape().catch(() => undefined);
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.resolutionMs);
    };
    void loop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /**
   * One round: every node's kubelet, concurrently; failures leave that node out of the
   * round. Nodes kwok fakes (annotation `kwok.x-k8s.io/node: fake`, as `--kwok-nodes`
   * registers them) have no kubelet to answer: they are not dialled — a refused
   * connection costs ~0.5 ms of CPU, 5,000 such nodes a quarter of a core.
   */
  async scrape(): Promise<void> {
    if (!this.lookup) return;
    const nodes = ((await this.lookup.list(NODES, '')) as Node[]).filter((n) => n.metadata?.annotations?.[KWOK_NODE_ANNOTATION] !== 'fake');
    const batches = new Map<string, MetricsBatch>();
    const timeout = Math.max(1_000, Math.min(10_000, Math.floor(this.resolutionMs * 0.9)));
    await Promise.allSettled(
      nodes.map(async (n) => {
        const name = n.metadata?.name ?? '';
        const loc = this.o.kubelets.location(n);
        const r = await this.o.kubelets.getText(loc, '/metrics/resource', timeout);
        if (r.status !== 200) return;
        const started = Date.parse(n.metadata?.creationTimestamp ?? '') || 0;
        batches.set(name, decodeResourceMetrics(r.body, started));
      }),
    );
    this.storage.store(batches);
  }
}

/**
 * The API server's Prometheus metrics, served on `/metrics` with upstream's names and
 * labels for the essentials:
 *  - `apiserver_request_total{verb,dry_run,group,version,resource,subresource,scope,component,code}`
 *  - `apiserver_request_duration_seconds{verb,dry_run,group,version,resource,subresource,scope,component}`
 *    (not for long-running requests — watches, exec/attach/port-forward, logs, proxy — which
 *    last as long as the client wants)
 *  - `apiserver_current_inflight_requests{request_kind="readOnly"|"mutating"}` (requests in
 *    flight now; upstream reports the largest number over the last second)
 *  - `apiserver_longrunning_requests{verb,group,version,resource,subresource,scope,component}`
 *  - `apiserver_storage_objects{resource}` (objects in each resource's watch cache)
 *  - the process metrics of prom-client (`process_*`, `nodejs_*`).
 *
 * Recording a request is two map lookups and a few additions (label sets are resolved once
 * and cached, see ../../util/metrics-fast.ts); the exposition is built only on a scrape.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/endpoints/metrics/metrics.go
 * @see https://kubernetes.io/docs/reference/instrumentation/metrics/
 */
import type { Registry } from 'prom-client';
import { FastCounter, FastHistogram } from '../../util/metrics-fast.js';
import { isLongRunning } from '../filters/max-in-flight.js';
import type { RequestInfo } from '../http/request-info.js';

/** Upstream's request latency buckets (seconds). */
const DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** Subresources served as upgraded connections (upstream validConnectRequests). */
const CONNECT_SUBRESOURCES = new Set(['proxy', 'attach', 'exec', 'portforward']);

const VERBS: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
};

type PromClient = typeof import('prom-client');

/** prom-client, loaded on the first scrape (an API server that is never scraped does not pay its import). */
let prom: Promise<PromClient> | undefined;
/** The process metrics are the process's: registered once, shared by every API server in it. */
let processRegistry: Registry | undefined;
async function promClient(): Promise<{ p: PromClient; processRegistry: Registry }> {
  const p = await (prom ??= import('prom-client'));
  if (!processRegistry) {
    processRegistry = new p.Registry();
    p.collectDefaultMetrics({ register: processRegistry });
  }
  return { p, processRegistry };
}

/** What one request needs for its metrics once it ends. */
export interface RequestMetrics {
  /** call when the response is complete (or the client went away) */
  done(code: number): void;
}

/**
 * The reported verb (upstream CleanVerb): LIST/WATCH/GET…, APPLY for apply patches,
 * CONNECT for exec/attach/portforward/proxy.
 */
export function reportedVerb(info: RequestInfo, contentType: string | undefined): string {
  if (info.subresource && CONNECT_SUBRESOURCES.has(info.subresource)) return 'CONNECT';
  if (info.verb === 'patch' && contentType?.startsWith('application/apply-patch+yaml')) return 'APPLY';
  return VERBS[info.verb] ?? info.verb.toUpperCase();
}

/** Upstream CleanScope: resource (named or create), namespace, cluster. */
export function scopeOf(info: RequestInfo): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  return info.isResourceRequest ? 'cluster' : '';
}

export class APIServerMetrics {
  private registry?: Registry;
  private readonly requests = new FastCounter(
    'apiserver_request_total',
    'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
  );
  private readonly durations = new FastHistogram(
    'apiserver_request_duration_seconds',
    'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    DURATION_BUCKETS,
  );
  private inflightReadOnly = 0;
  private inflightMutating = 0;
  private readonly longRunning = new Map<string, { labels: Record<string, string>; n: number }>();
  /** metrics other components record (admission webhooks), registered on the first scrape */
  private readonly extra: unknown[] = [];

  /**
   * @param objectCounts resource (`pods`, `deployments.apps`) → number of stored objects, read on each scrape
   */
  constructor(private readonly objectCounts: () => Iterable<[string, number]>) {}

  /** The registry with every API server metric, built on the first scrape. */
  private build(p: PromClient): Registry {
    const registry = new p.Registry();
    for (const m of [this.requests, this.durations, ...this.extra]) registry.registerMetric(m as unknown as Parameters<Registry['registerMetric']>[0]);
    const self = this;
    new p.Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers: [registry],
      collect() {
        this.set({ request_kind: 'readOnly' }, self.inflightReadOnly);
        this.set({ request_kind: 'mutating' }, self.inflightMutating);
      },
    });
    new p.Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      registers: [registry],
      collect() {
        this.reset();
        for (const { labels, n } of self.longRunning.values()) this.set(labels, n);
      },
    });
    new p.Gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      labelNames: ['resource'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [resource, n] of self.objectCounts()) this.set({ resource }, n);
      },
    });
    return registry;
  }

  /**
   * Serves more metrics (FastCounter / FastHistogram or prom-client metrics another
   * component records into, e.g. the admission webhooks') on `/metrics`.
   */
  add(...metrics: unknown[]): void {
    this.extra.push(...metrics);
    for (const m of metrics) this.registry?.registerMetric(m as Parameters<Registry['registerMetric']>[0]);
  }

  /**
   * Starts the metrics of one resource request; `done(code)` records it. Long-running
   * requests (WATCH, CONNECT) count in apiserver_longrunning_requests meanwhile, the
   * others in apiserver_current_inflight_requests.
   */
  begin(info: RequestInfo, contentType: string | undefined, dryRun: boolean, startMs: number): RequestMetrics {
    const verb = reportedVerb(info, contentType);
    const scope = scopeOf(info);
    const dry = dryRun ? 'All' : '';
    const longRunning = isLongRunning(info);
    const mutating = !longRunning && verb !== 'GET' && verb !== 'LIST';
    let lrKey: string | undefined;
    if (longRunning) {
      lrKey = `${verb}\u0000${info.apiGroup}\u0000${info.apiVersion}\u0000${info.resource}\u0000${info.subresource}\u0000${scope}`;
      let e = this.longRunning.get(lrKey);
      if (!e) {
        e = { labels: { verb, group: info.apiGroup, version: info.apiVersion, resource: info.resource, subresource: info.subresource, scope, component: 'apiserver' }, n: 0 };
        this.longRunning.set(lrKey, e);
      }
      e.n++;
    } else if (mutating) this.inflightMutating++;
    else this.inflightReadOnly++;
    let ended = false;
    return {
      done: (code: number) => {
        if (ended) return;
        ended = true;
        if (lrKey !== undefined) this.longRunning.get(lrKey)!.n--;
        else if (mutating) this.inflightMutating--;
        else this.inflightReadOnly--;
        this.requests.labels(verb, dry, info.apiGroup, info.apiVersion, info.resource, info.subresource, scope, 'apiserver', String(code)).inc();
        if (!longRunning) {
          this.durations.labels(verb, dry, info.apiGroup, info.apiVersion, info.resource, info.subresource, scope, 'apiserver').observe((performance.now() - startMs) / 1000);
        }
      },
    };
  }

  /** The exposition text (Prometheus text format 0.0.4) and its Content-Type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    const { p, processRegistry } = await promClient();
    this.registry ??= this.build(p);
    const merged = p.Registry.merge([this.registry, processRegistry]);
    return { contentType: merged.contentType, text: await merged.metrics() };
  }
}

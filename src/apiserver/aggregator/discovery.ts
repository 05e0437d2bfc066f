/**
 * Discovery of the group-versions served behind APIServices (upstream's discovery
 * manager): for every APIService with a Service, the backend's aggregated discovery
 * (`GET /apis` asking for apidiscovery.k8s.io/v2 or v2beta1) is fetched through the
 * proxy as `system:kube-aggregator` (system:masters); a backend that answers otherwise
 * (but not 503) is asked for its legacy `/apis/<group>/<version>` APIResourceList, which
 * is converted. The APIService's entry then joins the merged documents (aggregated
 * `/apis`, legacy `/apis` and `/apis/<group>`) — `Current` after a successful fetch,
 * `Stale` (with the last good resources, or none) after a failed one, as upstream marks
 * an unreachable extension server so clients report it. Refreshed when the APIService
 * changes and every minute; the backend's OpenAPI is downloaded with it (./openapi.ts).
 *
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/apiserver/handler_discovery.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/endpoints/discovery/aggregated/etag.go
 */
import type { APIService } from '../../api/apiregistration/v1/apiservice/strategy.js';
import type { Informer } from '../../client/informer.js';
import { type Clock, realClock, type TimerHandle } from '../../util/clock.js';
import { AGGREGATED_V2, AGGREGATED_V2BETA1, type Discovery } from '../discovery.js';
import { KeyQueue } from './queue.js';
import type { OpenAPIAggregation } from './openapi.js';

/** Upstream's refresh of every APIService's discovery, ms. */
const REFRESH_MS = 60_000;

/** A GET through the aggregator's proxy as system:kube-aggregator: status, content type and body. */
export type BackendGet = (apiService: APIService, path: string, accept: string) => Promise<{ status: number; contentType: string; body: string }>;

interface APIResource {
  name: string;
  singularName?: string;
  namespaced?: boolean;
  group?: string;
  version?: string;
  kind?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

/**
 * A legacy APIResourceList's resources as aggregated APIResourceDiscovery objects
 * (upstream ConvertGroupVersionIntoToDiscovery): subresources (`pods/log`) attach to their
 * parent resource.
 */
export function convertLegacyResources(list: APIResource[]): unknown[] {
  const out: Record<string, unknown>[] = [];
  const byName = new Map<string, Record<string, unknown>>();
  for (const r of list) {
    const [name, sub] = r.name.split('/', 2);
    const kind = { group: r.group ?? '', version: r.version ?? '', kind: r.kind ?? '' };
    if (sub === undefined) {
      const d: Record<string, unknown> = {
        resource: name,
        responseKind: kind,
        scope: r.namespaced ? 'Namespaced' : 'Cluster',
        singularResource: r.singularName ?? '',
        verbs: r.verbs ?? [],
      };
      if (r.shortNames?.length) d.shortNames = r.shortNames;
      if (r.categories?.length) d.categories = r.categories;
      out.push(d);
      byName.set(name!, d);
    }
  }
  for (const r of list) {
    const [name, sub] = r.name.split('/', 2);
    if (sub === undefined) continue;
    let parent = byName.get(name!);
    if (!parent) {
      parent = { resource: name, scope: r.namespaced ? 'Namespaced' : 'Cluster', verbs: [] };
      out.push(parent);
      byName.set(name!, parent);
    }
    const subs = (parent.subresources ??= []) as unknown[];
    subs.push({ subresource: sub, responseKind: { group: r.group ?? '', version: r.version ?? '', kind: r.kind ?? '' }, verbs: r.verbs ?? [] });
  }
  return out;
}

/** Keeps the merged discovery documents in step with the APIServices' backends. */
export class DiscoveryManager {
  private readonly queue: KeyQueue;
  private readonly clock: Clock;
  private refresh?: TimerHandle;
  /** APIService name → the last resources fetched successfully */
  private readonly cached = new Map<string, unknown[]>();
  /** APIService name → the group/version it was listed under */
  private readonly listed = new Map<string, { group: string; version: string }>();

  constructor(
    private readonly discovery: Discovery,
    private readonly apiServices: Informer<APIService>,
    private readonly get: BackendGet,
    clock: Clock = realClock,
    /** the backends' OpenAPI documents, downloaded along with their discovery */
    private readonly openAPI?: OpenAPIAggregation,
  ) {
    this.clock = clock;
    this.queue = new KeyQueue({ sync: (k) => this.sync(k), clock, baseMs: 5, maxMs: 30_000 });
  }

  start(): void {
    this.apiServices.addEventHandler({
      add: (a) => this.queue.add(a.metadata!.name!),
      update: (_, a) => this.queue.add(a.metadata!.name!),
      delete: (a) => this.queue.add(a.metadata!.name!),
    });
    const tick = (): void => {
      for (const a of this.apiServices.list()) if (a.spec?.service) this.queue.add(a.metadata!.name!);
      this.refresh = this.clock.setTimeout(tick, REFRESH_MS);
    };
    this.refresh = this.clock.setTimeout(tick, REFRESH_MS);
  }

  stop(): void {
    if (this.refresh) this.clock.clearTimeout(this.refresh);
    this.queue.stop();
  }

  /** Fetches one APIService's discovery and lists it (upstream syncAPIService). */
  async sync(name: string): Promise<void> {
    const a = this.apiServices.getByName('', name);
    const prev = this.listed.get(name);
    if (!a || !a.spec?.service) {
      if (prev) this.discovery.removeExternal(prev.group, prev.version);
      this.listed.delete(name);
      this.cached.delete(name);
      this.openAPI?.remove(name);
      return;
    }
    const group = a.spec.group ?? '';
    const version = a.spec.version ?? '';
    if (prev && (prev.group !== group || prev.version !== version)) this.discovery.removeExternal(prev.group, prev.version);
    let resources: unknown[] | undefined;
    let failed = false;
    try {
      resources = await this.fetch(a, group, version);
      this.cached.set(name, resources);
    } catch {
      failed = true;
      resources = this.cached.get(name) ?? [];
    }
    this.listed.set(name, { group, version });
    this.discovery.setExternal({
      group,
      version,
      resources,
      freshness: failed ? 'Stale' : 'Current',
      groupPriority: a.spec.groupPriorityMinimum ?? 0,
      versionPriority: a.spec.versionPriority ?? 0,
    });
    if (!failed) await this.openAPI?.sync(a, this.get);
  }

  /** The backend's resources of group/version. @throws Error when neither discovery form could be read */
  private async fetch(a: APIService, group: string, version: string): Promise<unknown[]> {
    const agg = await this.get(a, '/apis', `${AGGREGATED_V2},${AGGREGATED_V2BETA1}`);
    if (agg.status === 503) throw new Error(`service returned non-success response code: ${agg.status}`);
    if (agg.status === 200 && /g=apidiscovery\.k8s\.io/.test(agg.contentType) && /as=APIGroupDiscoveryList/.test(agg.contentType)) {
      const list = JSON.parse(agg.body) as { items?: { metadata?: { name?: string }; versions?: { version?: string; resources?: unknown[] }[] }[] };
      const g = (list.items ?? []).find((i) => (i.metadata?.name ?? '') === group);
      const v = g?.versions?.find((x) => x.version === version);
      return v?.resources ?? [];
    }
    const legacy = await this.get(a, group ? `/apis/${group}/${version}` : `/api/${version}`, 'application/json');
    if (legacy.status !== 200) throw new Error(`failed to download legacy discovery: ${legacy.body}`);
    const list = JSON.parse(legacy.body) as { resources?: APIResource[] };
    return convertLegacyResources(list.resources ?? []);
  }
}

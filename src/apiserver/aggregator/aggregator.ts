/**
 * The aggregation layer (kube-aggregator inside kube-apiserver): requests under
 * `/apis/<group>/<version>` whose APIService `<version>.<group>` names a Service are
 * proxied to that extension API server (./proxy.ts); group-versions served in this
 * process without a store (metrics.k8s.io) are handed to their local handler; everything
 * else stays with the API server's own stores. Around it run the availability controller
 * (./availability.ts) and the discovery manager (./discovery.ts), on informers of
 * APIServices, Services, Endpoints (availability) and EndpointSlices (the shared service
 * resolver, src/apiserver/util/service-resolver.ts).
 *
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/apiserver/apiserver.go
 */
import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { APIService } from '../../api/apiregistration/v1/apiservice/strategy.js';
import type { KObject, UserInfo } from '../../api/resource.js';
import { Informer } from '../../client/informer.js';
import { type Client, R } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Discovery } from '../discovery.js';
import type { Handler } from '../filters/types.js';
import { takeUpgrade } from '../proxy/upgrade.js';
import { AvailableConditionController } from './availability.js';
import { DiscoveryManager } from './discovery.js';
import { OpenAPIAggregation } from './openapi.js';
import { type BackendTarget, backendGet, type ProxyClientCert, proxyError, proxyRequest, proxyUpgrade } from './proxy.js';
import { APISERVICES } from './resources.js';
import { resolveServiceEndpoint, type ServiceLookup } from '../util/service-resolver.js';

/** The identity the aggregator's own discovery requests carry. */
const AGGREGATOR_USER: UserInfo = { username: 'system:kube-aggregator', groups: ['system:masters'] };

export interface AggregatorOptions {
  /** the front-proxy client certificate (upstream --proxy-client-cert-file / --proxy-client-key-file) */
  proxyClient: ProxyClientCert;
  clock?: Clock;
  /** the availability controller's resync period, ms (default 30 000) */
  availabilityResyncMs?: number;
}

/** Whether the APIService's Available condition is True. */
function isAvailable(a: APIService | undefined): boolean {
  return (a?.status?.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True');
}

/** `/apis/<group>/<version>[/…]` → [group, version]; undefined for other paths. */
export function groupVersionOfPath(url: string): [string, string] | undefined {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (!path.startsWith('/apis/')) return undefined;
  const parts = path.split('/');
  const group = parts[2];
  const version = parts[3];
  if (!group || !version) return undefined;
  return [group, version];
}

export class Aggregator {
  private readonly locals = new Map<string, Handler>();
  /** the extension servers' OpenAPI documents, joined to the API server's /openapi/v2 and /openapi/v3 */
  readonly openAPI = new OpenAPIAggregation();
  private apiServices?: Informer<APIService>;
  private services?: Informer<Service & KObject>;
  private endpoints?: Informer<Endpoints & KObject>;
  private endpointSlices?: Informer<EndpointSlice & KObject>;
  private availability?: AvailableConditionController;
  private discoveryManager?: DiscoveryManager;

  constructor(private readonly o: AggregatorOptions) {}

  /** Serves `group/version` in this process with `handler` unless its APIService names a Service. */
  addLocal(group: string, version: string, handler: Handler): void {
    this.locals.set(`${group}/${version}`, handler);
  }

  /** The handler of a request's path, or undefined when the API server's own stores serve it. */
  route(url: string): Handler | undefined {
    const gv = groupVersionOfPath(url);
    if (!gv) return undefined;
    const [group, version] = gv;
    const name = `${version}.${group}`;
    const a = this.apiServices?.getByName('', name);
    if (a?.spec?.service) return (req, res) => this.proxy(name, req, res);
    return this.locals.get(`${group}/${version}`);
  }

  /**
   * Starts the informers, the availability controller and the discovery manager; resolves
   * once the informers have synced.
   */
  async start(client: Client, discovery: Discovery): Promise<void> {
    this.apiServices = new Informer<APIService>(client, APISERVICES);
    this.services = new Informer<Service & KObject>(client, R.services);
    this.endpoints = new Informer<Endpoints & KObject>(client, R.endpoints);
    this.endpointSlices = new Informer<EndpointSlice & KObject>(client, R.endpointslices);
    const informers = [this.apiServices, this.services, this.endpoints, this.endpointSlices];
    for (const i of informers) i.start();
    await Promise.all(informers.map((i) => i.waitForSync()));
    this.availability = new AvailableConditionController({
      client,
      apiServices: this.apiServices,
      services: this.services,
      endpoints: this.endpoints,
      resolver: this.lookup(),
      proxyClient: this.o.proxyClient,
      clock: this.o.clock,
      resyncMs: this.o.availabilityResyncMs,
    });
    this.availability.start();
    this.discoveryManager = new DiscoveryManager(
      discovery,
      this.apiServices,
      async (a, path, accept) => {
        if (!isAvailable(a)) return { status: 503, contentType: 'text/plain; charset=utf-8', body: 'service unavailable\n' };
        return backendGet(await this.target(a), this.o.proxyClient, path, AGGREGATOR_USER, accept);
      },
      this.o.clock,
      this.openAPI,
    );
    this.discoveryManager.start();
  }

  stop(): void {
    this.availability?.stop();
    this.discoveryManager?.stop();
    for (const i of [this.apiServices, this.services, this.endpoints, this.endpointSlices]) i?.stop();
  }

  private lookup(): ServiceLookup {
    return {
      service: (ns, n) => this.services?.getByName(ns, n),
      endpointSlices: (ns) => (this.endpointSlices?.list() ?? []).filter((s) => s.metadata?.namespace === ns),
    };
  }

  /**
   * The backend of an APIService with a Service.
   * @throws ResolveError when the Service has no usable endpoint
   */
  private async target(a: APIService): Promise<BackendTarget> {
    const s = a.spec!.service!;
    const loc = await resolveServiceEndpoint(this.lookup(), s.namespace ?? '', s.name ?? '', s.port ?? 443);
    const ca = a.spec?.caBundle ? Buffer.from(a.spec.caBundle, 'base64').toString('utf8') : undefined;
    return { host: loc.host, port: loc.port, ca, insecureSkipTLSVerify: a.spec?.insecureSkipTLSVerify ?? false, serverName: `${s.name}.${s.namespace}.svc` };
  }

  /** Upstream proxyHandler.ServeHTTP for one request. */
  private async proxy(name: string, req: Parameters<Handler>[0], res: Parameters<Handler>[1]): Promise<void> {
    const a = this.apiServices?.getByName('', name);
    const up = takeUpgrade(req);
    if (!a?.spec?.service || !isAvailable(a)) return proxyError(res, 'service unavailable', 503);
    const user = req.user;
    if (!user) return proxyError(res, 'missing user', 500);
    let target: BackendTarget;
    try {
      target = await this.target(a);
    } catch {
      // upstream: a Service that resolves to no endpoint is `service unavailable` too
      return proxyError(res, 'service unavailable', 503);
    }
    if (up) {
      try {
        await proxyUpgrade(up, req, user, target, this.o.proxyClient, req.url);
      } catch (e) {
        proxyError(res, e instanceof Error ? e.message : String(e), 503);
      }
      return;
    }
    await proxyRequest(req, res, user, target, this.o.proxyClient, req.url);
  }
}

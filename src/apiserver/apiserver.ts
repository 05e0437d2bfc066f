/**
 * The API server: the stores of the served resources, discovery, OpenAPI and health,
 * behind the handler chain of src/apiserver/filters/chain.ts (panic recovery → request
 * info → authentication → audit → impersonation → max in flight → authorization →
 * this server's handler). Resource requests go to the REST handlers on the generic store
 * (admission and validation run inside the store), computed resources (reviews) to their
 * own create, other subresources to their handlers.
 *
 * @see https://kubernetes.io/docs/concepts/security/controlling-access/
 */
import type { RequestTracer } from '../trace/request-marks.js';
import type { VirtualResource } from '../api/authorization/virtual.js';
import type { GroupVersionResource, KObject, ObjectLookup, ResourceDefinition, UserInfo } from '../api/resource.js';
import type { Storage } from '../storage/interface.js';
import { AdmissionChain, type AdmissionPlugin } from './admission/types.js';
import type { Auditor } from './audit/audit.js';
import type { Authentication } from './authn/filter.js';
import type { UnionAuthorizer } from './authz/types.js';
import { Discovery, wantsAggregated, AGGREGATED_V2, AGGREGATED_V2BETA1 } from './discovery.js';
import { handleResource, notFoundPath, type ResourceContext } from './endpoints/resource.js';
import { serveVirtual, VirtualResources } from './endpoints/virtual.js';
import { buildHandlerChain } from './filters/chain.js';
import type { MaxInFlightLimits } from './filters/max-in-flight.js';
import { requestInfoOf, splitURL } from './filters/request-info.js';
import type { RequestInfo } from './http/request-info.js';
import type { Handler } from './filters/types.js';
import { writeError, writeJSON } from './http/respond.js';
import type { ApiRequest, ResponseWriter } from './http/types.js';
import { handleOpenAPIAsync } from './openapi/index.js';
import type { ExtensionOpenAPI } from './openapi/extensions.js';
import { Store } from './registry/store.js';
import type { StoreLookup, SubresourceHandler } from './subresources/types.js';
import { podEphemeralContainers } from './subresources/pod-ephemeralcontainers.js';
import { CustomResourceDefinitionController } from './apiextensions/controller.js';
import { WebhookConverter } from './apiextensions/conversion/webhook-converter.js';
import type { CustomResourceDefinition } from '../api/apiextensions/v1/customresourcedefinition/types.js';
import { resolveServiceEndpoint, storeServiceLookup } from './util/service-resolver.js';
import { installExpressionCompiler } from './admission/policy/expressions.js';
import { installRuleCompiler } from './apiextensions/rule-compile.js';
import { APIServerMetrics } from './metrics/metrics.js';

/** Authorization decision input (upstream authorizer.Attributes). */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** the request's fieldSelector / labelSelector (list, watch, deletecollection) */
  fieldSelector?: string;
  labelSelector?: string;
}

export interface Authorizer {
  /** allowed, or a reason for the Forbidden message */
  authorize(a: AuthorizationAttributes): Promise<{ allowed: boolean; reason?: string }>;
}

/**
 * Reads the API server's stores directly once they exist (upstream feeds these from
 * shared informers): the RBAC and Node authorizers' caches, quota usage, the token
 * authenticators' Secret and ServiceAccount lookups.
 */
export interface StoreConsumer {
  attach(api: StoreLookup & { readonly lookup: ObjectLookup; readonly definitions: readonly ResourceDefinition[]; readonly metrics: APIServerMetrics }): void;
}

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export interface APIServerOptions {
  /**
   * `PUT /debug/flags/<name>` setters (upstream routes.DebugFlags, e.g. `v` for the klog
   * verbosity): each returns the reply text or throws an Error whose message is the 400 reply
   */
  debugFlags?: Record<string, (value: string) => string>;
  /**
   * Handlers of further non-resource paths (any method), e.g. `/db/snapshot` (k3s' supervisor
   * path for on-demand snapshots); authorization applies as to every non-resource URL
   */
  extraPaths?: Record<string, (req: ApiRequest, res: ResponseWriter) => void | Promise<void>>;
  storage: Storage;
  definitions: ResourceDefinition[];
  subresources?: SubresourceHandler[];
  /** admission plugins in the order they run (src/apiserver/admission/plugins/index.ts) */
  admission?: AdmissionPlugin[];
  /** bearer-token authentication; none = only the transport's user (client certificate, in-process identity) */
  authentication?: Authentication;
  /** audit logging; none = no audit log */
  auditor?: Auditor;
  /** decides `impersonate` for Impersonate-* headers; none = the headers are not looked at */
  impersonation?: UnionAuthorizer;
  /** `--max-requests-inflight` / `--max-mutating-requests-inflight`; none = unlimited */
  maxInFlight?: MaxInFlightLimits;
  /** none = every authenticated request is allowed */
  authorizer?: Authorizer;
  /** computed create-only resources (access reviews, TokenReview, SelfSubjectReview) */
  virtualResources?: VirtualResource[];
  /** caches fed from this server's stores, attached when the stores exist */
  storeConsumers?: StoreConsumer[];
  /** "host:port" advertised in legacy /api discovery */
  serverAddress: string;
  /** extra readiness checks (name → ok?) */
  readyChecks?: Record<string, () => boolean>;
  now?: () => Date;
  /**
   * The aggregation layer (src/apiserver/aggregator): the handler of a path under
   * `/apis/<group>/<version>` served by an extension API server or a local non-stored
   * API, undefined for what the stores serve
   */
  aggregator?: { route(url: string): Handler | undefined; readonly openAPI?: ExtensionOpenAPI };
  /** `--event-ttl`: Events (v1 and events.k8s.io/v1) expire this many seconds after their last write; default none */
  eventTTLSeconds?: number;
  /** the pod creation trace of pod creates (src/trace); none = nothing traced */
  requestTracer?: RequestTracer;
}

/**
 * Subresource handlers every API server serves when their resource is defined (they need
 * no kubelet connection or other dependency): pods/ephemeralcontainers.
 */
const BUILTIN_SUBRESOURCES: readonly SubresourceHandler[] = [podEphemeralContainers];

export const VERSION: VersionInfo = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0+k8ts',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-11-30T00:00:00Z',
  goVersion: `node${process.versions.node}`,
  compiler: 'tsc',
  platform: `linux/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};

export class APIServer implements StoreLookup {
  readonly stores = new Map<string, Store>(); // "group/resource"
  private readonly byGVR = new Map<string, Store>(); // "group/version/resource"
  readonly discovery: Discovery;
  readonly storage: Storage;
  private readonly subresources = new Map<string, SubresourceHandler>();
  private readonly virtual: VirtualResources;
  private readonly now: () => Date;
  private ready = false;
  readonly lookup: ObjectLookup;
  /** the served definitions; replaced (never mutated) when resources come and go at runtime */
  definitions: ResourceDefinition[];
  private readonly chain: AdmissionChain;
  private crds?: CustomResourceDefinitionController;
  /** open watch responses of resources added with addResource, ended when the resource is removed */
  private readonly runtimeWatches = new Map<Store, Set<ResponseWriter>>();
  /** Prometheus metrics served on /metrics */
  readonly metrics = new APIServerMetrics(() => this.storedObjectCounts());

  constructor(private readonly opts: APIServerOptions) {
    this.storage = opts.storage;
    this.now = opts.now ?? (() => new Date());
    installExpressionCompiler(); // admission configuration's CEL expressions are compiled when written
    installRuleCompiler(); // so are CRD validation rules
    this.virtual = new VirtualResources(opts.virtualResources ?? []);
    this.definitions = opts.definitions;
    this.lookup = {
      get: async (r: GroupVersionResource, ns: string, name: string): Promise<KObject | undefined> => {
        const s = this.store(r.group, r.resource);
        if (!s) return undefined;
        // a consistent read as Store.get, without making a NotFound error for a miss
        await s.cache.sync();
        return s.peek(ns, name)?.obj;
      },
      list: async (r: GroupVersionResource, ns: string): Promise<KObject[]> => {
        const s = this.store(r.group, r.resource);
        if (!s) return [];
        return (await s.list(ns, {})).items.map((o) => o.obj);
      },
    };
    const chain = (this.chain = new AdmissionChain(opts.admission ?? [], this.lookup));
    for (const def of opts.definitions) {
      const isEvent = def.resource === 'events' && (def.group === '' || def.group === 'events.k8s.io');
      const ttlSeconds = isEvent ? opts.eventTTLSeconds : undefined;
      const st = new Store(def, { storage: opts.storage, admission: chain, lookup: this.lookup, ttlSeconds });
      const gr = `${def.group}/${def.resource}`;
      if (!this.stores.has(gr)) this.stores.set(gr, st);
      this.byGVR.set(`${def.group}/${def.version}/${def.resource}`, st);
    }
    const subs = [...(opts.subresources ?? [])];
    // built-in subresources that need nothing beyond the store, served whenever their resource is
    for (const b of BUILTIN_SUBRESOURCES) {
      if (
        this.byGVR.has(`${b.group}/${b.version}/${b.resource}`) &&
        !subs.some((s) => s.group === b.group && s.version === b.version && s.resource === b.resource && s.subresource === b.subresource)
      ) {
        subs.push(b);
      }
    }
    for (const s of subs) this.subresources.set(`${s.group}/${s.version}/${s.resource}/${s.subresource}`, s);
    this.discovery = new Discovery(opts.definitions, subs);
    for (const c of opts.storeConsumers ?? []) c.attach(this);
    this.handle = buildHandlerChain((req, res) => this.serve(req, res), {
      authentication: opts.authentication,
      auditor: opts.auditor,
      impersonation: opts.impersonation,
      maxInFlight: opts.maxInFlight,
      authorizer: opts.authorizer,
      tracer: opts.requestTracer,
    });
  }

  /**
   * Handles one request through the whole handler chain (src/apiserver/filters/chain.ts).
   * Never rejects: errors become metav1.Status responses.
   */
  readonly handle: Handler;

  store(group: string, resource: string): Store | undefined {
    return this.stores.get(`${group}/${resource}`);
  }

  /**
   * Starts the watch caches and, when CustomResourceDefinitions are served, the CRD
   * controller (which installs the custom resources of established CRDs before this
   * resolves); the server is ready afterwards. A resource served from another one's
   * stored objects through a storage conversion (events.k8s.io Events, autoscaling/v1
   * HorizontalPodAutoscalers) starts its cache on first use instead: a second decoded
   * copy of every object that nobody may read.
   */
  async start(): Promise<void> {
    await Promise.all([...this.byGVR.values()].filter((s) => s.def.storageConversion === undefined).map((s) => s.start()));
    if (this.store('apiextensions.k8s.io', 'customresourcedefinitions')) {
      this.crds = new CustomResourceDefinitionController(this);
      await this.crds.start();
    }
    this.ready = true;
  }

  stop(): void {
    this.crds?.stop();
    for (const s of this.byGVR.values()) s.stop();
  }

  /**
   * Serves a resource from now on (custom resources): a generic store over the same
   * storage and admission chain, its custom subresource handlers, discovery and OpenAPI.
   * Resolves once the store's watch cache is loaded.
   * @throws Error when the group/version/resource is already served
   */
  async addResource(def: ResourceDefinition, subresources: readonly SubresourceHandler[] = []): Promise<Store> {
    const gvr = `${def.group}/${def.version}/${def.resource}`;
    if (this.byGVR.has(gvr)) throw new Error(`${gvr} is already served`);
    const st = new Store(def, { storage: this.storage, admission: this.chain, lookup: this.lookup });
    await st.start();
    this.byGVR.set(gvr, st);
    this.runtimeWatches.set(st, new Set());
    const gr = `${def.group}/${def.resource}`;
    if (!this.stores.has(gr)) this.stores.set(gr, st);
    for (const s of subresources) this.subresources.set(`${gvr}/${s.subresource}`, s);
    this.definitions = [...this.definitions, def];
    this.discovery.add(def, subresources);
    return st;
  }

  /**
   * The conversion webhook client of a CRD with `spec.conversion.strategy: Webhook` (no
   * client credentials: upstream's conversion webhooks do not use the admission kubeconfig).
   */
  conversionWebhook(crd: CustomResourceDefinition): WebhookConverter {
    return new WebhookConverter(crd, {
      resolve: (ns, name, port) => resolveServiceEndpoint(storeServiceLookup(this.lookup), ns, name, port),
    });
  }

  /** Stops serving a resource added with {@link addResource}; its stored objects stay. */
  removeResource(group: string, version: string, resource: string): void {
    const gvr = `${group}/${version}/${resource}`;
    const st = this.byGVR.get(gvr);
    if (!st) return;
    this.byGVR.delete(gvr);
    const gr = `${group}/${resource}`;
    if (this.stores.get(gr) === st) {
      this.stores.delete(gr);
      for (const other of this.byGVR.values()) {
        if (other.def.group === group && other.def.resource === resource) {
          this.stores.set(gr, other);
          break;
        }
      }
    }
    for (const k of [...this.subresources.keys()]) if (k.startsWith(`${gvr}/`)) this.subresources.delete(k);
    this.definitions = this.definitions.filter((d) => d !== st.def);
    this.discovery.remove(group, version, resource);
    const open = this.runtimeWatches.get(st);
    this.runtimeWatches.delete(st);
    if (open) for (const w of [...open]) if (!w.closed) w.end();
    st.stop();
  }

  get isReady(): boolean {
    return this.ready && Object.values(this.opts.readyChecks ?? {}).every((f) => f());
  }

  /** The innermost handler (after authorization): errors are written as metav1.Status. */
  private async serve(req: ApiRequest, res: ResponseWriter): Promise<void> {
    try {
      await this.dispatch(req, res);
    } catch (e) {
      if (!res.closed) {
        try {
          writeError(res, e);
        } catch {
          res.end();
        }
      }
    }
  }

  private async dispatch(req: ApiRequest, res: ResponseWriter): Promise<void> {
    const aggregated = this.opts.aggregator?.route(req.url);
    if (aggregated) return aggregated(req, res);
    const { path, query } = splitURL(req.url);
    const info = requestInfoOf(req);
    if (!info.isResourceRequest) return this.nonResource(req, res, path, query);
    this.instrument(req, res, info, query);

    const virtual = this.virtual.match(req.method, info);
    if (virtual) return serveVirtual(virtual, info, req, res);
    const gvKey = `${info.apiGroup}/${info.apiVersion}/${info.resource}`;
    const store = this.byGVR.get(gvKey);
    if (!store) throw notFoundPath();
    const c: ResourceContext = { store, storage: this.storage, info, query, req, res, now: this.now() };
    if (info.verb === 'watch') {
      // watches of resources added at runtime end when the resource goes (CRD deleted)
      const open = this.runtimeWatches.get(store);
      if (open) {
        open.add(res);
        res.onClose(() => open.delete(res));
      }
    }
    if (info.subresource && info.subresource !== 'status' && !store.def.subresourceStrategies?.[info.subresource]) {
      const h = this.subresources.get(`${gvKey}/${info.subresource}`);
      if (!h) throw notFoundPath();
      return h.handle(c, this);
    }
    return handleResource(c);
  }

  /** Records the request in the metrics once its response ends (the status code from writeHead). */
  private instrument(req: ApiRequest, res: ResponseWriter, info: RequestInfo, query: URLSearchParams): void {
    const m = this.metrics.begin(info, req.headers['content-type'], query.get('dryRun') === 'All', req.receivedAt ?? performance.now());
    let code = 0;
    const writeHead = res.writeHead;
    res.writeHead = (status, headers) => {
      code = status;
      writeHead.call(res, status, headers);
    };
    res.onClose(() => m.done(code || 200));
  }

  /** Objects per resource (`pods`, `deployments.apps`) in the watch caches, for apiserver_storage_objects. */
  private *storedObjectCounts(): Iterable<[string, number]> {
    for (const st of this.stores.values()) yield [st.def.group ? `${st.def.resource}.${st.def.group}` : st.def.resource, st.cache.size];
  }

  private async serveMetrics(res: ResponseWriter): Promise<void> {
    const { contentType, text } = await this.metrics.exposition();
    res.writeHead(200, { 'Content-Type': contentType });
    res.end(text);
  }

  private nonResource(req: ApiRequest, res: ResponseWriter, path: string, query: URLSearchParams): void | Promise<void> {
    const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const m = req.method;
    const flag = p.startsWith('/debug/flags/') ? this.opts.debugFlags?.[p.slice('/debug/flags/'.length)] : undefined;
    if (flag) return this.debugFlag(req, res, flag);
    const extra = this.opts.extraPaths?.[p];
    if (extra) return extra(req, res);
    if (m !== 'GET' && m !== 'HEAD') {
      if (p === '/api' || p.startsWith('/apis') || p.startsWith('/api/')) throw notFoundPath();
      throw notFoundPath();
    }
    switch (p) {
      case '/version':
        return writeJSON(res, 200, VERSION);
      case '/metrics':
        return this.serveMetrics(res);
      case '/healthz':
      case '/livez':
      case '/readyz':
        return this.health(res, p, query);
      case '/api': {
        const agg = wantsAggregated(req.headers['accept']);
        if (agg) return this.writeAggregated(res, 'api', agg);
        return writeJSON(res, 200, this.discovery.apiVersions(this.opts.serverAddress));
      }
      case '/apis': {
        const agg = wantsAggregated(req.headers['accept']);
        if (agg) return this.writeAggregated(res, 'apis', agg);
        return writeJSON(res, 200, this.discovery.apiGroupList());
      }
      case '/api/v1':
        return writeJSON(res, 200, this.discovery.resourceList('', 'v1'));
    }
    if (p.startsWith('/healthz/') || p.startsWith('/livez/') || p.startsWith('/readyz/')) return this.health(res, p, query);
    if (p === '/openapi/v3' || p.startsWith('/openapi/v3/') || p.startsWith('/openapi/v2')) {
      return handleOpenAPIAsync(p, query, this.definitions, new Date(), req.headers, this.opts.aggregator?.openAPI).then((r) => {
        res.writeHead(r.status, r.headers);
        res.end(r.body);
      });
    }
    const parts = p.split('/').filter(Boolean);
    if (parts[0] === 'apis' && parts.length === 2 && this.discovery.hasGroup(parts[1]!)) {
      return writeJSON(res, 200, this.discovery.apiGroupDoc(parts[1]!));
    }
    if (parts[0] === 'apis' && parts.length === 3 && this.discovery.hasGroupVersion(parts[1]!, parts[2]!)) {
      return writeJSON(res, 200, this.discovery.resourceList(parts[1]!, parts[2]!));
    }
    throw notFoundPath();
  }

  /** upstream routes.StringFlagPutHandler: PUT sets the flag from the body; other methods 406 */
  private debugFlag(req: ApiRequest, res: ResponseWriter, set: (value: string) => string): void {
    const reply = (status: number, text: string): void => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end(text);
    };
    if (req.method !== 'PUT') return reply(406, 'unsupported http method');
    try {
      reply(200, set((req.body ?? Buffer.alloc(0)).toString('utf8')));
    } catch (e) {
      reply(400, (e as Error).message);
    }
  }

  private writeAggregated(res: ResponseWriter, prefix: 'api' | 'apis', v: 'v2' | 'v2beta1'): void {
    if (res.closed) return;
    res.writeHead(200, {
      'Content-Type': v === 'v2' ? AGGREGATED_V2 : AGGREGATED_V2BETA1,
      'Cache-Control': 'no-cache, private',
      Vary: 'Accept',
    });
    res.end(this.discovery.aggregated(prefix, v));
  }

  private health(res: ResponseWriter, p: string, query: URLSearchParams): void {
    const root = healthRoot(p);
    const checks: [string, boolean][] = [
      ['ping', true],
      ['log', true],
      ['etcd', true],
    ];
    if (root === '/readyz') {
      checks.push(['informer-sync', this.ready]);
      for (const [n, f] of Object.entries(this.opts.readyChecks ?? {})) checks.push([n, f()]);
    }
    checks.push(['poststarthook/start-apiserver-admission-initializer', this.ready]);
    const sub = p.slice(root.length + 1);
    if (sub) {
      const c = checks.find(([n]) => n === sub);
      if (!c) throw notFoundPath();
      res.writeHead(c[1] ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end(c[1] ? 'ok' : `[-]${sub} failed: reason withheld\n`);
      return;
    }
    const ok = checks.every(([, v]) => v);
    const verbose = query.has('verbose');
    const name = root.slice(1);
    let body: string;
    if (verbose || !ok) {
      body = checks.map(([n, v]) => (v ? `[+]${n} ok` : `[-]${n} failed: reason withheld`)).join('\n') + '\n';
      body += ok ? `${name} check passed\n` : `${name} check failed\n`;
    } else body = 'ok';
    res.writeHead(ok ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end(body);
  }
}

function healthRoot(p: string): string {
  for (const r of ['/healthz', '/livez', '/readyz']) if (p === r || p.startsWith(`${r}/`)) return r;
  return p;
}

/**
 * Where a Service reference of an API server client goes (admission webhooks, CRD conversion
 * webhooks, APIServices of the aggregation layer): one resolver for all three, as upstream
 * shares util/proxy's resolvers between them.
 *
 * k8ts routes no ClusterIPs from the API server's host, so a ClusterIP, NodePort or
 * LoadBalancer Service resolves to one of its ready endpoints, as kube-apiserver does with
 * `--enable-aggregator-routing=true` (upstream ResolveEndpoint), read from the Service's
 * EndpointSlices (label `kubernetes.io/service-name`; an endpoint is ready unless
 * `conditions.ready` is false; the slice port named as the Service port); an ExternalName
 * Service resolves to its external name and the requested port, as upstream's cluster
 * resolver (ResolveCluster) does — the way to name a backend on 127.0.0.1, which Endpoints
 * validation refuses. The caller still verifies TLS for `<service>.<namespace>.svc`.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/util/proxy/proxy.go (ResolveEndpoint, ResolveCluster)
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/util/webhook/serviceresolver.go
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { ObjectLookup } from '../../api/resource.js';

/** Reads the Services and EndpointSlices the resolver looks at (informer caches or the API server's stores). */
export interface ServiceLookup {
  service(namespace: string, name: string): Service | undefined | Promise<Service | undefined>;
  /** the EndpointSlices of the namespace (the resolver picks the Service's by label) */
  endpointSlices(namespace: string): readonly EndpointSlice[] | Promise<readonly EndpointSlice[]>;
}

/** `host:port` of one endpoint of the service. */
export interface ResolvedEndpoint {
  host: string;
  port: number;
}

/**
 * A resolution failure with upstream's text. `unavailable`: the Service or its endpoints
 * are missing (the aggregation proxy answers 503, webhooks report it as a call failure).
 */
export class ResolveError extends Error {
  constructor(
    message: string,
    readonly unavailable = false,
  ) {
    super(message);
    this.name = 'ResolveError';
  }
}

/**
 * The host and port of a backend of Service `namespace/name` for the Service port `port`.
 * @param pick chooses among the ready endpoints (default random)
 * @throws ResolveError `service "x" not found`, `unsupported service type "…"`,
 *   `no service port 443 found for service "x"`, `no endpoints available for service "x"`
 */
export async function resolveServiceEndpoint(
  l: ServiceLookup,
  namespace: string,
  name: string,
  port: number,
  pick: (n: number) => number = randomIndex,
): Promise<ResolvedEndpoint> {
  const svc = await l.service(namespace, name);
  if (!svc) throw new ResolveError(`service "${name}" not found`, true);
  const type = svc.spec?.type ?? 'ClusterIP';
  if (type === 'ExternalName') return { host: svc.spec?.externalName ?? '', port };
  if (type !== 'ClusterIP' && type !== 'NodePort' && type !== 'LoadBalancer') throw new ResolveError(`unsupported service type ${JSON.stringify(type)}`);
  const svcPort = (svc.spec?.ports ?? []).find((p) => p.port === port);
  if (!svcPort) throw new ResolveError(`no service port ${port} found for service ${JSON.stringify(name)}`);
  const portName = svcPort.name ?? '';
  const candidates: ResolvedEndpoint[] = [];
  for (const s of await l.endpointSlices(namespace)) {
    if (s.metadata?.labels?.['kubernetes.io/service-name'] !== name) continue;
    const p = (s.ports ?? []).find((sp) => (sp.name ?? '') === portName);
    if (!p || p.port === undefined) continue;
    for (const ep of s.endpoints ?? []) {
      if (ep.conditions?.ready === false) continue;
      const addr = ep.addresses?.[0];
      if (addr) candidates.push({ host: addr, port: p.port });
    }
  }
  if (!candidates.length) throw new ResolveError(`no endpoints available for service ${JSON.stringify(name)}`, true);
  return candidates[pick(candidates.length)]!;
}

function randomIndex(n: number): number {
  return Math.floor(Math.random() * n);
}

/** `host:port` with IPv6 hosts bracketed (Go's net.JoinHostPort). */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

const SERVICES = { group: '', version: 'v1', resource: 'services' };
const SLICES = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };

/** A {@link ServiceLookup} over the API server's own stores (consistent reads). */
export function storeServiceLookup(lookup: ObjectLookup): ServiceLookup {
  return {
    service: async (ns, name) => (await lookup.get(SERVICES, ns, name)) as Service | undefined,
    endpointSlices: async (ns) => (await lookup.list(SLICES, ns)) as unknown as EndpointSlice[],
  };
}

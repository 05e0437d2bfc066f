/**
 * Where an APIService's Service is reached (upstream's ServiceResolver). k8ts runs no
 * kube-proxy, so ClusterIPs are not routed: a ClusterIP, NodePort or LoadBalancer Service
 * resolves to one of its ready endpoint addresses, as kube-apiserver does with
 * `--enable-aggregator-routing=true` (upstream proxy.ResolveEndpoint); an ExternalName
 * Service resolves to its external name and the APIService's port, as upstream's
 * cluster-IP resolver does (proxy.ResolveCluster).
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/util/proxy/proxy.go
 */
import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';

/** Reads the Services and Endpoints the resolver looks at (informer caches). */
export interface ServiceLookup {
  service(namespace: string, name: string): Service | undefined;
  endpoints(namespace: string, name: string): Endpoints | undefined;
}

/** A resolution failure with upstream's text; `unavailable` ones are answered 503 by the proxy. */
export class ResolveError extends Error {
  constructor(
    message: string,
    readonly unavailable = false,
  ) {
    super(message);
  }
}

/**
 * The host and port of a backend of Service `namespace/name` for the APIService port `port`.
 * @throws ResolveError `services "x" not found`, `unsupported service type "…"`,
 *   `no service port 443 found for service "x"`, `no endpoints available for service "x"`
 */
export function resolveEndpoint(l: ServiceLookup, namespace: string, name: string, port: number, pick: (n: number) => number = randomIndex): { host: string; port: number } {
  const svc = l.service(namespace, name);
  if (!svc) throw new ResolveError(`service "${name}" not found`, true);
  const type = svc.spec?.type ?? 'ClusterIP';
  if (type === 'ExternalName') return { host: svc.spec?.externalName ?? '', port };
  if (type !== 'ClusterIP' && type !== 'NodePort' && type !== 'LoadBalancer') throw new ResolveError(`unsupported service type "${type}"`);
  const svcPort = (svc.spec?.ports ?? []).find((p) => p.port === port);
  if (!svcPort) throw new ResolveError(`no service port ${port} found for service "${name}"`);
  const eps = l.endpoints(namespace, name);
  if (!eps) throw new ResolveError(`endpoints "${name}" not found`, true);
  const subsets = eps.subsets ?? [];
  if (subsets.length === 0) throw new ResolveError(`no endpoints available for service "${name}"`, true);
  const start = pick(subsets.length);
  for (let i = 0; i < subsets.length; i++) {
    const ss = subsets[(start + i) % subsets.length]!;
    const addrs = ss.addresses ?? [];
    if (addrs.length === 0) continue;
    const p = (ss.ports ?? []).find((x) => (x.name ?? '') === (svcPort.name ?? ''));
    if (p) return { host: addrs[pick(addrs.length)]!.ip, port: p.port };
  }
  throw new ResolveError(`no endpoints available for service "${name}"`, true);
}

function randomIndex(n: number): number {
  return Math.floor(Math.random() * n);
}

/** `https://host:port` with IPv6 hosts bracketed (Go's net.JoinHostPort). */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Resolves a webhook's `clientConfig.service` to an endpoint address, as kube-apiserver
 * does with `--enable-aggregator-routing=true` (upstream proxy.ResolveEndpoint), but from
 * the Service's EndpointSlices (label `kubernetes.io/service-name`) rather than the legacy
 * Endpoints: the Service must exist and be ClusterIP, NodePort or LoadBalancer, have a
 * port numbered `port`; an endpoint that is ready (conditions.ready unset or true) of a
 * slice with a port of the same name gives `<address>:<that port>`. k8ts does not route
 * ClusterIPs from the API server's host, so the endpoint is dialled directly; TLS still
 * verifies the name `<service>.<namespace>.svc`.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/util/proxy/proxy.go (ResolveEndpoint)
 */
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { ObjectLookup } from '../../../api/resource.js';
import { failureStatus, newNotFound, StatusError } from '../../../apimachinery/errors.js';

const SERVICES = { group: '', version: 'v1', resource: 'services' };
const SLICES = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };

const unavailable = (msg: string): StatusError => new StatusError(failureStatus(503, 'ServiceUnavailable', msg));

/** `host:port` of one endpoint of the service (IPv6 in brackets). */
export interface ResolvedEndpoint {
  host: string;
  port: number;
}

/**
 * @throws StatusError NotFound `service "<name>" not found`, 503 `no service port <port> found
 *   for service "<name>"` / `no endpoints available for service "<name>"`, or Error
 *   `unsupported service type "ExternalName"`
 */
export async function resolveServiceEndpoint(
  lookup: ObjectLookup,
  namespace: string,
  name: string,
  port: number,
  pick: (n: number) => number = randomIndex,
): Promise<ResolvedEndpoint> {
  const svc = (await lookup.get(SERVICES, namespace, name)) as Service | undefined;
  if (!svc) throw newNotFound({ group: '', resource: 'service' }, name);
  const type = svc.spec?.type ?? 'ClusterIP';
  if (type !== 'ClusterIP' && type !== 'NodePort' && type !== 'LoadBalancer') throw new Error(`unsupported service type ${JSON.stringify(type)}`);
  const svcPort = (svc.spec?.ports ?? []).find((p) => p.port === port);
  if (!svcPort) throw unavailable(`no service port ${port} found for service ${JSON.stringify(name)}`);
  const portName = svcPort.name ?? '';
  const slices = ((await lookup.list(SLICES, namespace)) as unknown as EndpointSlice[]).filter((s) => s.metadata?.labels?.['kubernetes.io/service-name'] === name);
  const candidates: ResolvedEndpoint[] = [];
  for (const s of slices) {
    const p = (s.ports ?? []).find((sp) => (sp.name ?? '') === portName);
    if (!p || p.port === undefined) continue;
    for (const ep of s.endpoints ?? []) {
      if (ep.conditions?.ready === false) continue;
      const addr = ep.addresses?.[0];
      if (addr) candidates.push({ host: addr, port: p.port });
    }
  }
  if (!candidates.length) throw unavailable(`no endpoints available for service ${JSON.stringify(name)}`);
  return candidates[pick(candidates.length)]!;
}

function randomIndex(n: number): number {
  return Math.floor(Math.random() * n);
}

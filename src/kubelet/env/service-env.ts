/**
 * Service-link environment variables (docker-links style), as upstream's
 * envvars.FromServices: for each Service with a cluster IP,
 * `<NAME>_SERVICE_HOST`, `<NAME>_SERVICE_PORT`, `<NAME>_SERVICE_PORT_<PORTNAME>`,
 * `<NAME>_PORT=tcp://ip:port`, `<NAME>_PORT_<port>_<PROTO>[ _PROTO|_PORT|_ADDR]`.
 * The `kubernetes` Service of `default` is always included; the pod's namespace's
 * Services only with enableServiceLinks (default true).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/envvars/envvars.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kubelet_pods.go (getServiceEnvVarMap)
 */
import type { Service } from 'kubernetes-types/core/v1.js';

const envName = (s: string): string => s.toUpperCase().replace(/-/g, '_');

function hasClusterIP(s: Service): boolean {
  const ip = s.spec?.clusterIP;
  return !!ip && ip !== 'None';
}

/** The variables of one Service, in upstream's order. */
function serviceEnv(s: Service): [string, string][] {
  const out: [string, string][] = [];
  const name = envName(s.metadata?.name ?? '');
  const ip = s.spec?.clusterIP ?? '';
  const ports = s.spec?.ports ?? [];
  if (!ports.length) return out;
  out.push([`${name}_SERVICE_HOST`, ip], [`${name}_SERVICE_PORT`, String(ports[0].port)]);
  for (const p of ports) if (p.name) out.push([`${name}_SERVICE_PORT_${envName(p.name)}`, String(p.port)]);
  const url = (p: (typeof ports)[number]): string => `${(p.protocol ?? 'TCP').toLowerCase()}://${ip.includes(':') ? `[${ip}]` : ip}:${p.port}`;
  out.push([`${name}_PORT`, url(ports[0])]);
  for (const p of ports) {
    const proto = p.protocol ?? 'TCP';
    const prefix = `${name}_PORT_${p.port}_${proto.toUpperCase()}`;
    out.push([prefix, url(p)], [`${prefix}_PROTO`, proto.toLowerCase()], [`${prefix}_PORT`, String(p.port)], [`${prefix}_ADDR`, ip]);
  }
  return out;
}

/** All service-link variables for a pod in `namespace`. */
export function serviceEnvMap(services: Iterable<Service>, namespace: string, enableServiceLinks: boolean): Map<string, string> {
  const chosen = new Map<string, Service>();
  for (const s of services) {
    if (!hasClusterIP(s)) continue;
    const n = s.metadata?.name ?? '';
    const ns = s.metadata?.namespace ?? '';
    if (ns === 'default' && n === 'kubernetes') {
      if (!chosen.has(n)) chosen.set(n, s);
    } else if (ns === namespace && enableServiceLinks) chosen.set(n, s);
  }
  const out = new Map<string, string>();
  for (const n of [...chosen.keys()].sort()) for (const [k, v] of serviceEnv(chosen.get(n)!)) out.set(k, v);
  return out;
}

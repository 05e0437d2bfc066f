/**
 * HTTP from a SIMULATED pod to the rest of the cluster: the host name resolved with the
 * cluster DNS (the pod's resolv.conf search path; DNS itself subject to the pod's egress
 * policy), a Service's ClusterIP taken to one of its endpoints, NetworkPolicies applied
 * (a denied connection times out, as a dropped SYN does), and the request answered by
 * the destination pod's servers wherever its simulated node runs in this process.
 */
import { isIPv4 } from 'node:net';
import { resolverConf, type SimClusterNetwork, type SimPodDirectory } from './cluster-net.js';
import type { HttpAnswer, HttpRequest } from './shell-io.js';

/** What the runtime is given for its pods' cluster traffic. */
export interface ClusterNetDeps {
  net: SimClusterNetwork;
  pods: SimPodDirectory;
}

/**
 * Resolves `host` from the pod at `podIP`: its addresses, `unresolved` (NXDOMAIN) or
 * `timeout` (its egress policy drops DNS). Address literals resolve to themselves.
 */
export function clusterResolve(host: string, podIP: string, resolvConf: string, net: SimClusterNetwork): { name: string; addresses: string[] } | 'unresolved' | 'timeout' {
  const h = host.replace(/^\[(.*)\]$/, '$1');
  if (isIPv4(h) || h.includes(':')) return { name: h, addresses: [h] };
  const conf = resolverConf(resolvConf);
  if (conf.server && !net.allowed(podIP, conf.server, 53, 'UDP')) return 'timeout';
  const r = net.resolve(h, conf);
  return r?.addresses.length ? r : 'unresolved';
}

/** Answers `req` made by the pod at `podIP` to a host outside the pod. */
export function clusterHttp(req: HttpRequest, podIP: string, resolvConf: string, deps: ClusterNetDeps): HttpAnswer {
  const r = clusterResolve(req.host, podIP, resolvConf, deps.net);
  if (r === 'unresolved' || r === 'timeout') return { kind: 'unresolved' };
  const ip = r.addresses.find((a) => isIPv4(a)) ?? r.addresses[0]!;
  let dest = { ip, port: req.port };
  const svc = deps.net.service(ip, req.port, 'TCP');
  if (svc === 'refused') return { kind: 'refused', ip };
  if (svc) dest = svc;
  if (!deps.net.allowed(podIP, dest.ip, dest.port, 'TCP')) return { kind: 'timeout', ip };
  const a = deps.pods.serve(dest.ip, { ...req, host: dest.ip, port: dest.port });
  if (!a) return { kind: 'unreachable', ip };
  return a.kind === 'unresolved' ? a : { ...a, ip };
}

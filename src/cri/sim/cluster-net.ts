/**
 * The cluster network as SIMULATED pods see it (no packets: the answers a real pod
 * network would give). The runtime knows only these two contracts; the node wiring
 * implements {@link SimClusterNetwork} with the cluster DNS records, the Services'
 * endpoints and the NetworkPolicies, and shares one {@link SimPodDirectory} between the
 * simulated runtimes of one process, so that a pod on one simulated node reaches the
 * servers of a pod on another.
 */
import type { HttpAnswer, HttpRequest } from './shell-io.js';

/** What the cluster says about names, Service addresses and policies. */
export interface SimClusterNetwork {
  /**
   * Resolves `name` as the pod's resolver would (search list and ndots of its
   * resolv.conf): the name that answered and its addresses, or undefined (NXDOMAIN).
   */
  resolve(name: string, conf: { search: string[]; ndots: number }): { name: string; addresses: string[] } | undefined;
  /**
   * Where a connection to `ip:port` goes when `ip` is a Service's ClusterIP: one ready
   * endpoint (`refused` when the Service has none); undefined when `ip` is no ClusterIP.
   */
  service(ip: string, port: number, protocol: string): { ip: string; port: number } | 'refused' | undefined;
  /** NetworkPolicy: may the pod at `from` open a connection to `to:port` (`protocol`)? */
  allowed(from: string, to: string, port: number, protocol: string): boolean;
}

/** A simulated runtime as seen from other pods: answers HTTP sent to one of its pod IPs. */
export interface SimPodHost {
  /** the answer of the pod with IP `ip`, or undefined when no pod of this runtime has it */
  serveAt(ip: string, req: HttpRequest): HttpAnswer | undefined;
}

/** The simulated runtimes of a process, asked in turn for a pod IP. */
export class SimPodDirectory {
  private readonly hosts = new Set<SimPodHost>();

  register(h: SimPodHost): void {
    this.hosts.add(h);
  }

  unregister(h: SimPodHost): void {
    this.hosts.delete(h);
  }

  /** What the pod at `ip` answers; undefined when no simulated pod has that IP. */
  serve(ip: string, req: HttpRequest): HttpAnswer | undefined {
    for (const h of this.hosts) {
      const a = h.serveAt(ip, req);
      if (a) return a;
    }
    return undefined;
  }
}

/** `search` and `ndots` of a resolv.conf text (ndots default 1, as glibc). */
export function resolverConf(text: string): { search: string[]; ndots: number; server?: string } {
  let search: string[] = [];
  let ndots = 1;
  let server: string | undefined;
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] === 'search') search = f.slice(1);
    else if (f[0] === 'nameserver' && !server) server = f[1];
    else if (f[0] === 'options') for (const o of f.slice(1)) if (o.startsWith('ndots:')) ndots = Number(o.slice(6)) || 0;
  }
  return { search, ndots, ...(server ? { server } : {}) };
}

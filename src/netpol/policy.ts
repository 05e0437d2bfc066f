/**
 * NetworkPolicy semantics, without any packet machinery: which local pods are isolated
 * in which direction, and what each isolated pod may receive / send, flattened into
 * {@link Match}es (an address block with exceptions, a protocol, a port range), the
 * union of which is allowed.
 *
 * - A policy selects the pods of its namespace that its `podSelector` matches; a
 *   selected pod is isolated for ingress when the policy's `policyTypes` holds Ingress,
 *   for egress when it holds Egress (unset: Ingress, plus Egress when egress rules
 *   exist — the API server's default). Traffic is allowed when any rule of any policy
 *   selecting the pod allows it; a pod no policy isolates is not filtered.
 * - A rule without peers (`from`/`to`) allows every address; without ports every port.
 * - Peers: `podSelector` alone = pods of the policy's namespace; `namespaceSelector`
 *   alone = every pod of the matching namespaces; both = the matching pods of the
 *   matching namespaces; `ipBlock` = the CIDR minus its `except` blocks. Pods count by
 *   their pod IP (hostNetwork pods and pods without an IP are no peers).
 * - Ports: a number (with `endPort`, a range) and protocol (default TCP); a named port
 *   is the destination pod's container port of that name and protocol — the isolated
 *   pod for ingress, each peer pod for egress (an ipBlock peer has none).
 *
 * @see https://kubernetes.io/docs/concepts/services-networking/network-policies/
 * @see https://github.com/kubernetes/api/blob/release-1.32/networking/v1/types.go
 */
import type { NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from 'kubernetes-types/networking/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { labelSelectorAsSelector, nothing, type Selector } from '../apimachinery/labels.js';

/** A container port a pod declares. */
export interface NamedPort {
  name: string;
  port: number;
  protocol: string;
}

/** What policies need of a pod (or of another endpoint that pods may talk to, such as the node's DNS server). */
export interface Endpoint {
  namespace: string;
  name: string;
  /** the pod IP; undefined: not yet known (no rules can name it) */
  ip?: string;
  labels: Record<string, string>;
  ports: NamedPort[];
}

/** An allowed flow, from the isolated pod's point of view (the peer's address and the destination port). */
export interface Match {
  /** the peer's block (`10.42.0.7/32` for a pod); undefined: any address */
  cidr?: string;
  /** blocks inside `cidr` that are not allowed */
  except?: string[];
  /** undefined: any protocol (and any port) */
  protocol?: string;
  /** undefined: any port of `protocol` */
  port?: number;
  endPort?: number;
  /** `namespace/name` of the policy that allows it */
  policy: string;
}

/** The filtering of one local pod: undefined in a direction where it is not isolated. */
export interface PodFilter {
  pod: Endpoint;
  ingress?: Match[];
  egress?: Match[];
}

function selector(ls: LabelSelector | undefined): Selector {
  try {
    return labelSelectorAsSelector(ls ?? {});
  } catch {
    return nothing();
  }
}

/** `policyTypes` as the API server defaults them. */
export function policyTypes(p: NetworkPolicy): string[] {
  const t = p.spec?.policyTypes;
  if (t?.length) return t;
  return (p.spec?.egress ?? []).length ? ['Ingress', 'Egress'] : ['Ingress'];
}

/** Peers in one of the two shapes: every address, or some blocks and endpoints. */
type Peers = { any: true } | { any: false; endpoints: Endpoint[]; blocks: { cidr: string; except: string[] }[] };

/** The compiled view of the cluster the semantics are evaluated against. */
export class PolicyView {
  private readonly nsLabels: Map<string, Record<string, string>>;

  constructor(
    /** every endpoint a peer selector may pick (pods with IPs, not hostNetwork; plus the node's DNS servers) */
    private readonly peers: Endpoint[],
    namespaces: { name: string; labels: Record<string, string> }[],
  ) {
    this.nsLabels = new Map(namespaces.map((n) => [n.name, n.labels]));
  }

  private resolvePeers(policyNs: string, from: NetworkPolicyPeer[] | undefined): Peers {
    if (!from?.length) return { any: true };
    const endpoints: Endpoint[] = [];
    const blocks: { cidr: string; except: string[] }[] = [];
    for (const peer of from) {
      if (peer.ipBlock) {
        blocks.push({ cidr: peer.ipBlock.cidr, except: peer.ipBlock.except ?? [] });
        continue;
      }
      if (!peer.podSelector && !peer.namespaceSelector) continue;
      const pods = peer.podSelector ? selector(peer.podSelector) : undefined;
      const nss = peer.namespaceSelector ? selector(peer.namespaceSelector) : undefined;
      for (const e of this.peers) {
        if (!e.ip) continue;
        if (nss ? !nss.matches(this.nsLabels.get(e.namespace) ?? { 'kubernetes.io/metadata.name': e.namespace }) : e.namespace !== policyNs) continue;
        if (pods && !pods.matches(e.labels)) continue;
        endpoints.push(e);
      }
    }
    return { any: false, endpoints, blocks };
  }

  /** A policy port as protocol + range for a destination with `ports` (undefined: a named port it lacks). */
  private static portOf(p: NetworkPolicyPort, dest: NamedPort[] | undefined): { protocol: string; port?: number; endPort?: number } | undefined {
    const protocol = p.protocol ?? 'TCP';
    if (p.port === undefined) return { protocol };
    if (typeof p.port === 'number' || /^\d+$/.test(String(p.port))) {
      const port = Number(p.port);
      return { protocol, port, ...(p.endPort !== undefined && p.endPort > port ? { endPort: p.endPort } : {}) };
    }
    const named = dest?.find((c) => c.name === p.port && c.protocol === protocol);
    return named ? { protocol, port: named.port } : undefined;
  }

  /** Matches of one rule for the isolated pod `pod`; `egress` resolves named ports on the peers. */
  private ruleMatches(policy: string, policyNs: string, pod: Endpoint, peersIn: NetworkPolicyPeer[] | undefined, ports: NetworkPolicyPort[] | undefined, egress: boolean): Match[] {
    const peers = this.resolvePeers(policyNs, peersIn);
    const out: Match[] = [];
    const portList: (NetworkPolicyPort | undefined)[] = ports?.length ? ports : [undefined];
    const add = (addr: { cidr?: string; except?: string[] }, destPorts: NamedPort[] | undefined): void => {
      for (const p of portList) {
        if (!p) {
          out.push({ ...addr, policy });
          continue;
        }
        const r = PolicyView.portOf(p, destPorts);
        if (r) out.push({ ...addr, ...r, policy });
      }
    };
    if (peers.any) {
      // named egress ports with any destination: the named port of every known endpoint, numeric ones for any address
      if (egress && ports?.some((p) => p.port !== undefined && typeof p.port !== 'number' && !/^\d+$/.test(String(p.port)))) {
        const numeric = ports.filter((p) => p.port === undefined || typeof p.port === 'number' || /^\d+$/.test(String(p.port)));
        if (numeric.length) out.push(...this.ruleMatches(policy, policyNs, pod, undefined, numeric, egress));
        const named = ports.filter((p) => !numeric.includes(p));
        for (const e of this.peers)
          if (e.ip)
            for (const p of named) {
              const r = PolicyView.portOf(p, e.ports);
              if (r) out.push({ cidr: `${e.ip}/32`, ...r, policy });
            }
        return out;
      }
      add({}, egress ? undefined : pod.ports);
      return out;
    }
    for (const e of peers.endpoints) add({ cidr: `${e.ip}/32` }, egress ? e.ports : pod.ports);
    for (const b of peers.blocks) add({ cidr: b.cidr, ...(b.except.length ? { except: b.except } : {}) }, egress ? undefined : pod.ports);
    return out;
  }

  /**
   * The filters of `local` pods under `policies` (pods no policy isolates are left out).
   * Matches keep the policies' order (namespace/name) and their rules' order.
   */
  filters(local: Endpoint[], policies: NetworkPolicy[]): PodFilter[] {
    const sorted = [...policies].sort((a, b) => {
      const ka = `${a.metadata?.namespace}/${a.metadata?.name}`;
      const kb = `${b.metadata?.namespace}/${b.metadata?.name}`;
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
    const out: PodFilter[] = [];
    for (const pod of local) {
      const f: PodFilter = { pod };
      for (const p of sorted) {
        const ns = p.metadata?.namespace ?? '';
        if (ns !== pod.namespace || !selector(p.spec?.podSelector).matches(pod.labels)) continue;
        const types = policyTypes(p);
        const key = `${ns}/${p.metadata?.name}`;
        if (types.includes('Ingress')) {
          f.ingress ??= [];
          for (const r of p.spec?.ingress ?? []) f.ingress.push(...this.ruleMatches(key, ns, pod, r.from, r.ports, false));
        }
        if (types.includes('Egress')) {
          f.egress ??= [];
          for (const r of p.spec?.egress ?? []) f.egress.push(...this.ruleMatches(key, ns, pod, r.to, r.ports, true));
        }
      }
      if (f.ingress || f.egress) out.push(f);
    }
    return out;
  }
}

/** `a.b.c.d` → 32-bit number (undefined when not an IPv4 address). */
function ipv4(ip: string): number | undefined {
  const p = ip.split('.');
  if (p.length !== 4 || !p.every((x) => /^\d{1,3}$/.test(x) && Number(x) <= 255)) return undefined;
  return ((Number(p[0]) << 24) | (Number(p[1]) << 16) | (Number(p[2]) << 8) | Number(p[3])) >>> 0;
}

/** Is `ip` inside `cidr` (IPv4; `a.b.c.d/n`)? */
export function inCIDR(ip: string, cidr: string): boolean {
  const [base, bits = '32'] = cidr.split('/');
  const a = ipv4(ip);
  const b = ipv4(base ?? '');
  const n = Number(bits);
  if (a === undefined || b === undefined || !(n >= 0 && n <= 32)) return false;
  const mask = n === 0 ? 0 : (0xffffffff << (32 - n)) >>> 0;
  return (a & mask) === (b & mask);
}

/** Does one {@link Match} allow the flow with peer `peer` to `port`/`protocol`? */
export function matchAllows(m: Match, peer: string, port: number, protocol: string): boolean {
  if (m.cidr && (!inCIDR(peer, m.cidr) || (m.except ?? []).some((x) => inCIDR(peer, x)))) return false;
  if (!m.protocol) return true;
  if (m.protocol !== protocol) return false;
  if (m.port === undefined) return true;
  return m.endPort !== undefined ? port >= m.port && port <= m.endPort : port === m.port;
}

/**
 * Whether the flow `from` → `to:port/protocol` passes: the sender's egress filter (when
 * it is isolated for egress) and the receiver's ingress filter (when isolated for
 * ingress) must each have a match; ends without a filter pass.
 */
export function flowAllowed(src: PodFilter | undefined, dst: PodFilter | undefined, from: string, to: string, port: number, protocol: string): boolean {
  if (src?.egress && !src.egress.some((m) => matchAllows(m, to, port, protocol))) return false;
  if (dst?.ingress && !dst.ingress.some((m) => matchAllows(m, from, port, protocol))) return false;
  return true;
}

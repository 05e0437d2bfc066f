/**
 * The cluster's DNS records, computed from Services and EndpointSlices as the Kubernetes
 * DNS specification (schema 1.0.1) asks, answered the way CoreDNS's `kubernetes` plugin
 * answers them:
 *
 * - `<svc>.<ns>.svc.<zone>` A/AAAA → the ClusterIP(s); for a headless Service the
 *   addresses of its ready endpoints (NXDOMAIN when there are none); for an ExternalName
 *   Service a CNAME to the external name;
 * - `<hostname>.<svc>.<ns>.svc.<zone>` A/AAAA for each ready endpoint of a headless
 *   Service, `<hostname>` being the endpoint's `hostname` (StatefulSet pods with a
 *   matching `subdomain`) or, without one, its address with dashes (`10-42-0-7`);
 * - `_<port>._<proto>.<svc>.<ns>.svc.<zone>` SRV for each named port (headless: one per
 *   ready endpoint, with the endpoint's port number), the targets' A/AAAA as additionals;
 * - PTR for ClusterIPs and headless endpoints; `<a>-<b>-<c>-<d>.<ns>.pod.<zone>` A
 *   (CoreDNS's `pods insecure`); `dns-version.<zone>` TXT;
 * - NXDOMAIN for any other name in the zone, with the zone's SOA as authority.
 *
 * Names outside the zone and unknown reverse names are not answered here (`undefined`):
 * the server forwards them. All comparisons are case-insensitive; owner names keep the
 * case of the question.
 *
 * @see https://github.com/kubernetes/dns/blob/master/docs/specification.md
 * @see https://github.com/coredns/coredns/tree/master/plugin/kubernetes
 */
import type { Answer, SoaAnswer, SrvAnswer, StringAnswer } from 'dns-packet';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';

/** The specification's schema version, served as `dns-version.<zone>` TXT. */
export const DNS_SCHEMA_VERSION = '1.0.1';

/** Record types the cluster zone knows (others get an empty NOERROR answer for existing names). */
export type QueryType = 'A' | 'AAAA' | 'SRV' | 'PTR' | 'CNAME' | 'TXT' | 'SOA' | 'NS' | 'ANY' | string;

/** What the cluster zone says about one question. */
export interface ZoneAnswer {
  rcode: 'NOERROR' | 'NXDOMAIN';
  answers: Answer[];
  /** the SOA on negative answers */
  authorities: Answer[];
  additionals: Answer[];
  /** set when the answer is a CNAME to a name outside the zone (ExternalName): the server may chase it */
  cnameTarget?: string;
}

export interface ClusterRecordsOptions {
  /** the cluster domain (kubelet --cluster-domain), e.g. `cluster.local` */
  domain: string;
  /** TTL of every record, seconds (CoreDNS's kubernetes plugin default: 5) */
  ttl?: number;
}

interface Endpoint {
  addresses: string[];
  hostname?: string;
  ports: { name: string; port: number; protocol: string }[];
}

const SLICE_SERVICE_LABEL = 'kubernetes.io/service-name';

const lower = (s: string): string => s.toLowerCase().replace(/\.$/, '');
const isV6 = (ip: string): boolean => ip.includes(':');
const dashed = (ip: string): string => ip.replace(/[.:]/g, '-');

/** The reverse name of an address (`10.0.0.1` → `1.0.0.10.in-addr.arpa`, IPv6 as nibbles under ip6.arpa). */
export function reverseName(ip: string): string {
  if (!isV6(ip)) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
  const [head = '', tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return `${groups
    .map((g) => g.padStart(4, '0'))
    .join('')
    .split('')
    .reverse()
    .join('.')}.ip6.arpa`;
}

/**
 * The records of one cluster domain, kept current by the informer handlers
 * ({@link ClusterRecords.setService} …) and read by {@link ClusterRecords.answer}.
 */
export class ClusterRecords {
  readonly domain: string;
  readonly ttl: number;
  /** `ns/name` → Service */
  private readonly services = new Map<string, Service>();
  /** `ns/name` of the Service → slice name → slice */
  private readonly slices = new Map<string, Map<string, EndpointSlice>>();
  /** namespaces that have at least one Service → count */
  private readonly namespaces = new Map<string, number>();

  constructor(o: ClusterRecordsOptions) {
    this.domain = lower(o.domain);
    this.ttl = o.ttl ?? 5;
  }

  /** Adds or replaces a Service. */
  setService(svc: Service): void {
    const key = `${svc.metadata?.namespace}/${svc.metadata?.name}`.toLowerCase();
    if (!this.services.has(key)) this.namespaces.set(key.split('/')[0]!, (this.namespaces.get(key.split('/')[0]!) ?? 0) + 1);
    this.services.set(key, svc);
  }

  deleteService(svc: Service): void {
    const key = `${svc.metadata?.namespace}/${svc.metadata?.name}`.toLowerCase();
    if (!this.services.delete(key)) return;
    const ns = key.split('/')[0]!;
    const n = (this.namespaces.get(ns) ?? 1) - 1;
    if (n <= 0) this.namespaces.delete(ns);
    else this.namespaces.set(ns, n);
  }

  /** Adds or replaces an EndpointSlice (slices without the service-name label are ignored). */
  setEndpointSlice(s: EndpointSlice): void {
    const svc = s.metadata?.labels?.[SLICE_SERVICE_LABEL];
    if (!svc) return;
    const key = `${s.metadata?.namespace}/${svc}`.toLowerCase();
    let m = this.slices.get(key);
    if (!m) this.slices.set(key, (m = new Map()));
    m.set(s.metadata?.name ?? '', s);
  }

  deleteEndpointSlice(s: EndpointSlice): void {
    const svc = s.metadata?.labels?.[SLICE_SERVICE_LABEL];
    if (!svc) return;
    const key = `${s.metadata?.namespace}/${svc}`.toLowerCase();
    const m = this.slices.get(key);
    m?.delete(s.metadata?.name ?? '');
    if (m && !m.size) this.slices.delete(key);
  }

  /**
   * Where a connection to a Service's ClusterIP goes (what a service proxy does, for the
   * SIMULATED network): one ready endpoint of the Service port `port`/`protocol`, chosen
   * round-robin; `refused` when the Service has no such port or no ready endpoint for it;
   * undefined when `ip` is no Service's ClusterIP.
   */
  serviceEndpoint(ip: string, port: number, protocol: string): { ip: string; port: number } | 'refused' | undefined {
    for (const [key, svc] of this.services) {
      const spec = svc.spec ?? {};
      if (spec.clusterIP === 'None' || spec.type === 'ExternalName') continue;
      const ips = spec.clusterIPs?.length ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : [];
      if (!ips.includes(ip)) continue;
      const sp = (spec.ports ?? []).find((p) => p.port === port && (p.protocol ?? 'TCP') === protocol);
      if (!sp) return 'refused';
      const targets: { ip: string; port: number }[] = [];
      for (const s of this.slices.get(key)?.values() ?? []) {
        const p = (s.ports ?? []).find((x) => (x.name ?? '') === (sp.name ?? '') && (x.protocol ?? 'TCP') === protocol);
        if (!p?.port) continue;
        for (const e of s.endpoints ?? []) if (e.conditions?.ready !== false && e.addresses?.[0]) targets.push({ ip: e.addresses[0], port: p.port });
      }
      if (!targets.length) return 'refused';
      this.rr = (this.rr + 1) % 1_000_000;
      return targets[this.rr % targets.length];
    }
    return undefined;
  }

  private rr = 0;

  /**
   * Resolves `name` as a pod's stub resolver does (glibc: with at least `ndots` dots the
   * name as given first, then each search domain; a trailing dot: only the name): the
   * first name with A records and its addresses, or undefined. Only the cluster zone is
   * known (for the SIMULATED network, which reaches nothing outside).
   */
  resolve(name: string, conf: { search: string[]; ndots: number }): { name: string; addresses: string[] } | undefined {
    const absolute = name.endsWith('.');
    const bare = name.replace(/\.$/, '');
    const dots = bare.split('.').length - 1;
    const candidates = absolute ? [bare] : dots >= conf.ndots ? [bare, ...conf.search.map((d) => `${bare}.${d}`)] : [...conf.search.map((d) => `${bare}.${d}`), bare];
    for (const c of candidates) {
      const a = this.answer(c, 'A');
      const ips = a?.answers.filter((x) => x.type === 'A').map((x) => (x as StringAnswer).data) ?? [];
      if (a?.rcode === 'NOERROR' && ips.length) return { name: c, addresses: ips };
    }
    return undefined;
  }

  /** The zone's SOA (owner: the zone). */
  soa(): SoaAnswer {
    return {
      name: this.domain,
      type: 'SOA',
      ttl: this.ttl,
      data: {
        mname: `ns.dns.${this.domain}`,
        rname: `hostmaster.${this.domain}`,
        serial: 1,
        refresh: 7200,
        retry: 1800,
        expire: 86400,
        minimum: this.ttl,
      },
    };
  }

  /** True when `name` is in the cluster zone (the server answers it, never forwards). */
  inZone(name: string): boolean {
    const n = lower(name);
    return n === this.domain || n.endsWith(`.${this.domain}`);
  }

  /**
   * Answers one question, or `undefined` when the name is not the zone's (outside it, or
   * a reverse name of no Service or endpoint): the caller forwards those.
   */
  answer(qname: string, qtype: QueryType): ZoneAnswer | undefined {
    const name = lower(qname);
    if (name.endsWith('.in-addr.arpa') || name.endsWith('.ip6.arpa')) return this.reverse(qname, name, qtype);
    if (!this.inZone(name)) return undefined;
    const labels = name === this.domain ? [] : name.slice(0, -this.domain.length - 1).split('.');
    const last = labels[labels.length - 1];
    if (labels.length === 0) {
      if (qtype === 'SOA') return this.ok([{ ...this.soa(), name: qname }]);
      if (qtype === 'NS') return this.ok([{ name: qname, type: 'NS', ttl: this.ttl, data: `ns.dns.${this.domain}` }]);
      return this.nodata();
    }
    if (labels.length === 1 && labels[0] === 'dns-version') {
      return qtype === 'TXT' ? this.ok([{ name: qname, type: 'TXT', ttl: this.ttl, data: [DNS_SCHEMA_VERSION] }]) : this.nodata();
    }
    if (last === 'svc') return this.svc(qname, labels.slice(0, -1), qtype);
    if (last === 'pod') return this.pod(qname, labels.slice(0, -1), qtype);
    return this.nxdomain();
  }

  private ok(answers: Answer[], additionals: Answer[] = []): ZoneAnswer {
    return { rcode: 'NOERROR', answers, authorities: [], additionals };
  }

  private nodata(): ZoneAnswer {
    return { rcode: 'NOERROR', answers: [], authorities: [this.soa()], additionals: [] };
  }

  private nxdomain(): ZoneAnswer {
    return { rcode: 'NXDOMAIN', answers: [], authorities: [this.soa()], additionals: [] };
  }

  private addressRecords(owner: string, ips: string[], qtype: QueryType): StringAnswer[] {
    const out: StringAnswer[] = [];
    for (const ip of ips) {
      if ((qtype === 'A' || qtype === 'ANY') && !isV6(ip)) out.push({ name: owner, type: 'A', ttl: this.ttl, data: ip });
      if ((qtype === 'AAAA' || qtype === 'ANY') && isV6(ip)) out.push({ name: owner, type: 'AAAA', ttl: this.ttl, data: ip });
    }
    return out;
  }

  /** Ready endpoints of a Service (all its slices, FQDN slices aside). */
  private endpoints(key: string): Endpoint[] {
    const out: Endpoint[] = [];
    for (const s of this.slices.get(key)?.values() ?? []) {
      if (s.addressType === 'FQDN') continue;
      const ports = (s.ports ?? []).map((p) => ({ name: p.name ?? '', port: p.port ?? 0, protocol: p.protocol ?? 'TCP' }));
      for (const e of s.endpoints ?? []) {
        if (e.conditions?.ready === false || !e.addresses?.length) continue;
        out.push({ addresses: e.addresses, hostname: e.hostname, ports });
      }
    }
    return out;
  }

  private svc(qname: string, labels: string[], qtype: QueryType): ZoneAnswer {
    if (labels.length === 0) return this.nodata(); // svc.<zone>
    if (labels.length === 1) return this.namespaces.has(labels[0]!) ? this.nodata() : this.nxdomain();
    const [first, second] = labels;
    // _<port>._<proto>.<svc>.<ns>
    if (labels.length === 4 && first!.startsWith('_') && second!.startsWith('_')) return this.srv(qname, labels[2]!, labels[3]!, first!.slice(1), second!.slice(1), qtype);
    if (labels.length === 2) return this.service(qname, first!, second!, qtype);
    if (labels.length === 3) return this.endpointName(qname, first!, labels[1]!, labels[2]!, qtype);
    return this.nxdomain();
  }

  private service(qname: string, name: string, ns: string, qtype: QueryType): ZoneAnswer {
    const key = `${ns}/${name}`;
    const svc = this.services.get(key);
    if (!svc) return this.nxdomain();
    const spec = svc.spec ?? {};
    if (spec.type === 'ExternalName') {
      const target = lower(spec.externalName ?? '');
      if (!target) return this.nxdomain();
      return { ...this.ok([{ name: qname, type: 'CNAME', ttl: this.ttl, data: target }]), cnameTarget: target };
    }
    if (qtype === 'SRV') return this.srvAll(qname, svc, key);
    if (spec.clusterIP === 'None') {
      const eps = this.endpoints(key);
      if (!eps.length) return this.nxdomain();
      const answers = this.addressRecords(
        qname,
        eps.flatMap((e) => e.addresses),
        qtype,
      );
      return answers.length ? this.ok(answers) : this.nodata();
    }
    const ips = spec.clusterIPs?.length ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : [];
    const answers = this.addressRecords(qname, ips, qtype);
    return answers.length ? this.ok(answers) : this.nodata();
  }

  /** `<hostname>.<svc>.<ns>` of a headless Service's ready endpoint. */
  private endpointName(qname: string, host: string, name: string, ns: string, qtype: QueryType): ZoneAnswer {
    const key = `${ns}/${name}`;
    const svc = this.services.get(key);
    if (!svc || svc.spec?.clusterIP !== 'None') return this.nxdomain();
    const ips = this.endpoints(key)
      .filter((e) => (e.hostname ?? dashed(e.addresses[0]!)).toLowerCase() === host)
      .flatMap((e) => e.addresses);
    if (!ips.length) return this.nxdomain();
    const answers = this.addressRecords(qname, ips, qtype);
    return answers.length ? this.ok(answers) : this.nodata();
  }

  /** SRV records of one named port of a Service (or of every named port when `port`/`proto` are undefined). */
  private srvRecords(owner: (p: { name: string; protocol: string }) => string, svc: Service, key: string, port?: string, proto?: string): [SrvAnswer[], Answer[]] {
    const m = svc.metadata!;
    const base = `${m.name}.${m.namespace}.svc.${this.domain}`.toLowerCase();
    const match = (p: { name: string; protocol: string }) =>
      !!p.name && (port === undefined || p.name.toLowerCase() === port) && (proto === undefined || p.protocol.toLowerCase() === proto);
    const answers: SrvAnswer[] = [];
    const extra: Answer[] = [];
    if (svc.spec?.clusterIP === 'None') {
      const eps = this.endpoints(key);
      const targets = eps.flatMap((e) => e.ports.filter(match).map((p) => ({ e, p })));
      const weight = targets.length ? Math.floor(100 / targets.length) || 1 : 0;
      for (const { e, p } of targets) {
        const target = `${(e.hostname ?? dashed(e.addresses[0]!)).toLowerCase()}.${base}`;
        answers.push({ name: owner(p), type: 'SRV', ttl: this.ttl, data: { priority: 0, weight, port: p.port, target } });
        extra.push(...this.addressRecords(target, e.addresses, 'ANY'));
      }
    } else {
      const ports = (svc.spec?.ports ?? []).map((p) => ({ name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP' })).filter(match);
      const ips = svc.spec?.clusterIPs?.length ? svc.spec.clusterIPs : svc.spec?.clusterIP ? [svc.spec.clusterIP] : [];
      const weight = ports.length ? Math.floor(100 / ports.length) || 1 : 0;
      for (const p of ports) answers.push({ name: owner(p), type: 'SRV', ttl: this.ttl, data: { priority: 0, weight, port: p.port, target: base } });
      if (ports.length) extra.push(...this.addressRecords(base, ips, 'ANY'));
    }
    return [answers, extra];
  }

  private srv(qname: string, name: string, ns: string, port: string, proto: string, qtype: QueryType): ZoneAnswer {
    const key = `${ns}/${name}`;
    const svc = this.services.get(key);
    if (!svc || svc.spec?.type === 'ExternalName') return this.nxdomain();
    const [answers, extra] = this.srvRecords(() => qname, svc, key, port, proto);
    if (!answers.length) return this.nxdomain();
    if (qtype !== 'SRV' && qtype !== 'ANY') return this.nodata();
    return this.ok(answers, extra);
  }

  /** SRV on the Service name itself: every named port (CoreDNS answers so). */
  private srvAll(qname: string, svc: Service, key: string): ZoneAnswer {
    if (svc.spec?.clusterIP === 'None' && !this.endpoints(key).length) return this.nxdomain();
    const [answers, extra] = this.srvRecords(() => qname, svc, key);
    return answers.length ? this.ok(answers, extra) : this.nodata();
  }

  private pod(qname: string, labels: string[], qtype: QueryType): ZoneAnswer {
    if (labels.length === 0) return this.nodata();
    if (labels.length !== 2) return this.nxdomain();
    const parts = labels[0]!.split('-');
    if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return this.nxdomain();
    const ip = parts.map(Number).join('.');
    if (qtype === 'A' || qtype === 'ANY') return this.ok([{ name: qname, type: 'A', ttl: this.ttl, data: ip }]);
    return this.nodata();
  }

  private reverse(qname: string, name: string, qtype: QueryType): ZoneAnswer | undefined {
    const targets: string[] = [];
    for (const [key, svc] of this.services) {
      const m = svc.metadata!;
      const base = `${m.name}.${m.namespace}.svc.${this.domain}`.toLowerCase();
      if (svc.spec?.clusterIP === 'None') {
        for (const e of this.endpoints(key))
          for (const ip of e.addresses) if (reverseName(ip) === name) targets.push(`${(e.hostname ?? dashed(e.addresses[0]!)).toLowerCase()}.${base}`);
      } else {
        const ips = svc.spec?.clusterIPs?.length ? svc.spec.clusterIPs : svc.spec?.clusterIP ? [svc.spec.clusterIP] : [];
        if (ips.some((ip) => reverseName(ip) === name)) targets.push(base);
      }
    }
    if (!targets.length) return undefined;
    if (qtype !== 'PTR' && qtype !== 'ANY') return this.nodata();
    return this.ok(targets.map((t) => ({ name: qname, type: 'PTR', ttl: this.ttl, data: t })));
  }
}

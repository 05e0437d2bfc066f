/**
 * The subsets of a Service's Endpoints: one address per pod (ready or not ready),
 * repacked so that addresses offering the same ports share a subset, sorted, and
 * truncated to 1000 addresses.
 *
 * Ordering: addresses sort by IP then target UID as upstream; ports and subsets sort by
 * a stable key (upstream orders them by a hash of the object, which is arbitrary).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/endpoint/endpoints_controller.go (syncService, addEndpointSubset, truncateEndpoints)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/api/v1/endpoints/util.go (RepackSubsets, SortSubsets)
 */
import type { EndpointAddress, EndpointPort, EndpointSubset } from 'kubernetes-types/core/v1.js';
import { isPodReady, type Pod } from '../util/pods.js';
import { findPort, isIPv6, isServiceIPSet, podIPs, type Service, shouldPodBeInEndpoints, shouldSetHostname } from './util.js';

/** Most addresses an Endpoints object carries (upstream maxCapacity). */
const MAX_ENDPOINTS_CAPACITY = 1000;
/** Annotation set when addresses were dropped to stay within {@link MAX_ENDPOINTS_CAPACITY}. */
export const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity';

/**
 * Upstream podToEndpointAddressForService: the pod's IP of the Service's first IP family
 * (from spec.ipFamilies, else the clusterIP, else the pod's own IP), with nodeName and
 * a Pod targetRef.
 * @returns undefined when the pod has no IP of that family
 */
function podToEndpointAddress(svc: Service, pod: Pod): EndpointAddress | undefined {
  const ips = podIPs(pod);
  let v6: boolean;
  const fams = svc.spec?.ipFamilies;
  if (fams?.length) v6 = fams[0] === 'IPv6';
  else if (isServiceIPSet(svc)) v6 = isIPv6(svc.spec!.clusterIP!);
  else v6 = isIPv6(pod.status?.podIP ?? ips[0] ?? '');
  const ip = ips.find((x) => isIPv6(x) === v6);
  if (!ip) return undefined;
  const a: EndpointAddress = { ip };
  if (pod.spec?.nodeName) a.nodeName = pod.spec.nodeName;
  a.targetRef = { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid };
  return a;
}

/** Counts of a computed subsets list. */
interface SubsetsResult {
  subsets: EndpointSubset[];
  ready: number;
  notReady: number;
}

/**
 * Upstream syncService's loop: the (unrepacked) subsets of the Service's pods. Pods
 * without an IP, terminal pods and (unless publishNotReadyAddresses) terminating pods are
 * left out; a pod goes to `addresses` when Ready (or publishNotReadyAddresses), to
 * `notReadyAddresses` otherwise; named target ports that a pod lacks skip that port.
 */
export function podSubsets(svc: Service, pods: readonly Pod[]): SubsetsResult {
  const tolerateUnready = svc.spec?.publishNotReadyAddresses === true;
  const out: SubsetsResult = { subsets: [], ready: 0, notReady: 0 };
  const ports = svc.spec?.ports ?? [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const addr = podToEndpointAddress(svc, pod);
    if (!addr) continue;
    if (shouldSetHostname(pod, svc)) addr.hostname = pod.spec!.hostname;
    const ready = tolerateUnready || isPodReady(pod);
    const add = (epp: EndpointPort | undefined): void => {
      const s: EndpointSubset = ready ? { addresses: [addr] } : { notReadyAddresses: [addr] };
      s.ports = epp ? [epp] : [];
      out.subsets.push(s);
      if (ready) out.ready++;
      else out.notReady++;
    };
    if (ports.length === 0) {
      if (svc.spec?.clusterIP === 'None') add(undefined);
      continue;
    }
    for (const sp of ports) {
      const n = findPort(pod, sp);
      if (n === undefined) continue;
      const epp: EndpointPort = { name: sp.name ?? '', port: n, protocol: sp.protocol ?? 'TCP' };
      if (!sp.name) delete epp.name;
      if (sp.appProtocol !== undefined) epp.appProtocol = sp.appProtocol;
      add(epp);
    }
  }
  return out;
}

const portKey = (p: EndpointPort): string => `${p.name ?? ''}\x00${p.port}\x00${p.protocol ?? ''}\x00${p.appProtocol ?? ''}`;
const addrKey = (a: EndpointAddress): string => `${a.ip}\x00${a.targetRef?.uid ?? ''}`;

/** Upstream LessEndpointAddress: by IP (bytewise), then target UID. */
function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  if (a.ip !== b.ip) return a.ip < b.ip ? -1 : 1;
  const ua = a.targetRef?.uid ?? '';
  const ub = b.targetRef?.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/**
 * Upstream RepackSubsets + SortSubsets: groups addresses by the exact set of ports they
 * offer (an address ready for one port wins over not ready), then sorts.
 */
export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  const addrs = new Map<string, EndpointAddress>();
  // port key → (address key → ready)
  const byPort = new Map<string, { port: EndpointPort | undefined; set: Map<string, boolean> }>();
  const mapAddr = (a: EndpointAddress, port: EndpointPort | undefined, ready: boolean): void => {
    const ak = addrKey(a);
    if (!addrs.has(ak)) addrs.set(ak, a);
    const pk = port ? portKey(port) : '\x01sentinel';
    let e = byPort.get(pk);
    if (!e) byPort.set(pk, (e = { port, set: new Map() }));
    if (!e.set.get(ak)) e.set.set(ak, ready);
  };
  for (const s of subsets) {
    const ports: (EndpointPort | undefined)[] = s.ports?.length ? s.ports : [undefined];
    for (const p of ports) {
      for (const a of s.addresses ?? []) mapAddr(a, p, true);
      for (const a of s.notReadyAddresses ?? []) mapAddr(a, p, false);
    }
  }
  // address set → ports
  const groups = new Map<string, { set: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const { port, set } of byPort.values()) {
    const key = [...set]
      .map(([k, r]) => `${k}\x00${r ? 1 : 0}`)
      .sort()
      .join('\x02');
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { set, ports: [] }));
    if (port && port.port > 0) g.ports.push(port);
  }
  const out: EndpointSubset[] = [];
  for (const g of groups.values()) {
    const ready: EndpointAddress[] = [];
    const notReady: EndpointAddress[] = [];
    for (const [k, r] of g.set) (r ? ready : notReady).push(addrs.get(k)!);
    const s: EndpointSubset = {};
    if (ready.length) s.addresses = ready.sort(compareAddresses);
    if (notReady.length) s.notReadyAddresses = notReady.sort(compareAddresses);
    if (g.ports.length) s.ports = g.ports.sort((a, b) => (portKey(a) < portKey(b) ? -1 : portKey(a) > portKey(b) ? 1 : 0));
    out.push(s);
  }
  const subsetKey = (s: EndpointSubset): string => `${(s.ports ?? []).map(portKey).join('\x02')}\x03${addrKey((s.addresses ?? s.notReadyAddresses ?? [])[0] ?? { ip: '' })}`;
  return out.sort((a, b) => (subsetKey(a) < subsetKey(b) ? -1 : subsetKey(a) > subsetKey(b) ? 1 : 0));
}

/**
 * Upstream truncateEndpoints: when the subsets hold more than `max` addresses, keep
 * every ready address and drop not-ready ones, or (more than `max` ready) keep a
 * proportional share of ready addresses per subset and no not-ready ones. Mutates.
 * @returns whether anything was dropped
 */
export function truncateSubsets(subsets: EndpointSubset[], max = MAX_ENDPOINTS_CAPACITY): boolean {
  let totalReady = 0;
  let totalNotReady = 0;
  for (const s of subsets) {
    totalReady += s.addresses?.length ?? 0;
    totalNotReady += s.notReadyAddresses?.length ?? 0;
  }
  if (totalReady + totalNotReady <= max) return false;
  const truncateReady = totalReady > max;
  const limit = truncateReady ? max : max - totalReady;
  const numTotal = truncateReady ? totalReady : totalNotReady;
  let canBeAdded = limit;
  for (const s of subsets) {
    const n = (truncateReady ? s.addresses?.length : s.notReadyAddresses?.length) ?? 0;
    const toBeAdded = Math.min(Math.ceil((n / numTotal) * limit), canBeAdded);
    if (truncateReady) {
      if (s.addresses) s.addresses = s.addresses.slice(0, toBeAdded);
      delete s.notReadyAddresses;
      canBeAdded -= s.addresses?.length ?? 0;
    } else {
      if (s.notReadyAddresses) s.notReadyAddresses = s.notReadyAddresses.slice(0, toBeAdded);
      canBeAdded -= s.notReadyAddresses?.length ?? 0;
    }
  }
  return true;
}

/** Upstream capacityAnnotationSetCorrectly: the annotation is present exactly when over capacity. */
export function capacityAnnotationSetCorrectly(annotations: Record<string, string> | undefined, subsets: readonly EndpointSubset[] | undefined): boolean {
  let n = 0;
  for (const s of subsets ?? []) n += (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0);
  const has = annotations?.[OVER_CAPACITY_ANNOTATION] !== undefined;
  return n > MAX_ENDPOINTS_CAPACITY ? has : !has;
}

function addressesEqual(a: readonly EndpointAddress[] | undefined, b: readonly EndpointAddress[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p.ip !== q.ip || (p.hostname ?? '') !== (q.hostname ?? '') || (p.nodeName ?? '') !== (q.nodeName ?? '')) return false;
    const r = p.targetRef;
    const s = q.targetRef;
    if (!r !== !s) return false;
    if (r && s && (r.kind !== s.kind || r.name !== s.name || r.namespace !== s.namespace || r.uid !== s.uid)) return false;
  }
  return true;
}

/** Upstream EndpointSubsetsEqualIgnoreResourceVersion (order-sensitive on sorted subsets). */
export function subsetsEqual(a: readonly EndpointSubset[] | undefined, b: readonly EndpointSubset[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (!addressesEqual(p.addresses, q.addresses) || !addressesEqual(p.notReadyAddresses, q.notReadyAddresses)) return false;
    const pp = p.ports ?? [];
    const qp = q.ports ?? [];
    if (pp.length !== qp.length) return false;
    for (let j = 0; j < pp.length; j++) if (portKey(pp[j]!) !== portKey(qp[j]!)) return false;
  }
  return true;
}

/**
 * The EndpointSlice reconciler's plan: given a Service, its pods, the nodes and the
 * Service's existing managed slices, which slices to create, update and delete. Slices
 * are filled up to {@link MAX_ENDPOINTS_PER_SLICE}; existing slices are updated in place
 * (endpoints that changed replaced, gone ones removed, new ones added to the fullest
 * changed slice first, then to the unchanged slice they fit best); a slice to delete is
 * reused for a slice to create; a Service without endpoints keeps one empty placeholder.
 *
 * Endpoint order: existing endpoints keep their place; new ones follow pod-name order
 * (upstream takes them from a hash set in no particular order).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/endpointslice/reconciler.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/endpointslice/utils.go
 */
import type { Endpoint, EndpointPort, EndpointSlice as KEndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Node as KNode } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { jsonEqual } from '../../apimachinery/validation.js';
import { findPort, HEADLESS_LABEL, isIPv6, isServiceIPSet, podIPs, type Service, shouldPodBeInEndpoints, shouldSetHostname } from '../endpoint/util.js';
import { isPodReady, type Pod } from '../util/pods.js';

export type EndpointSlice = KEndpointSlice & KObject;
export type Node = KNode & KObject;

/** Upstream --max-endpoints-per-slice default. */
export const MAX_ENDPOINTS_PER_SLICE = 100;
/** Controller name in the managed-by label. */
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';
export const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
const LABEL_ZONE = 'topology.kubernetes.io/zone';

type AddressType = 'IPv4' | 'IPv6';

/** What to write. */
export interface SlicePlan {
  create: EndpointSlice[];
  update: EndpointSlice[];
  delete: EndpointSlice[];
  /** pods left out because their node is unknown (the Service is retried) */
  missingNodes: { pod: string; node: string }[];
}

/** Upstream getAddressTypesForService. */
function addressTypesForService(svc: Service): AddressType[] {
  const fams = svc.spec?.ipFamilies;
  if (fams?.length) return fams.map((f) => (f === 'IPv6' ? 'IPv6' : 'IPv4'));
  if (isServiceIPSet(svc)) return [isIPv6(svc.spec!.clusterIP!) ? 'IPv6' : 'IPv4'];
  return ['IPv4', 'IPv6'];
}

/** Upstream getEndpointPorts: one port per Service port the pod resolves. */
function endpointPorts(svc: Service, pod: Pod): EndpointPort[] {
  const out: EndpointPort[] = [];
  const ports = svc.spec?.ports ?? [];
  if (ports.length === 0 && svc.spec?.clusterIP === 'None') return out;
  for (const sp of ports) {
    const n = findPort(pod, sp);
    if (n === undefined) continue;
    const p: EndpointPort = { name: sp.name ?? '', protocol: sp.protocol ?? 'TCP', port: n };
    if (sp.appProtocol !== undefined) p.appProtocol = sp.appProtocol;
    out.push(p);
  }
  return out;
}

/** Upstream podToEndpoint. */
function podToEndpoint(pod: Pod, node: Node | undefined, svc: Service, addressType: AddressType): Endpoint {
  const serving = isPodReady(pod);
  const terminating = !!pod.metadata?.deletionTimestamp;
  const ready = svc.spec?.publishNotReadyAddresses === true || (serving && !terminating);
  const ep: Endpoint = {
    addresses: podIPs(pod).filter((ip) => isIPv6(ip) === (addressType === 'IPv6')),
    conditions: { ready, serving, terminating },
  };
  if (shouldSetHostname(pod, svc)) ep.hostname = pod.spec!.hostname;
  ep.targetRef = { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid };
  if (pod.spec?.nodeName) ep.nodeName = pod.spec.nodeName;
  const zone = node?.metadata?.labels?.[LABEL_ZONE];
  if (zone) ep.zone = zone;
  return ep;
}

/** Upstream hashEndpoint: identity of an endpoint (addresses, hostname, target). */
function endpointKey(ep: Endpoint): string {
  const addrs = ep.addresses.length > 1 ? [...ep.addresses].sort() : ep.addresses;
  return `${addrs.join(',')}\x00${ep.hostname ?? ''}\x00${ep.targetRef?.namespace ?? ''}/${ep.targetRef?.name ?? ''}`;
}

/** Upstream NewPortMapKey: the port set, order-independent. */
function portsKey(ports: readonly EndpointPort[] | null | undefined): string {
  if (!ports?.length) return '';
  return ports
    .map((p) => `${p.name ?? ''}\x00${p.protocol ?? 'TCP'}\x00${p.port ?? ''}\x00${p.appProtocol ?? ''}`)
    .sort()
    .join('\x01');
}

const RESERVED = new Set([LABEL_SERVICE_NAME, LABEL_MANAGED_BY, HEADLESS_LABEL]);

/** Upstream setEndpointSliceLabels: the slice's labels and whether the Service's labels changed. */
function sliceLabels(slice: EndpointSlice | undefined, svc: Service): { labels: Record<string, string>; changed: boolean } {
  const labels: Record<string, string> = {};
  let nSvc = 0;
  for (const [k, v] of Object.entries(svc.metadata?.labels ?? {})) {
    if (RESERVED.has(k)) continue;
    labels[k] = v;
    nSvc++;
  }
  let nSlice = 0;
  let changed = false;
  for (const [k, v] of Object.entries(slice?.metadata?.labels ?? {})) {
    if (RESERVED.has(k)) continue;
    nSlice++;
    if (labels[k] !== v) changed = true;
  }
  if (nSlice !== nSvc) changed = true;
  if (!isServiceIPSet(svc)) labels[HEADLESS_LABEL] = '';
  labels[LABEL_SERVICE_NAME] = svc.metadata?.name ?? '';
  labels[LABEL_MANAGED_BY] = CONTROLLER_NAME;
  return { labels, changed };
}

/** Upstream getEndpointSlicePrefix: `<svc>-` (the name itself when that is too long). */
function slicePrefix(name: string): string {
  return name.length + 1 > 253 - 5 ? name : `${name}-`;
}

/** Upstream newEndpointSlice: an unnamed slice (generateName `<svc>-`) owned by the Service. */
function newEndpointSlice(svc: Service, ports: EndpointPort[], addressType: AddressType): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      generateName: slicePrefix(svc.metadata?.name ?? ''),
      namespace: svc.metadata?.namespace,
      labels: sliceLabels(undefined, svc).labels,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: svc.metadata?.name ?? '', uid: svc.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    addressType,
    endpoints: [],
    ports,
  };
}

const ownedBy = (slice: EndpointSlice, svc: Service): boolean =>
  !!slice.metadata?.ownerReferences?.some((r) => r.kind === 'Service' && r.apiVersion === 'v1' && r.uid === svc.metadata?.uid);

function isPlaceholder(slice: EndpointSlice, svc: Service, addressType: AddressType): boolean {
  if (slice.addressType !== addressType || slice.endpoints?.length || slice.ports?.length) return false;
  const refs = slice.metadata?.ownerReferences ?? [];
  const want = newEndpointSlice(svc, [], addressType).metadata!.ownerReferences!;
  if (!jsonEqual(refs, want) || !jsonEqual(want, refs)) return false;
  return jsonEqual(slice.metadata?.labels ?? {}, sliceLabels(undefined, svc).labels) && jsonEqual(sliceLabels(undefined, svc).labels, slice.metadata?.labels ?? {});
}

/**
 * Upstream reconciler.reconcile (without writing): the plan for `svc`.
 * @param pods the pods the Service selects
 * @param existing the Service's slices managed by this controller (not being deleted)
 * @param nodeOf the node by name (undefined when unknown)
 */
export function planSlices(
  svc: Service,
  pods: readonly Pod[],
  existing: readonly EndpointSlice[],
  nodeOf: (name: string) => Node | undefined,
  maxPerSlice = MAX_ENDPOINTS_PER_SLICE,
): SlicePlan {
  const plan: SlicePlan = { create: [], update: [], delete: [], missingNodes: [] };
  const types = addressTypesForService(svc);
  const byType = new Map<string, EndpointSlice[]>();
  for (const s of existing) {
    if (!types.includes(s.addressType as AddressType)) {
      plan.delete.push(s);
      continue;
    }
    let l = byType.get(s.addressType);
    if (!l) byType.set(s.addressType, (l = []));
    l.push(s);
  }
  for (const t of types) reconcileAddressType(svc, pods, byType.get(t) ?? [], t, nodeOf, maxPerSlice, plan);
  finalize(svc, plan);
  return plan;
}

function reconcileAddressType(
  svc: Service,
  pods: readonly Pod[],
  existing: EndpointSlice[],
  addressType: AddressType,
  nodeOf: (name: string) => Node | undefined,
  max: number,
  plan: SlicePlan,
): void {
  const existingByPorts = new Map<string, EndpointSlice[]>();
  const toDelete: EndpointSlice[] = [];
  for (const s of existing) {
    // a slice of an earlier Service of the same name (garbage collection pending)
    if (!ownedBy(s, svc)) {
      toDelete.push(s);
      continue;
    }
    const k = portsKey(s.ports);
    let l = existingByPorts.get(k);
    if (!l) existingByPorts.set(k, (l = []));
    l.push(s);
  }
  const desired = new Map<string, { ports: EndpointPort[]; set: Map<string, Endpoint> }>();
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports = endpointPorts(svc, pod);
    const node = pod.spec?.nodeName ? nodeOf(pod.spec.nodeName) : undefined;
    if (!node && !svc.spec?.publishNotReadyAddresses) {
      plan.missingNodes.push({ pod: pod.metadata?.name ?? '', node: pod.spec?.nodeName ?? '' });
      continue;
    }
    const ep = podToEndpoint(pod, node, svc, addressType);
    if (ep.addresses.length === 0) continue;
    const k = portsKey(ports);
    let d = desired.get(k);
    if (!d) desired.set(k, (d = { ports, set: new Map() }));
    d.set.set(endpointKey(ep), ep);
  }
  const toCreate: EndpointSlice[] = [];
  for (const [k, d] of desired) reconcileByPorts(svc, existingByPorts.get(k) ?? [], d.set, d.ports, addressType, max, toCreate, plan.update, toDelete);
  for (const [k, l] of existingByPorts) if (!desired.has(k)) toDelete.push(...l);
  // no slices would remain: keep (or create) one empty placeholder
  if (existing.length === toDelete.length && toCreate.length === 0) {
    if (toDelete.length === 1 && isPlaceholder(toDelete[0]!, svc, addressType)) toDelete.length = 0;
    else toCreate.push(newEndpointSlice(svc, [], addressType));
  }
  plan.create.push(...toCreate);
  plan.delete.push(...toDelete);
}

function reconcileByPorts(
  svc: Service,
  existing: EndpointSlice[],
  desired: Map<string, Endpoint>,
  ports: EndpointPort[],
  addressType: AddressType,
  max: number,
  toCreate: EndpointSlice[],
  toUpdate: EndpointSlice[],
  toDelete: EndpointSlice[],
): void {
  const updated: EndpointSlice[] = [];
  const unchanged: EndpointSlice[] = [];
  // 1. drop endpoints no longer desired, refresh changed ones
  for (const s of existing) {
    const kept: Endpoint[] = [];
    let endpointChanged = false;
    for (const ep of s.endpoints ?? []) {
      const k = endpointKey(ep);
      const want = desired.get(k);
      if (!want) continue;
      kept.push(want);
      if (!jsonEqual(want, ep) || !jsonEqual(ep, want)) endpointChanged = true;
      desired.delete(k);
    }
    const { labels, changed: labelsChanged } = sliceLabels(s, svc);
    const n = s.endpoints?.length ?? 0;
    if (endpointChanged || n !== kept.length) {
      if (kept.length === 0) toDelete.push(s);
      else updated.push({ ...s, metadata: { ...s.metadata, labels }, endpoints: kept });
    } else if (labelsChanged) {
      updated.push({ ...s, metadata: { ...s.metadata, labels } });
    } else {
      unchanged.push(s);
    }
  }
  const rest = desired.values();
  let left = desired.size;
  const fill = (s: EndpointSlice): void => {
    while (left > 0 && s.endpoints.length < max) {
      s.endpoints.push(rest.next().value as Endpoint);
      left--;
    }
  };
  // 2. fill the slices being updated anyway, fullest first
  if (left > 0 && updated.length) {
    updated.sort((a, b) => (b.endpoints?.length ?? 0) - (a.endpoints?.length ?? 0));
    for (const s of updated) {
      s.endpoints = [...(s.endpoints ?? [])];
      fill(s);
    }
  }
  // 3. the rest into the unchanged slice it fits best, else new slices
  while (left > 0) {
    let target: EndpointSlice | undefined;
    if (left < max && unchanged.length) {
      let closest = max;
      for (const s of unchanged) {
        const diff = max - (left + (s.endpoints?.length ?? 0));
        if (diff >= 0 && diff < closest) {
          closest = diff;
          target = s;
          if (diff === 0) break;
        }
      }
    }
    if (target) {
      unchanged.splice(unchanged.indexOf(target), 1);
      target = { ...target, endpoints: [...(target.endpoints ?? [])], metadata: { ...target.metadata } };
      fill(target);
      updated.push(target);
    } else {
      const s = newEndpointSlice(svc, ports, addressType);
      fill(s);
      toCreate.push(s);
    }
  }
  toUpdate.push(...updated);
}

/** Upstream finalize (planning part): a create becomes an update of a slice that would be deleted. */
function finalize(svc: Service, plan: SlicePlan): void {
  for (let i = 0; i < plan.delete.length && plan.create.length > 0; ) {
    const del = plan.delete[i]!;
    const c = plan.create[plan.create.length - 1]!;
    if (del.addressType === c.addressType && ownedBy(del, svc)) {
      plan.create.pop();
      const meta = { ...c.metadata, name: del.metadata?.name, resourceVersion: del.metadata?.resourceVersion };
      delete meta.generateName;
      if (del.metadata?.annotations) meta.annotations = { ...del.metadata.annotations };
      plan.update.push({ ...c, metadata: meta });
      plan.delete.splice(i, 1);
    } else {
      i++;
    }
  }
}

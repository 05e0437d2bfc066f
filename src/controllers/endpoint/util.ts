/**
 * Helpers the Endpoints and EndpointSlice controllers share (upstream
 * pkg/controller/util/endpoint and endpointslice/util): which pods belong in a
 * Service's endpoints, port resolution by name, hostnames, the Services a pod change
 * concerns, and the `endpoints.kubernetes.io/last-change-trigger-time` tracker.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/util/endpoint/controller_utils.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/endpointslice/util/controller_utils.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/util/endpoint/trigger_time_tracker.go
 */
import type { Service as KService, ServicePort } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { type Selector, selectorFromSet } from '../../apimachinery/labels.js';
import { isPodReady, type Pod } from '../util/pods.js';
import type { Informer } from '../../client/informer.js';

export type Service = KService & KObject;

/** Annotation with the time of the earliest change an Endpoints/EndpointSlice write reflects. */
export const LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';
/** Label on the Endpoints and EndpointSlices of a headless Service (value ""). */
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';

/** Is the Service's clusterIP set (not headless)? (upstream helper.IsServiceIPSet) */
export function isServiceIPSet(svc: Service): boolean {
  const ip = svc.spec?.clusterIP ?? '';
  return ip !== '' && ip !== 'None';
}

/** Does the Service select pods? A nil or empty selector selects none (the controllers leave it alone). */
function hasSelector(svc: Service): boolean {
  const s = svc.spec?.selector;
  if (!s) return false;
  for (const _ in s) return true;
  return false;
}

/** Succeeded or Failed (upstream podutil.IsPodTerminal). */
function isPodTerminal(pod: Pod): boolean {
  const ph = pod.status?.phase;
  return ph === 'Succeeded' || ph === 'Failed';
}

/**
 * Upstream ShouldPodBeInEndpoints: not terminal, has an IP, and (unless
 * `includeTerminating`) not being deleted.
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (isPodTerminal(pod)) return false;
  if (!pod.status?.podIP && !pod.status?.podIPs?.length) return false;
  if (!includeTerminating && pod.metadata?.deletionTimestamp) return false;
  return true;
}

/** Upstream ShouldSetHostname: the pod has a hostname and its subdomain names this Service. */
export function shouldSetHostname(pod: Pod, svc: Service): boolean {
  return !!pod.spec?.hostname && pod.spec.subdomain === svc.metadata?.name && pod.metadata?.namespace === svc.metadata?.namespace;
}

/** The pod's IPs (status.podIPs, or status.podIP when podIPs is empty). */
export function podIPs(pod: Pod): string[] {
  const ips = pod.status?.podIPs;
  if (ips?.length) return ips.map((x) => x.ip ?? '').filter((x) => x);
  return pod.status?.podIP ? [pod.status.podIP] : [];
}

/** IPv6 textual form? */
export const isIPv6 = (ip: string): boolean => ip.includes(':');

/**
 * Upstream podutil.FindPort: the pod port a Service port targets. A numeric targetPort
 * is used as is; a named one is looked up among the containers' (and restartable init
 * containers') ports with the same protocol.
 * @returns the port number, or undefined when a named port is not found
 */
export function findPort(pod: Pod, sp: ServicePort): number | undefined {
  const tp = sp.targetPort ?? sp.port;
  if (typeof tp === 'number') return tp;
  const proto = sp.protocol ?? 'TCP';
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === tp && (p.protocol ?? 'TCP') === proto) return p.containerPort;
  }
  for (const c of pod.spec?.initContainers ?? []) {
    if (c.restartPolicy !== 'Always') continue;
    for (const p of c.ports ?? []) if (p.name === tp && (p.protocol ?? 'TCP') === proto) return p.containerPort;
  }
  return undefined;
}

/** Go's RFC3339Nano in UTC: fractional seconds without trailing zeros. */
export function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d*?)0*Z$/, (_m, f: string) => (f ? `.${f}Z` : 'Z'));
}

/** A Service's selector, parsed once per resourceVersion (upstream ServiceSelectorCache). */
export class ServiceSelectorCache {
  private readonly cache = new Map<string, { rv: string; sel: Selector }>();

  /** The selector of `svc` (undefined when it selects nothing). */
  get(svc: Service): Selector | undefined {
    if (!hasSelector(svc)) return undefined;
    const key = svc.metadata?.uid ?? `${svc.metadata?.namespace}/${svc.metadata?.name}`;
    const rv = svc.metadata?.resourceVersion ?? '';
    const hit = this.cache.get(key);
    if (hit && hit.rv === rv) return hit.sel;
    const sel = selectorFromSet(svc.spec!.selector);
    this.cache.set(key, { rv, sel });
    return sel;
  }

  delete(svc: Service): void {
    this.cache.delete(svc.metadata?.uid ?? `${svc.metadata?.namespace}/${svc.metadata?.name}`);
  }
}

/** Keys (`ns/name`) of the Services in `services` whose selector matches the pod's labels. */
function podServiceMemberships(pod: Pod, services: readonly Service[], sels: ServiceSelectorCache, out: Set<string>): void {
  const labels = pod.metadata?.labels ?? {};
  for (const s of services) {
    const sel = sels.get(s);
    if (sel && sel.matches(labels)) out.add(`${s.metadata?.namespace}/${s.metadata?.name}`);
  }
}

function sameLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ak = a ? Object.keys(a) : [];
  const bk = b ? Object.keys(b) : [];
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (a![k] !== b?.[k]) return false;
  return true;
}

/**
 * Upstream podEndpointsChanged: did anything an endpoint reflects change (deletion
 * timestamp, readiness, IPs, hostname/subdomain), and did the labels change?
 */
function podEndpointsChanged(oldPod: Pod, newPod: Pod): { podChanged: boolean; labelsChanged: boolean } {
  const labelsChanged = !sameLabels(oldPod.metadata?.labels, newPod.metadata?.labels);
  let podChanged =
    oldPod.metadata?.deletionTimestamp !== newPod.metadata?.deletionTimestamp ||
    isPodReady(oldPod) !== isPodReady(newPod) ||
    oldPod.spec?.hostname !== newPod.spec?.hostname ||
    oldPod.spec?.subdomain !== newPod.spec?.subdomain ||
    oldPod.spec?.nodeName !== newPod.spec?.nodeName ||
    isPodTerminal(oldPod) !== isPodTerminal(newPod);
  if (!podChanged) {
    const a = podIPs(oldPod);
    const b = podIPs(newPod);
    podChanged = a.length !== b.length || a.some((ip, i) => ip !== b[i]);
  }
  return { podChanged, labelsChanged };
}

/**
 * Upstream GetServicesToUpdateOnPodChange: the Services to resync after a pod update.
 * When only the labels changed, the Services the pod left or joined; when the pod
 * changed too, every Service of the old and the new labels.
 */
export function servicesToUpdateOnPodChange(oldPod: Pod, newPod: Pod, services: readonly Service[], sels: ServiceSelectorCache): Set<string> {
  const out = new Set<string>();
  if (oldPod.metadata?.resourceVersion === newPod.metadata?.resourceVersion) return out;
  const { podChanged, labelsChanged } = podEndpointsChanged(oldPod, newPod);
  if (!podChanged && !labelsChanged) return out;
  podServiceMemberships(newPod, services, sels, out);
  if (!labelsChanged) return out;
  const old = new Set<string>();
  podServiceMemberships(oldPod, services, sels, old);
  if (podChanged) {
    for (const k of old) out.add(k);
    return out;
  }
  // labels only: the symmetric difference
  const diff = new Set<string>();
  for (const k of out) if (!old.has(k)) diff.add(k);
  for (const k of old) if (!out.has(k)) diff.add(k);
  return diff;
}

/**
 * Upstream TriggerTimeTracker: per Service, the trigger times (pod Ready condition
 * transition, Service creation) seen at the last sync; `compute` returns the earliest
 * one that changed since (ms), or undefined when none did.
 */
export class TriggerTimeTracker {
  private readonly states = new Map<string, { pods: Map<string, number>; svc: number }>();

  compute(serviceKey: string, svc: Service, pods: readonly Pod[]): number | undefined {
    const prev = this.states.get(serviceKey);
    const next = { pods: new Map<string, number>(), svc: Date.parse(svc.metadata?.creationTimestamp ?? '') || 0 };
    let min: number | undefined;
    for (const p of pods) {
      const c = p.status?.conditions?.find((x) => x.type === 'Ready');
      const t = c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
      if (Number.isNaN(t)) continue;
      const name = p.metadata?.name ?? '';
      next.pods.set(name, t);
      if (!prev || prev.pods.get(name) !== t) min = min === undefined ? t : Math.min(min, t);
    }
    if ((!prev || prev.svc !== next.svc) && next.svc) min = min === undefined ? next.svc : Math.min(min, next.svc);
    this.states.set(serviceKey, next);
    return min;
  }

  delete(serviceKey: string): void {
    this.states.delete(serviceKey);
  }
}

/**
 * Wires the Service and Pod informers of an endpoints-like controller (Endpoints,
 * EndpointSlice) to its queue of Service keys: a Service's own changes enqueue it (its
 * cached selector dropped on delete); a Pod's add/delete enqueues every Service selecting
 * it, an update the Services whose membership or endpoint data may have changed.
 * @param servicesIn the Services of a namespace (an index over the Service informer)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/endpoint/endpoints_controller.go (NewEndpointController handlers)
 */
export function watchServicesAndPods(
  svcInformer: Informer<Service>,
  podInformer: Informer<Pod>,
  servicesIn: (namespace: string) => readonly Service[],
  selectors: ServiceSelectorCache,
  loop: { enqueue(key: string): void; enqueueObj(o: KObject): void },
): void {
  const enqueueForPod = (pod: Pod): void => {
    const keys = new Set<string>();
    podServiceMemberships(pod, servicesIn(pod.metadata?.namespace ?? ''), selectors, keys);
    for (const k of keys) loop.enqueue(k);
  };
  svcInformer.addEventHandler({
    add: (s) => loop.enqueueObj(s),
    update: (_o, s) => loop.enqueueObj(s),
    delete: (s) => {
      selectors.delete(s);
      loop.enqueueObj(s);
    },
  });
  podInformer.addEventHandler({
    add: enqueueForPod,
    update: (o, p) => {
      for (const k of servicesToUpdateOnPodChange(o, p, servicesIn(p.metadata?.namespace ?? ''), selectors)) loop.enqueue(k);
    },
    delete: enqueueForPod,
  });
}

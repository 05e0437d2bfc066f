/**
 * Effective pod resource requests and limits, as the scheduler, quota and the kubelet
 * compute them (upstream k8s.io/component-helpers/resource): regular containers are summed,
 * init containers contribute their maximum, restartable init containers (sidecars) are
 * summed with the regular containers and counted under every later init container, and
 * pod overhead is added.
 *
 * Quantities are parsed through a small cache (they are immutable), so repeated calls on
 * the same pods do not re-parse strings.
 *
 * @see https://github.com/kubernetes/component-helpers/blob/v0.32.0/resource/helpers.go
 */
import { addQuantity, compareQuantity, formatQuantity, milliValue, parseQuantityJSON, type Quantity, value } from '../../../../apimachinery/quantity.js';
import type { Container, Pod, ResourceList } from '../pod/types.js';

/** Parsed resources: name → Quantity. */
export type Resources = Record<string, Quantity>;

const CACHE_MAX = 4096;
const cache = new Map<string, Quantity>();

/**
 * Parse a quantity from a resource list value (string, or a JSON number before decoding).
 * Cached; the result is shared and must not be mutated (Quantity is immutable).
 *
 * @throws QuantityParseError for malformed values
 */
export function quantityOf(v: string | number): Quantity {
  const key = typeof v === 'number' ? String(v) : v;
  let q = cache.get(key);
  if (q === undefined) {
    q = parseQuantityJSON(v);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, q);
  }
  return q;
}

/** Parse a JSON resource list; malformed values throw QuantityParseError. */
function parseResourceList(list: ResourceList | undefined | null): Resources {
  const out: Resources = {};
  if (!list) return out;
  for (const name in list) out[name] = quantityOf(list[name] as string | number);
  return out;
}

/** Serialise parsed resources canonically ("100m", "1Gi"). */
export function formatResources(r: Resources): ResourceList {
  const out: ResourceList = {};
  for (const name in r) out[name] = formatQuantity(r[name]!);
  return out;
}

/** dst[name] += src[name] for every name in src (upstream addResourceList). Mutates dst. */
function addResources(dst: Resources, src: Resources): void {
  for (const name in src) {
    const cur = dst[name];
    dst[name] = cur === undefined ? src[name]! : addQuantity(cur, src[name]!);
  }
}

/** dst[name] = max(dst[name], src[name]) (upstream maxResourceList). Mutates dst. */
function maxResources(dst: Resources, src: Resources): void {
  for (const name in src) {
    const cur = dst[name];
    if (cur === undefined || compareQuantity(src[name]!, cur) > 0) dst[name] = src[name]!;
  }
}

/** Options of {@link podRequests} / {@link podLimits} (upstream PodResourcesOptions, the subset used here). */
interface PodResourcesOptions {
  /** do not add spec.overhead */
  excludeOverhead?: boolean;
  /**
   * Values used for a container that requests none of these resources (the scheduler's
   * non-zero defaults: cpu 100m, memory 200Mi), upstream NonMissingContainerRequests.
   */
  nonMissingContainerRequests?: Resources;
  /** called with each container's (effective) requests */
  containerFn?: (res: Resources, container: Container, type: 'containers' | 'initContainers') => void;
}

function containerRequests(c: Container, opts: PodResourcesOptions): Resources {
  let reqs = parseResourceList(c.resources?.requests);
  const nm = opts.nonMissingContainerRequests;
  if (nm) {
    reqs = { ...reqs };
    for (const name in nm) if (reqs[name] === undefined) reqs[name] = nm[name]!;
  }
  return reqs;
}

/**
 * Sum of regular and restartable init container requests, at least the largest need of any
 * init container while it runs (upstream AggregateContainerRequests).
 */
function aggregateContainerRequests(pod: Pod, opts: PodResourcesOptions = {}): Resources {
  const reqs: Resources = {};
  for (const c of pod.spec?.containers ?? []) {
    const r = containerRequests(c, opts);
    opts.containerFn?.(r, c, 'containers');
    addResources(reqs, r);
  }
  const restartable: Resources = {};
  const initMax: Resources = {};
  for (const c of pod.spec?.initContainers ?? []) {
    let r = containerRequests(c, opts);
    opts.containerFn?.(r, c, 'initContainers');
    if (c.restartPolicy === 'Always') {
      addResources(reqs, r);
      addResources(restartable, r);
      r = restartable;
    } else {
      const tmp: Resources = {};
      addResources(tmp, r);
      addResources(tmp, restartable);
      r = tmp;
    }
    maxResources(initMax, r);
  }
  maxResources(reqs, initMax);
  return reqs;
}

/**
 * The pod's effective requests (upstream PodRequests): aggregate container requests plus
 * overhead.
 *
 * @throws QuantityParseError on malformed quantities (validated pods never have them)
 */
export function podRequests(pod: Pod, opts: PodResourcesOptions = {}): Resources {
  const reqs = aggregateContainerRequests(pod, opts);
  if (!opts.excludeOverhead && pod.spec?.overhead) addResources(reqs, parseResourceList(pod.spec.overhead));
  return reqs;
}

/**
 * The pod's effective limits (upstream PodLimits): like requests, but overhead is only added
 * to resources that have a limit.
 */
export function podLimits(pod: Pod, opts: Pick<PodResourcesOptions, 'excludeOverhead'> = {}): Resources {
  const limits: Resources = {};
  for (const c of pod.spec?.containers ?? []) addResources(limits, parseResourceList(c.resources?.limits));
  const restartable: Resources = {};
  const initMax: Resources = {};
  for (const c of pod.spec?.initContainers ?? []) {
    let l = parseResourceList(c.resources?.limits);
    if (c.restartPolicy === 'Always') {
      addResources(limits, l);
      addResources(restartable, l);
      l = restartable;
    } else {
      const tmp: Resources = {};
      addResources(tmp, l);
      addResources(tmp, restartable);
      l = tmp;
    }
    maxResources(initMax, l);
  }
  maxResources(limits, initMax);
  if (!opts.excludeOverhead && pod.spec?.overhead) {
    const oh = parseResourceList(pod.spec.overhead);
    for (const name in oh) if (limits[name] !== undefined) limits[name] = addQuantity(limits[name]!, oh[name]!);
  }
  return limits;
}

/** Millicores / millis of one resource, 0 if absent (scheduler convenience). */
export function milliOf(r: Resources, name: string): number {
  const q = r[name];
  return q === undefined ? 0 : milliValue(q);
}

/** Whole units (bytes for memory), rounded up, 0 if absent. */
export function valueOf(r: Resources, name: string): number {
  const q = r[name];
  return q === undefined ? 0 : value(q);
}

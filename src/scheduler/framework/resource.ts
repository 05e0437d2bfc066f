/**
 * Numeric resource vectors for the scheduler's hot paths: quantities are parsed once
 * (per pod, per node object) into plain numbers — cpu in millicores, memory and
 * ephemeral-storage in bytes, pods as a count, scalar (extended, hugepages, …)
 * resources in their base unit — and filters then compare numbers only.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/types.go (Resource)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/api/v1/resource/helpers.go (PodRequests)
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { milliValue, newMilliQuantity, newQuantity, tryParseQuantity, value } from '../../apimachinery/quantity.js';
import { podRequests } from '../../api/core/v1/helpers/resources.js';

/** Default cpu request (millicores) the scoring plugins assume for a container without one. */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
/** Default memory request (bytes, 200 MiB) the scoring plugins assume for a container without one. */
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

/** A resource vector. `scalar` is null until a scalar resource is present. */
export class Resource {
  constructor(
    /** millicores */
    public milliCPU = 0,
    /** bytes */
    public memory = 0,
    /** bytes */
    public ephemeralStorage = 0,
    /** count (only meaningful for node allocatable) */
    public allowedPodNumber = 0,
    public scalar: Map<string, number> | null = null,
  ) {}

  /** Adds `r` into this vector (allowedPodNumber included). */
  add(r: Resource): void {
    this.milliCPU += r.milliCPU;
    this.memory += r.memory;
    this.ephemeralStorage += r.ephemeralStorage;
    this.allowedPodNumber += r.allowedPodNumber;
    if (r.scalar) for (const [k, v] of r.scalar) this.addScalar(k, v);
  }

  /** Subtracts `r` from this vector. */
  sub(r: Resource): void {
    this.milliCPU -= r.milliCPU;
    this.memory -= r.memory;
    this.ephemeralStorage -= r.ephemeralStorage;
    this.allowedPodNumber -= r.allowedPodNumber;
    if (r.scalar) for (const [k, v] of r.scalar) this.addScalar(k, -v);
  }

  addScalar(name: string, v: number): void {
    if (!this.scalar) this.scalar = new Map();
    this.scalar.set(name, (this.scalar.get(name) ?? 0) + v);
  }

  getScalar(name: string): number {
    return this.scalar?.get(name) ?? 0;
  }

  /** Whether every dimension is zero (pods count excluded). */
  isZero(): boolean {
    return this.milliCPU === 0 && this.memory === 0 && this.ephemeralStorage === 0 && (!this.scalar || this.scalar.size === 0);
  }

  clone(): Resource {
    return new Resource(this.milliCPU, this.memory, this.ephemeralStorage, this.allowedPodNumber, this.scalar ? new Map(this.scalar) : null);
  }
}

/** True for names without a domain or in the `kubernetes.io/` domain (upstream IsNativeResource). */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** Extended resources: domain-qualified, not native, not a quota `requests.` name. */
export function isExtendedResourceName(name: string): boolean {
  return !isNativeResource(name) && !name.startsWith('requests.');
}

/** Resources kept in `Resource.scalar` (upstream IsScalarResourceName). */
export function isScalarResourceName(name: string): boolean {
  return isExtendedResourceName(name) || name.startsWith('hugepages-') || name.includes('kubernetes.io/') || name.startsWith('attachable-volumes-');
}

/**
 * Adds one quantity (by resource name) into a vector; unknown non-scalar names and
 * unparsable quantities (never stored by a validating API server) are ignored.
 */
export function addQuantity(r: Resource, name: string, q: string | number): void {
  const parsed = tryParseQuantity(typeof q === 'number' ? String(q) : q.trim());
  if (!parsed) return;
  switch (name) {
    case 'cpu':
      r.milliCPU += milliValue(parsed);
      return;
    case 'memory':
      r.memory += value(parsed);
      return;
    case 'ephemeral-storage':
      r.ephemeralStorage += value(parsed);
      return;
    case 'pods':
      r.allowedPodNumber += value(parsed);
      return;
    default:
      if (isScalarResourceName(name)) r.addScalar(name, value(parsed));
  }
}

/** Parses a ResourceList (e.g. node allocatable) into a vector. */
export function resourceFromList(list: Record<string, string | number> | undefined): Resource {
  const r = new Resource();
  if (list) for (const k in list) addQuantity(r, k, list[k]!);
  return r;
}

/** The non-zero defaults as a quantity map, for podRequests' nonMissingContainerRequests. */
const nonMissingDefaults = {
  cpu: newMilliQuantity(DEFAULT_MILLI_CPU_REQUEST),
  memory: newQuantity(DEFAULT_MEMORY_REQUEST),
};

/**
 * The pod's effective requests as a numeric vector, from the shared helper
 * `podRequests` (sum of app containers and sidecars, at least each init container's
 * need, plus overhead). With `withDefaults`, containers lacking a cpu/memory request
 * count as 100m/200Mi (the "non-zero" requests the scoring plugins use). Malformed
 * quantities (never stored by a validating API server) give an empty vector. Results
 * are cached per pod object and shared: callers must not mutate them.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/component-helpers/resource/helpers.go
 */
export function computePodRequests(pod: Pod, withDefaults = false): Resource {
  const spec = pod.spec;
  const key = spec?.containers;
  if (!key) return computeUncached(pod, withDefaults);
  const cache = withDefaults ? nonZeroCache : requestsCache;
  const hit = cache.get(key);
  if (hit !== undefined && hit.init === spec.initContainers && hit.overhead === spec.overhead) return hit.r;
  const r = computeUncached(pod, withDefaults);
  cache.set(key, { init: spec.initContainers, overhead: spec.overhead, r });
  return r;
}

interface CachedRequests {
  init: unknown;
  overhead: unknown;
  r: Resource;
}

/**
 * Results keyed by the pod's containers array (shared by the shallow copies the
 * scheduler makes, e.g. the assumed pod) and checked against the init containers and
 * overhead; pods are never mutated once received. Shared results: do not mutate.
 */
const requestsCache = new WeakMap<object, CachedRequests>();
const nonZeroCache = new WeakMap<object, CachedRequests>();

function computeUncached(pod: Pod, withDefaults: boolean): Resource {
  const r = new Resource();
  let reqs;
  try {
    reqs = podRequests(pod, withDefaults ? { nonMissingContainerRequests: nonMissingDefaults } : {});
  } catch {
    return r;
  }
  for (const name in reqs) {
    const q = reqs[name]!;
    switch (name) {
      case 'cpu':
        r.milliCPU = milliValue(q);
        break;
      case 'memory':
        r.memory = value(q);
        break;
      case 'ephemeral-storage':
        r.ephemeralStorage = value(q);
        break;
      default:
        if (isScalarResourceName(name)) r.addScalar(name, value(q));
    }
  }
  return r;
}

/**
 * Pod QoS class (upstream pkg/apis/core/helper/qos): Guaranteed when every container
 * (regular and init) sets non-zero cpu and memory limits and the summed requests equal the
 * summed limits; BestEffort when no container sets any cpu/memory request or limit;
 * otherwise Burstable. Ephemeral containers do not count. Pod-level resources (v1.32
 * alpha, off by default) are not considered.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/helper/qos/qos.go
 */
import { addQuantity, compareQuantity, type Quantity } from '../../../../apimachinery/quantity.js';
import type { Pod, PodQOSClassName } from '../pod/types.js';
import { quantityOf } from './resources.js';

const QOS_RESOURCES = new Set(['cpu', 'memory']);

/**
 * Compute the QoS class from the spec (upstream ComputePodQOS). Call after defaulting
 * (requests default from limits). Malformed quantities are ignored.
 */
export function computePodQOS(pod: Pod): PodQOSClassName {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let isGuaranteed = true;
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  for (const c of containers) {
    const reqs = c.resources?.requests ?? {};
    for (const name in reqs) {
      if (!QOS_RESOURCES.has(name)) continue;
      const q = safeQuantity(reqs[name]);
      if (q && q.mantissa > 0n) {
        const cur = requests.get(name);
        requests.set(name, cur ? addQuantity(q, cur) : q);
      }
    }
    const found = new Set<string>();
    const lims = c.resources?.limits ?? {};
    for (const name in lims) {
      if (!QOS_RESOURCES.has(name)) continue;
      const q = safeQuantity(lims[name]);
      if (q && q.mantissa > 0n) {
        found.add(name);
        const cur = limits.get(name);
        limits.set(name, cur ? addQuantity(q, cur) : q);
      }
    }
    if (!found.has('memory') || !found.has('cpu')) isGuaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (isGuaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (!lim || compareQuantity(lim, req) !== 0) {
        isGuaranteed = false;
        break;
      }
    }
  }
  if (isGuaranteed && requests.size === limits.size) return 'Guaranteed';
  return 'Burstable';
}

/** status.qosClass if set, else computed (upstream GetPodQOS). */
export function getPodQOS(pod: Pod): PodQOSClassName {
  const s = pod.status?.qosClass;
  if (s === 'Guaranteed' || s === 'Burstable' || s === 'BestEffort') return s;
  return computePodQOS(pod);
}

function safeQuantity(v: unknown): Quantity | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  try {
    return quantityOf(v);
  } catch {
    return undefined;
  }
}

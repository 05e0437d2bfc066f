/**
 * Quota usage (upstream pkg/quota/v1/evaluator/core): what an object counts against a
 * ResourceQuota — object counts (`pods`, `count/<resource>[.<group>]`), pod compute
 * requests and limits, PVC storage, Service node ports and load balancers — and
 * whether a quota's scopes select a pod.
 *
 * @see https://github.com/kubernetes/kubernetes/tree/v1.32.0/pkg/quota/v1/evaluator/core
 */
import type { PersistentVolumeClaim, ResourceQuota, Service } from 'kubernetes-types/core/v1.js';
import { addQuantity, formatQuantity, newQuantity, ZERO_QUANTITY } from '../../../../apimachinery/quantity.js';
import { podLimits, podRequests, quantityOf, type Resources } from '../helpers/resources.js';
import type { Pod } from '../pod/types.js';

export type { Resources };

const ONE = newQuantity(1);

/** Names for counting objects of a resource: `count/pods`, `count/deployments.apps`, plus legacy names. */
function countNames(group: string, resource: string): string[] {
  const out = [`count/${group ? `${resource}.${group}` : resource}`];
  if (!group && ['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims'].includes(resource)) out.push(resource);
  return out;
}

/** Is the pod counted (not in a terminal phase)? */
function podCounts(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}

/** What one pod uses: counts, requests.* (and bare cpu/memory), limits.*. */
export function podUsage(pod: Pod): Resources {
  const u: Resources = {};
  if (!podCounts(pod)) return u;
  u['pods'] = ONE;
  u['count/pods'] = ONE;
  const req = podRequests(pod);
  const lim = podLimits(pod);
  for (const [name, q] of Object.entries(req)) {
    u[`requests.${name}`] = q;
    if (name === 'cpu' || name === 'memory' || name === 'ephemeral-storage') u[name] = q;
  }
  for (const [name, q] of Object.entries(lim)) u[`limits.${name}`] = q;
  return u;
}

/** What any object uses against a quota. */
export function objectUsage(group: string, resource: string, obj: unknown): Resources {
  if (!group && resource === 'pods') return podUsage(obj as Pod);
  const u: Resources = {};
  for (const n of countNames(group, resource)) u[n] = ONE;
  if (!group && resource === 'persistentvolumeclaims') {
    const pvc = obj as PersistentVolumeClaim;
    const s = pvc.spec?.resources?.requests?.['storage'];
    if (s !== undefined) u['requests.storage'] = quantityOf(s);
    const sc = pvc.spec?.storageClassName;
    if (sc) {
      u[`${sc}.storageclass.storage.k8s.io/persistentvolumeclaims`] = ONE;
      if (s !== undefined) u[`${sc}.storageclass.storage.k8s.io/requests.storage`] = quantityOf(s);
    }
  }
  if (!group && resource === 'services') {
    const svc = obj as Service;
    const ports = svc.spec?.ports?.length ?? 0;
    if (svc.spec?.type === 'NodePort' || svc.spec?.type === 'LoadBalancer') u['services.nodeports'] = newQuantity(ports);
    if (svc.spec?.type === 'LoadBalancer') u['services.loadbalancers'] = ONE;
  }
  return u;
}

/** Does the quota's scope list (and scopeSelector) select this pod? Non-pod objects match only unscoped quotas. */
export function quotaSelects(q: ResourceQuota, group: string, resource: string, obj: unknown): boolean {
  const scopes = [...(q.spec?.scopes ?? [])];
  const exprs = q.spec?.scopeSelector?.matchExpressions ?? [];
  if (!scopes.length && !exprs.length) return true;
  if (group || resource !== 'pods') return false;
  const pod = obj as Pod;
  const bestEffort = (): boolean => {
    const r = podRequests(pod);
    const l = podLimits(pod);
    return !Object.keys(r).some((k) => k === 'cpu' || k === 'memory') && !Object.keys(l).some((k) => k === 'cpu' || k === 'memory');
  };
  const match = (scope: string, op = 'Exists', values: string[] = []): boolean => {
    switch (scope) {
      case 'Terminating':
        return pod.spec?.activeDeadlineSeconds != null;
      case 'NotTerminating':
        return pod.spec?.activeDeadlineSeconds == null;
      case 'BestEffort':
        return bestEffort();
      case 'NotBestEffort':
        return !bestEffort();
      case 'PriorityClass': {
        const pc = pod.spec?.priorityClassName ?? '';
        if (op === 'Exists') return !!pc;
        if (op === 'DoesNotExist') return !pc;
        if (op === 'In') return values.includes(pc);
        if (op === 'NotIn') return !values.includes(pc);
        return false;
      }
      case 'CrossNamespacePodAffinity': {
        const a = pod.spec?.affinity;
        const terms = [...(a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []), ...(a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [])];
        return terms.some((t) => t.namespaces?.length || t.namespaceSelector);
      }
      default:
        return false;
    }
  };
  for (const s of scopes) if (!match(s)) return false;
  for (const e of exprs) if (!match(e.scopeName, e.operator, e.values ?? [])) return false;
  return true;
}

/** dst += src, only for names in `mask` (when given). */
export function addUsage(dst: Resources, src: Resources, mask?: Set<string>): void {
  for (const [k, v] of Object.entries(src)) {
    if (mask && !mask.has(k)) continue;
    dst[k] = dst[k] ? addQuantity(dst[k]!, v) : v;
  }
}

/** Serialises usage for the names in `hard` (missing ones as 0). */
export function formatUsage(u: Resources, hard: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(hard).sort()) out[k] = formatQuantity(u[k] ?? ZERO_QUANTITY);
  return out;
}

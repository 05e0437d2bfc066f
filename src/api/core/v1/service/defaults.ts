/**
 * Service defaulting and the field bookkeeping upstream's strategy does before
 * validation: SetDefaults_Service, NormalizeClusterIPs (clusterIP ⇄ clusterIPs),
 * patchAllocatedValues (an update that omits allocated values keeps them) and
 * dropTypeDependentFields (a type change drops values the user did not ask to keep).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/v1/defaults.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/service/strategy.go
 */
import type { Service, ServiceStatus } from 'kubernetes-types/core/v1.js';
import type { O } from '../shared/types.js';

/** upstream DefaultClientIPServiceAffinitySeconds (3 hours) */
const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;

export const isHeadless = (s: O<Service>): boolean => s.spec?.clusterIPs?.length === 1 && s.spec.clusterIPs[0] === 'None';

/** NodePort, LoadBalancer, or ClusterIP with externalIPs (upstream service.ExternallyAccessible). */
export function externallyAccessible(s: O<Service>): boolean {
  const t = s.spec?.type;
  return t === 'LoadBalancer' || t === 'NodePort' || (t === 'ClusterIP' && (s.spec?.externalIPs?.length ?? 0) > 0);
}

/** LoadBalancer with externalTrafficPolicy Local (upstream service.NeedsHealthCheck). */
export function needsHealthCheck(s: O<Service>): boolean {
  return s.spec?.type === 'LoadBalancer' && s.spec.externalTrafficPolicy === 'Local';
}

const needsClusterIP = (s: O<Service>): boolean => s.spec?.type !== 'ExternalName';
const needsNodePort = (s: O<Service>): boolean => s.spec?.type === 'NodePort' || s.spec?.type === 'LoadBalancer';

/** Whether new node ports are allocated (NodePort, or LoadBalancer unless allocateLoadBalancerNodePorts is false). */
export function shouldAllocateNodePorts(s: O<Service>): boolean {
  if (s.spec?.type === 'NodePort') return true;
  if (s.spec?.type === 'LoadBalancer') return s.spec.allocateLoadBalancerNodePorts !== false;
  return false;
}

/** Upstream SetDefaults_Service. */
export function defaultService(svc: O<Service>): void {
  const spec = (svc.spec ??= {});
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && spec.sessionAffinityConfig?.clientIP?.timeoutSeconds === undefined) {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_AFFINITY_SECONDS } };
  }
  if (!spec.type) spec.type = 'ClusterIP';
  for (const p of spec.ports ?? []) {
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (externallyAccessible(svc) && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (spec.internalTrafficPolicy === undefined && (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || spec.type === 'ClusterIP')) {
    spec.internalTrafficPolicy = 'Cluster';
  }
  if (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
  if (spec.type === 'LoadBalancer') {
    for (const ing of svc.status?.loadBalancer?.ingress ?? []) if (ing.ip && !ing.ipMode) ing.ipMode = 'VIP';
  }
}

function sameStrings(a: string[] | undefined, b: string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

const sameClusterIPs = (a: O<Service>, b: O<Service>): boolean => sameStrings(a.spec?.clusterIPs, b.spec?.clusterIPs);
const sameIPFamilies = (a: O<Service>, b: O<Service>): boolean => sameStrings(a.spec?.ipFamilies, b.spec?.ipFamilies);

/** Upstream NormalizeClusterIPs: keep the singular and plural fields consistent. */
export function normalizeClusterIPs(svc: O<Service>, old: O<Service> | undefined): void {
  const spec = (svc.spec ??= {});
  if (!old) {
    if (spec.clusterIP && (spec.clusterIPs?.length ?? 0) === 0) spec.clusterIPs = [spec.clusterIP];
    return;
  }
  const os = old.spec ?? {};
  if ((os.clusterIPs?.length ?? 0) > 0 && (spec.clusterIPs?.length ?? 0) === 0 && (os.clusterIP ?? '') === (spec.clusterIP ?? '')) {
    spec.clusterIPs = [...os.clusterIPs!];
  }
  if ((os.clusterIP ?? '') !== (spec.clusterIP ?? '')) {
    if (os.clusterIP && !spec.clusterIP) {
      if (sameClusterIPs(old, svc)) delete spec.clusterIPs;
    } else if (sameClusterIPs(old, svc)) {
      spec.clusterIPs = [spec.clusterIP ?? ''];
    }
  }
}

/** Upstream patchAllocatedValues: values an update omits are taken from the old object. */
export function patchAllocatedValues(svc: O<Service>, old: O<Service>): void {
  const spec = (svc.spec ??= {});
  const os = old.spec ?? {};
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if (!spec.clusterIP && os.clusterIP) spec.clusterIP = os.clusterIP;
    if ((spec.clusterIPs?.length ?? 0) === 0 && (os.clusterIPs?.length ?? 0) > 0) spec.clusterIPs = [...os.clusterIPs!];
  }
  if (needsNodePort(old) && needsNodePort(svc)) {
    const usedBy = (s: O<Service>): Set<number> => new Set((s.spec?.ports ?? []).map((p) => p.nodePort ?? 0).filter((n) => n !== 0));
    const newUsed = usedBy(svc);
    const used = new Set([...usedBy(old)].filter((n) => newUsed.has(n)));
    const byName = new Map<string, number>();
    for (const p of os.ports ?? []) byName.set(p.name ?? '', p.nodePort ?? 0);
    for (const p of spec.ports ?? []) {
      if (!p.nodePort) {
        const v = byName.get(p.name ?? '') ?? 0;
        if (v && !used.has(v)) p.nodePort = v;
      }
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(svc) && !spec.healthCheckNodePort && os.healthCheckNodePort) {
    spec.healthCheckNodePort = os.healthCheckNodePort;
  }
}

/** Upstream dropTypeDependentFields (updates only). */
export function dropTypeDependentFields(svc: O<Service>, old: O<Service>): void {
  const spec = (svc.spec ??= {});
  const os = old.spec ?? {};
  if (needsClusterIP(old) && !needsClusterIP(svc)) {
    if (sameClusterIPs(old, svc)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (sameIPFamilies(old, svc)) delete spec.ipFamilies;
    if ((os.ipFamilyPolicy ?? '') === (spec.ipFamilyPolicy ?? '')) delete spec.ipFamilyPolicy;
  }
  if (needsNodePort(old) && !needsNodePort(svc)) {
    const np = (s: O<Service>): number[] => (s.spec?.ports ?? []).map((p) => p.nodePort ?? 0);
    const a = np(old);
    const b = np(svc);
    if (a.length === b.length && a.every((v, i) => v === b[i])) for (const p of spec.ports ?? []) delete p.nodePort;
  }
  if (os.type === 'LoadBalancer' && spec.type !== 'LoadBalancer') {
    if (
      spec.allocateLoadBalancerNodePorts !== undefined &&
      os.allocateLoadBalancerNodePorts !== undefined &&
      spec.allocateLoadBalancerNodePorts === os.allocateLoadBalancerNodePorts
    ) {
      delete spec.allocateLoadBalancerNodePorts;
    }
  }
  if (needsHealthCheck(old) && !needsHealthCheck(svc) && (os.healthCheckNodePort ?? 0) === (spec.healthCheckNodePort ?? 0)) {
    delete spec.healthCheckNodePort;
  }
  if (externallyAccessible(old) && !externallyAccessible(svc) && (os.externalTrafficPolicy ?? '') === (spec.externalTrafficPolicy ?? '')) {
    delete spec.externalTrafficPolicy;
  }
  if (spec.type !== 'LoadBalancer' && svc.status) (svc as { status?: ServiceStatus }).status = { ...svc.status, loadBalancer: {} };
}

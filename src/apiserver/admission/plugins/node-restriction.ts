/**
 * NodeRestriction admission: a kubelet (`system:node:<name>`) may only modify its own
 * Node (not its taints or restricted labels), create mirror pods bound to itself,
 * update the status of and delete pods bound to itself, and request tokens only for
 * pods on itself.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/noderestriction/admission.go
 */
import type { Node, PodSpec } from 'kubernetes-types/core/v1.js';
import type { Obj } from '../../../api/resource.js';
import { newForbidden } from '../../../apimachinery/errors.js';
import { jsonEqual } from '../../../apimachinery/validation.js';
import { nodeIdentity } from '../../authz/node.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';

const MIRROR = 'kubernetes.io/config.mirror';
const RESTRICTED_LABEL_PREFIX = 'node-restriction.kubernetes.io/';
/** kubernetes.io / k8s.io labels a kubelet may set on its own Node (upstream kubeletapis). */
const ALLOWED_KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'node.kubernetes.io/windows-build',
]);

function isRestrictedLabel(k: string): boolean {
  const prefix = k.includes('/') ? k.slice(0, k.indexOf('/')) : '';
  if (k.startsWith(RESTRICTED_LABEL_PREFIX)) return true;
  if (!prefix) return false;
  const kube = prefix === 'kubernetes.io' || prefix.endsWith('.kubernetes.io') || prefix === 'k8s.io' || prefix.endsWith('.k8s.io');
  if (!kube) return false;
  if (ALLOWED_KUBELET_LABELS.has(k)) return false;
  if (prefix === 'kubelet.kubernetes.io' || prefix.endsWith('.kubelet.kubernetes.io')) return false;
  if (prefix === 'node.kubernetes.io' || prefix.endsWith('.node.kubernetes.io')) return false;
  return true;
}

function changedRestrictedLabels(obj: Obj, old: Obj | undefined): string[] {
  const n = obj.metadata.labels ?? {};
  const o = old?.metadata.labels ?? {};
  const out = new Set<string>();
  for (const k of new Set([...Object.keys(n), ...Object.keys(o)])) if (n[k] !== o[k] && isRestrictedLabel(k)) out.add(k);
  return [...out].sort();
}

export const nodeRestriction: AdmissionPlugin = {
  name: 'NodeRestriction',
  async admit(a: AdmissionAttributes, lookup) {
    const node = nodeIdentity(a.user);
    if (!node) return;
    const gr = { group: a.resource.group, resource: a.resource.resource };
    const forbid = (msg: string): never => {
      throw newForbidden(gr, a.name, msg);
    };
    if (a.resource.group === '' && a.resource.resource === 'pods') {
      if (a.operation === 'CREATE' && !a.subresource) {
        const pod = a.object!;
        const spec = (pod.spec ?? {}) as PodSpec;
        if (!pod.metadata.annotations?.[MIRROR]) forbid(`pod does not have "${MIRROR}" annotation, node "${node}" can only create mirror pods`);
        if (spec.nodeName !== node) forbid(`node "${node}" can only create pods with spec.nodeName set to itself`);
        if (pod.metadata.ownerReferences?.length) {
          const ok = pod.metadata.ownerReferences.length === 1 && pod.metadata.ownerReferences[0]!.kind === 'Node' && pod.metadata.ownerReferences[0]!.name === node;
          if (!ok) forbid(`node "${node}" can only create pods with an owner reference set to itself`);
        }
        for (const v of spec.volumes ?? []) {
          if (v.secret) forbid(`node "${node}" can not create pods that reference secrets`);
          if (v.configMap) forbid(`node "${node}" can not create pods that reference configmaps`);
          if (v.persistentVolumeClaim) forbid(`node "${node}" can not create pods that reference persistentvolumeclaims`);
        }
        return;
      }
      const existing = a.oldObject ?? a.object;
      const boundTo = (existing?.spec as PodSpec | undefined)?.nodeName;
      if (a.operation === 'UPDATE' && a.subresource === 'status') {
        if (boundTo !== node) forbid(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
        return;
      }
      if (a.operation === 'DELETE') {
        if (boundTo !== node) forbid(`node "${node}" can only delete pods with spec.nodeName set to itself`);
        return;
      }
      if (a.operation === 'UPDATE') forbid(`node "${node}" can only update pod status`);
      return;
    }
    if (a.resource.group === '' && a.resource.resource === 'nodes') {
      if (a.name !== node) forbid(`node "${node}" is not allowed to modify node "${a.name}"`);
      if (a.operation === 'CREATE' || (a.operation === 'UPDATE' && !a.subresource)) {
        const labels = changedRestrictedLabels(a.object!, a.oldObject);
        if (labels.length) forbid(`is not allowed to modify labels: ${labels.join(', ')}`);
      }
      if (a.operation === 'UPDATE' && !a.subresource) {
        const taints = (o: Obj | undefined) => (o?.spec as Node['spec'])?.taints ?? [];
        if (!jsonEqual(taints(a.object), taints(a.oldObject))) forbid(`node "${node}" is not allowed to modify taints`);
      }
      return;
    }
    if (a.resource.group === 'coordination.k8s.io' && a.resource.resource === 'leases') {
      if (a.namespace !== 'kube-node-lease' || a.name !== node) forbid(`can only access node lease with the same name as the requesting node`);
      return;
    }
    if (a.resource.group === 'storage.k8s.io' && a.resource.resource === 'csinodes') {
      if (a.name !== node) forbid(`node "${node}" is not allowed to modify object "${a.name}"`);
      return;
    }
    void lookup;
  },
};

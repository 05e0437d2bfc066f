/**
 * NodeRestriction admission: a kubelet (`system:node:<name>`) may only modify its own
 * Node (not its taints or restricted labels), create mirror pods bound to itself,
 * update the status of and delete pods bound to itself, and request tokens only for
 * pods on itself.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/noderestriction/admission.go
 */
import type { Node, PodSpec } from 'kubernetes-types/core/v1.js';
import type { Obj, ObjectLookup } from '../../../api/resource.js';
import { newForbidden, newNotFound } from '../../../apimachinery/errors.js';
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

/** Does the pod name any Secret (volumes, projections, env, imagePullSecrets)? */
function refs(spec: PodSpec, kind: 'secret' | 'configMap'): boolean {
  if (kind === 'secret' && spec.imagePullSecrets?.length) return true;
  for (const v of spec.volumes ?? []) {
    if (kind === 'secret' && (v.secret || v.csi?.nodePublishSecretRef || v.cephfs?.secretRef || v.rbd?.secretRef || v.iscsi?.secretRef || v.azureFile)) return true;
    if (kind === 'configMap' && v.configMap) return true;
    if (v.projected?.sources?.some((s) => (kind === 'secret' ? s.secret : s.configMap))) return true;
  }
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...((spec.ephemeralContainers ?? []) as PodSpec['containers'])]) {
    if (c.envFrom?.some((e) => (kind === 'secret' ? e.secretRef : e.configMapRef))) return true;
    if (c.env?.some((e) => (kind === 'secret' ? e.valueFrom?.secretKeyRef : e.valueFrom?.configMapKeyRef))) return true;
  }
  return false;
}

/** A kubelet may create only mirror pods of its own, owned by its Node, referencing no other objects. */
async function admitMirrorPod(node: string, a: AdmissionAttributes, lookup: ObjectLookup, forbid: (m: string) => never): Promise<void> {
  const pod = a.object!;
  const spec = (pod.spec ?? {}) as PodSpec;
  if (pod.metadata.annotations?.[MIRROR] === undefined) forbid(`pod does not have "${MIRROR}" annotation, node "${node}" can only create mirror pods`);
  if (spec.nodeName !== node) forbid(`node "${node}" can only create pods with spec.nodeName set to itself`);
  const owners = pod.metadata.ownerReferences ?? [];
  if (owners.length > 1) forbid(`node "${node}" can only create pods with a single owner reference set to itself`);
  if (owners.length === 0) forbid(`node "${node}" can only create pods with an owner reference set to itself`);
  const owner = owners[0]!;
  if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) forbid(`node "${node}" can only create pods with an owner reference set to itself`);
  if (!owner.controller) forbid(`node "${node}" can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion) forbid(`node "${node}" must not set blockOwnerDeletion on an owner reference`);
  const n = await lookup.get({ group: '', version: 'v1', resource: 'nodes' }, '', node);
  if (!n) throw newNotFound({ group: '', resource: 'nodes' }, node);
  if (owner.uid !== n.metadata?.uid) forbid(`node ${node} UID mismatch: expected ${owner.uid} got ${n.metadata?.uid ?? ''}`);
  if (spec.serviceAccountName) forbid(`node "${node}" can not create pods that reference a service account`);
  if (refs(spec, 'secret')) forbid(`node "${node}" can not create pods that reference secrets`);
  if (refs(spec, 'configMap')) forbid(`node "${node}" can not create pods that reference configmaps`);
  if ((spec.volumes ?? []).some((v) => (v.projected?.sources as { clusterTrustBundle?: unknown }[] | undefined)?.some((s) => s.clusterTrustBundle))) {
    forbid(`node "${node}" can not create pods that reference clustertrustbundles`);
  }
  if ((spec.volumes ?? []).some((v) => v.persistentVolumeClaim)) forbid(`node "${node}" can not create pods that reference persistentvolumeclaims`);
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
      if (a.subresource === 'status') {
        const old = a.oldObject;
        if ((old?.spec as PodSpec | undefined)?.nodeName !== node) forbid(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
        if (!jsonEqual(old?.metadata.labels ?? {}, a.object?.metadata.labels ?? {})) forbid(`node "${node}" cannot update labels through pod status`);
        return;
      }
      if (a.subresource) return;
      if (a.operation === 'CREATE') return admitMirrorPod(node, a, lookup, forbid);
      if (a.operation === 'DELETE') {
        if ((a.oldObject?.spec as PodSpec | undefined)?.nodeName !== node) forbid(`node "${node}" can only delete pods with spec.nodeName set to itself`);
        return;
      }
      forbid(`unexpected operation "${a.operation}", node "${node}" can only create and delete mirror pods`);
    }
    if (a.resource.group === '' && a.resource.resource === 'nodes') {
      if (a.name !== node) forbid(`node "${node}" is not allowed to modify node "${a.name}"`);
      if (a.operation === 'CREATE') {
        const labels = changedRestrictedLabels(a.object!, undefined);
        if (labels.length) forbid(`node "${node}" is not allowed to set the following labels: ${labels.join(', ')}`);
      }
      if (a.operation === 'UPDATE') {
        const taints = (o: Obj | undefined) => (o?.spec as Node['spec'])?.taints ?? [];
        if (!jsonEqual(taints(a.object), taints(a.oldObject))) forbid(`node "${node}" is not allowed to modify taints`);
        const labels = changedRestrictedLabels(a.object!, a.oldObject);
        if (labels.length) forbid(`is not allowed to modify labels: ${labels.join(', ')}`);
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
  },
};

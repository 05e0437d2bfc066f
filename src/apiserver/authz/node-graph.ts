/**
 * The Node authorizer's graph (upstream plugin/pkg/auth/authorizer/node/graph.go,
 * simplified): which objects each node may read because a pod bound to it references
 * them — the pod itself, its ServiceAccount, Secrets, ConfigMaps and
 * PersistentVolumeClaims, and the PersistentVolumes those claims are bound to.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/node/
 */
import type { Pod, PersistentVolumeClaim, Volume } from 'kubernetes-types/core/v1.js';

export type VertexType = 'pod' | 'secret' | 'configmap' | 'pvc' | 'pv' | 'serviceaccount';

/** Objects a pod references, as `type/namespace/name` keys. */
export function podReferences(pod: Pod): string[] {
  const ns = pod.metadata?.namespace ?? '';
  const spec = pod.spec;
  const out = new Set<string>([`pod/${ns}/${pod.metadata?.name ?? ''}`]);
  if (!spec) return [...out];
  out.add(`serviceaccount/${ns}/${spec.serviceAccountName || 'default'}`);
  for (const s of spec.imagePullSecrets ?? []) if (s.name) out.add(`secret/${ns}/${s.name}`);
  const vol = (v: Volume): void => {
    if (v.secret?.secretName) out.add(`secret/${ns}/${v.secret.secretName}`);
    if (v.configMap?.name) out.add(`configmap/${ns}/${v.configMap.name}`);
    if (v.persistentVolumeClaim?.claimName) out.add(`pvc/${ns}/${v.persistentVolumeClaim.claimName}`);
    if (v.ephemeral) out.add(`pvc/${ns}/${pod.metadata?.name ?? ''}-${v.name}`);
    for (const p of v.projected?.sources ?? []) {
      if (p.secret?.name) out.add(`secret/${ns}/${p.secret.name}`);
      if (p.configMap?.name) out.add(`configmap/${ns}/${p.configMap.name}`);
    }
    for (const ref of [v.csi?.nodePublishSecretRef, v.cephfs?.secretRef, v.rbd?.secretRef, v.iscsi?.secretRef, v.flexVolume?.secretRef]) {
      if (ref?.name) out.add(`secret/${ns}/${ref.name}`);
    }
    if (v.azureFile?.secretName) out.add(`secret/${ns}/${v.azureFile.secretName}`);
  };
  for (const v of spec.volumes ?? []) vol(v);
  for (const c of [...(spec.initContainers ?? []), ...spec.containers, ...(spec.ephemeralContainers ?? [])]) {
    for (const e of c.envFrom ?? []) {
      if (e.secretRef?.name) out.add(`secret/${ns}/${e.secretRef.name}`);
      if (e.configMapRef?.name) out.add(`configmap/${ns}/${e.configMapRef.name}`);
    }
    for (const e of c.env ?? []) {
      if (e.valueFrom?.secretKeyRef?.name) out.add(`secret/${ns}/${e.valueFrom.secretKeyRef.name}`);
      if (e.valueFrom?.configMapKeyRef?.name) out.add(`configmap/${ns}/${e.valueFrom.configMapKeyRef.name}`);
    }
  }
  return [...out];
}

/** Reference-counted edges node → object, fed with pod and PVC changes. */
export class NodeGraph {
  /** node → object key → number of pods referencing it */
  private readonly edges = new Map<string, Map<string, number>>();
  /** pod key → [node, refs] as last seen */
  private readonly pods = new Map<string, { node: string; refs: string[] }>();
  /** pvc `namespace/name` → bound PV name */
  private readonly pvcVolume = new Map<string, string>();

  private add(node: string, refs: string[], d: 1 | -1): void {
    let m = this.edges.get(node);
    if (!m) {
      if (d < 0) return;
      this.edges.set(node, (m = new Map()));
    }
    for (const r of refs) {
      const n = (m.get(r) ?? 0) + d;
      if (n <= 0) m.delete(r);
      else m.set(r, n);
    }
    if (m.size === 0) this.edges.delete(node);
  }

  /** Records a pod's current state (`pod` undefined when deleted). */
  setPod(key: string, pod: Pod | undefined): void {
    const prev = this.pods.get(key);
    if (prev) {
      this.add(prev.node, prev.refs, -1);
      this.pods.delete(key);
    }
    const node = pod?.spec?.nodeName;
    if (!pod || !node) return;
    const refs = podReferences(pod);
    this.pods.set(key, { node, refs });
    this.add(node, refs, 1);
  }

  setPVC(pvc: PersistentVolumeClaim, deleted: boolean): void {
    const k = `${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''}`;
    if (deleted || !pvc.spec?.volumeName) this.pvcVolume.delete(k);
    else this.pvcVolume.set(k, pvc.spec.volumeName);
  }

  /** Is there a path from `node` to the object? */
  hasPath(node: string, type: VertexType, namespace: string, name: string): boolean {
    const m = this.edges.get(node);
    if (!m) return false;
    if (type === 'pv') {
      for (const k of m.keys()) {
        if (!k.startsWith('pvc/')) continue;
        if (this.pvcVolume.get(k.slice(4)) === name) return true;
      }
      return false;
    }
    return m.has(`${type}/${namespace}/${name}`);
  }
}

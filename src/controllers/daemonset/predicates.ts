/**
 * Which nodes a DaemonSet runs on, and the pods it creates there: the template plus the
 * tolerations every daemon pod gets (not-ready/unreachable NoExecute; disk-, memory-,
 * pid-pressure and unschedulable NoSchedule; network-unavailable NoSchedule with
 * hostNetwork), the labels `controller-revision-hash` and `pod-template-generation`, and
 * a required node affinity `matchFields metadata.name In [<node>]` so the default
 * scheduler places it (upstream since 1.12). A node qualifies when it matches
 * nodeSelector and required node affinity and the pod tolerates its NoSchedule and
 * NoExecute taints; a pod already there keeps running unless a NoExecute taint is
 * untolerated.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/daemon/daemon_controller.go (NodeShouldRunDaemonPod, predicates)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/daemon/util/daemonset_util.go
 */
import type { DaemonSet as KDaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Affinity, Node as KNode, NodeSelectorTerm, PodSpec, Toleration } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { RequiredNodeAffinity } from '../../scheduler/plugins/helper/node-affinity.js';
import { findMatchingUntoleratedTaint } from '../../scheduler/plugins/helper/taints.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../util/history.js';
import type { Pod } from '../util/pods.js';

export type DaemonSet = KDaemonSet & KObject;
export type Node = KNode & KObject;

/** Pod label with the DaemonSet's template generation (upstream DaemonSetTemplateGenerationKey). */
const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
/** DaemonSet annotation holding the template generation. */
const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/** The tolerations the controller adds to every daemon pod (upstream AddOrUpdateDaemonPodTolerations). */
function daemonTolerations(hostNetwork: boolean): Toleration[] {
  const t: Toleration[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (hostNetwork) t.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  return t;
}

/** Adds `add` to `tols`, replacing a toleration with the same key and effect (upstream AddOrUpdateTolerationInPodSpec). */
function addOrUpdateTolerations(spec: PodSpec, add: Toleration[]): void {
  const out = [...(spec.tolerations ?? [])];
  for (const t of add) {
    const i = out.findIndex((x) => (x.key ?? '') === (t.key ?? '') && (x.effect ?? '') === (t.effect ?? ''));
    if (i < 0) out.push(t);
    else if (JSON.stringify(out[i]) !== JSON.stringify(t)) out[i] = t;
  }
  spec.tolerations = out;
}

/**
 * The affinity with every required term's matchFields replaced by `metadata.name In
 * [node]` (one such term when there were none); preferences kept (upstream
 * ReplaceDaemonSetPodNodeNameNodeAffinity).
 */
export function replaceNodeNameAffinity(affinity: Affinity | undefined, nodeName: string): Affinity {
  const field: NodeSelectorTerm = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  const a: Affinity = structuredClone(affinity ?? {});
  a.nodeAffinity ??= {};
  const req = a.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (!req || !req.nodeSelectorTerms?.length) {
    a.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: [field] };
    return a;
  }
  req.nodeSelectorTerms = req.nodeSelectorTerms.map((t) => ({ ...t, matchFields: field.matchFields }));
  return a;
}

/** The node a daemon pod is bound or targeted to (upstream GetTargetNodeName), or undefined. */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const t of terms ?? []) {
    for (const f of t.matchFields ?? []) {
      if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}

/** The DaemonSet's template generation (annotation), or undefined. */
export function templateGeneration(ds: DaemonSet): string | undefined {
  return ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
}

/** Does the pod carry the revision `hash` (or the template generation)? (upstream IsPodUpdated) */
export function isPodUpdated(pod: Pod, hash: string, generation: string | undefined): boolean {
  const l = pod.metadata?.labels ?? {};
  return (hash !== '' && l[CONTROLLER_REVISION_HASH_LABEL] === hash) || (generation !== undefined && l[TEMPLATE_GENERATION_LABEL] === generation);
}

/**
 * The daemon pod for `nodeName` (upstream NewPod + CreatePodTemplate): the template with
 * the daemon tolerations, revision labels, the node-name affinity, generateName `<ds>-`.
 * With `nodeName` empty, the template as the predicates see it.
 */
export function newDaemonPod(ds: DaemonSet, nodeName: string, hash: string): Pod {
  const tm = ds.spec?.template?.metadata ?? {};
  const spec = structuredClone(ds.spec?.template?.spec ?? { containers: [] }) as PodSpec;
  addOrUpdateTolerations(spec, daemonTolerations(!!spec.hostNetwork));
  const labels: Record<string, string> = { ...(tm.labels ?? {}) };
  const gen = templateGeneration(ds);
  if (gen !== undefined) labels[TEMPLATE_GENERATION_LABEL] = gen;
  if (hash) labels[CONTROLLER_REVISION_HASH_LABEL] = hash;
  const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { generateName: `${ds.metadata?.name}-`, labels }, spec };
  if (tm.annotations) pod.metadata!.annotations = { ...tm.annotations };
  if (tm.finalizers?.length) pod.metadata!.finalizers = [...tm.finalizers];
  if (nodeName) spec.affinity = replaceNodeNameAffinity(spec.affinity, nodeName);
  return pod;
}

/** Per DaemonSet, what the node predicates need, built once per sync. */
export class DaemonPredicates {
  private readonly pod: Pod;
  private readonly affinity: RequiredNodeAffinity;
  /** results per node object (one sync asks several times per node) */
  private readonly memo = new WeakMap<Node, [boolean, boolean]>();

  constructor(private readonly ds: DaemonSet) {
    this.pod = newDaemonPod(ds, '', '');
    this.affinity = new RequiredNodeAffinity(this.pod);
  }

  /**
   * `[shouldRun, shouldContinueRunning]` for `node` (upstream NodeShouldRunDaemonPod).
   */
  shouldRun(node: Node): [boolean, boolean] {
    let r = this.memo.get(node);
    if (!r) this.memo.set(node, (r = this.compute(node)));
    return r;
  }

  private compute(node: Node): [boolean, boolean] {
    const name = node.metadata?.name ?? '';
    const fixed = this.ds.spec?.template?.spec?.nodeName;
    if (fixed && fixed !== name) return [false, false];
    if (!this.affinity.match(node)) return [false, false];
    const tols = this.pod.spec?.tolerations;
    const taints = node.spec?.taints;
    if (findMatchingUntoleratedTaint(taints, tols, (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')) {
      return [false, !findMatchingUntoleratedTaint(taints, tols, (t) => t.effect === 'NoExecute')];
    }
    return [true, true];
  }
}

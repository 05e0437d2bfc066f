/**
 * Nominated pods: pods that preemption nominated to a node (status.nominatedNodeName)
 * and that are not bound yet. Filters count them on their node so the room
 * preemption made is not taken by lower-priority pods.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/backend/queue/nominator.go
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodNominator } from '../framework/interface.js';
import type { NominatingInfo, PodInfo } from '../framework/types.js';

const none: PodInfo[] = [];

export class Nominator implements PodNominator {
  /** node name → nominated pods */
  private readonly byNode = new Map<string, PodInfo[]>();
  /** pod uid → node name */
  private readonly nodeOf = new Map<string, string>();

  /**
   * Records a nomination. With `ni` Override the given node is used ('' clears);
   * otherwise the pod's status.nominatedNodeName. Pods already bound are ignored.
   */
  add(pi: PodInfo, ni?: NominatingInfo | null): void {
    this.delete(pi.pod);
    let node = pi.pod.status?.nominatedNodeName ?? '';
    if (ni && ni.mode === 'Override') node = ni.nominatedNodeName;
    if (!node || pi.pod.spec?.nodeName) return;
    this.nodeOf.set(pi.uid, node);
    const l = this.byNode.get(node);
    if (l) l.push(pi);
    else this.byNode.set(node, [pi]);
  }

  /** Removes the pod's nomination, if any. */
  delete(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    const node = this.nodeOf.get(uid);
    if (node === undefined) return;
    this.nodeOf.delete(uid);
    const l = this.byNode.get(node)!;
    const i = l.findIndex((p) => p.uid === uid);
    if (i >= 0) l.splice(i, 1);
    if (l.length === 0) this.byNode.delete(node);
  }

  /**
   * Updates a pod's entry. A nomination set by the scheduler in this process is kept
   * when the update does not carry one yet (upstream's race guard).
   */
  update(oldPod: Pod, newPi: PodInfo): void {
    const uid = newPi.uid;
    const had = this.nodeOf.get(uid);
    let ni: NominatingInfo | null = null;
    if (had && !oldPod.status?.nominatedNodeName && !newPi.pod.status?.nominatedNodeName) {
      ni = { mode: 'Override', nominatedNodeName: had };
    }
    this.delete(oldPod);
    this.add(newPi, ni);
  }

  isEmpty(): boolean {
    return this.byNode.size === 0;
  }

  nominatedPodsForNode(nodeName: string): PodInfo[] {
    const l = this.byNode.get(nodeName);
    return l ? l.slice() : none;
  }

  /** The node a pod is nominated to ('' if none). */
  nominatedNodeOf(uid: string): string {
    return this.nodeOf.get(uid) ?? '';
  }
}

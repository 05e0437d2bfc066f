/**
 * NodeName: a pod with spec.nodeName fits only that node.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/nodename/node_name.go
 */
import type { NodeColumns } from '../framework/node-columns.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, Handle } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import { Code, Status } from '../framework/status.js';
import { ActionType, QueueingHint, type ClusterEventWithHint } from '../framework/types.js';

export const Name = 'NodeName';

/** Reason when the node is not the requested one. */
export const ErrReason = "node(s) didn't match the requested node name";

/** Whether the pod's spec.nodeName is empty or names this node. */
export function fits(pod: Pod, nodeName: string): boolean {
  const want = pod.spec?.nodeName;
  return !want || want === nodeName;
}

export class NodeName implements FilterPlugin, EnqueueExtensions {
  readonly name = Name;

  filter(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status | null {
    if (fits(pod, nodeInfo.name)) return null;
    return new Status(Code.UnschedulableAndUnresolvable, [ErrReason]);
  }

  filterAll(state: CycleState, pod: Pod, nodes: NodeInfo[], _idx: Int32Array, _cols: NodeColumns, n: number, out: (Status | null)[]): number | void {
    // no spec.nodeName: every node passes, `out` is left as it is
    if (!pod.spec?.nodeName) return 0;
    for (let i = 0; i < n; i++) out[i] = this.filter(state, pod, nodes[i]!);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint, label: 'NodeAdd' },
        queueingHintFn: (pod, oldObj, newObj) => (!oldObj && fits(pod, (newObj as Node | undefined)?.metadata?.name ?? '') ? QueueingHint.Queue : QueueingHint.QueueSkip),
      },
    ];
  }
}

export function New(_args: unknown, _handle: Handle): NodeName {
  return new NodeName();
}

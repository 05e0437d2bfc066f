/**
 * NodeUnschedulable: rejects nodes with spec.unschedulable (cordoned) unless the pod
 * tolerates the `node.kubernetes.io/unschedulable:NoSchedule` taint.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go
 */
import { F_NO_NODE, F_UNSCHEDULABLE, type NodeColumns } from '../framework/node-columns.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, Handle } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import { Code, Status } from '../framework/status.js';
import { ActionType, QueueingHint, type ClusterEventWithHint } from '../framework/types.js';
import { tolerationsTolerateTaint } from './helper/taints.js';

export const Name = 'NodeUnschedulable';

/** Reason for a cordoned node. */
export const ErrReasonUnschedulable = 'node(s) were unschedulable';
/** Reason for a node with unknown conditions. */
export const ErrReasonUnknownCondition = 'node(s) had unknown conditions';

const unschedulableTaint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

export class NodeUnschedulable implements FilterPlugin, EnqueueExtensions {
  readonly name = Name;

  filter(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status | null {
    const node = nodeInfo.node;
    if (!node) return new Status(Code.UnschedulableAndUnresolvable, [ErrReasonUnknownCondition]);
    if (!node.spec?.unschedulable) return null;
    if (tolerationsTolerateTaint(pod.spec?.tolerations, unschedulableTaint)) return null;
    return new Status(Code.UnschedulableAndUnresolvable, [ErrReasonUnschedulable]);
  }

  filterAll(state: CycleState, pod: Pod, nodes: NodeInfo[], idx: Int32Array, cols: NodeColumns, n: number, out: (Status | null)[]): number {
    const flags = cols.flags;
    let bad = 0;
    for (let i = 0; i < n; i++) {
      const r = idx[i]!;
      const s = r >= 0 && (flags[r]! & (F_NO_NODE | F_UNSCHEDULABLE)) === 0 ? null : this.filter(state, pod, nodes[i]!);
      out[i] = s;
      if (s !== null) bad++;
    }
    return bad;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeTaint, label: 'NodeAddOrTaintChange' },
        queueingHintFn: (_pod, oldObj, newObj) => {
          const o = oldObj as Node | undefined;
          const n = newObj as Node | undefined;
          const was = o ? !o.spec?.unschedulable : false;
          const now = n ? !n.spec?.unschedulable : false;
          return !was && now ? QueueingHint.Queue : QueueingHint.QueueSkip;
        },
      },
      { event: { resource: 'Pod', actionType: ActionType.UpdatePodTolerations, label: 'PodTolerationChange' } },
    ];
  }
}

export function New(_args: unknown, _handle: Handle): NodeUnschedulable {
  return new NodeUnschedulable();
}

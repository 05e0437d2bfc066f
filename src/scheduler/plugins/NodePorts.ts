/**
 * NodePorts: a pod's container hostPorts must be free on the node (0.0.0.0 conflicts
 * with every address).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/nodeports/node_ports.go
 */
import { F_PORTS, type NodeColumns } from '../framework/node-columns.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, Handle, PreFilterPlugin } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import { Code, Status } from '../framework/status.js';
import { ActionType, podHostPorts, QueueingHint, type ClusterEventWithHint, type HostPort, type PreFilterResult } from '../framework/types.js';

export const Name = 'NodePorts';

const preFilterStateKey = 'PreFilter' + Name;

/** Reason when a requested host port is taken. */
export const ErrReason = "node(s) didn't have free ports for the requested pod ports";

class PreFilterState implements StateData {
  constructor(readonly ports: HostPort[]) {}
  clone(): StateData {
    return this;
  }
}

/** Whether two host-port lists conflict (same protocol/port, overlapping ip). */
function portsConflict(a: HostPort[], b: HostPort[]): boolean {
  for (const x of a) {
    for (const y of b) {
      if (x.port !== y.port || x.protocol !== y.protocol) continue;
      if (x.ip === y.ip || x.ip === '0.0.0.0' || y.ip === '0.0.0.0') return true;
    }
  }
  return false;
}

export class NodePorts implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = Name;

  preFilter(state: CycleState, pod: Pod, _nodes: NodeInfo[]): [PreFilterResult | null, Status | null] {
    const ports = podHostPorts(pod);
    if (ports.length === 0) return [null, new Status(Code.Skip)];
    state.write(preFilterStateKey, new PreFilterState(ports));
    return [null, null];
  }

  preFilterExtensions(): null {
    return null;
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status | null {
    const s = state.get<PreFilterState>(preFilterStateKey);
    const ports = s ? s.ports : podHostPorts(pod);
    for (const p of ports) if (nodeInfo.usedPorts.checkConflict(p)) return new Status(Code.Unschedulable, [ErrReason]);
    return null;
  }

  filterAll(state: CycleState, pod: Pod, nodes: NodeInfo[], idx: Int32Array, cols: NodeColumns, n: number, out: (Status | null)[]): void {
    const flags = cols.flags;
    for (let i = 0; i < n; i++) {
      const r = idx[i]!;
      out[i] = r >= 0 && (flags[r]! & F_PORTS) === 0 ? null : this.filter(state, pod, nodes[i]!);
    }
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Pod', actionType: ActionType.Delete, label: 'AssignedPodDelete' },
        queueingHintFn: (pod, oldObj) => {
          const deleted = oldObj as Pod | undefined;
          if (!deleted?.spec?.nodeName) return QueueingHint.QueueSkip;
          return portsConflict(podHostPorts(pod), podHostPorts(deleted)) ? QueueingHint.Queue : QueueingHint.QueueSkip;
        },
      },
      { event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint, label: 'NodeAdd' } },
    ];
  }
}

export function New(_args: unknown, _handle: Handle): NodePorts {
  return new NodePorts();
}

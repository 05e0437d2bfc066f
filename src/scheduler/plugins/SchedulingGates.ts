/**
 * SchedulingGates: holds pods with a non-empty spec.schedulingGates out of the active
 * queue (PreEnqueue); they are retried when an update removes the last gate.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/pod-scheduling-readiness/
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { EnqueueExtensions, Handle, PreEnqueuePlugin } from '../framework/interface.js';
import { Code, Status } from '../framework/status.js';
import { ActionType, QueueingHint, type ClusterEventWithHint } from '../framework/types.js';

export const Name = 'SchedulingGates';

/** The PodScheduled condition reason and message for gated pods (upstream, set at pod creation). */
export const SCHEDULING_GATED_REASON = 'SchedulingGated';
export const SCHEDULING_GATED_MESSAGE = 'Scheduling is blocked due to non-empty scheduling gates';

export class SchedulingGates implements PreEnqueuePlugin, EnqueueExtensions {
  readonly name = Name;

  preEnqueue(pod: Pod): Status | null {
    const gates = pod.spec?.schedulingGates;
    if (!gates || gates.length === 0) return null;
    return new Status(Code.UnschedulableAndUnresolvable, [`waiting for scheduling gates: [${gates.map((g) => g.name).join(' ')}]`]);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Pod', actionType: ActionType.UpdatePodSchedulingGatesEliminated, label: 'PodSchedulingGateEliminatedChange' },
        queueingHintFn: (pod, _old, newObj) => {
          const p = newObj as Pod | undefined;
          if (!p || p.metadata?.uid !== pod.metadata?.uid) return QueueingHint.QueueSkip;
          return (p.spec?.schedulingGates?.length ?? 0) === 0 ? QueueingHint.Queue : QueueingHint.QueueSkip;
        },
      },
    ];
  }
}

export function New(_args: unknown, _handle: Handle): SchedulingGates {
  return new SchedulingGates();
}

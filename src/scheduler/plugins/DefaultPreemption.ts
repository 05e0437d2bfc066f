/**
 * DefaultPreemption (PostFilter): when no node fits, looks for nodes where evicting
 * lower-priority pods would make room.
 *
 * Implemented now: eligibility (preemptionPolicy Never), the per-node verdicts and
 * upstream's messages — UnschedulableAndUnresolvable nodes get "Preemption is not
 * helpful for scheduling"; nodes without lower-priority pods get "No preemption
 * victims found for incoming pod"; nodes where even removing every lower-priority pod
 * does not help keep their Filter reasons — rendered as
 * `preemption: 0/N nodes are available: …`.
 *
 * NOT YET (issue 4): choosing among candidate nodes, PDB-aware victim selection and
 * reprieve, setting status.nominatedNodeName, and deleting the victims. When a
 * candidate exists this plugin currently returns Unschedulable without a message and
 * evicts nothing.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/preemption/preemption.go
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState } from '../framework/cycle-state.js';
import { Diagnosis, fitErrorMessage, type NodeToStatus } from '../framework/fit-error.js';
import type { Handle, PostFilterPlugin } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import { asStatus, Code, isSuccess, Status } from '../framework/status.js';
import { podPriority, type PodInfo, type PostFilterResult } from '../framework/types.js';

export const Name = 'DefaultPreemption';

/** Node verdict when the node's failure cannot be fixed by evicting pods. */
export const ErrReasonNotHelpful = 'Preemption is not helpful for scheduling';
/** Node verdict when the node has no lower-priority pods. */
export const ErrReasonNoVictims = 'No preemption victims found for incoming pod';
/** Pod verdict when spec.preemptionPolicy is Never. */
export const ErrReasonPolicyNever = 'not eligible due to preemptionPolicy=Never.';

/** DefaultPreemptionArgs (kubescheduler.config.k8s.io/v1). */
export interface DefaultPreemptionArgs {
  minCandidateNodesPercentage?: number;
  minCandidateNodesAbsolute?: number;
}

/** A node where preemption would work, with the pods to evict. */
export interface Candidate {
  nodeName: string;
  victims: PodInfo[];
}

export class DefaultPreemption implements PostFilterPlugin {
  readonly name = Name;

  constructor(
    private readonly handle: Handle,
    readonly args: DefaultPreemptionArgs,
  ) {}

  async postFilter(state: CycleState, pod: Pod, m: NodeToStatus): Promise<[PostFilterResult | null, Status | null]> {
    const [result, s] = this.preempt(state, pod, m);
    const msg = s ? s.message() : '';
    if (s && msg) return [result, new Status(s.code, [`preemption: ${msg}`])];
    return [result, s];
  }

  /** Finds candidates; returns the FitError message of the dry run when there are none. */
  private preempt(state: CycleState, pod: Pod, m: NodeToStatus): [PostFilterResult | null, Status | null] {
    if (pod.spec?.preemptionPolicy === 'Never') return [null, new Status(Code.Unschedulable, [ErrReasonPolicyNever])];
    const all = this.handle.snapshotSharedLister().list();
    if (all.length === 0) return [null, asStatus(new Error('no nodes available'))];
    const d = new Diagnosis();
    const candidates = this.findCandidates(state, pod, m, all, d.nodeToStatus);
    if (candidates.length === 0) {
      return [{ nominatingInfo: { mode: 'Override', nominatedNodeName: '' } }, new Status(Code.Unschedulable, [fitErrorMessage(all.length, d)])];
    }
    // TODO(issue 4): select the best candidate, evict its victims (graceful delete,
    // PDB-aware), set status.nominatedNodeName. Until then nothing is evicted and the
    // pod stays unschedulable with no preemption message.
    return [null, new Status(Code.Unschedulable)];
  }

  /**
   * Dry-runs preemption on every node whose status is not UnschedulableAndUnresolvable,
   * recording a status for each node that cannot become feasible.
   */
  findCandidates(state: CycleState, pod: Pod, m: NodeToStatus, all: NodeInfo[], out: NodeToStatus): Candidate[] {
    const candidates: Candidate[] = [];
    for (const ni of all) {
      if (m.get(ni.name).code === Code.UnschedulableAndUnresolvable) {
        out.set(ni.name, new Status(Code.UnschedulableAndUnresolvable, [ErrReasonNotHelpful]));
        continue;
      }
      const [victims, s] = this.selectVictimsOnNode(state.clone(), pod, ni.clone());
      if (s) out.set(ni.name, s);
      else candidates.push({ nodeName: ni.name, victims });
    }
    return candidates;
  }

  /** Removes all lower-priority pods from the (copied) node and checks whether the pod fits. */
  private selectVictimsOnNode(state: CycleState, pod: Pod, ni: NodeInfo): [PodInfo[], Status | null] {
    const prio = podPriority(pod);
    const victims: PodInfo[] = [];
    for (const pi of ni.pods.slice()) {
      if (pi.priority >= prio) continue;
      victims.push(pi);
      ni.removePod(pi.key);
      const s = this.handle.runPreFilterExtensionRemovePod(state, pod, pi, ni);
      if (s) return [[], s];
    }
    if (victims.length === 0) return [[], new Status(Code.UnschedulableAndUnresolvable, [ErrReasonNoVictims])];
    const s = this.handle.runFilterPluginsWithNominatedPods(state, pod, ni);
    if (!isSuccess(s)) return [[], s];
    return [victims, null];
  }
}

export function New(args: unknown, handle: Handle): DefaultPreemption {
  return new DefaultPreemption(handle, (args ?? {}) as DefaultPreemptionArgs);
}

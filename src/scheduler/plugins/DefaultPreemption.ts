/**
 * DefaultPreemption (PostFilter): when no node fits, finds nodes where evicting pods of
 * lower priority makes room. Per node (a dry run on copies): remove every lower-priority
 * pod; if the pod then fits, reprieve as many as possible — PDB-violating ones first,
 * highest priority first. Candidates are searched from a random offset until
 * max(10 % of the nodes, 100) are found; the best (fewest PDB violations, lowest victim
 * priorities, fewest victims, latest start) is chosen, its victims get a
 * DisruptionTarget condition and are deleted gracefully (pods waiting at Permit are
 * rejected instead), lower-priority pods nominated to that node lose their nomination,
 * and the preemptor is nominated to it (status.nominatedNodeName).
 *
 * Pods with preemptionPolicy Never never preempt. Messages are upstream's, prefixed
 * `preemption: ` in the FitError.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/preemption/preemption.go
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isNotFound } from '../../apimachinery/errors.js';
import { rfc3339 } from '../../client/events.js';
import { R } from '../../client/types.js';
import type { CycleState } from '../framework/cycle-state.js';
import { Diagnosis, fitErrorMessage, NodeToStatus } from '../framework/fit-error.js';
import type { Handle, PostFilterPlugin } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import { asStatus, Code, isSuccess, Status } from '../framework/status.js';
import { podPriority, type PodInfo, type PostFilterResult } from '../framework/types.js';
import { filterPodsWithPDBViolation, moreImportantPod, pickOneNodeForPreemption, type Candidate } from './helper/preemption.js';
import type { NodeResourcesFit } from './NodeResourcesFit.js';

export const Name = 'DefaultPreemption';

/** Node verdict when the node's failure cannot be fixed by evicting pods. */
export const ErrReasonNotHelpful = 'Preemption is not helpful for scheduling';
/** Node verdict when the node has no lower-priority pods. */
export const ErrReasonNoVictims = 'No preemption victims found for incoming pod';
/** Pod verdict when spec.preemptionPolicy is Never. */
export const ErrReasonPolicyNever = 'not eligible due to preemptionPolicy=Never.';
/** Pod verdict while a victim of its earlier preemption is still terminating. */
export const ErrReasonTerminatingOnNominated = 'not eligible due to a terminating pod on the nominated node.';
/** DisruptionTarget reason set on victims. */
export const REASON_PREEMPTION_BY_SCHEDULER = 'PreemptionByScheduler';

/** DefaultPreemptionArgs (kubescheduler.config.k8s.io/v1). */
export interface DefaultPreemptionArgs {
  /** 0–100, default 10 */
  minCandidateNodesPercentage?: number;
  /** ≥ 0, default 100 */
  minCandidateNodesAbsolute?: number;
}

export type { Candidate };

/** Optional hooks (metrics, tests). */
export interface PreemptionHooks {
  /** [0,1) random source for the dry-run offset */
  random?: () => number;
  /** ms clock (start times of pods without one, condition timestamps) */
  now?: () => number;
  /** called once per PostFilter run */
  onAttempt?: () => void;
  /** called with the number of victims of a successful preemption */
  onVictims?: (n: number) => void;
}

function podTerminatingByPreemption(p: Pod): boolean {
  if (!p.metadata?.deletionTimestamp) return false;
  return !!p.status?.conditions?.some((c) => c.type === 'DisruptionTarget' && c.status === 'True' && c.reason === REASON_PREEMPTION_BY_SCHEDULER);
}

export class DefaultPreemption implements PostFilterPlugin {
  readonly name = Name;
  private readonly random: () => number;
  private readonly now: () => number;

  constructor(
    private readonly handle: Handle,
    readonly args: Required<DefaultPreemptionArgs>,
    readonly hooks: PreemptionHooks = {},
  ) {
    this.random = hooks.random ?? Math.random;
    this.now = hooks.now ?? Date.now;
  }

  async postFilter(state: CycleState, pod: Pod, m: NodeToStatus): Promise<[PostFilterResult | null, Status | null]> {
    this.hooks.onAttempt?.();
    const [result, s] = await this.preempt(state, pod, m);
    const msg = s ? s.message() : '';
    if (s && msg) return [result, new Status(s.code, [`preemption: ${msg}`])];
    return [result, s];
  }

  /** Upstream PodEligibleToPreemptOthers: [eligible, reason]. */
  podEligibleToPreemptOthers(pod: Pod, nominatedNodeStatus: Status | null): [boolean, string] {
    if (pod.spec?.preemptionPolicy === 'Never') return [false, ErrReasonPolicyNever];
    const nom = pod.status?.nominatedNodeName;
    if (nom) {
      if (nominatedNodeStatus?.code === Code.UnschedulableAndUnresolvable) return [true, ''];
      const ni = this.handle.snapshotSharedLister().get(nom);
      if (ni) {
        const prio = podPriority(pod);
        for (const p of ni.pods) if (p.priority < prio && podTerminatingByPreemption(p.pod)) return [false, ErrReasonTerminatingOnNominated];
      }
    }
    return [true, ''];
  }

  /** Runs preemption; returns the nomination and a status whose message becomes the `preemption:` part. */
  async preempt(state: CycleState, podIn: Pod, m: NodeToStatus): Promise<[PostFilterResult | null, Status | null]> {
    const md = podIn.metadata ?? {};
    const pod = this.handle.listers.pod(md.namespace ?? '', md.name ?? '') ?? podIn;
    const nom = pod.status?.nominatedNodeName ?? '';
    const [ok, why] = this.podEligibleToPreemptOthers(pod, nom ? m.get(nom) : null);
    if (!ok) return [null, new Status(Code.Unschedulable, [why])];

    const all = this.handle.snapshotSharedLister().list();
    if (all.length === 0) return [null, asStatus(new Error('no nodes available'))];
    const statuses = new NodeToStatus();
    const potential = all.filter((n) => m.get(n.name).code === Code.Unschedulable);
    let candidates: Candidate[] = [];
    if (potential.length === 0) await this.clearNominatedNodeName(pod);
    else {
      this.filterStatuses = m;
      let cs: Candidate[];
      let err: Status | null;
      try {
        [cs, err] = this.dryRunPreemption(state, pod, potential, statuses);
      } finally {
        this.filterStatuses = null;
      }
      if (err && cs.length === 0) return [null, err];
      candidates = cs;
    }
    if (candidates.length === 0) {
      const d = new Diagnosis();
      d.nodeToStatus = statuses;
      statuses.absentNodesStatus = new Status(Code.UnschedulableAndUnresolvable, [ErrReasonNotHelpful]);
      return [{ nominatingInfo: { mode: 'Override', nominatedNodeName: '' } }, new Status(Code.Unschedulable, [fitErrorMessage(all.length, d)])];
    }
    const best = pickOneNodeForPreemption(candidates, this.now()) ?? candidates[0]!;
    const s = await this.prepareCandidate(best, pod);
    if (s) return [null, s];
    this.hooks.onVictims?.(best.victims.length);
    return [{ nominatingInfo: { mode: 'Override', nominatedNodeName: best.nodeName } }, null];
  }

  /** The plugin that rejected a node in the failed cycle (set by preempt). */
  private origPlugin(node: string): string {
    return this.filterStatuses?.get(node).plugin ?? '';
  }

  private filterStatuses: NodeToStatus | null = null;

  private hasNominated(node: string, prio: number, uid: string | undefined): boolean {
    if (this.handle.nominator.isEmpty?.()) return false;
    return this.handle.nominator.nominatedPodsForNode(node).some((p) => p.priority >= prio && p.uid !== uid);
  }

  /** How many candidates to look for: max(pct% of nodes, absolute), at most all nodes. */
  calculateNumCandidates(numNodes: number): number {
    let n = Math.trunc((numNodes * this.args.minCandidateNodesPercentage) / 100);
    if (n < this.args.minCandidateNodesAbsolute) n = this.args.minCandidateNodesAbsolute;
    return Math.min(n, numNodes);
  }

  /**
   * Dry-runs preemption on the potential nodes from a random offset, stopping once
   * enough candidates exist (at least one without PDB violations). Nodes that are not
   * candidates get their status in `statuses`.
   */
  dryRunPreemption(state: CycleState, pod: Pod, potential: NodeInfo[], statuses: NodeToStatus): [Candidate[], Status | null] {
    const n = potential.length;
    const offset = Math.floor(this.random() * n);
    const want = this.calculateNumCandidates(n);
    const nonViolating: Candidate[] = [];
    const violating: Candidate[] = [];
    let firstErr: Status | null = null;
    const pdbs = this.handle.listers.pdbs();
    const fit = this.handle.plugin('NodeResourcesFit') as NodeResourcesFit | undefined;
    const prio = podPriority(pod);
    const noPorts = !(pod.spec?.containers ?? []).some((c) => (c.ports ?? []).some((p) => (p.hostPort ?? 0) > 0));
    const uid = pod.metadata?.uid;
    for (let i = 0; i < n; i++) {
      const ni = potential[(offset + i) % n]!;
      // Without copying the node: when NodeResourcesFit rejected it and would still reject
      // it with every lower-priority pod gone (and nothing else can change the verdict:
      // no host ports, no nominated pods there), the dry run's answer is known.
      if (fit && noPorts && statuses !== undefined && this.origPlugin(ni.name) === 'NodeResourcesFit' && !this.hasNominated(ni.name, prio, uid)) {
        const lower = ni.pods.filter((p) => p.priority < prio);
        if (lower.length === 0) {
          statuses.set(ni.name, new Status(Code.UnschedulableAndUnresolvable, [ErrReasonNoVictims]));
          continue;
        }
        const reasons = fit.insufficientWithout(state, pod, ni, lower);
        if (reasons.length) {
          statuses.set(ni.name, new Status(Code.Unschedulable, reasons).withPlugin('NodeResourcesFit'));
          continue;
        }
      }
      const [victims, numViolations, s] = this.selectVictimsOnNode(state.clone(), pod, ni.clone(), pdbs);
      if (isSuccess(s) && victims.length) {
        const c: Candidate = { nodeName: ni.name, victims, numPDBViolations: numViolations };
        (numViolations === 0 ? nonViolating : violating).push(c);
        if (nonViolating.length > 0 && nonViolating.length + violating.length >= want) break;
        continue;
      }
      const st = isSuccess(s) ? asStatus(new Error(`expected at least one victim pod on node "${ni.name}"`)) : s!;
      if (st.code === Code.Error && !firstErr) firstErr = st;
      statuses.set(ni.name, st);
    }
    return [[...nonViolating, ...violating], firstErr];
  }

  /** Upstream SelectVictimsOnNode on a copied NodeInfo/state: [victims, PDB violations, status]. */
  selectVictimsOnNode(state: CycleState, pod: Pod, ni: NodeInfo, pdbs: Parameters<typeof filterPodsWithPDBViolation>[1]): [Pod[], number, Status | null] {
    const prio = podPriority(pod);
    const potential: PodInfo[] = [];
    const remove = (pi: PodInfo): Status | null => {
      ni.removePod(pi.key);
      return this.handle.runPreFilterExtensionRemovePod(state, pod, pi, ni);
    };
    const add = (pi: PodInfo): Status | null => {
      ni.addPodInfo(pi);
      return this.handle.runPreFilterExtensionAddPod(state, pod, pi, ni);
    };
    for (const pi of ni.pods.slice()) {
      if (pi.priority >= prio) continue;
      potential.push(pi);
      const s = remove(pi);
      if (s) return [[], 0, asStatus(new Error(s.message()))];
    }
    if (potential.length === 0) return [[], 0, new Status(Code.UnschedulableAndUnresolvable, [ErrReasonNoVictims])];
    const fit = this.handle.runFilterPluginsWithNominatedPods(state, pod, ni);
    if (!isSuccess(fit)) return [[], 0, fit];
    const now = this.now();
    potential.sort((a, b) => (moreImportantPod(a.pod, b.pod, now) ? -1 : moreImportantPod(b.pod, a.pod, now) ? 1 : 0));
    const [violatingVictims, nonViolatingVictims] = filterPodsWithPDBViolation(potential, pdbs);
    const victims: Pod[] = [];
    let numViolating = 0;
    const reprieve = (pi: PodInfo): [boolean, Status | null] => {
      let s = add(pi);
      if (s) return [false, s];
      const fits = isSuccess(this.handle.runFilterPluginsWithNominatedPods(state, pod, ni));
      if (!fits) {
        s = remove(pi);
        if (s) return [false, s];
        victims.push(pi.pod);
      }
      return [fits, null];
    };
    for (const pi of violatingVictims) {
      const [fits, s] = reprieve(pi);
      if (s) return [[], 0, asStatus(new Error(s.message()))];
      if (!fits) numViolating++;
    }
    for (const pi of nonViolatingVictims) {
      const [, s] = reprieve(pi);
      if (s) return [[], 0, asStatus(new Error(s.message()))];
    }
    return [victims, numViolating, null];
  }

  /** Evicts the victims, clears lower-priority nominations on the node. Null on success. */
  private async prepareCandidate(c: Candidate, preemptor: Pod): Promise<Status | null> {
    const results = await Promise.all(c.victims.map((v) => this.preemptPod(c, preemptor, v)));
    const err = results.find((e) => e);
    if (err) return asStatus(err);
    const prio = podPriority(preemptor);
    const lower = this.handle.nominator.nominatedPodsForNode(c.nodeName).filter((pi) => pi.priority < prio && pi.uid !== preemptor.metadata?.uid);
    await Promise.all(lower.map((pi) => this.clearNominatedNodeName(pi.pod)));
    return null;
  }

  /** Rejects a victim waiting at Permit, or marks it DisruptionTarget and deletes it; records `Preempted`. */
  private async preemptPod(c: Candidate, preemptor: Pod, victim: Pod): Promise<Error | null> {
    const vm = victim.metadata ?? {};
    const wp = this.handle.getWaitingPod(vm.uid ?? '');
    if (wp) wp.reject(Name, 'preempted');
    else {
      const cond = {
        type: 'DisruptionTarget',
        status: 'True',
        reason: REASON_PREEMPTION_BY_SCHEDULER,
        message: `${preemptor.spec?.schedulerName || 'default-scheduler'}: preempting to accommodate a higher priority pod`,
        lastTransitionTime: rfc3339(new Date(this.now())),
      };
      const has = victim.status?.conditions?.some((x) => x.type === cond.type && x.status === cond.status && x.reason === cond.reason && x.message === cond.message);
      try {
        if (!has) {
          await this.handle.client.patch(R.pods, vm.namespace ?? '', vm.name ?? '', 'strategic', { status: { conditions: [cond] } }, { subresource: 'status' });
        }
        await this.handle.client.delete(R.pods, vm.namespace ?? '', vm.name ?? '');
      } catch (e) {
        if (!isNotFound(e)) return e instanceof Error ? e : new Error(String(e));
        return null;
      }
    }
    const ref = victim.kind ? victim : { ...victim, apiVersion: 'v1', kind: 'Pod' };
    this.handle.eventRecorder.event(ref as never, 'Normal', 'Preempted', `Preempted by pod ${preemptor.metadata?.uid ?? ''} on node ${c.nodeName}`);
    return null;
  }

  /** Clears status.nominatedNodeName through the API when set (upstream util.ClearNominatedNodeName). */
  private async clearNominatedNodeName(pod: Pod): Promise<void> {
    if (!pod.status?.nominatedNodeName) return;
    const m = pod.metadata ?? {};
    try {
      await this.handle.client.patch(R.pods, m.namespace ?? '', m.name ?? '', 'merge', { status: { nominatedNodeName: null } }, { subresource: 'status' });
    } catch {
      // not critical, as upstream
    }
  }
}

/** Builds the plugin; throws upstream's validation messages for out-of-range args. */
export function New(args: unknown, handle: Handle, hooks: PreemptionHooks = {}): DefaultPreemption {
  const a = (args ?? {}) as DefaultPreemptionArgs;
  const pct = a.minCandidateNodesPercentage ?? 10;
  const abs = a.minCandidateNodesAbsolute ?? 100;
  if (pct < 0 || pct > 100) throw new Error(`minCandidateNodesPercentage: Invalid value: ${pct}: not in valid range [0, 100]`);
  if (abs < 0) throw new Error(`minCandidateNodesAbsolute: Invalid value: ${abs}: not in valid range [0, inf)`);
  if (pct === 0 && abs === 0) throw new Error('minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute');
  const m = handle.metrics;
  const h: PreemptionHooks = m ? { onAttempt: () => m.preemptionAttempts.inc(), onVictims: (n) => m.preemptionVictims.observe(n), ...hooks } : hooks;
  return new DefaultPreemption(handle, { minCandidateNodesPercentage: pct, minCandidateNodesAbsolute: abs }, h);
}

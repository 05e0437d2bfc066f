/**
 * One pod's scheduling cycle (synchronous from snapshot to Permit, except PostFilter)
 * and its binding cycle (asynchronous: WaitOnPermit, PreBind, Bind, PostBind), plus
 * the failure handling that records upstream's condition and events.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/schedule_one.go
 */
import { kObj } from '../util/klog.js';
import { tracePlugins, traceStep } from './trace.js';
import { preciseNow } from '../trace/recorder.js';
import type { Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import { rfc3339 } from '../client/events.js';
import { R } from '../client/types.js';
import { CycleState } from './framework/cycle-state.js';
import { Diagnosis, ERR_NO_NODES_AVAILABLE, FitError } from './framework/fit-error.js';
import { filterNodes, rowsOf, StatusError, type Feasible } from './framework/filter-nodes.js';
import type { NodeInfo } from './framework/node-info.js';
import type { Framework } from './framework/runtime.js';
import { asStatus, Code, isSuccess, Status } from './framework/status.js';
import { Events, PodInfo, type NominatingInfo, type QueuedPodInfo } from './framework/types.js';
import type { Scheduler } from './scheduler.js';

/** Fewest nodes examined per cycle (upstream minFeasibleNodesToFind). */
export const MIN_FEASIBLE_NODES_TO_FIND = 100;
/** Lowest adaptive percentage (upstream minFeasibleNodesPercentageToFind). */
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;
/** Event messages are cut to this many bytes (upstream validation.NoteLengthLimit). */
export const NOTE_LENGTH_LIMIT = 1024;

/** Where a pod goes: node name and how many nodes were looked at. */
export interface ScheduleResult {
  suggestedHost: string;
  evaluatedNodes: number;
  feasibleNodes: number;
}

/** Thrown when the cluster has no nodes (upstream ErrNoNodesAvailable). */
export class NoNodesAvailableError extends Error {
  constructor() {
    super(ERR_NO_NODES_AVAILABLE);
    this.name = 'NoNodesAvailableError';
  }
}

export { StatusError };

/**
 * How many feasible nodes to look for: all below 100 nodes; else the percentage
 * (adaptive default 50 − nodes/125, at least 5 %), at least 100.
 */
export function numFeasibleNodesToFind(percentage: number | undefined, numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  let pct = percentage ?? 0;
  if (pct === 0) {
    pct = 50 - Math.trunc(numAllNodes / 125);
    if (pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
  }
  const n = Math.trunc((numAllNodes * pct) / 100);
  return Math.max(n, MIN_FEASIBLE_NODES_TO_FIND);
}

/** Cuts a message to the event note limit, ending with " ..." (upstream truncateMessage). */
export function truncateMessage(msg: string): string {
  if (msg.length <= NOTE_LENGTH_LIMIT) return msg;
  return msg.slice(0, NOTE_LENGTH_LIMIT - 4) + ' ...';
}

/** The pod as an event's involvedObject (apiVersion/kind filled in). */
export function podRef(pod: Pod): KObject {
  return pod.kind ? (pod as KObject) : ({ ...pod, apiVersion: 'v1', kind: 'Pod' } as KObject);
}

/** Runs Filter over nodes from the round-robin start index until enough feasible nodes are found. */
function findNodesThatPassFilters(sched: Scheduler, fwk: Framework, state: CycleState, pod: Pod, d: Diagnosis, nodes: NodeInfo[]): Feasible {
  const n = nodes.length;
  let toFind = numFeasibleNodesToFind(fwk.percentageOfNodesToScore ?? sched.percentageOfNodesToScore, n);
  if (!fwk.hasScorePlugins()) toFind = 1;
  const start = n ? sched.nextStartNodeIndex % n : 0;
  if (!fwk.hasFilterPlugins()) {
    const feasible: NodeInfo[] = [];
    for (let i = 0; i < toFind && i < n; i++) feasible.push(nodes[(start + i) % n]!);
    return { nodes: feasible, idx: rowsOf(fwk, feasible) };
  }
  const t0 = performance.now();
  try {
    return filterNodes(fwk, state, pod, nodes, start, toFind, d);
  } finally {
    sched.metrics?.extensionPointTotals.set('Filter', (sched.metrics.extensionPointTotals.get('Filter') ?? 0) + performance.now() - t0);
  }
}

/** PreFilter, then Filter (nominated node first), recording why nodes failed. */
function findNodesThatFitPod(sched: Scheduler, fwk: Framework, state: CycleState, pod: Pod): [Feasible, Diagnosis] {
  const d = new Diagnosis();
  const snap = sched.snapshot;
  const all = snap.list();
  const [preRes, s, pluginsWithNodes] = fwk.runPreFilterPlugins(state, pod);
  traceStep(sched.trace, pod, 'PreFilter');
  for (const p of pluginsWithNodes) d.unschedulablePlugins.add(p);
  if (!isSuccess(s)) {
    if (!s!.isRejected()) throw new StatusError(s!);
    d.nodeToStatus.absentNodesStatus = s!;
    d.preFilterMsg = s!.message();
    d.addPluginStatus(s!);
    return [{ nodes: [], idx: new Int32Array(0) }, d];
  }
  const nominated = pod.status?.nominatedNodeName;
  if (nominated) {
    const ni = snap.get(nominated);
    if (ni) {
      const f = findNodesThatPassFilters(sched, fwk, state, pod, d, [ni]);
      if (f.nodes.length) return [f, d];
    }
  }
  let nodes = all;
  if (preRes && !preRes.allNodes()) {
    nodes = [];
    for (const name of preRes.nodeNames!) {
      const ni = snap.get(name);
      if (ni) nodes.push(ni);
    }
    d.nodeToStatus.absentNodesStatus = new Status(Code.UnschedulableAndUnresolvable, [`node(s) didn't satisfy plugin(s) [${[...pluginsWithNodes].sort().join(' ')}]`]);
  }
  const feasible = findNodesThatPassFilters(sched, fwk, state, pod, d, nodes);
  traceStep(sched.trace, pod, 'Filter');
  const processed = feasible.nodes.length + d.nodeToStatus.size;
  if (all.length) sched.nextStartNodeIndex = (sched.nextStartNodeIndex + processed) % all.length;
  return [feasible, d];
}

/**
 * Picks one of the highest-scoring nodes uniformly at random — the distribution of
 * upstream's reservoir sampling, with one random draw per cycle instead of one per tie.
 */
export function selectHost(nodes: NodeInfo[], totals: number[], random: () => number): string {
  let best = -Infinity;
  let count = 0;
  const n = nodes.length;
  for (let i = 0; i < n; i++) {
    const t = totals[i]!;
    if (t > best) {
      best = t;
      count = 1;
    } else if (t === best) count++;
  }
  let k = Math.floor(random() * count);
  if (k >= count) k = count - 1;
  for (let i = 0; i < n; i++) {
    if (totals[i] === best && k-- === 0) return nodes[i]!.name;
  }
  return nodes[0]!.name;
}

/** Finds the node for a pod, or throws FitError / NoNodesAvailableError / StatusError. */
export function schedulePod(sched: Scheduler, fwk: Framework, state: CycleState, pod: Pod): ScheduleResult {
  const snap = sched.snapshot;
  if (snap.numNodes() === 0) throw new NoNodesAvailableError();
  const [f, d] = findNodesThatFitPod(sched, fwk, state, pod);
  const feasible = f.nodes;
  if (feasible.length === 0) throw new FitError(pod, snap.numNodes(), d);
  if (feasible.length === 1) return { suggestedHost: feasible[0]!.name, evaluatedNodes: 1 + d.nodeToStatus.size, feasibleNodes: 1 };
  let totals: number[];
  if (!fwk.hasScorePlugins()) totals = new Array(feasible.length).fill(1);
  else {
    const ps = fwk.runPreScorePlugins(state, pod, feasible);
    if (ps) throw new StatusError(ps);
    traceStep(sched.trace, pod, 'PreScore');
    const [t, s] = fwk.runScorePlugins(state, pod, feasible, f.idx);
    if (s) throw new StatusError(s);
    traceStep(sched.trace, pod, 'Score');
    totals = t;
  }
  return {
    suggestedHost: selectHost(feasible, totals, sched.random),
    evaluatedNodes: feasible.length + d.nodeToStatus.size,
    feasibleNodes: feasible.length,
  };
}

/** A rejection at Reserve/Permit as a FitError over the one chosen node. */
function singleNodeFitError(pod: Pod, node: string, s: Status): Status {
  const d = new Diagnosis();
  d.nodeToStatus.set(node, s);
  d.addPluginStatus(s);
  const fe = new FitError(pod, 1, d);
  return new Status(s.code, [], fe);
}

const clearNomination: NominatingInfo = { mode: 'Override', nominatedNodeName: '' };

/** Runs one pod's scheduling cycle; starts its binding cycle asynchronously on success. */
export async function scheduleOne(sched: Scheduler, qpi: QueuedPodInfo): Promise<void> {
  const pod = qpi.podInfo.pod;
  const fwk = sched.frameworkForPod(pod);
  if (!fwk) {
    sched.queue.done(qpi.podInfo.uid);
    return;
  }
  if (pod.metadata?.deletionTimestamp) {
    fwk.eventRecorder.event(podRef(pod), 'Warning', 'FailedScheduling', `skip schedule deleting pod: ${pod.metadata.namespace}/${pod.metadata.name}`);
    sched.queue.done(qpi.podInfo.uid);
    return;
  }
  if (sched.cache.isAssumedPod(pod, qpi.podInfo.key)) {
    sched.queue.done(qpi.podInfo.uid);
    return;
  }
  const podCycle = sched.queue.schedulingCycle();
  const state = new CycleState();
  state.recordPluginMetrics = sched.random() < sched.pluginMetricsSampleRate;
  state.podInfo = qpi.podInfo;
  traceStep(sched.trace, pod, 'QueueWait');
  tracePlugins(sched.trace, state, pod);
  const t0 = performance.now();
  sched.cache.updateSnapshot(sched.snapshot);
  fwk.setSnapshot(sched.snapshot);

  let result: ScheduleResult;
  try {
    result = schedulePod(sched, fwk, state, pod);
  } catch (e) {
    let st: Status;
    let nominating: NominatingInfo | null = clearNomination;
    if (e instanceof NoNodesAvailableError) st = new Status(Code.UnschedulableAndUnresolvable, [], e);
    else if (e instanceof FitError) {
      if (fwk.hasPostFilterPlugins()) {
        const [r, s] = await fwk.runPostFilterPlugins(state, pod, e.diagnosis.nodeToStatus);
        e.diagnosis.postFilterMsg = s ? s.message() : '';
        nominating = r?.nominatingInfo ?? null;
      }
      st = new Status(Code.Unschedulable, [], e);
    } else if (e instanceof StatusError) st = e.status;
    else st = asStatus(e);
    recordAttempt(sched, fwk, st.isRejected() ? 'unschedulable' : 'error', t0);
    cycleDone(sched, t0);
    await handleSchedulingFailure(sched, fwk, qpi, st, nominating, podCycle);
    return;
  }

  const host = result.suggestedHost;
  const assumed: Pod = { ...pod, spec: { ...pod.spec!, nodeName: host } };
  try {
    sched.cache.assumePod(assumed, qpi.podInfo);
  } catch (e) {
    await handleSchedulingFailure(sched, fwk, qpi, asStatus(e), clearNomination, podCycle);
    return;
  }
  sched.queue.nominator.delete(assumed);

  const rs = fwk.runReservePluginsReserve(state, assumed, host);
  traceStep(sched.trace, pod, 'Reserve');
  if (rs) {
    fwk.runReservePluginsUnreserve(state, assumed, host);
    sched.cache.forgetPod(assumed);
    await handleSchedulingFailure(sched, fwk, qpi, rs.isRejected() ? singleNodeFitError(pod, host, rs) : rs, clearNomination, podCycle);
    return;
  }
  const ps = fwk.runPermitPlugins(state, assumed, host);
  traceStep(sched.trace, pod, 'Permit');
  if (ps && ps.code !== Code.Wait) {
    fwk.runReservePluginsUnreserve(state, assumed, host);
    sched.cache.forgetPod(assumed);
    await handleSchedulingFailure(sched, fwk, qpi, ps.isRejected() ? singleNodeFitError(pod, host, ps) : ps, clearNomination, podCycle);
    return;
  }
  cycleDone(sched, t0);
  sched.trackBinding(bindingCycle(sched, fwk, state, qpi, assumed, host, podCycle, t0, result));
}

/** Accounts one scheduling cycle's duration (ms) and count in the benchmark totals. */
function cycleDone(sched: Scheduler, t0: number): void {
  const tot = sched.metrics.extensionPointTotals;
  tot.set('SchedulingCycle', (tot.get('SchedulingCycle') ?? 0) + performance.now() - t0);
  tot.set('Cycles', (tot.get('Cycles') ?? 0) + 1);
}

/** scheduler_schedule_attempts_total and scheduler_scheduling_attempt_duration_seconds. */
function recordAttempt(sched: Scheduler, fwk: Framework, result: 'scheduled' | 'unschedulable' | 'error', t0: number): void {
  const m = sched.metrics;
  m.scheduleAttempts.labels(result, fwk.profileName).inc();
  m.schedulingAttemptDuration.labels(result, fwk.profileName).observe((performance.now() - t0) / 1000);
}

/** WaitOnPermit → PreBind → Bind → PostBind; on failure undoes the assumption and requeues. */
async function bindingCycle(
  sched: Scheduler,
  fwk: Framework,
  state: CycleState,
  qpi: QueuedPodInfo,
  assumed: Pod,
  host: string,
  podCycle: number,
  t0: number,
  result: ScheduleResult,
): Promise<void> {
  // only a pod a Permit plugin parked waits (no extra turn of the microtask queue otherwise)
  let s = fwk.getWaitingPod(qpi.podInfo.uid) ? await fwk.waitOnPermit(assumed) : null;
  if (s) {
    s = s.isRejected() ? singleNodeFitError(qpi.podInfo.pod, host, s) : s;
    return handleBindingCycleError(sched, fwk, state, qpi, assumed, host, s, podCycle);
  }
  sched.queue.done(qpi.podInfo.uid);
  s = await fwk.runPreBindPlugins(state, assumed, host);
  if (!s) {
    traceStep(sched.trace, assumed, 'PreBind');
    const bindStart = preciseNow();
    s = await fwk.runBindPlugins(state, assumed, host);
    if (!s) traceStep(sched.trace, assumed, 'BindRequest', undefined, bindStart);
  }
  sched.cache.finishBinding(assumed, qpi.podInfo.key);
  if (s) {
    recordAttempt(sched, fwk, 'error', t0);
    return handleBindingCycleError(sched, fwk, state, qpi, assumed, host, s, podCycle);
  }
  recordAttempt(sched, fwk, 'scheduled', t0);
  sched.metrics.podSchedulingAttempts.observe(qpi.attempts);
  if (qpi.initialAttemptTimestamp !== undefined) {
    sched.metrics.podSchedulingSLIDuration.labels(String(qpi.attempts)).observe(Math.max(0, sched.clock.now() - qpi.initialAttemptTimestamp) / 1000);
  }
  const m = assumed.metadata ?? {};
  sched.logger?.V(2).info('Successfully bound pod to node', { pod: kObj(assumed), node: host, evaluatedNodes: result.evaluatedNodes, feasibleNodes: result.feasibleNodes });
  fwk.eventRecorder.event(podRef(assumed), 'Normal', 'Scheduled', `Successfully assigned ${m.namespace}/${m.name} to ${host}`);
  sched.onBound?.(assumed, host);
  fwk.runPostBindPlugins(state, assumed, host);
}

async function handleBindingCycleError(
  sched: Scheduler,
  fwk: Framework,
  state: CycleState,
  qpi: QueuedPodInfo,
  assumed: Pod,
  host: string,
  s: Status,
  podCycle: number,
): Promise<void> {
  fwk.runReservePluginsUnreserve(state, assumed, host);
  sched.cache.forgetPod(assumed);
  // the resources the assumed pod held are free again
  sched.queue.moveAllToActiveOrBackoffQueue(Events.AssignedPodDelete, assumed, undefined, (p) => p.metadata?.uid !== qpi.podInfo.uid);
  await handleSchedulingFailure(sched, fwk, qpi, s, clearNomination, podCycle);
}

/**
 * Records a failed attempt: requeues the pod (unless it was deleted or bound
 * meanwhile), records the nomination, emits FailedScheduling and sets
 * PodScheduled=False (reason Unschedulable or SchedulerError) with the message.
 */
export async function handleSchedulingFailure(sched: Scheduler, fwk: Framework, qpi: QueuedPodInfo, s: Status, nominating: NominatingInfo | null, podCycle: number): Promise<void> {
  const reason = s.isRejected() ? 'Unschedulable' : 'SchedulerError';
  const pod = qpi.podInfo.pod;
  const msg = s.message();
  if (s.err instanceof FitError) sched.logger?.V(2).info('Unable to schedule pod; no fit; waiting', { pod: kObj(pod), err: msg });
  else sched.logger?.error(msg, 'Error scheduling pod; retrying', { pod: kObj(pod) });
  if (s.err instanceof FitError) {
    qpi.unschedulablePlugins = s.err.diagnosis.unschedulablePlugins;
    qpi.pendingPlugins = s.err.diagnosis.pendingPlugins;
  } else {
    qpi.unschedulablePlugins = new Set();
    qpi.pendingPlugins = new Set();
  }
  const cached = sched.pendingPod(pod);
  if (!cached || cached.spec?.nodeName) sched.queue.done(qpi.podInfo.uid);
  else {
    if (cached !== pod) qpi.podInfo = new PodInfo(cached);
    sched.queue.addUnschedulableIfNotPresent(qpi, podCycle);
  }
  sched.queue.nominator.add(qpi.podInfo, nominating);
  fwk.eventRecorder.event(podRef(pod), 'Warning', 'FailedScheduling', truncateMessage(msg));
  traceStep(sched.trace, pod, 'FailedScheduling', truncateMessage(msg));
  await updatePodStatus(sched, cached ?? pod, { type: 'PodScheduled', status: 'False', reason, message: msg }, nominating);
}

/**
 * Patches pods/status with the condition (lastTransitionTime kept when the status is
 * unchanged; no request when nothing changed) and, with an Override nomination, the
 * nominatedNodeName.
 */
export async function updatePodStatus(sched: Scheduler, pod: Pod, cond: PodCondition, nominating: NominatingInfo | null): Promise<void> {
  const old = pod.status?.conditions?.find((c) => c.type === cond.type);
  const now = rfc3339(new Date(sched.clock.now()));
  const next: PodCondition = { ...cond, lastTransitionTime: now };
  if (old && old.status === cond.status) next.lastTransitionTime = old.lastTransitionTime;
  const condChanged = !old || old.status !== next.status || old.reason !== next.reason || old.message !== next.message || old.lastTransitionTime !== next.lastTransitionTime;
  const nnnChanged = nominating?.mode === 'Override' && (pod.status?.nominatedNodeName ?? '') !== nominating.nominatedNodeName;
  if (!condChanged && !nnnChanged) return;
  const status: Record<string, unknown> = {};
  if (condChanged) status.conditions = [next];
  if (nnnChanged) status.nominatedNodeName = nominating!.nominatedNodeName || null;
  const m = pod.metadata ?? {};
  try {
    await sched.client.patch(R.pods, m.namespace ?? '', m.name ?? '', 'strategic', { status }, { subresource: 'status' });
  } catch {
    // the pod may be gone; the next attempt retries
  }
}

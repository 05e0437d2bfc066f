/**
 * The arithmetic of the disruption controller, free of I/O: the budget's desired healthy
 * count from minAvailable / maxUnavailable, the disrupted-pod map after its timeout, the
 * healthy count, the status to write and its DisruptionAllowed condition, and the stale
 * DisruptionTarget pod-condition check.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/disruption/disruption.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/policy/v1/helper (pdbhelper)
 */
import type { PodDisruptionBudget as KPDB, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import type { Condition } from 'kubernetes-types/meta/v1.js';
import type { KObject } from '../../api/resource.js';
import { rfc3339 } from '../../client/events.js';
import { isPodReady, type Pod } from '../util/pods.js';

/** A PodDisruptionBudget as the controller handles it. */
export type PDB = KPDB & KObject;

/** How long (ms) an evicted pod may stay undeleted before it counts as healthy again (upstream DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60_000;
/** How long (ms) a DisruptionTarget=True condition may sit on a live pod before it is reset (upstream stalePodDisruptionTimeout). */
const STALE_POD_DISRUPTION_TIMEOUT_MS = 2 * 60_000;

const DISRUPTION_ALLOWED = 'DisruptionAllowed';
const SUFFICIENT_PODS = 'SufficientPods';
const INSUFFICIENT_PODS = 'InsufficientPods';
const SYNC_FAILED = 'SyncFailed';

/**
 * Upstream intstr.GetScaledValueFromIntOrPercent: an int as is, `"N%"` as N·total/100
 * rounded up (`roundUp`) or down.
 * @throws Error `invalid value for IntOrString: …` for anything else
 */
export function scaledIntOrPercent(v: number | string | undefined, total: number, roundUp: boolean): number {
  if (v === undefined) throw new Error('nil value for IntOrString');
  if (typeof v === 'number') return v;
  if (!v.endsWith('%')) throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  const digits = v.slice(0, -1);
  if (!/^[+-]?\d+$/.test(digits)) throw new Error(`invalid value for IntOrString: invalid value "${v}": strconv.Atoi: parsing "${digits}": invalid syntax`);
  const x = (Number(digits) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/**
 * Upstream getExpectedPodCount: expected pods and desired healthy pods of the budget.
 * `scale()` is asked only when needed (maxUnavailable, or minAvailable as a percent) and
 * returns the summed scale of the pods' controllers.
 * @throws whatever `scale()` throws, and Error for an invalid int-or-percent
 */
export async function expectedPodCount(pdb: PDB, podCount: number, scale: () => Promise<number>): Promise<{ expectedCount: number; desiredHealthy: number }> {
  const spec = pdb.spec ?? {};
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    const expectedCount = await scale();
    const maxUnavailable = scaledIntOrPercent(spec.maxUnavailable, expectedCount, true);
    return { expectedCount, desiredHealthy: Math.max(0, expectedCount - maxUnavailable) };
  }
  if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
    if (typeof spec.minAvailable === 'number') return { expectedCount: podCount, desiredHealthy: spec.minAvailable };
    const expectedCount = await scale();
    return { expectedCount, desiredHealthy: scaledIntOrPercent(spec.minAvailable, expectedCount, true) };
  }
  return { expectedCount: 0, desiredHealthy: 0 };
}

/**
 * Upstream buildDisruptedPodMap: the entries of status.disruptedPods still within
 * {@link DELETION_TIMEOUT_MS} for live pods, the pods past it (for the NotDeleted event),
 * and when (ms) the earliest kept entry expires.
 * @param now ms since the epoch
 */
export function buildDisruptedPodMap(pods: readonly Pod[], pdb: PDB, now: number): { disrupted: Record<string, string>; expired: Pod[]; recheckAt?: number } {
  const disrupted: Record<string, string> = {};
  const expired: Pod[] = [];
  const prev = pdb.status?.disruptedPods;
  if (!prev) return { disrupted, expired };
  let recheckAt: number | undefined;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const name = pod.metadata?.name ?? '';
    const at = prev[name];
    if (at === undefined) continue;
    const expectedDeletion = Date.parse(at) + DELETION_TIMEOUT_MS;
    if (expectedDeletion < now) expired.push(pod);
    else {
      if (recheckAt === undefined || expectedDeletion < recheckAt) recheckAt = expectedDeletion;
      disrupted[name] = at;
    }
  }
  return { disrupted, expired, recheckAt };
}

/** Upstream countHealthyPods: Ready pods neither being deleted nor recently evicted. */
export function countHealthyPods(pods: readonly Pod[], disrupted: Readonly<Record<string, string>>, now: number): number {
  let n = 0;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const at = disrupted[pod.metadata?.name ?? ''];
    if (at !== undefined && Date.parse(at) + DELETION_TIMEOUT_MS > now) continue;
    if (isPodReady(pod)) n++;
  }
  return n;
}

/**
 * apimeta.SetStatusCondition: replaces the condition of the same type, keeping its
 * lastTransitionTime unless the status changes.
 */
function setCondition(conds: Condition[], c: Omit<Condition, 'lastTransitionTime'>, now: number): void {
  const i = conds.findIndex((x) => x.type === c.type);
  if (i < 0) {
    conds.push({ ...c, lastTransitionTime: rfc3339(new Date(now)) });
    return;
  }
  const old = conds[i]!;
  conds[i] = { ...c, lastTransitionTime: old.status !== c.status || !old.lastTransitionTime ? rfc3339(new Date(now)) : old.lastTransitionTime };
}

/** pdbhelper.UpdateDisruptionAllowedCondition on `st` (in place). */
function updateDisruptionAllowedCondition(st: PodDisruptionBudgetStatus, now: number): void {
  const conds = (st.conditions ??= []);
  const allowed = (st.disruptionsAllowed ?? 0) > 0;
  setCondition(
    conds,
    {
      type: DISRUPTION_ALLOWED,
      status: allowed ? 'True' : 'False',
      reason: allowed ? SUFFICIENT_PODS : INSUFFICIENT_PODS,
      message: '',
      observedGeneration: st.observedGeneration ?? 0,
    },
    now,
  );
}

/** pdbhelper.ConditionsAreUpToDate. */
export function conditionsAreUpToDate(pdb: PDB): boolean {
  const st = pdb.status;
  const cond = st?.conditions?.find((c) => c.type === DISRUPTION_ALLOWED);
  if (!cond || !st) return false;
  if ((st.observedGeneration ?? 0) !== (pdb.metadata?.generation ?? 0)) return false;
  if ((st.disruptionsAllowed ?? 0) > 0) return cond.status === 'True' && cond.reason === SUFFICIENT_PODS;
  return cond.status === 'False' && cond.reason === INSUFFICIENT_PODS;
}

function sameDisrupted(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>>): boolean {
  const ak = a ? Object.keys(a) : [];
  if (ak.length !== Object.keys(b).length) return false;
  for (const k of ak) if (a![k] !== b[k]) return false;
  return true;
}

/** The counts a sync computed. */
interface Observed {
  currentHealthy: number;
  desiredHealthy: number;
  expectedCount: number;
  disrupted: Record<string, string>;
}

/**
 * Upstream updatePdbStatus: the budget with its new status, or undefined when the current
 * status already says the same. Disruptions are allowed only with expected pods > 0.
 */
export function nextStatus(pdb: PDB, o: Observed, now: number): PDB | undefined {
  let disruptionsAllowed = o.currentHealthy - o.desiredHealthy;
  if (o.expectedCount <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
  const st = pdb.status;
  const generation = pdb.metadata?.generation ?? 0;
  if (
    st &&
    (st.currentHealthy ?? 0) === o.currentHealthy &&
    (st.desiredHealthy ?? 0) === o.desiredHealthy &&
    (st.expectedPods ?? 0) === o.expectedCount &&
    (st.disruptionsAllowed ?? 0) === disruptionsAllowed &&
    sameDisrupted(st.disruptedPods, o.disrupted) &&
    (st.observedGeneration ?? 0) === generation &&
    conditionsAreUpToDate(pdb)
  ) {
    return undefined;
  }
  const next = structuredClone(pdb);
  const ns: PodDisruptionBudgetStatus = {
    observedGeneration: generation,
    disruptionsAllowed,
    currentHealthy: o.currentHealthy,
    desiredHealthy: o.desiredHealthy,
    expectedPods: o.expectedCount,
    conditions: next.status?.conditions,
  };
  if (Object.keys(o.disrupted).length) ns.disruptedPods = o.disrupted;
  updateDisruptionAllowedCondition(ns, now);
  next.status = ns;
  return next;
}

/** Upstream failSafe: no disruptions allowed, DisruptionAllowed=False SyncFailed with the error. */
export function failSafeStatus(pdb: PDB, err: unknown, now: number): PDB {
  const next = structuredClone(pdb);
  const st = (next.status ??= { currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptionsAllowed: 0 });
  st.disruptionsAllowed = 0;
  setCondition(
    (st.conditions ??= []),
    { type: DISRUPTION_ALLOWED, status: 'False', reason: SYNC_FAILED, message: err instanceof Error ? err.message : String(err), observedGeneration: st.observedGeneration ?? 0 },
    now,
  );
  return next;
}

/**
 * Upstream nonTerminatingPodHasStaleDisruptionCondition: whether a live, non-terminal pod
 * carries DisruptionTarget=True not set by the kubelet, and how long (ms, ≥ 0) until it
 * counts as stale.
 */
export function staleDisruptionCondition(pod: Pod, now: number): { has: boolean; waitMs: number } {
  if (pod.metadata?.deletionTimestamp) return { has: false, waitMs: 0 };
  const cond = pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
  const phase = pod.status?.phase;
  if (!cond || cond.status !== 'True' || cond.reason === 'TerminationByKubelet' || phase === 'Succeeded' || phase === 'Failed') return { has: false, waitMs: 0 };
  const since = cond.lastTransitionTime ? Date.parse(cond.lastTransitionTime) : 0;
  return { has: true, waitMs: Math.max(0, STALE_POD_DISRUPTION_TIMEOUT_MS - (now - since)) };
}

/**
 * Deployment arithmetic and bookkeeping, as upstream's deployment/util: maxSurge and
 * maxUnavailable fenceposts, the new ReplicaSet's size during a rolling update,
 * proportional scaling, revision and replica annotations, conditions, and the status
 * derived from the ReplicaSets.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/deployment/util/deployment_util.go
 */
import type { Deployment as KDeployment, DeploymentCondition, DeploymentStatus } from 'kubernetes-types/apps/v1.js';
import type { KObject } from '../../api/resource.js';
import { jsonEqual } from '../../apimachinery/validation.js';
import type { ReplicaSet } from '../replicaset/controller.js';

export type Deployment = KDeployment & KObject;

const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
const ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to';
/** The label the controller adds to ReplicaSets, their selectors and pods. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
/** Upper bound of the revision-history annotation (upstream maxRevHistoryLengthInChars). */
const MAX_REV_HISTORY_LENGTH = 2000;

/** Condition reasons (upstream deploymentutil). */
export const Reason = {
  NewReplicaSet: 'NewReplicaSetCreated',
  FoundNewRS: 'FoundNewReplicaSet',
  NewRSAvailable: 'NewReplicaSetAvailable',
  TimedOut: 'ProgressDeadlineExceeded',
  PausedDeploy: 'DeploymentPaused',
  ResumedDeploy: 'DeploymentResumed',
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  FailedRSCreate: 'ReplicaSetCreateError',
  MinimumReplicasAvailable: 'MinimumReplicasAvailable',
  MinimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

const MAX_INT32 = 2147483647;

const replicas = (o: { spec?: { replicas?: number } } | undefined): number => o?.spec?.replicas ?? 0;
const desired = (d: Deployment): number => d.spec?.replicas ?? 1;

/** An int-or-percent scaled against `total` (upstream GetScaledValueFromIntOrPercent). */
function scaledValue(v: number | string | undefined, total: number, roundUp: boolean): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) {
    const n = Number(v);
    return Number.isInteger(n) ? n : 0;
  }
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** [maxSurge, maxUnavailable] with unavailable 1 when both would be 0 (upstream ResolveFenceposts). */
function resolveFenceposts(surge: number | string | undefined, unavailable: number | string | undefined, want: number): [number, number] {
  const s = scaledValue(surge, want, true);
  let u = scaledValue(unavailable, want, false);
  if (s === 0 && u === 0) u = 1;
  return [s, u];
}

export function isRollingUpdate(d: Deployment): boolean {
  return (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

/** Upstream MaxSurge. */
export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0;
  const ru = d.spec?.strategy?.rollingUpdate;
  return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, desired(d))[0];
}

/** Upstream MaxUnavailable (never above the desired replicas). */
export function maxUnavailable(d: Deployment): number {
  if (!isRollingUpdate(d) || desired(d) === 0) return 0;
  const ru = d.spec?.strategy?.rollingUpdate;
  return Math.min(resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, desired(d))[1], desired(d));
}

/** The new ReplicaSet's size for this step (upstream NewRSNewReplicas). */
export function newRSNewReplicas(d: Deployment, allRSs: ReplicaSet[], newRS: ReplicaSet): number {
  if (d.spec?.strategy?.type === 'Recreate') return desired(d);
  const surge = scaledValue(d.spec?.strategy?.rollingUpdate?.maxSurge, desired(d), true);
  const current = sumReplicas(allRSs);
  const maxTotal = desired(d) + surge;
  if (current >= maxTotal) return replicas(newRS);
  const up = Math.min(maxTotal - current, desired(d) - replicas(newRS));
  return replicas(newRS) + up;
}

export const sumReplicas = (rss: (ReplicaSet | undefined)[]): number => rss.reduce((n, rs) => n + (rs ? replicas(rs) : 0), 0);
const sumActual = (rss: (ReplicaSet | undefined)[]): number => rss.reduce((n, rs) => n + (rs?.status?.replicas ?? 0), 0);
const sumReady = (rss: (ReplicaSet | undefined)[]): number => rss.reduce((n, rs) => n + (rs?.status?.readyReplicas ?? 0), 0);
export const sumAvailable = (rss: (ReplicaSet | undefined)[]): number => rss.reduce((n, rs) => n + (rs?.status?.availableReplicas ?? 0), 0);
export const activeRSs = (rss: (ReplicaSet | undefined)[]): ReplicaSet[] => rss.filter((rs): rs is ReplicaSet => !!rs && replicas(rs) > 0);

const created = (rs: ReplicaSet): number => Date.parse(rs.metadata?.creationTimestamp ?? '') || 0;
/** Oldest first, ties by name (upstream ReplicaSetsByCreationTimestamp). */
export function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  return created(a) - created(b) || (a.metadata!.name! < b.metadata!.name! ? -1 : a.metadata!.name! > b.metadata!.name! ? 1 : 0);
}

/** Templates equal apart from the pod-template-hash label (upstream EqualIgnoreHash). */
export function equalIgnoreHash(a: unknown, b: unknown): boolean {
  const strip = (t: unknown): unknown => {
    const c = structuredClone((t ?? {}) as { metadata?: { labels?: Record<string, string> } });
    if (c.metadata?.labels) {
      delete c.metadata.labels[POD_TEMPLATE_HASH_LABEL];
      if (Object.keys(c.metadata.labels).length === 0) delete c.metadata.labels;
    }
    if (c.metadata && Object.keys(c.metadata).length === 0) delete c.metadata;
    return c;
  };
  return jsonEqual(strip(a), strip(b));
}

/** The oldest ReplicaSet whose template equals the deployment's (upstream FindNewReplicaSet). */
export function findNewReplicaSet(d: Deployment, rsList: ReplicaSet[]): ReplicaSet | undefined {
  return [...rsList].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

/** Every ReplicaSet but the new one (upstream FindOldReplicaSets' second result). */
export function findOldReplicaSets(d: Deployment, rsList: ReplicaSet[]): ReplicaSet[] {
  const newRS = findNewReplicaSet(d, rsList);
  return rsList.filter((rs) => rs.metadata?.uid !== newRS?.metadata?.uid);
}

/** The revision annotation as a number (0 when absent or malformed). */
export function revisionOf(o: KObject): number {
  const v = Number(o.metadata?.annotations?.[REVISION_ANNOTATION]);
  return Number.isInteger(v) && v >= 0 ? v : 0;
}

export function maxRevision(rss: ReplicaSet[]): number {
  return rss.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
}

const SKIP_COPY = new Set([
  LAST_APPLIED_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  ROLLBACK_TO_ANNOTATION,
]);

/** Sets desired-replicas and max-replicas; returns whether they changed (upstream SetReplicasAnnotations). */
export function setReplicasAnnotations(rs: ReplicaSet, want: number, max: number): boolean {
  const a = (rs.metadata!.annotations ??= {});
  let changed = false;
  if (a[DESIRED_REPLICAS_ANNOTATION] !== String(want)) {
    a[DESIRED_REPLICAS_ANNOTATION] = String(want);
    changed = true;
  }
  if (a[MAX_REPLICAS_ANNOTATION] !== String(max)) {
    a[MAX_REPLICAS_ANNOTATION] = String(max);
    changed = true;
  }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, want: number, max: number): boolean {
  const a = rs.metadata?.annotations ?? {};
  return a[DESIRED_REPLICAS_ANNOTATION] !== String(want) || a[MAX_REPLICAS_ANNOTATION] !== String(max);
}

/**
 * The deployment's annotations (but the skipped ones) copied onto the new ReplicaSet, its
 * revision raised to `newRevision` (recording the previous one in revision-history when
 * re-used by a rollback), and on creation the replica annotations (upstream
 * SetNewReplicaSetAnnotations). Returns whether anything changed.
 */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: number, exists: boolean): boolean {
  let changed = false;
  const a = (rs.metadata!.annotations ??= {});
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) {
    if (SKIP_COPY.has(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const oldRaw = a[REVISION_ANNOTATION];
  let oldRev = 0;
  if (oldRaw !== undefined) {
    oldRev = Number(oldRaw);
    if (!Number.isInteger(oldRev)) {
      if (oldRaw !== '') return false;
      oldRev = 0;
    }
  }
  if (oldRev < newRevision) {
    a[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
  }
  if (oldRaw !== undefined && oldRev < newRevision) {
    const hist = a[REVISION_HISTORY_ANNOTATION] ?? '';
    const olds = hist.split(',');
    if (olds[0]!.length === 0) a[REVISION_HISTORY_ANNOTATION] = oldRaw;
    else {
      let total = hist.length + oldRaw.length + 1;
      let start = 0;
      while (total > MAX_REV_HISTORY_LENGTH && start < olds.length) {
        total -= olds[start]!.length + 1;
        start++;
      }
      if (total <= MAX_REV_HISTORY_LENGTH) a[REVISION_HISTORY_ANNOTATION] = [...olds.slice(start), oldRaw].join(',');
    }
  }
  if (!exists && setReplicasAnnotations(rs, desired(d), desired(d) + maxSurge(d))) changed = true;
  return changed;
}

/** Sets the deployment's revision annotation; returns whether it changed. */
export function setDeploymentRevision(d: Deployment, revision: string): boolean {
  const a = (d.metadata!.annotations ??= {});
  if (a[REVISION_ANNOTATION] === revision) return false;
  a[REVISION_ANNOTATION] = revision;
  return true;
}

export function hasProgressDeadline(d: Deployment): boolean {
  const p = d.spec?.progressDeadlineSeconds;
  return p !== undefined && p !== null && p !== MAX_INT32;
}

export function getCondition(st: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  return st?.conditions?.find((c) => c.type === type);
}

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function newCondition(type: string, status: string, reason: string, message: string, now: number): DeploymentCondition {
  const t = rfc3339(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

/** Upstream SetDeploymentCondition: no-op for the same status and reason; keeps lastTransitionTime for the same status. */
export function setCondition(st: DeploymentStatus, c: DeploymentCondition): void {
  const cur = getCondition(st, c.type);
  if (cur && cur.status === c.status && cur.reason === c.reason) return;
  if (cur && cur.status === c.status) c.lastTransitionTime = cur.lastTransitionTime;
  st.conditions = [...(st.conditions ?? []).filter((x) => x.type !== c.type), c];
}

export function removeCondition(st: DeploymentStatus, type: string): void {
  if (!st.conditions) return;
  st.conditions = st.conditions.filter((c) => c.type !== type);
  if (st.conditions.length === 0) delete st.conditions;
}

/** Upstream calculateStatus. */
export function calculateStatus(allRSs: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment, now: number): DeploymentStatus {
  const available = sumAvailable(allRSs);
  const total = sumReplicas(allRSs);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata?.generation ?? 0,
    replicas: sumActual(allRSs),
    updatedReplicas: sumActual([newRS]),
    readyReplicas: sumReady(allRSs),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
  };
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions?.length) status.conditions = d.status.conditions.map((c) => ({ ...c }));
  if (available >= desired(d) - maxUnavailable(d)) {
    setCondition(status, newCondition('Available', 'True', Reason.MinimumReplicasAvailable, 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition('Available', 'False', Reason.MinimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** Every pod updated, available and observed (upstream DeploymentComplete). */
export function deploymentComplete(d: Deployment, st: DeploymentStatus): boolean {
  const want = desired(d);
  return (st.updatedReplicas ?? 0) === want && (st.replicas ?? 0) === want && (st.availableReplicas ?? 0) === want && (st.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0);
}

/** Any progress between the stored and the new status (upstream DeploymentProgressing). */
export function deploymentProgressing(d: Deployment, st: DeploymentStatus): boolean {
  const old = d.status ?? ({} as DeploymentStatus);
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (st.replicas ?? 0) - (st.updatedReplicas ?? 0);
  return (
    (st.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (st.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (st.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** Upstream DeploymentTimedOut. */
export function deploymentTimedOut(d: Deployment, st: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(st, 'Progressing');
  if (!c) return false;
  if (c.reason === Reason.NewRSAvailable) return false;
  if (c.reason === Reason.TimedOut) return true;
  const from = Date.parse(c.lastUpdateTime ?? '');
  return from + (d.spec!.progressDeadlineSeconds ?? 0) * 1000 < now;
}

/** The only active ReplicaSet, or the newest when none is active (upstream FindActiveOrLatest). */
export function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const sortedOld = [...oldRSs].sort((a, b) => byCreation(b, a));
  const all = activeRSs([...sortedOld, newRS]);
  if (all.length === 0) return newRS ?? sortedOld[0];
  if (all.length === 1) return all[0];
  return undefined;
}

/** New ReplicaSet has all desired replicas and they are available (upstream IsSaturated). */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const want = Number(rs.metadata?.annotations?.[DESIRED_REPLICAS_ANNOTATION]);
  if (!Number.isInteger(want)) return false;
  return replicas(rs) === desired(d) && want === desired(d) && (rs.status?.availableReplicas ?? 0) === desired(d);
}

/** Proportional share of `toAdd` for one ReplicaSet (upstream GetProportion). */
export function getProportion(rs: ReplicaSet | undefined, d: Deployment, toAdd: number, added: number): number {
  if (!rs || replicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  if (desired(d) === 0) return -replicas(rs);
  const maxReplicas = desired(d) + maxSurge(d);
  let before = Number(rs.metadata?.annotations?.[MAX_REPLICAS_ANNOTATION]);
  if (!Number.isInteger(before) || before === 0) {
    before = d.status?.replicas ?? 0;
    if (before === 0) before = replicas(rs);
  }
  // Go's integer.RoundToInt32: round half away from zero
  const size = (replicas(rs) * maxReplicas) / before;
  return Math.sign(size) * Math.round(Math.abs(size)) - replicas(rs);
}

/**
 * Job helpers: finished/failed tests, conditions, completion indexes as upstream's
 * ordered intervals (`"0-2,4"`), pod failure backoff, and the pod-side constants
 * (tracking finalizer, completion index annotation/label/env).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/job/job_controller.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/job/indexed_job_utils.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/job/backoff_utils.go
 */
import type { Job as KJob, JobCondition } from 'kubernetes-types/batch/v1.js';
import type { KObject } from '../../api/resource.js';
import type { Pod } from '../util/pods.js';

export type Job = KJob & KObject;

/** The finalizer that keeps a pod until the Job controller has counted it. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** Annotation (and label, PodIndexLabel) with an Indexed Job pod's completion index. */
export const COMPLETION_INDEX_KEY = 'batch.kubernetes.io/job-completion-index';
/** Env var with the completion index (from the annotation through the downward API). */
export const COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';

/** Upstream DefaultJobPodFailureBackOff (10 s) and MaxJobPodFailureBackOff (6 min), in ms. */
const POD_FAILURE_BACKOFF_MS = 10_000;
const MAX_POD_FAILURE_BACKOFF_MS = 360_000;
/** Upstream MaxPodCreateDeletePerSync. */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;

/** Condition reasons and messages (upstream batch constants). */
export const REASON = {
  backoffLimitExceeded: 'BackoffLimitExceeded',
  deadlineExceeded: 'DeadlineExceeded',
  completionsReached: 'CompletionsReached',
} as const;
export const MESSAGE = {
  backoffLimitExceeded: 'Job has reached the specified backoff limit',
  deadlineExceeded: 'Job was active longer than specified deadline',
  completionsReached: 'Reached expected number of succeeded pods',
} as const;

export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The condition of `type` with status True, if any. */
export function trueCondition(job: Job, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/** Complete or Failed is True (upstream IsJobFinished). */
export function isJobFinished(job: Job): boolean {
  return !!(trueCondition(job, 'Complete') ?? trueCondition(job, 'Failed'));
}

/** When the Job finished (ms): the Complete/Failed condition's lastTransitionTime. */
export function jobFinishTime(job: Job): number | undefined {
  const c = trueCondition(job, 'Complete') ?? trueCondition(job, 'Failed');
  return c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : undefined;
}

/**
 * Sets condition `type` to `status` (upstream ensureJobConditionStatus): a new condition
 * is appended only when True; an existing one changes (and its times) when status,
 * reason or message differ.
 * @returns whether the list changed
 */
export function ensureCondition(job: Job, type: string, status: 'True' | 'False', reason: string, message: string, now: number): boolean {
  const st = (job.status ??= {});
  const list = (st.conditions ??= []);
  const c = list.find((x) => x.type === type);
  const t = rfc3339(now);
  if (!c) {
    if (status !== 'True') {
      if (list.length === 0) delete st.conditions;
      return false;
    }
    list.push({ type, status, reason, message, lastProbeTime: t, lastTransitionTime: t });
    return true;
  }
  if (c.status === status && (c.reason ?? '') === reason && (c.message ?? '') === message) return false;
  if (c.status !== status) c.lastTransitionTime = t;
  c.status = status;
  c.reason = reason;
  c.message = message;
  c.lastProbeTime = t;
  return true;
}

/** A pod counted as failed (upstream isPodFailed without a pod failure policy). */
export function isPodFailed(p: Pod, job: Job): boolean {
  if (p.status?.phase === 'Failed') return true;
  if (job.spec?.podReplacementPolicy === 'Failed') return false;
  // deleted pods count as failures: orphans may never reach the Failed phase
  return !!p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded';
}

/** Deleted and not yet terminal (upstream countTerminatingPods). */
export function isPodTerminating(p: Pod): boolean {
  const phase = p.status?.phase;
  return !!p.metadata?.deletionTimestamp && phase !== 'Failed' && phase !== 'Succeeded';
}

/** Container restarts of running/pending pods reach the backoff limit (restartPolicy OnFailure; upstream pastBackoffLimitOnFailure). */
export function pastBackoffLimitOnFailure(job: Job, pods: Pod[]): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of pods) {
    const phase = p.status?.phase;
    if (phase !== 'Running' && phase !== 'Pending') continue;
    for (const s of p.status?.initContainerStatuses ?? []) restarts += s.restartCount ?? 0;
    for (const s of p.status?.containerStatuses ?? []) restarts += s.restartCount ?? 0;
  }
  const limit = job.spec?.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/** Delay before the next pod after `failures` consecutive failures (10 s doubling, at most 6 min), ms. */
export function podFailureBackoff(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(POD_FAILURE_BACKOFF_MS * 2 ** (failures - 1), MAX_POD_FAILURE_BACKOFF_MS);
}

/** A pod's completion index, or undefined when missing or invalid (upstream getCompletionIndex). */
export function completionIndexOf(p: Pod): number | undefined {
  const v = p.metadata?.annotations?.[COMPLETION_INDEX_KEY] ?? p.metadata?.labels?.[COMPLETION_INDEX_KEY];
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  return Number(v);
}

/** Parses `"0-2,4"` into a sorted set of indexes below `completions` (upstream parseIndexesFromString). */
export function parseIndexes(s: string | undefined, completions: number): Set<number> {
  const out = new Set<number>();
  if (!s) return out;
  for (const part of s.split(',')) {
    const [a, b] = part.split('-');
    const lo = Number(a);
    const hi = b === undefined ? lo : Number(b);
    if (!Number.isInteger(lo) || !Number.isInteger(hi)) continue;
    for (let i = lo; i <= hi && i < completions; i++) out.add(i);
  }
  return out;
}

/** Formats indexes as upstream's ordered intervals: `[0,1,2,4,6,7]` → `"0-2,4,6,7"`; empty → undefined. */
export function formatIndexes(indexes: Iterable<number>): string | undefined {
  const sorted = [...indexes].sort((a, b) => a - b);
  if (!sorted.length) return undefined;
  const parts: string[] = [];
  let start = sorted[0]!;
  let prev = start;
  for (let i = 1; i <= sorted.length; i++) {
    const v = sorted[i];
    if (v !== undefined && v === prev + 1) {
      prev = v;
      continue;
    }
    parts.push(start === prev ? `${start}` : prev === start + 1 ? `${start},${prev}` : `${start}-${prev}`);
    if (v !== undefined) start = prev = v;
  }
  return parts.join(',');
}

/**
 * Job controller: runs pods from a Job's template until `completions` of them succeed
 * (or, without completions, until one succeeds and the rest finish), at most
 * `parallelism` at a time; NonIndexed and Indexed completion modes; suspend.
 *
 * Pods carry the `batch.kubernetes.io/job-tracking` finalizer until counted: a finished
 * pod is first recorded in `status.uncountedTerminatedPods`, its finalizer removed, then
 * moved into `status.succeeded` / `status.failed` (upstream's crash-safe tracking).
 * Failures beyond `backoffLimit` (or container restarts reaching it under restartPolicy
 * OnFailure) end the Job with BackoffLimitExceeded, running longer than
 * `activeDeadlineSeconds` with DeadlineExceeded: the active pods are deleted, the interim
 * FailureTarget condition is written, and Failed once no pod is terminating. Success
 * writes SuccessCriteriaMet, then Complete with `completionTime`. Replacement pods after
 * failures wait 10 s doubling up to 6 min. Events: SuccessfulCreate, SuccessfulDelete,
 * Completed, BackoffLimitExceeded, DeadlineExceeded, Suspended, Resumed.
 *
 * Not implemented: podFailurePolicy, successPolicy, backoffLimitPerIndex, managedBy.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/job/job_controller.go
 */
import type { JobSpec, JobStatus } from 'kubernetes-types/batch/v1.js';
import { labelSelectorAsSelector } from '../../apimachinery/labels.js';
import { keyOf } from '../../client/informer.js';
import { R } from '../../client/types.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { claimObjects, controllerRefOf, controllerResolver } from '../util/controller-ref.js';
import { ownedObjectHandlers } from '../util/owner-events.js';
import { Expectations } from '../util/expectations.js';
import { byNamespace, Index } from '../util/informers.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import { PodControl } from '../util/pod-control.js';
import { isPodActive, isPodReady, type Pod, sortPodsForDeletion } from '../util/pods.js';
import { W } from '../util/resources.js';
import { realClock } from '../../util/clock.js';
import {
  completionIndexOf,
  ensureCondition,
  formatIndexes,
  isJobFinished,
  isPodFailed,
  isPodTerminating,
  type Job,
  JOB_TRACKING_FINALIZER,
  MAX_POD_CREATE_DELETE_PER_SYNC,
  MESSAGE,
  parseIndexes,
  pastBackoffLimitOnFailure,
  podFailureBackoff,
  REASON,
  rfc3339,
  trueCondition,
} from './util.js';
import { hasTracking, JobPodWriter } from './pod-writes.js';

export type { Job } from './util.js';

/** What one sync decided to end the Job with. */
interface Finish {
  type: 'SuccessCriteriaMet' | 'Complete' | 'FailureTarget' | 'Failed';
  reason: string;
  message: string;
}

export async function startJobController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, recorder, informers } = ctx;
  const clock = ctx.clock ?? realClock;
  const jobInformer = informers.get<Job>(W.jobs);
  const podInformer = informers.get<Pod>(R.pods);
  const podsByNs = new Index(podInformer, byNamespace);
  const expectations = new Expectations(() => clock.now());
  const podControl = new PodControl(client, recorder);
  const writer = new JobPodWriter(client, podControl, expectations);
  const removing = writer.removing;
  /** `namespace/name` → the Job as our last status write stored it (until the informer catches up) */
  const written = new Map<string, Job>();
  /** job UID → failures since the last success and the last failure time (upstream backoffRecord) */
  const backoffs = new Map<string, { failures: number; lastFailure: number }>();

  const loop = new ControllerLoop({ name: 'job-controller', clock, workers: ctx.workers, sync: (k) => sync(k) });
  const orphans = new ControllerLoop({ name: 'job-controller (orphan pods)', clock, workers: 2, sync: (k) => handleOrphanPod(k) });

  const resolveRef = controllerResolver(jobInformer, 'Job');

  /** A pod with the finalizer whose Job is gone or finished: its finalizer must go. */
  const checkOrphan = (pod: Pod): boolean => {
    if (!hasTracking(pod)) return false;
    const job = resolveRef(pod.metadata?.namespace ?? '', controllerRefOf(pod));
    if (job && !isJobFinished(job)) return false;
    orphans.enqueue(keyOf(pod));
    return true;
  };

  podInformer.addEventHandler(
    ownedObjectHandlers<Job, Pod>({
      resolve: resolveRef,
      enqueue: (job) => loop.enqueueObj(job),
      observe(pod, event) {
        if (event === 'delete' || !hasTracking(pod)) removing.delete(pod.metadata?.uid ?? '');
      },
      added: (job, pod) => (pod.metadata?.deletionTimestamp ? expectations.deletionObserved(keyOf(job), keyOf(pod)) : expectations.creationObserved(keyOf(job))),
      updated(job, old, cur) {
        if (cur.metadata?.deletionTimestamp && !old.metadata?.deletionTimestamp) expectations.deletionObserved(keyOf(job), keyOf(cur));
      },
      deleted: (job, pod) => expectations.deletionObserved(keyOf(job), keyOf(pod)),
      // a pod whose Job is gone (or that never had one) may still hold the tracking finalizer
      noOwner: (pod, event) => event !== 'delete' && checkOrphan(pod),
    }),
  );
  jobInformer.addEventHandler({
    add: (j) => loop.enqueueObj(j),
    update(old, cur) {
      loop.enqueueObj(cur);
      // a changed deadline: re-check when it passes
      const ads = cur.spec?.activeDeadlineSeconds;
      if (ads && ads !== old.spec?.activeDeadlineSeconds && cur.status?.startTime) {
        const left = Date.parse(cur.status.startTime) + ads * 1000 - clock.now();
        loop.enqueueAfter(keyOf(cur), Math.max(left, 0));
      }
    },
    delete(j) {
      expectations.delete(keyOf(j));
      written.delete(keyOf(j));
      backoffs.delete(j.metadata?.uid ?? '');
      // pods still holding the finalizer of a deleted Job
      for (const p of podsByNs.get(j.metadata?.namespace ?? '')) if (controllerRefOf(p)?.uid === j.metadata?.uid) checkOrphan(p);
    },
  });

  async function handleOrphanPod(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const pod = podInformer.getByName(ns, name);
    if (!pod || !hasTracking(pod)) return;
    const job = resolveRef(ns, controllerRefOf(pod));
    if (job && !isJobFinished(job)) return; // adopted meanwhile
    await writer.removeFinalizer(pod);
  }

  async function sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    let cached = jobInformer.getByName(ns, name);
    if (!cached) {
      expectations.delete(key);
      written.delete(key);
      return;
    }
    // the informer may not have seen our last status write yet: counting from an older
    // status would recount pods whose finalizers are already gone
    const mine = written.get(key);
    if (mine) {
      if (mine.metadata?.uid === cached.metadata?.uid && Number(mine.metadata?.resourceVersion) > Number(cached.metadata?.resourceVersion)) cached = mine;
      else written.delete(key);
    }
    if (isJobFinished(cached)) {
      // pods left with the finalizer (e.g. created after the count) are let go
      for (const p of podsByNs.get(ns)) if (controllerRefOf(p)?.uid === cached.metadata?.uid) checkOrphan(p);
      return;
    }
    const job = structuredClone(cached);
    const now = clock.now();
    const spec: JobSpec = job.spec ?? ({} as JobSpec);
    const status: JobStatus = (job.status ??= {});
    const satisfied = expectations.satisfied(key);
    let selector;
    try {
      selector = labelSelectorAsSelector(spec.selector);
    } catch {
      return;
    }
    const pods = await claimObjects<Pod>(podsByNs.get(ns), {
      client,
      controller: job,
      controllerAPIVersion: 'batch/v1',
      controllerKind: 'Job',
      controllerResource: W.jobs,
      resource: R.pods,
      selector,
      adoptFinalizers: [JOB_TRACKING_FINALIZER],
    });
    const active = pods.filter(isPodActive);
    const indexed = spec.completionMode === 'Indexed';
    const completions = spec.completions ?? undefined;
    const uncountedSucceeded = new Set(status.uncountedTerminatedPods?.succeeded ?? []);
    const uncountedFailed = new Set(status.uncountedTerminatedPods?.failed ?? []);
    const withFinalizer = new Set<string>();
    for (const p of pods) if (hasTracking(p)) withFinalizer.add(p.metadata?.uid ?? '');

    // newly finished pods still carrying the finalizer (upstream getNewFinishedPods)
    let newSucceeded = 0;
    let newFailed = 0;
    let lastFailure = 0;
    for (const p of pods) {
      const uid = p.metadata?.uid ?? '';
      if (!hasTracking(p) || uncountedSucceeded.has(uid) || uncountedFailed.has(uid) || removing.has(uid)) continue;
      if (p.status?.phase === 'Succeeded') newSucceeded++;
      else if (isPodFailed(p, job)) {
        newFailed++;
        const t = p.status?.containerStatuses?.[0]?.state?.terminated?.finishedAt;
        lastFailure = Math.max(lastFailure, t ? Date.parse(t) : now);
      }
    }
    let succeeded = (status.succeeded ?? 0) + uncountedSucceeded.size + newSucceeded;
    const failed = (status.failed ?? 0) + uncountedFailed.size + newFailed;
    let ready = active.filter(isPodReady).length;
    let terminating = pods.filter(isPodTerminating).length;
    if (newFailed || newSucceeded) {
      const uid = job.metadata?.uid ?? '';
      const b = backoffs.get(uid) ?? { failures: 0, lastFailure: 0 };
      if (newSucceeded) b.failures = 0;
      b.failures += newFailed;
      if (newFailed) b.lastFailure = Math.max(b.lastFailure, lastFailure);
      backoffs.set(uid, b);
    }

    const suspended = spec.suspend === true;
    if (!status.startTime && !suspended) status.startTime = rfc3339(now);

    let succeededIndexes = new Set<number>();
    if (indexed && completions !== undefined) {
      succeededIndexes = parseIndexes(status.completedIndexes, completions);
      for (const p of pods) {
        const i = completionIndexOf(p);
        if (p.status?.phase === 'Succeeded' && i !== undefined && i < completions) succeededIndexes.add(i);
      }
      succeeded = succeededIndexes.size;
    }

    // how the Job ends, if it does
    let finish: Finish | undefined;
    const successMet = trueCondition(job, 'SuccessCriteriaMet');
    const failureTarget = trueCondition(job, 'FailureTarget');
    if (successMet) finish = { type: 'Complete', reason: successMet.reason ?? '', message: successMet.message ?? '' };
    else if (failureTarget) finish = { type: 'Failed', reason: failureTarget.reason ?? '', message: failureTarget.message ?? '' };
    else if (failed > (spec.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, pods)) {
      finish = { type: 'FailureTarget', reason: REASON.backoffLimitExceeded, message: MESSAGE.backoffLimitExceeded };
    } else if (spec.activeDeadlineSeconds && status.startTime && !suspended) {
      const left = Date.parse(status.startTime) + spec.activeDeadlineSeconds * 1000 - now;
      if (left <= 0) finish = { type: 'FailureTarget', reason: REASON.deadlineExceeded, message: MESSAGE.deadlineExceeded };
      else loop.enqueueAfter(key, left);
    }

    let activeCount = active.length;
    let manageErr: unknown;
    let needsFlush = false;
    if (finish) {
      // a finishing Job stops its active pods (their finalizers stay until they are counted)
      const r = await writer.deleteActive(job, active);
      if (r.deleted !== active.length) finish = undefined;
      activeCount -= r.deleted;
      terminating += r.deleted;
      ready -= r.deletedReady;
      manageErr = r.error;
    } else {
      let manageCalled = false;
      if (satisfied && !job.metadata?.deletionTimestamp) {
        manageCalled = true;
        try {
          const r = await manageJob(job, key, active, succeeded, succeededIndexes);
          activeCount = r.active;
          ready -= r.deletedReady;
        } catch (e) {
          manageErr = e;
        }
      }
      const complete = completions === undefined ? succeeded > 0 && activeCount === 0 : succeeded >= completions && activeCount === 0;
      if (complete) finish = { type: 'SuccessCriteriaMet', reason: REASON.completionsReached, message: MESSAGE.completionsReached };
      else if (manageCalled) {
        if (suspended) {
          if (ensureCondition(job, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)) {
            needsFlush = true;
            recorder.event(job, 'Normal', 'Suspended', 'Job suspended');
          }
        } else if (ensureCondition(job, 'Suspended', 'False', 'JobResumed', 'Job resumed', now)) {
          needsFlush = true;
          recorder.event(job, 'Normal', 'Resumed', 'Job resumed');
          status.startTime = rfc3339(now);
        }
      }
    }
    needsFlush ||= activeCount !== (status.active ?? 0) || ready !== status.ready || terminating !== status.terminating;
    status.active = activeCount;
    status.ready = ready;
    status.terminating = terminating;

    // upstream trackJobStatusAndRemoveFinalizers: record finished pods as uncounted, drop
    // their finalizers, then count them
    for (const u of [...uncountedSucceeded]) if (!withFinalizer.has(u)) needsFlush = true;
    for (const u of [...uncountedFailed]) if (!withFinalizer.has(u)) needsFlush = true;
    const failing = finish !== undefined && finish.type !== 'SuccessCriteriaMet' && finish.type !== 'Complete';
    const toRemove: Pod[] = [];
    for (const p of pods) {
      if (!hasTracking(p)) continue;
      const uid = p.metadata?.uid ?? '';
      const considerFailed = isPodFailed(p, job);
      if (!(job.metadata?.deletionTimestamp || finish || p.status?.phase === 'Succeeded' || considerFailed)) continue;
      toRemove.push(p);
      if (p.status?.phase === 'Succeeded' && !uncountedFailed.has(uid)) {
        if (!indexed && !uncountedSucceeded.has(uid)) {
          uncountedSucceeded.add(uid);
          needsFlush = true;
        }
      } else if ((considerFailed || failing) && !uncountedFailed.has(uid)) {
        const i = completionIndexOf(p);
        if (!indexed || (i !== undefined && completions !== undefined && i < completions)) {
          uncountedFailed.add(uid);
          needsFlush = true;
        }
      }
    }
    if (indexed) {
      const s = formatIndexes(succeededIndexes) ?? '';
      if (s !== (status.completedIndexes ?? '')) needsFlush = true;
      status.completedIndexes = s;
      status.succeeded = succeededIndexes.size;
    }
    if (finish?.type === 'FailureTarget') {
      ensureCondition(job, 'FailureTarget', 'True', finish.reason, finish.message, now);
      needsFlush = true;
      finish = { ...finish, type: 'Failed' };
    } else if (finish?.type === 'SuccessCriteriaMet') {
      if (ensureCondition(job, 'SuccessCriteriaMet', 'True', finish.reason, finish.message, now)) needsFlush = true;
      finish = { ...finish, type: 'Complete' };
    }
    const setUncounted = (): void => {
      status.uncountedTerminatedPods = {
        ...(uncountedSucceeded.size ? { succeeded: [...uncountedSucceeded] } : {}),
        ...(uncountedFailed.size ? { failed: [...uncountedFailed] } : {}),
      };
    };
    let base: Job = cached;
    setUncounted();
    if (needsFlush) base = await writeStatus(key, base, job);
    // remove finalizers, then move the pods whose finalizer is gone into the counters
    const removed = new Set<string>();
    let rmErr: unknown;
    await Promise.all(
      toRemove.map(async (p) => {
        try {
          await writer.removeFinalizer(p);
          removed.add(p.metadata?.uid ?? '');
        } catch (e) {
          rmErr ??= e;
        }
      }),
    );
    let moved = false;
    for (const u of [...uncountedSucceeded]) {
      if (withFinalizer.has(u) && !removed.has(u)) continue;
      uncountedSucceeded.delete(u);
      status.succeeded = (status.succeeded ?? 0) + 1;
      moved = true;
    }
    for (const u of [...uncountedFailed]) {
      if (withFinalizer.has(u) && !removed.has(u)) continue;
      uncountedFailed.delete(u);
      status.failed = (status.failed ?? 0) + 1;
      moved = true;
    }
    setUncounted();
    if (rmErr) {
      if (moved) await writeStatus(key, base, job);
      throw rmErr;
    }
    // upstream enactJobFinished: the terminal condition once everything is counted and nothing terminates
    let finished = false;
    if (finish && uncountedSucceeded.size === 0 && uncountedFailed.size === 0 && terminating === 0) {
      ensureCondition(job, finish.type, 'True', finish.reason, finish.message, now);
      if (finish.type === 'Complete') status.completionTime = trueCondition(job, 'Complete')!.lastTransitionTime;
      finished = true;
    }
    if (moved || finished) await writeStatus(key, base, job);
    if (finished && finish) {
      if (finish.type === 'Complete') {
        if (completions !== undefined && (status.succeeded ?? 0) > completions) {
          recorder.event(job, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached');
        }
        recorder.event(job, 'Normal', 'Completed', 'Job completed');
      } else recorder.event(job, 'Warning', finish.reason, finish.message);
      backoffs.delete(job.metadata?.uid ?? '');
    }
    if (manageErr) throw manageErr;
  }

  /** Upstream manageJob: creates or deletes pods toward the wanted number of active pods. */
  async function manageJob(job: Job, key: string, active: Pod[], succeeded: number, succeededIndexes: Set<number>): Promise<{ active: number; deletedReady: number }> {
    const spec: JobSpec = job.spec ?? ({} as JobSpec);
    let count = active.length;
    if (spec.suspend) {
      const r = await writer.deleteSurplus(job, key, active);
      if (r.error) throw r.error;
      return { active: count - r.deleted, deletedReady: r.deletedReady };
    }
    const parallelism = spec.parallelism ?? 1;
    const completions = spec.completions ?? undefined;
    let want: number;
    if (completions === undefined) want = succeeded > 0 ? count : parallelism;
    else want = Math.max(0, Math.min(completions - succeeded, parallelism));

    // Indexed: pods with a duplicate, succeeded or out-of-range index go first
    let surplus: Pod[] = [];
    const heldIndexes = new Set<number>();
    let keep = active;
    if (spec.completionMode === 'Indexed' && completions !== undefined) {
      keep = [];
      for (const p of sortPodsForDeletion(active, () => 0, clock.now()).reverse()) {
        const i = completionIndexOf(p);
        if (i === undefined || i >= completions || heldIndexes.has(i) || succeededIndexes.has(i)) surplus.push(p);
        else {
          heldIndexes.add(i);
          keep.push(p);
        }
      }
    }
    const rm = Math.max(0, keep.length - want);
    if (rm > 0) surplus = [...surplus, ...sortPodsForDeletion(keep, () => 0, clock.now()).slice(0, rm)];
    if (surplus.length) {
      const r = await writer.deleteSurplus(job, key, surplus.slice(0, MAX_POD_CREATE_DELETE_PER_SYNC));
      if (r.error) throw r.error;
      return { active: count - r.deleted, deletedReady: r.deletedReady };
    }
    let diff = want - count;
    if (diff <= 0) return { active: count, deletedReady: 0 };
    const b = backoffs.get(job.metadata?.uid ?? '');
    if (b?.failures) {
      const wait = b.lastFailure + podFailureBackoff(b.failures) - clock.now();
      if (wait > 0) {
        loop.enqueueAfter(key, wait);
        return { active: count, deletedReady: 0 };
      }
    }
    diff = Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC);
    const indexes: (number | undefined)[] = [];
    if (spec.completionMode === 'Indexed' && completions !== undefined) {
      for (let i = 0; i < completions && indexes.length < diff; i++) if (!succeededIndexes.has(i) && !heldIndexes.has(i)) indexes.push(i);
    } else for (let i = 0; i < diff; i++) indexes.push(undefined);
    count += indexes.length;
    await writer.create(job, key, indexes);
    return { active: count, deletedReady: 0 };
  }

  /** Writes `job.status` over `base` (its resourceVersion guards the write); returns the stored Job. */
  async function writeStatus(key: string, base: Job, job: Job): Promise<Job> {
    const next = { ...base, status: structuredClone(job.status) } as Job;
    const stored = await client.update<Job>(W.jobs, base.metadata!.namespace!, next, { subresource: 'status' });
    written.set(key, stored);
    return stored;
  }

  informers.start();
  await informers.waitForSync();
  loop.run();
  orphans.run();
  return {
    async stop() {
      await Promise.all([loop.stop(), orphans.stop()]);
    },
  };
}

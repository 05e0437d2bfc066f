/**
 * CronJob controller: creates a Job from `spec.jobTemplate` at each scheduled time
 * (standard 5-field cron or @descriptors, evaluated in `spec.timeZone` or UTC), named
 * `<cronjob>-<minutes since epoch>` with the `batch.kubernetes.io/cronjob-scheduled-timestamp`
 * annotation; honours suspend, startingDeadlineSeconds (MissSchedule), concurrencyPolicy
 * (Allow, Forbid: JobAlreadyActive, Replace: the running Jobs are deleted), keeps
 * `status.active`, `lastScheduleTime` and `lastSuccessfulTime`, and deletes finished
 * Jobs beyond `successfulJobsHistoryLimit` / `failedJobsHistoryLimit`. Time comes from
 * the injected clock; the controller wakes up 100 ms after each scheduled time.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/cronjob/cronjob_controllerv2.go
 */
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import { type Schedule, ScheduleError, isKnownZone, parseSchedule } from '../../api/batch/v1/cronjob/schedule.js';
import { isAlreadyExists, isNotFound, StatusError } from '../../apimachinery/errors.js';
import { keyOf } from '../../client/informer.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { controllerRefOf, newControllerRef } from '../util/controller-ref.js';
import { byControllerUID, Index } from '../util/informers.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import { W } from '../util/resources.js';
import { realClock } from '../../util/clock.js';
import { isJobFinished, type Job, rfc3339, trueCondition } from '../job/util.js';
import { type CronJob, formatInZone, jobNameFor, MAX_MISSED_START_TIMES, mostRecentScheduleTime, nextScheduleDelay, rfc1123Z } from './schedule-times.js';

export type { CronJob } from './schedule-times.js';

/** Annotation with the scheduled time a Job was created for. */
const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

const jobRef = (j: Job): ObjectReference => ({
  kind: 'Job',
  namespace: j.metadata?.namespace,
  name: j.metadata?.name,
  uid: j.metadata?.uid,
  apiVersion: 'batch/v1',
  resourceVersion: j.metadata?.resourceVersion,
});

export async function startCronJobController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, recorder, informers } = ctx;
  const clock = ctx.clock ?? realClock;
  const cronJobs = informers.get<CronJob>(W.cronjobs);
  const jobs = informers.get<Job>(W.jobs);
  const jobsByOwner = new Index(jobs, byControllerUID);
  const loop = new ControllerLoop({ name: 'cronjob-controller', clock, workers: ctx.workers, sync: (k) => sync(k) });

  const ownerOf = (j: Job): CronJob | undefined => {
    const ref = controllerRefOf(j);
    if (!ref || ref.kind !== 'CronJob') return undefined;
    const cj = cronJobs.getByName(j.metadata?.namespace ?? '', ref.name);
    return cj?.metadata?.uid === ref.uid ? cj : undefined;
  };
  const onJob = (j: Job): void => {
    const cj = ownerOf(j);
    if (cj) loop.enqueueObj(cj);
  };
  jobs.addEventHandler({ add: onJob, update: (_o, j) => onJob(j), delete: onJob });
  cronJobs.addEventHandler({ add: (cj) => loop.enqueueObj(cj), update: (_o, cj) => loop.enqueueObj(cj) });

  async function deleteJob(cj: CronJob, j: Job): Promise<void> {
    try {
      await client.delete(W.jobs, j.metadata!.namespace!, j.metadata!.name!, { propagationPolicy: 'Background' });
    } catch (e) {
      if (isNotFound(e)) return;
      recorder.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    }
    recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata!.name}`);
  }

  /** Upstream syncCronJob; returns whether the status changed and when to look again (ms). */
  async function syncCronJob(cj: CronJob, children: Job[]): Promise<{ changed: boolean; requeueMs?: number }> {
    const now = clock.now();
    const status = (cj.status ??= {});
    let changed = false;
    const inActive = (uid: string | undefined): boolean => !!status.active?.some((r) => r.uid === uid);
    const removeActive = (uid: string | undefined): void => {
      status.active = (status.active ?? []).filter((r) => r.uid !== uid);
      if (!status.active.length) delete status.active;
    };
    const childUIDs = new Set<string>();
    for (const j of children) {
      childUIDs.add(j.metadata?.uid ?? '');
      const found = inActive(j.metadata?.uid);
      if (!found && !isJobFinished(j)) {
        // our cached status may predate the Job: read the CronJob again before complaining
        const fresh = await client.get<CronJob>(W.cronjobs, cj.metadata!.namespace!, cj.metadata!.name!);
        if (fresh.status?.active?.some((r) => r.uid === j.metadata?.uid)) {
          cj.metadata = fresh.metadata;
          cj.status = fresh.status;
          return syncCronJob(cj, children);
        }
        recorder.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${j.metadata?.name}`);
      } else if (found && isJobFinished(j)) {
        const cond = trueCondition(j, 'Complete') ? 'Complete' : 'Failed';
        removeActive(j.metadata?.uid);
        recorder.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${j.metadata?.name}, condition: ${cond}`);
        changed = true;
      }
      const done = j.status?.completionTime;
      if (trueCondition(j, 'Complete') && done && (!status.lastSuccessfulTime || Date.parse(status.lastSuccessfulTime) < Date.parse(done))) {
        status.lastSuccessfulTime = done;
        changed = true;
      }
    }
    for (const r of [...(status.active ?? [])]) {
      if (childUIDs.has(r.uid ?? '')) continue;
      try {
        const j = await client.get<Job>(W.jobs, r.namespace ?? cj.metadata!.namespace!, r.name ?? '');
        if (j.metadata?.uid === r.uid) continue;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      recorder.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${r.name}`);
      removeActive(r.uid);
      changed = true;
    }
    if (cj.metadata?.deletionTimestamp) return { changed };
    const zone = cj.spec?.timeZone ?? undefined;
    if (zone !== undefined && !isKnownZone(zone)) {
      recorder.event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${JSON.stringify(zone)}: unknown time zone ${zone}`);
      return { changed };
    }
    if (cj.spec?.suspend) return { changed };
    let sched: Schedule;
    try {
      sched = parseSchedule(cj.spec?.schedule ?? '', zone);
    } catch (e) {
      const msg = e instanceof ScheduleError ? e.message : String(e);
      recorder.event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(cj.spec?.schedule ?? '')} : ${msg}`);
      return { changed };
    }
    const recent = mostRecentScheduleTime(cj, now, sched);
    if (recent.invalid !== undefined) {
      // a user error in the spec: nothing to do until the CronJob changes (upstream syncCronJob)
      recorder.event(cj, 'Warning', 'InvalidSchedule', `invalid schedule: ${cj.spec?.schedule ?? ''} : ${recent.invalid}`);
      return { changed };
    }
    if (recent.missed > MAX_MISSED_START_TIMES) {
      recorder.event(cj, 'Warning', 'TooManyMissedTimes', `too many missed start times: ${recent.missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
    }
    const requeueMs = nextScheduleDelay(cj, now, sched);
    const scheduled = recent.mostRecent;
    if (scheduled === undefined) return { changed, requeueMs };
    const sds = cj.spec?.startingDeadlineSeconds;
    if (sds !== undefined && sds !== null && scheduled + sds * 1000 < now) {
      recorder.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123Z(scheduled)}`);
      return { changed, requeueMs };
    }
    const name = jobNameFor(cj, scheduled);
    if (status.active?.some((r) => r.name === name) || (status.lastScheduleTime && Date.parse(status.lastScheduleTime) === Math.floor(scheduled / 1000) * 1000)) {
      return { changed, requeueMs };
    }
    const policy = cj.spec?.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && status.active?.length) {
      recorder.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return { changed, requeueMs };
    }
    if (policy === 'Replace') {
      for (const r of [...(status.active ?? [])]) {
        let j: Job;
        try {
          j = await client.get<Job>(W.jobs, r.namespace ?? cj.metadata!.namespace!, r.name ?? '');
        } catch (e) {
          if (!isNotFound(e)) throw e;
          removeActive(r.uid);
          changed = true;
          continue;
        }
        await deleteJob(cj, j);
        removeActive(r.uid);
        changed = true;
      }
    }
    const tmpl = cj.spec?.jobTemplate ?? {};
    const job: Job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace: cj.metadata?.namespace,
        labels: { ...(tmpl.metadata?.labels ?? {}) },
        annotations: { ...(tmpl.metadata?.annotations ?? {}), [SCHEDULED_TIMESTAMP_ANNOTATION]: formatInZone(scheduled, zone) },
        ownerReferences: [newControllerRef(cj, 'batch/v1', 'CronJob')],
      },
      spec: structuredClone(tmpl.spec ?? { template: {} }),
    };
    let created: Job;
    try {
      created = await client.create<Job>(W.jobs, cj.metadata!.namespace!, job);
    } catch (e) {
      if (e instanceof StatusError && e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return { changed };
      if (isAlreadyExists(e)) return { changed }; // created by someone else: they track it
      recorder.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    }
    recorder.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata?.name}`);
    status.active = [...(status.active ?? []), jobRef(created)];
    status.lastScheduleTime = rfc3339(scheduled);
    return { changed: true, requeueMs };
  }

  /** Upstream cleanupFinishedJobs: the oldest finished Jobs beyond the history limits go. */
  async function cleanupFinished(cj: CronJob, children: Job[]): Promise<boolean> {
    const okLimit = cj.spec?.successfulJobsHistoryLimit;
    const failLimit = cj.spec?.failedJobsHistoryLimit;
    if ((okLimit === undefined || okLimit === null) && (failLimit === undefined || failLimit === null)) return false;
    const startOf = (j: Job): number => Date.parse(j.status?.startTime ?? j.metadata?.creationTimestamp ?? '') || 0;
    const ok = children.filter((j) => trueCondition(j, 'Complete')).sort((a, b) => startOf(a) - startOf(b));
    const failed = children.filter((j) => trueCondition(j, 'Failed')).sort((a, b) => startOf(a) - startOf(b));
    let changed = false;
    const trim = async (list: Job[], limit: number | undefined | null): Promise<void> => {
      if (limit === undefined || limit === null || list.length <= limit) return;
      for (const j of list.slice(0, list.length - limit)) {
        if (j.metadata?.deletionTimestamp) continue;
        await deleteJob(cj, j);
        if (cj.status?.active?.some((r) => r.uid === j.metadata?.uid)) {
          cj.status.active = cj.status.active.filter((r) => r.uid !== j.metadata?.uid);
          changed = true;
        }
      }
    };
    await trim(ok, okLimit);
    await trim(failed, failLimit);
    return changed;
  }

  async function sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const cached = cronJobs.getByName(ns, name);
    if (!cached) return;
    const cj = structuredClone(cached);
    const children = jobsByOwner.get(cj.metadata?.uid ?? '').filter((j) => j.metadata?.namespace === ns);
    const r = await syncCronJob(cj, children);
    const cleaned = cj.metadata?.deletionTimestamp ? false : await cleanupFinished(cj, children);
    if (r.changed || cleaned) {
      try {
        await client.update<CronJob>(W.cronjobs, ns, { ...cached, metadata: cj.metadata, status: cj.status }, { subresource: 'status' });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    if (r.requeueMs !== undefined) loop.enqueueAfter(keyOf(cj), r.requeueMs);
  }

  informers.start();
  await informers.waitForSync();
  loop.run();
  return { stop: () => loop.stop() };
}

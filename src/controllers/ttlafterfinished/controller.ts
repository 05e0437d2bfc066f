/**
 * TTL-after-finished controller: deletes a finished Job (Complete or Failed)
 * `spec.ttlSecondsAfterFinished` seconds after it finished (the terminal condition's
 * lastTransitionTime), in the foreground so its pods go first. The TTL is checked again
 * on a fresh read before deleting; the delete carries the Job's UID as precondition.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/ttlafterfinished/ttlafterfinished_controller.go
 */
import { isNotFound } from '../../apimachinery/errors.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import { W } from '../util/resources.js';
import { realClock } from '../../util/clock.js';
import { isJobFinished, type Job, jobFinishTime } from '../job/util.js';

/**
 * When a Job's TTL expires (ms since the epoch), or undefined when it does not need
 * cleaning up (no TTL, not finished, already being deleted).
 */
export function ttlExpiry(job: Job): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl === null || job.metadata?.deletionTimestamp || !isJobFinished(job)) return undefined;
  const finishedAt = jobFinishTime(job);
  return finishedAt === undefined ? undefined : finishedAt + ttl * 1000;
}

export async function startTTLAfterFinishedController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, informers } = ctx;
  const clock = ctx.clock ?? realClock;
  const jobs = informers.get<Job>(W.jobs);
  const loop = new ControllerLoop({ name: 'ttl-after-finished-controller', clock, workers: ctx.workers, sync: (k) => sync(k) });
  const consider = (j: Job): void => {
    if (ttlExpiry(j) !== undefined) loop.enqueueObj(j);
  };
  jobs.addEventHandler({ add: consider, update: (_o, j) => consider(j) });

  /** Returns true when expired; otherwise requeues for the expiry. */
  const expired = (key: string, j: Job): boolean => {
    const at = ttlExpiry(j);
    if (at === undefined) return false;
    const left = at - clock.now();
    if (left <= 0) return true;
    loop.enqueueAfter(key, left);
    return false;
  };

  async function sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const cached = jobs.getByName(ns, name);
    if (!cached || !expired(key, cached)) return;
    let fresh: Job;
    try {
      fresh = await client.get<Job>(W.jobs, ns, name);
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (!expired(key, fresh)) return;
    try {
      await client.delete(W.jobs, ns, name, { propagationPolicy: 'Foreground', preconditions: { uid: fresh.metadata?.uid } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  informers.start();
  await informers.waitForSync();
  loop.run();
  return { stop: () => loop.stop() };
}

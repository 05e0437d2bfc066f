/**
 * The Job controller's pod writes: creating pods (tracking finalizer, completion
 * indexes), deleting surplus or active pods, and removing the
 * `batch.kubernetes.io/job-tracking` finalizer, with the expectations they imply.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/job/job_controller.go (manageJob, deleteJobPods, deleteActivePods, removeTrackingFinalizerPatch)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/job/indexed_job_utils.go (addCompletionIndexEnvVariables)
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import { isNotFound, StatusError } from '../../apimachinery/errors.js';
import { keyOf } from '../../client/informer.js';
import { type Client, R } from '../../client/types.js';
import { newControllerRef } from '../util/controller-ref.js';
import type { Expectations } from '../util/expectations.js';
import { type PodControl, slowStartBatch, SLOW_START_INITIAL_BATCH_SIZE } from '../util/pod-control.js';
import { isPodReady, type Pod, podFromTemplate } from '../util/pods.js';
import { COMPLETION_INDEX_ENV, COMPLETION_INDEX_KEY, type Job, JOB_TRACKING_FINALIZER } from './util.js';

/** Strategic merge patch removing the tracking finalizer (upstream removeTrackingFinalizerPatch), UID as precondition. */
const rmFinalizerPatch = (uid: string): unknown => ({ metadata: { '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER], uid } });

/** The pod still carries the tracking finalizer. */
export const hasTracking = (p: Pod): boolean => !!p.metadata?.finalizers?.includes(JOB_TRACKING_FINALIZER);

/** The template with JOB_COMPLETION_INDEX env from the annotation (upstream addCompletionIndexEnvVariables). */
function withCompletionIndexEnv(spec: Record<string, unknown>): void {
  const add = (cs: Container[] | undefined): void => {
    for (const c of cs ?? []) {
      if (c.env?.some((e) => e.name === COMPLETION_INDEX_ENV)) continue;
      (c.env ??= []).push({ name: COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX_KEY}']` } } });
    }
  };
  add(spec.initContainers as Container[] | undefined);
  add(spec.containers as Container[] | undefined);
}

/** Pods deleted or created, and how many of the deleted were ready. */
interface PodWriteResult {
  deleted: number;
  deletedReady: number;
  error?: unknown;
}

export class JobPodWriter {
  /** pod UIDs whose finalizer removal was sent and not yet observed */
  readonly removing = new Set<string>();

  constructor(
    private readonly client: Client,
    private readonly podControl: PodControl,
    private readonly expectations: Expectations,
  ) {}

  /**
   * Removes the tracking finalizer (a pod already gone counts as done).
   * @throws StatusError from the API server
   */
  async removeFinalizer(pod: Pod): Promise<boolean> {
    const uid = pod.metadata?.uid ?? '';
    this.removing.add(uid);
    try {
      await this.client.patch(R.pods, pod.metadata!.namespace!, pod.metadata!.name!, 'strategic', rmFinalizerPatch(uid));
      return true;
    } catch (e) {
      if (isNotFound(e)) return true;
      this.removing.delete(uid);
      throw e;
    }
  }

  /** Deletes the active pods of a finishing Job keeping their finalizers (upstream deleteActivePods). */
  async deleteActive(job: Job, pods: Pod[]): Promise<PodWriteResult> {
    let deleted = 0;
    let deletedReady = 0;
    let error: unknown;
    await Promise.all(
      pods.map(async (p) => {
        try {
          await this.podControl.delete(p.metadata!.namespace!, p.metadata!.name!, job);
          deleted++;
          if (isPodReady(p)) deletedReady++;
        } catch (e) {
          error ??= e;
        }
      }),
    );
    return { deleted, deletedReady, error };
  }

  /** Deletes surplus pods, their finalizers first so they are not counted (upstream deleteJobPods). */
  async deleteSurplus(job: Job, key: string, pods: Pod[]): Promise<PodWriteResult> {
    this.expectations.expectDeletions(
      key,
      pods.map((p) => keyOf(p)),
    );
    let deleted = 0;
    let deletedReady = 0;
    let error: unknown;
    await Promise.all(
      pods.map(async (p) => {
        try {
          // a tracked pod is counted once it stops, so its finalizer can go first
          if (hasTracking(p)) await this.removeFinalizer(p);
          await this.podControl.delete(p.metadata!.namespace!, p.metadata!.name!, job);
          deleted++;
          if (isPodReady(p)) deletedReady++;
        } catch (e) {
          this.expectations.deletionObserved(key, keyOf(p));
          if (isNotFound(e)) {
            deleted++;
            return;
          }
          error ??= e;
        }
      }),
    );
    return { deleted, deletedReady, error };
  }

  /**
   * Creates pods for `indexes` (undefined = NonIndexed) in slow-start batches, with the
   * tracking finalizer and, for Indexed Jobs, the completion index annotation, label,
   * env, hostname and `<job>-<index>-` name prefix.
   * @throws the first creation error
   */
  async create(job: Job, key: string, indexes: (number | undefined)[]): Promise<void> {
    const ns = job.metadata!.namespace!;
    const ref = newControllerRef(job, 'batch/v1', 'Job');
    const base = podFromTemplate(job.spec?.template, job.metadata!.name!, ref);
    const fin = (base.metadata!.finalizers ??= []);
    if (!fin.includes(JOB_TRACKING_FINALIZER)) fin.push(JOB_TRACKING_FINALIZER);
    const indexed = job.spec?.completionMode === 'Indexed';
    if (indexed) withCompletionIndexEnv(base.spec as unknown as Record<string, unknown>);
    this.expectations.expectCreations(key, indexes.length);
    const { successes, error } = await slowStartBatch(indexes.length, SLOW_START_INITIAL_BATCH_SIZE, async (i) => {
      const pod = structuredClone(base);
      const idx = indexes[i];
      if (idx !== undefined) {
        const m = pod.metadata!;
        (m.annotations ??= {})[COMPLETION_INDEX_KEY] = String(idx);
        (m.labels ??= {})[COMPLETION_INDEX_KEY] = String(idx);
        m.generateName = `${job.metadata!.name}-${idx}-`;
        pod.spec!.hostname = `${job.metadata!.name}-${idx}`;
      }
      try {
        await this.podControl.create(ns, pod, job);
      } catch (e) {
        if (e instanceof StatusError && e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return;
        throw e;
      }
    });
    for (let i = 0; i < indexes.length - successes; i++) this.expectations.creationObserved(key);
    if (error) throw error;
  }
}

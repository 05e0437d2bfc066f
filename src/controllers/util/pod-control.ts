/**
 * Creating and deleting pods on behalf of a controller, with upstream's events
 * (SuccessfulCreate `Created pod: <name>`, FailedCreate `Error creating: <err>`,
 * SuccessfulDelete `Deleted pod: <name>`, FailedDelete `Error deleting: <err>`), and the
 * slow-start batching that stops after the first failing batch.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/controller_utils.go (RealPodControl, slowStartBatch)
 */
import type { KObject } from '../../api/resource.js';
import { isNotFound, StatusError } from '../../apimachinery/errors.js';
import type { EventRecorder } from '../../client/events.js';
import { type Client, type DeleteOptions, R } from '../../client/types.js';
import type { Pod } from './pods.js';

/** Upstream's slowStartBatch initial size. */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/**
 * Runs `fn` `count` times in batches of 1, 2, 4 … (in parallel within a batch), stopping
 * after a batch with failures. Returns the number of successes and the first error.
 */
export async function slowStartBatch(count: number, initialBatchSize: number, fn: (i: number) => Promise<void>): Promise<{ successes: number; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  let index = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const start = index;
    index += batch;
    const results = await Promise.allSettled(Array.from({ length: batch }, (_, i) => fn(start + i)));
    let error: unknown;
    for (const r of results) {
      if (r.status === 'fulfilled') successes++;
      else error ??= r.reason;
    }
    if (error !== undefined) return { successes, error };
    remaining -= batch;
  }
  return { successes };
}

function message(e: unknown): string {
  return e instanceof StatusError ? e.message : e instanceof Error ? e.message : String(e);
}

/** Pod writes with events about the controlling object. */
export class PodControl {
  constructor(
    private readonly client: Client,
    private readonly recorder: EventRecorder,
  ) {}

  /**
   * Creates `pod` in `ns` for `owner`.
   * @throws StatusError from the API server (after a FailedCreate event)
   */
  async create(ns: string, pod: Pod, owner: KObject): Promise<Pod> {
    try {
      const created = await this.client.create<Pod>(R.pods, ns, pod);
      this.recorder.event(owner, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name}`);
      return created;
    } catch (e) {
      this.recorder.event(owner, 'Warning', 'FailedCreate', `Error creating: ${message(e)}`);
      throw e;
    }
  }

  /**
   * Deletes pod `name`; a pod already gone counts as deleted (no event).
   * @returns false when the pod was not found
   * @throws StatusError from the API server (after a FailedDelete event)
   */
  async delete(ns: string, name: string, owner: KObject, opts?: DeleteOptions): Promise<boolean> {
    try {
      await this.client.delete(R.pods, ns, name, opts);
      this.recorder.event(owner, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      this.recorder.event(owner, 'Warning', 'FailedDelete', `Error deleting: ${message(e)}`);
      throw e;
    }
  }
}

/**
 * The scheduler component: `startScheduler` wires it to an API client and an event
 * recorder and runs it until `stop()`.
 *
 * @see https://kubernetes.io/docs/reference/command-line-tools-reference/kube-scheduler/
 */
import type { EventRecorder } from '../client/events.js';
import type { Client } from '../client/types.js';
import type { Profile } from './framework/profile.js';
import type { Clock } from './queue/scheduling-queue.js';
import { Scheduler } from './scheduler.js';

export { Scheduler, type SchedulerOptions } from './scheduler.js';
export { defaultProfile, type Profile } from './framework/profile.js';
export type { Clock } from './queue/scheduling-queue.js';

export interface StartSchedulerOptions {
  client: Client;
  recorder: EventRecorder;
  /** scheduling profiles; default upstream's default-scheduler profile */
  profiles?: Profile[];
  /** ms clock (backoff, condition timestamps) */
  clock?: Clock;
  /** percent of nodes to find feasible per cycle; default adaptive */
  percentageOfNodesToScore?: number;
}

/**
 * Starts informers (waiting for their first list) and the scheduling loop.
 * Resolves to a handle whose `stop()` ends the loop and waits for in-flight binds.
 */
export async function startScheduler(opts: StartSchedulerOptions): Promise<{ stop(): Promise<void>; scheduler: Scheduler }> {
  const s = new Scheduler(opts);
  await s.start();
  return { scheduler: s, stop: () => s.stop() };
}

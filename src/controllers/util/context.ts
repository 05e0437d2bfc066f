/**
 * What each workload controller is started with: its own client (its ServiceAccount
 * identity), an event recorder, the shared informers, and an injectable clock.
 */
import type { EventRecorder } from '../../client/events.js';
import type { Client } from '../../client/types.js';
import type { SharedInformers } from './informers.js';
import type { Clock } from '../../util/clock.js';

export interface WorkloadControllerContext {
  /** the controller's client (writes as system:serviceaccount:kube-system:<controller>) */
  client: Client;
  recorder: EventRecorder;
  informers: SharedInformers;
  /** time and timers (default: the process clock) */
  clock?: Clock;
  /** concurrent syncs (default 5) */
  workers?: number;
}

/** A started controller. */
export interface RunningController {
  stop(): Promise<void>;
}

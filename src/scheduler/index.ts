/**
 * The scheduler component: `startScheduler` wires it to an API client and an event
 * recorder and runs it until `stop()` — optionally configured by a
 * KubeSchedulerConfiguration file, behind leader election on a Lease, and serving
 * Prometheus metrics.
 *
 * @see https://kubernetes.io/docs/reference/command-line-tools-reference/kube-scheduler/
 */
import type { Logger } from '../util/klog.js';
import type { PodTraceSink } from '../trace/recorder.js';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { EventRecorder } from '../client/events.js';
import { LeaderElector } from '../client/leaderelection.js';
import type { Client } from '../client/types.js';
import type { SchedulerConfig } from './config/config.js';
import type { Profile } from './framework/profile.js';
import { newSchedulerEventRecorder } from './event-sink.js';
import { SchedulerMetrics, serveMetrics } from './metrics.js';
import type { Clock } from './queue/scheduling-queue.js';
import { Scheduler } from './scheduler.js';

export { Scheduler, type SchedulerOptions } from './scheduler.js';
export { defaultProfile, type Profile } from './framework/profile.js';
export type { Clock } from './queue/scheduling-queue.js';
export { loadConfigFile, parseConfig, ConfigError, type SchedulerConfig } from './config/config.js';
export { SchedulerMetrics, serveMetrics } from './metrics.js';
export { eventSinkClient, newSchedulerEventRecorder } from './event-sink.js';

export interface StartSchedulerOptions {
  client: Client;
  /** where events go; default {@link newSchedulerEventRecorder} (upstream's bounded, sequential sink) */
  recorder?: EventRecorder;
  /** a loaded KubeSchedulerConfiguration (profiles, percentageOfNodesToScore, backoff, leader election) */
  config?: SchedulerConfig;
  /** scheduling profiles; default from `config`, else upstream's default-scheduler profile */
  profiles?: Profile[];
  /** ms clock (backoff, condition timestamps) */
  clock?: Clock;
  /** percent of nodes to find feasible per cycle; default from `config`, else adaptive */
  percentageOfNodesToScore?: number;
  /**
   * Run behind leader election on the Lease named in `config` (default
   * kube-system/kube-scheduler). Default: `config.leaderElection.leaderElect` when a
   * config is given, else off (the all-in-one server runs one scheduler).
   */
  leaderElect?: boolean;
  /** this instance's identity in the Lease; default `<hostname>_<uuid>` */
  identity?: string;
  /** serve /metrics and /healthz on this address (e.g. `127.0.0.1:10259`); default none */
  metricsBindAddress?: string;
  metrics?: SchedulerMetrics;
  /** called when leadership is lost (upstream exits); default: stop the scheduler */
  onLostLeadership?: () => void;
  /** kube-scheduler's own klog-style log */
  logger?: Logger;
  /** the pod creation trace (src/trace) */
  trace?: PodTraceSink;
}

export interface RunningScheduler {
  scheduler: Scheduler;
  metrics: SchedulerMetrics;
  /** resolves once this instance leads and its informers synced (at once without leader election) */
  leading: Promise<void>;
  isLeader(): boolean;
  stop(): Promise<void>;
}

/**
 * Creates the scheduler and starts it — at once, or once it wins leader election.
 * Without leader election the returned promise resolves after the informers synced.
 *
 * @throws Error when a profile or plugin configuration is invalid (upstream messages)
 */
export async function startScheduler(opts: StartSchedulerOptions): Promise<RunningScheduler> {
  const cfg = opts.config;
  const metrics = opts.metrics ?? new SchedulerMetrics();
  const ownRecorder = opts.recorder ? undefined : newSchedulerEventRecorder(opts.client);
  const s = new Scheduler({
    client: opts.client,
    trace: opts.trace,
    recorder: opts.recorder ?? ownRecorder!,
    clock: opts.clock,
    metrics,
    profiles: opts.profiles ?? cfg?.profiles,
    percentageOfNodesToScore: opts.percentageOfNodesToScore ?? cfg?.percentageOfNodesToScore,
    podInitialBackoffSeconds: cfg?.podInitialBackoffSeconds,
    podMaxBackoffSeconds: cfg?.podMaxBackoffSeconds,
    logger: opts.logger,
  });
  let server: Server | undefined;
  let elector: LeaderElector | undefined;
  if (opts.metricsBindAddress) {
    const i = opts.metricsBindAddress.lastIndexOf(':');
    server = await serveMetrics(metrics, opts.metricsBindAddress.slice(0, i), Number(opts.metricsBindAddress.slice(i + 1)));
  }
  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    await elector?.stop();
    await s.stop();
    ownRecorder?.close();
    if (server) await new Promise<void>((r) => server!.close(() => r()));
  };
  const leaderElect = opts.leaderElect ?? cfg?.leaderElection.leaderElect ?? false;
  let leading: Promise<void>;
  if (!leaderElect) {
    await s.start();
    leading = Promise.resolve();
  } else {
    const le = cfg?.leaderElection;
    let resolveLeading!: () => void;
    leading = new Promise((r) => (resolveLeading = r));
    elector = new LeaderElector({
      client: opts.client,
      namespace: le?.resourceNamespace ?? 'kube-system',
      name: le?.resourceName ?? 'kube-scheduler',
      identity: opts.identity ?? `${hostname()}_${randomUUID()}`,
      leaseDurationMs: le?.leaseDurationMs,
      renewDeadlineMs: le?.renewDeadlineMs,
      retryPeriodMs: le?.retryPeriodMs,
      onStartedLeading: () => void s.start().then(resolveLeading),
      onStoppedLeading: () => {
        if (!stopping) (opts.onLostLeadership ?? (() => void s.stop()))();
      },
    });
    void elector.run();
  }
  return { scheduler: s, metrics, leading, isLeader: () => elector?.isLeader() ?? true, stop: stopAll };
}

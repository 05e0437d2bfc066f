/**
 * The scheduler: informers feed the queue (pending pods of its profiles) and the cache
 * (nodes, assigned pods); a loop pops pods and runs their scheduling cycles one at a
 * time, while binding cycles run concurrently. The loop yields to the event loop every
 * few ms so watch events and binding responses are processed.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/scheduler.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/eventhandlers.go
 */
import type { Logger } from '../util/klog.js';
import type { PodTraceSink } from '../trace/recorder.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { EventRecorder } from '../client/events.js';
import type { Client } from '../client/types.js';
import { Cache } from './cache/cache.js';
import type { ClusterListers } from './framework/listers.js';
import { DEFAULT_SCHEDULER_NAME, defaultProfile, type Profile } from './framework/profile.js';
import type { Registry } from './framework/registry.js';
import { Framework } from './framework/runtime.js';
import { Snapshot } from './framework/snapshot.js';
import { ActionType, eventMatches, podKey, type ClusterEvent, type ClusterEventWithHint, type QueuedPodInfo } from './framework/types.js';
import { realTimers, type Timers } from './framework/waiting-pods.js';
import { addEventHandlers } from './event-handlers.js';
import { SchedulerInformers, type PodObj } from './informers.js';
import { SchedulerMetrics } from './metrics.js';
import { newInTreeRegistry } from './plugins/registry.js';
import { realClock, SchedulingQueue, type Clock } from './queue/scheduling-queue.js';
import { scheduleOne } from './schedule-one.js';

export interface SchedulerOptions {
  client: Client;
  recorder: EventRecorder;
  /** default: upstream's default profile (default-scheduler) */
  profiles?: Profile[];
  /** ms clock for backoff, TTLs and condition timestamps */
  clock?: Clock;
  timers?: Timers;
  /** 0/undefined: adaptive (50 − nodes/125, min 5 %) */
  percentageOfNodesToScore?: number;
  /** default 1 */
  podInitialBackoffSeconds?: number;
  /** default 10 */
  podMaxBackoffSeconds?: number;
  /** out-of-tree plugins, merged with the in-tree registry */
  outOfTreeRegistry?: Registry;
  /** [0,1) random source for tie-breaking */
  random?: () => number;
  /** ms the loop runs before yielding to the event loop; default 5 */
  yieldEveryMs?: number;
  /** where metrics go; default a new SchedulerMetrics */
  metrics?: SchedulerMetrics;
  /** share of cycles recording per-plugin durations (upstream 10 %); default 0.1 */
  pluginMetricsSampleRate?: number;
  /** kube-scheduler's own log (klog lines: binds at V(2), failures at V(2) / error) */
  logger?: Logger;
  /** the pod creation trace (src/trace); none = nothing recorded */
  trace?: PodTraceSink;
}

/** Node changes that matter to scheduling, as cluster events (upstream nodeSchedulingPropertiesChange). */
export function nodeUpdateEvents(oldNode: Node, newNode: Node): ClusterEvent[] {
  const out: ClusterEvent[] = [];
  const j = (x: unknown) => JSON.stringify(x ?? null);
  if (!!oldNode.spec?.unschedulable !== !!newNode.spec?.unschedulable) {
    out.push({ resource: 'Node', actionType: ActionType.UpdateNodeTaint, label: 'NodeSpecUnschedulableChange' });
  }
  if (j(oldNode.status?.allocatable) !== j(newNode.status?.allocatable)) {
    out.push({ resource: 'Node', actionType: ActionType.UpdateNodeAllocatable, label: 'NodeAllocatableChange' });
  }
  if (j(oldNode.metadata?.labels) !== j(newNode.metadata?.labels)) {
    out.push({ resource: 'Node', actionType: ActionType.UpdateNodeLabel, label: 'NodeLabelChange' });
  }
  if (j(oldNode.spec?.taints) !== j(newNode.spec?.taints)) {
    out.push({ resource: 'Node', actionType: ActionType.UpdateNodeTaint, label: 'NodeTaintChange' });
  }
  const conds = (n: Node) => j((n.status?.conditions ?? []).map((c) => [c.type, c.status]));
  if (conds(oldNode) !== conds(newNode)) {
    out.push({ resource: 'Node', actionType: ActionType.UpdateNodeCondition, label: 'NodeConditionChange' });
  }
  if (j(oldNode.metadata?.annotations) !== j(newNode.metadata?.annotations)) {
    out.push({ resource: 'Node', actionType: ActionType.UpdateNodeAnnotation, label: 'NodeAnnotationChange' });
  }
  return out;
}

export class Scheduler {
  readonly client: Client;
  readonly clock: Clock;
  readonly frameworks = new Map<string, Framework>();
  readonly queue: SchedulingQueue;
  readonly cache: Cache;
  readonly snapshot = new Snapshot();
  readonly percentageOfNodesToScore: number | undefined;
  readonly random: () => number;
  readonly metrics: SchedulerMetrics;
  readonly informers: SchedulerInformers;
  readonly listers: ClusterListers;
  readonly pluginMetricsSampleRate: number;
  /** the pod creation trace's sink, if tracing */
  readonly trace?: PodTraceSink;
  /** where the next cycle starts examining nodes (round-robin across cycles) */
  nextStartNodeIndex = 0;
  /** kube-scheduler's own log */
  readonly logger?: Logger;
  /** test hook: called after a successful bind */
  onBound?: (pod: Pod, node: string) => void;

  private readonly bindings = new Set<Promise<void>>();
  readonly eventsByProfile = new Map<string, Map<string, ClusterEventWithHint[]>>();
  private readonly allEvents: ClusterEvent[] = [];
  private readonly timers: Timers;
  private readonly intervals: unknown[] = [];
  private stopped = false;
  private started = false;
  private loopDone: Promise<void> = Promise.resolve();
  private readonly yieldEveryMs: number;
  private less?: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;

  constructor(opts: SchedulerOptions) {
    this.client = opts.client;
    this.clock = opts.clock ?? realClock;
    this.timers = opts.timers ?? realTimers;
    this.random = opts.random ?? Math.random;
    this.percentageOfNodesToScore = opts.percentageOfNodesToScore || undefined;
    this.yieldEveryMs = opts.yieldEveryMs ?? 5;
    this.metrics = opts.metrics ?? new SchedulerMetrics();
    this.pluginMetricsSampleRate = opts.pluginMetricsSampleRate ?? 0.1;
    this.logger = opts.logger;
    this.trace = opts.trace;
    this.informers = new SchedulerInformers(opts.client);
    this.listers = this.informers.listers();
    let registry = newInTreeRegistry();
    if (opts.outOfTreeRegistry) registry = registry.merge(opts.outOfTreeRegistry);
    this.queue = new SchedulingQueue({
      // all profiles must share one QueueSort (upstream); the first profile's is used
      less: (a, b) => (this.less ??= this.frameworks.values().next().value!.queueSortFunc())(a, b),
      clock: this.clock,
      podInitialBackoffMs: (opts.podInitialBackoffSeconds ?? 1) * 1000,
      podMaxBackoffMs: (opts.podMaxBackoffSeconds ?? 10) * 1000,
      preEnqueue: (pod) => this.frameworkForPod(pod)?.runPreEnqueuePlugins(pod) ?? null,
      eventsFor: (pod) => this.eventsByProfile.get(schedulerNameOf(pod)) ?? new Map(),
      anyInterested: (ev) => this.anyInterested(ev),
      onIncoming: (queue, event) => this.metrics.queueIncomingPods.labels(queue, event).inc(),
    });
    for (const p of opts.profiles?.length ? opts.profiles : [defaultProfile()]) {
      const name = p.schedulerName || DEFAULT_SCHEDULER_NAME;
      if (this.frameworks.has(name)) throw new Error(`duplicate profile with scheduler name "${name}"`);
      let fwk: Framework;
      try {
        fwk = new Framework({
          registry,
          profile: p,
          client: opts.client,
          eventRecorder: opts.recorder,
          nominator: this.queue.nominator,
          timers: this.timers,
          listers: this.listers,
          metrics: this.metrics,
        });
      } catch (e) {
        throw new Error(`initializing profiles: creating profile for scheduler name ${name}: ${(e as Error).message}`);
      }
      this.frameworks.set(name, fwk);
      const evs = fwk.eventsToRegister();
      this.eventsByProfile.set(name, evs);
      for (const l of evs.values()) for (const e of l) this.allEvents.push(e.event);
    }
    this.cache = new Cache(this.clock);
    this.metrics.pendingSource = () => ({ ...this.queue.counts() });
    this.metrics.cacheSource = () => ({ nodes: this.cache.nodeCount(), pods: this.cache.podCount(), assumed_pods: this.cache.assumedPodCount() });
  }

  /** resource → actionType bits → whether some plugin registered a matching event (memo of allEvents) */
  private readonly interest = new Map<string, Map<number, boolean>>();

  /** Whether any profile's plugin registered an event matching `ev` (memoized per resource and action). */
  private anyInterested(ev: ClusterEvent): boolean {
    let byAction = this.interest.get(ev.resource);
    if (!byAction) this.interest.set(ev.resource, (byAction = new Map()));
    let v = byAction.get(ev.actionType);
    if (v === undefined) {
      v = this.allEvents.some((r) => eventMatches(r, ev));
      byAction.set(ev.actionType, v);
    }
    return v;
  }

  /** The framework of the pod's profile, or undefined if no profile handles it. */
  frameworkForPod(pod: Pod): Framework | undefined {
    return this.frameworks.get(schedulerNameOf(pod));
  }

  /** The latest version of a pending pod from the informer (undefined if gone or bound). */
  pendingPod(pod: Pod): Pod | undefined {
    const p = this.informers.pods.get(podKey(pod));
    return p && !p.spec?.nodeName ? p : undefined;
  }

  /** The latest version of a pod the scheduler watches. */
  currentPod(pod: Pod): PodObj | undefined {
    return this.informers.pods.get(podKey(pod));
  }

  /** Registers a binding cycle so stop() can wait for it. */
  trackBinding(p: Promise<void>): void {
    const q = p.catch(() => undefined).finally(() => this.bindings.delete(q));
    this.bindings.add(q);
  }

  /** Whether this scheduler schedules the pod (unassigned, one of its profiles). */
  responsible(pod: Pod): boolean {
    return !pod.spec?.nodeName && this.frameworks.has(schedulerNameOf(pod));
  }

  /** Starts informers, waits for their first lists, then starts the loop and the queue's flush timers. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.informers.probe();
    addEventHandlers(this);
    await this.informers.start();
    const every = (ms: number, fn: () => void) => {
      const tick = () => {
        if (this.stopped) return;
        fn();
        this.intervals.push(this.timers.setTimeout(tick, ms));
      };
      this.intervals.push(this.timers.setTimeout(tick, ms));
    };
    every(1000, () => this.queue.flushBackoffQCompleted());
    every(30_000, () => this.queue.flushUnschedulablePodsLeftover());
    every(1000, () => this.cache.cleanupExpiredAssumedPods());
    this.loopDone = this.loop();
  }

  private async loop(): Promise<void> {
    let last = performance.now();
    while (!this.stopped) {
      const q = await this.queue.pop();
      if (!q || this.stopped) return;
      try {
        await scheduleOne(this, q);
      } catch {
        this.queue.done(q.podInfo.uid);
      }
      if (performance.now() - last >= this.yieldEveryMs) {
        await new Promise<void>((r) => setImmediate(r));
        last = performance.now();
      }
    }
  }

  /** Stops the loop, timers and informers, and waits for in-flight bindings. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.close();
    for (const h of this.intervals.splice(0)) this.timers.clearTimeout(h);
    this.informers.stop();
    await this.loopDone;
    for (const f of this.frameworks.values()) f.close();
    await Promise.all([...this.bindings]);
  }
}

export function schedulerNameOf(pod: Pod): string {
  return pod.spec?.schedulerName || DEFAULT_SCHEDULER_NAME;
}

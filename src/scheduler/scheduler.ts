/**
 * The scheduler: informers on pending pods (spec.nodeName empty, a schedulerName of
 * one of the profiles), on assigned non-terminal pods and on nodes feed the queue and
 * the cache; a loop pops pods and runs their scheduling cycles one at a time, while
 * binding cycles run concurrently. The loop yields to the event loop every few ms.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/scheduler.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/eventhandlers.go
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import type { EventRecorder } from '../client/events.js';
import { Informer } from '../client/informer.js';
import { R, type Client } from '../client/types.js';
import { Cache } from './cache/cache.js';
import { DEFAULT_SCHEDULER_NAME, defaultProfile, type Profile } from './framework/profile.js';
import type { Registry } from './framework/registry.js';
import { Framework } from './framework/runtime.js';
import { Snapshot } from './framework/snapshot.js';
import { ActionType, eventMatches, Events, podKey, type ClusterEvent, type ClusterEventWithHint, type QueuedPodInfo } from './framework/types.js';
import { realTimers, type Timers } from './framework/waiting-pods.js';
import { newInTreeRegistry } from './plugins/registry.js';
import { SCHEDULING_GATED_MESSAGE, SCHEDULING_GATED_REASON } from './plugins/SchedulingGates.js';
import { realClock, SchedulingQueue, type Clock } from './queue/scheduling-queue.js';
import { scheduleOne, updatePodStatus } from './schedule-one.js';

/** Pod/Node as informer objects. */
type PodObj = Pod & KObject;
type NodeObj = Node & KObject;

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
  /** where the next cycle starts examining nodes (round-robin across cycles) */
  nextStartNodeIndex = 0;
  /** test hook: called after a successful bind */
  onBound?: (pod: Pod, node: string) => void;

  readonly pendingPods: Informer<PodObj>;
  readonly assignedPods: Informer<PodObj>;
  readonly nodes: Informer<NodeObj>;
  private readonly bindings = new Set<Promise<void>>();
  private readonly eventsByProfile = new Map<string, Map<string, ClusterEventWithHint[]>>();
  private readonly allEvents: ClusterEvent[] = [];
  private readonly timers: Timers;
  private readonly intervals: unknown[] = [];
  private stopped = false;
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
      anyInterested: (ev) => this.allEvents.some((r) => eventMatches(r, ev)),
    });
    for (const p of opts.profiles?.length ? opts.profiles : [defaultProfile()]) {
      const name = p.schedulerName || DEFAULT_SCHEDULER_NAME;
      if (this.frameworks.has(name)) throw new Error(`duplicate profile with scheduler name "${name}"`);
      const fwk = new Framework({ registry, profile: p, client: opts.client, eventRecorder: opts.recorder, nominator: this.queue.nominator, timers: this.timers });
      this.frameworks.set(name, fwk);
      const evs = fwk.eventsToRegister();
      this.eventsByProfile.set(name, evs);
      for (const l of evs.values()) for (const e of l) this.allEvents.push(e.event);
    }
    this.cache = new Cache(this.clock);
    this.pendingPods = new Informer<PodObj>(opts.client, R.pods, { fieldSelector: 'spec.nodeName=' });
    this.assignedPods = new Informer<PodObj>(opts.client, R.pods, {
      fieldSelector: 'spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed',
    });
    this.nodes = new Informer<NodeObj>(opts.client, R.nodes);
    this.addEventHandlers();
  }

  /** The framework of the pod's profile, or undefined if no profile handles it. */
  frameworkForPod(pod: Pod): Framework | undefined {
    return this.frameworks.get(schedulerNameOf(pod));
  }

  /** The latest version of a pending pod from the informer (undefined if gone). */
  pendingPod(pod: Pod): Pod | undefined {
    return this.pendingPods.get(podKey(pod));
  }

  /** Registers a binding cycle so stop() can wait for it. */
  trackBinding(p: Promise<void>): void {
    const q = p.catch(() => undefined).finally(() => this.bindings.delete(q));
    this.bindings.add(q);
  }

  private responsible(pod: Pod): boolean {
    return !pod.spec?.nodeName && this.frameworks.has(schedulerNameOf(pod));
  }

  private addEventHandlers(): void {
    this.pendingPods.addEventHandler({
      add: (pod) => {
        if (!this.responsible(pod)) return;
        this.queue.add(pod);
        this.markGated(pod);
      },
      update: (oldPod, pod) => {
        if (pod.spec?.nodeName) {
          this.queue.delete(pod);
          return;
        }
        if (!this.responsible(pod)) return;
        if (oldPod.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
        if (this.cache.isAssumedPod(pod)) return;
        this.queue.update(oldPod, pod);
        this.markGated(pod);
      },
      delete: (pod) => {
        this.queue.delete(pod);
        this.frameworkForPod(pod)?.rejectWaitingPod(pod.metadata?.uid ?? '');
      },
    });
    this.assignedPods.addEventHandler({
      add: (pod) => {
        this.cache.addPod(pod);
        this.queue.delete(pod);
        this.queue.moveAllToActiveOrBackoffQueue(Events.AssignedPodAdd, undefined, pod);
      },
      update: (oldPod, pod) => {
        this.cache.updatePod(oldPod, pod);
        this.queue.moveAllToActiveOrBackoffQueue(Events.AssignedPodUpdate, oldPod, pod);
      },
      delete: (pod) => {
        this.cache.removePod(pod);
        this.queue.moveAllToActiveOrBackoffQueue(Events.AssignedPodDelete, pod, undefined);
      },
    });
    this.nodes.addEventHandler({
      add: (node) => {
        this.cache.addNode(node);
        this.queue.moveAllToActiveOrBackoffQueue(Events.NodeAdd, undefined, node);
      },
      update: (oldNode, node) => {
        this.cache.updateNode(oldNode, node);
        for (const ev of nodeUpdateEvents(oldNode, node)) this.queue.moveAllToActiveOrBackoffQueue(ev, oldNode, node);
      },
      delete: (node) => {
        this.cache.removeNode(node);
        this.queue.moveAllToActiveOrBackoffQueue(Events.NodeDelete, node, undefined);
      },
    });
  }

  /** Gated pods get PodScheduled=False/SchedulingGated (once). */
  private markGated(pod: Pod): void {
    if (this.queue.whereIs(podKey(pod)) !== 'gated') return;
    const c = pod.status?.conditions?.find((x) => x.type === 'PodScheduled');
    if (c && c.reason === SCHEDULING_GATED_REASON && c.status === 'False') return;
    void updatePodStatus(this, pod, { type: 'PodScheduled', status: 'False', reason: SCHEDULING_GATED_REASON, message: SCHEDULING_GATED_MESSAGE }, null);
  }

  /** Starts informers, waits for their first lists, then starts the loop and the queue's flush timers. */
  async start(): Promise<void> {
    this.nodes.start();
    this.assignedPods.start();
    this.pendingPods.start();
    await Promise.all([this.nodes.waitForSync(), this.assignedPods.waitForSync(), this.pendingPods.waitForSync()]);
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
    this.pendingPods.stop();
    this.assignedPods.stop();
    this.nodes.stop();
    await this.loopDone;
    await Promise.all([...this.bindings]);
  }
}

function schedulerNameOf(pod: Pod): string {
  return pod.spec?.schedulerName || DEFAULT_SCHEDULER_NAME;
}

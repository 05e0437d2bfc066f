/**
 * The scheduling queue, built apart from the framework from a less-function and a few
 * callbacks:
 * - activeQ: pods ready to be tried, ordered by the QueueSort plugin's less();
 * - backoffQ: pods waiting out their backoff (initial 1 s, doubled per attempt, max 10 s),
 *   ordered by backoff expiry;
 * - unschedulablePods: pods rejected by plugins, moved back when a cluster event the
 *   rejecting plugins registered (and their queueing hint accepts) happens, or after
 *   5 min (flushUnschedulablePodsLeftover); gated pods (PreEnqueue rejections) wait
 *   here until an update of the pod itself passes PreEnqueue.
 * Events seen while a pod is in flight are remembered, so a pod that fails after a
 * relevant change is retried instead of parked. The clock is injectable.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/backend/queue/scheduling_queue.go
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Status } from '../framework/status.js';
import { Events, eventMatches, newQueuedPodInfo, PodInfo, podKey, QueueingHint, type ClusterEvent, type ClusterEventWithHint, type QueuedPodInfo } from '../framework/types.js';
import { Heap } from './heap.js';
import { Nominator } from './nominator.js';

/** Milliseconds clock. */
export interface Clock {
  now(): number;
}

export const realClock: Clock = { now: () => Date.now() };

export interface QueueOptions {
  /** QueueSort less-function (activeQ order) */
  less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  clock?: Clock;
  /** default 1000 */
  podInitialBackoffMs?: number;
  /** default 10000 */
  podMaxBackoffMs?: number;
  /** default 5 min */
  podMaxInUnschedulablePodsDurationMs?: number;
  /** PreEnqueue of the pod's profile: non-null keeps the pod gated */
  preEnqueue?: (pod: Pod) => Status | null;
  /** events each plugin of the pod's profile registered, by plugin name */
  eventsFor?: (pod: Pod) => Map<string, ClusterEventWithHint[]>;
  /** whether any plugin registered an event matching `ev` (lets the queue skip scans) */
  anyInterested?: (ev: ClusterEvent) => boolean;
  /** a pod entered `queue` (active|backoff|unschedulable|gated) because of `event` (metrics) */
  onIncoming?: (queue: string, event: string) => void;
}

interface InFlightEvent {
  cycle: number;
  event: ClusterEvent;
  oldObj: unknown;
  newObj: unknown;
}

/** Pod fields whose change does not warrant a retry (upstream isPodUpdated strips these). */
function comparable(pod: Pod): string {
  const m = { ...(pod.metadata ?? {}) };
  delete m.resourceVersion;
  delete m.generation;
  delete m.managedFields;
  return JSON.stringify([m, pod.spec]);
}

export class SchedulingQueue {
  readonly nominator = new Nominator();
  private readonly clock: Clock;
  private readonly initialBackoff: number;
  private readonly maxBackoff: number;
  private readonly maxUnschedulable: number;
  private readonly activeQ: Heap<QueuedPodInfo>;
  private readonly backoffQ: Heap<QueuedPodInfo>;
  private readonly unschedulable = new Map<string, QueuedPodInfo>();
  /** pod uid → scheduling cycle it was popped in */
  private readonly inFlight = new Map<string, number>();
  private inFlightEvents: InFlightEvent[] = [];
  /** pods updated while in flight (retry them even if the attempt fails) */
  private readonly updatedInFlight = new Set<string>();
  private cycle = 0;
  private closed = false;
  private waiters: ((p: QueuedPodInfo | null) => void)[] = [];

  constructor(private readonly opts: QueueOptions) {
    this.clock = opts.clock ?? realClock;
    this.initialBackoff = opts.podInitialBackoffMs ?? 1000;
    this.maxBackoff = opts.podMaxBackoffMs ?? 10000;
    this.maxUnschedulable = opts.podMaxInUnschedulablePodsDurationMs ?? 5 * 60 * 1000;
    const key = (q: QueuedPodInfo) => q.podInfo.key;
    this.activeQ = new Heap(key, opts.less);
    this.backoffQ = new Heap(key, (a, b) => this.backoffExpiry(a) < this.backoffExpiry(b));
  }

  /** The current scheduling cycle (incremented by every pop). */
  schedulingCycle(): number {
    return this.cycle;
  }

  /** A new pending pod. Gated pods (PreEnqueue rejects) wait in unschedulablePods. Returns whether it went to activeQ (false: gated). */
  add(pod: Pod): boolean {
    const qpi = newQueuedPodInfo(pod, this.clock.now());
    const key = qpi.podInfo.key;
    this.backoffQ.delete(key);
    this.unschedulable.delete(key);
    this.nominator.add(qpi.podInfo);
    const active = this.moveToActiveQ(qpi);
    this.opts.onIncoming?.(active ? 'active' : 'gated', 'PodAdd');
    return active;
  }

  /** Runs PreEnqueue; pushes to activeQ or parks as gated. Returns whether it became active. */
  private moveToActiveQ(qpi: QueuedPodInfo): boolean {
    const s = this.opts.preEnqueue?.(qpi.podInfo.pod) ?? null;
    if (s) {
      qpi.gatingPlugin = s.plugin;
      qpi.gatingMessage = s.message();
      this.unschedulable.set(qpi.podInfo.key, qpi);
      return false;
    }
    qpi.gatingPlugin = '';
    qpi.gatingMessage = '';
    this.unschedulable.delete(qpi.podInfo.key);
    this.backoffQ.delete(qpi.podInfo.key);
    this.activeQ.addOrUpdate(qpi);
    this.wake();
    return true;
  }

  private wake(): void {
    while (this.waiters.length && this.activeQ.length) {
      const w = this.waiters.shift()!;
      w(this.popNow()!);
    }
  }

  /** A pending pod changed. */
  update(oldPod: Pod, newPod: Pod): void {
    const key = podKey(newPod);
    const upd = (q: QueuedPodInfo) => {
      q.podInfo = new PodInfo(newPod);
      this.nominator.update(oldPod, q.podInfo);
    };
    const a = this.activeQ.get(key);
    if (a) {
      upd(a);
      this.activeQ.addOrUpdate(a);
      return;
    }
    const b = this.backoffQ.get(key);
    if (b) {
      upd(b);
      this.backoffQ.addOrUpdate(b);
      return;
    }
    const u = this.unschedulable.get(key);
    if (u) {
      upd(u);
      if (u.gatingPlugin) {
        this.moveToActiveQ(u);
        return;
      }
      if (comparable(oldPod) !== comparable(newPod)) {
        if (this.isBackingOff(u)) {
          this.unschedulable.delete(key);
          this.backoffQ.addOrUpdate(u);
        } else this.moveToActiveQ(u);
      }
      return;
    }
    const uid = newPod.metadata?.uid ?? '';
    if (this.inFlight.has(uid)) {
      if (comparable(oldPod) !== comparable(newPod)) this.updatedInFlight.add(uid);
      return;
    }
    this.add(newPod);
  }

  /** A pending pod was deleted (or bound). */
  delete(pod: Pod): void {
    const key = podKey(pod);
    this.nominator.delete(pod);
    this.activeQ.delete(key);
    this.backoffQ.delete(key);
    this.unschedulable.delete(key);
  }

  /** Next pod to schedule; waits while activeQ is empty. Resolves null once closed. */
  pop(): Promise<QueuedPodInfo | null> {
    if (this.closed) return Promise.resolve(null);
    const p = this.popNow();
    if (p) return Promise.resolve(p);
    return new Promise((r) => this.waiters.push(r));
  }

  /** Pops synchronously, or undefined if activeQ is empty. */
  popNow(): QueuedPodInfo | undefined {
    const q = this.activeQ.pop();
    if (!q) return undefined;
    this.cycle++;
    q.attempts++;
    if (q.initialAttemptTimestamp === undefined) q.initialAttemptTimestamp = this.clock.now();
    this.inFlight.set(q.podInfo.uid, this.cycle);
    return q;
  }

  /** The pod's attempt is over (bound, parked, or dropped): forget in-flight events for it. */
  done(uid: string): void {
    if (!this.inFlight.delete(uid)) return;
    this.updatedInFlight.delete(uid);
    if (this.inFlight.size === 0) {
      this.inFlightEvents = [];
      return;
    }
    let min = Infinity;
    for (const c of this.inFlight.values()) if (c < min) min = c;
    if (this.inFlightEvents.length && this.inFlightEvents[0]!.cycle < min) {
      this.inFlightEvents = this.inFlightEvents.filter((e) => e.cycle >= min);
    }
  }

  /**
   * Returns a pod that failed its attempt (popped in `podCycle`). It goes to
   * backoffQ/activeQ if its rejection has no plugin (an error), the pod changed, or an
   * event relevant to its rejecting plugins happened meanwhile; else to unschedulablePods.
   */
  addUnschedulableIfNotPresent(qpi: QueuedPodInfo, podCycle: number): void {
    const key = qpi.podInfo.key;
    const uid = qpi.podInfo.uid;
    if (this.activeQ.has(key) || this.backoffQ.has(key) || this.unschedulable.has(key)) {
      this.done(uid);
      return;
    }
    qpi.timestamp = this.clock.now();
    let requeue = this.updatedInFlight.has(uid) || (qpi.unschedulablePlugins.size === 0 && qpi.pendingPlugins.size === 0);
    if (!requeue) {
      for (const e of this.inFlightEvents) {
        if (e.cycle < podCycle) continue;
        if (this.worthRequeuing(qpi, e.event, e.oldObj, e.newObj)) {
          requeue = true;
          break;
        }
      }
    }
    this.done(uid);
    this.nominator.add(qpi.podInfo);
    let queue = 'unschedulable';
    if (!requeue) this.unschedulable.set(key, qpi);
    else if (this.isBackingOff(qpi)) {
      this.backoffQ.addOrUpdate(qpi);
      queue = 'backoff';
    } else queue = this.moveToActiveQ(qpi) ? 'active' : 'gated';
    this.opts.onIncoming?.(queue, 'ScheduleAttemptFailure');
  }

  /** Whether the event may make the pod (rejected by its unschedulable/pending plugins) schedulable. */
  private worthRequeuing(qpi: QueuedPodInfo, ev: ClusterEvent, oldObj: unknown, newObj: unknown): boolean {
    if (ev.resource === '*') return true;
    const rejectors = qpi.unschedulablePlugins.size + qpi.pendingPlugins.size;
    if (rejectors === 0) return true;
    const byPlugin = this.opts.eventsFor?.(qpi.podInfo.pod);
    if (!byPlugin) return true;
    for (const set of [qpi.unschedulablePlugins, qpi.pendingPlugins]) {
      for (const plugin of set) {
        const regs = byPlugin.get(plugin);
        if (!regs) continue;
        for (const r of regs) {
          if (!eventMatches(r.event, ev)) continue;
          if (!r.queueingHintFn) return true;
          try {
            if (r.queueingHintFn(qpi.podInfo.pod, oldObj, newObj) === QueueingHint.Queue) return true;
          } catch {
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * A cluster event: moves the unschedulable (non-gated) pods it may help to
   * backoffQ/activeQ, and remembers it for pods in flight.
   */
  moveAllToActiveOrBackoffQueue(ev: ClusterEvent, oldObj?: unknown, newObj?: unknown, preCheck?: (pod: Pod) => boolean): void {
    if (ev.resource !== '*' && this.opts.anyInterested && !this.opts.anyInterested(ev)) return;
    if (this.inFlight.size > 0) this.inFlightEvents.push({ cycle: this.cycle, event: ev, oldObj, newObj });
    if (this.unschedulable.size === 0) return;
    const moving: QueuedPodInfo[] = [];
    for (const q of this.unschedulable.values()) {
      if (q.gatingPlugin) continue;
      if (preCheck && !preCheck(q.podInfo.pod)) continue;
      if (this.worthRequeuing(q, ev, oldObj, newObj)) moving.push(q);
    }
    for (const q of moving) {
      this.unschedulable.delete(q.podInfo.key);
      if (this.isBackingOff(q)) {
        this.backoffQ.addOrUpdate(q);
        this.opts.onIncoming?.('backoff', ev.label);
      } else {
        this.moveToActiveQ(q);
        this.opts.onIncoming?.('active', ev.label);
      }
    }
  }

  /** Moves pods whose backoff expired from backoffQ to activeQ (upstream: every 1 s). */
  flushBackoffQCompleted(): void {
    const now = this.clock.now();
    for (;;) {
      const q = this.backoffQ.peek();
      if (!q || this.backoffExpiry(q) > now) return;
      this.backoffQ.pop();
      this.moveToActiveQ(q);
    }
  }

  /** Retries pods parked longer than 5 min (upstream: checked every 30 s). */
  flushUnschedulablePodsLeftover(): void {
    const now = this.clock.now();
    const old: QueuedPodInfo[] = [];
    for (const q of this.unschedulable.values()) {
      if (!q.gatingPlugin && now - q.timestamp > this.maxUnschedulable) old.push(q);
    }
    if (!old.length) return;
    const keys = new Set(old.map((q) => q.podInfo.key));
    this.moveAllToActiveOrBackoffQueue(Events.UnschedulableTimeout, undefined, undefined, (p) => keys.has(podKey(p)));
  }

  /** Backoff for the pod's attempts: initial·2^(attempts−1), capped at max (ms). */
  backoffDuration(q: QueuedPodInfo): number {
    let d = this.initialBackoff;
    for (let i = 1; i < q.attempts; i++) {
      if (d > this.maxBackoff - d) return this.maxBackoff;
      d += d;
    }
    return d;
  }

  private backoffExpiry(q: QueuedPodInfo): number {
    return q.timestamp + this.backoffDuration(q);
  }

  isBackingOff(q: QueuedPodInfo): boolean {
    return this.backoffExpiry(q) > this.clock.now();
  }

  /** Where a pod is: 'active' | 'backoff' | 'unschedulable' | 'gated' | undefined. */
  whereIs(key: string): 'active' | 'backoff' | 'unschedulable' | 'gated' | undefined {
    if (this.activeQ.has(key)) return 'active';
    if (this.backoffQ.has(key)) return 'backoff';
    const u = this.unschedulable.get(key);
    if (u) return u.gatingPlugin ? 'gated' : 'unschedulable';
    return undefined;
  }

  /** The queued entry of a pod, wherever it waits. */
  get(key: string): QueuedPodInfo | undefined {
    return this.activeQ.get(key) ?? this.backoffQ.get(key) ?? this.unschedulable.get(key);
  }

  /** Counts for metrics (scheduler_pending_pods{queue}). */
  counts(): { active: number; backoff: number; unschedulable: number; gated: number } {
    let gated = 0;
    for (const q of this.unschedulable.values()) if (q.gatingPlugin) gated++;
    return { active: this.activeQ.length, backoff: this.backoffQ.length, unschedulable: this.unschedulable.size - gated, gated };
  }

  /** Stops: pending and future pop() calls resolve null. */
  close(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w(null);
  }
}

/**
 * The framework runner of one profile: holds the plugins per extension point and runs
 * them in order with upstream's semantics (first failure stops Filter; Skip from
 * PreFilter/PreScore disables the plugin's Filter/Score for the cycle; scores are
 * normalized, range-checked and weighted; Permit may hold pods; Bind plugins may Skip).
 * It is also the `Handle` plugins receive.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/runtime/framework.go
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { EventRecorder } from '../../client/events.js';
import type { Client } from '../../client/types.js';
import { buildPlugins, type PluginLists } from './build.js';
import { rowsOf } from './filter-nodes.js';
import { CycleState } from './cycle-state.js';
import type { NodeToStatus } from './fit-error.js';
import * as I from './interface.js';
import { staticListers, type ClusterListers } from './listers.js';
import type { NodeInfo } from './node-info.js';
import { completeProfile, type Profile } from './profile.js';
import type { Registry } from './registry.js';
import { Snapshot } from './snapshot.js';
import { asStatus, Code, isSuccess, Status } from './status.js';
import { ActionType, MAX_NODE_SCORE, MIN_NODE_SCORE, PreFilterResult, type ClusterEventWithHint, type PodInfo, type PostFilterResult, type QueuedPodInfo } from './types.js';
import { realTimers, WaitingPod, type Timers } from './waiting-pods.js';
import type { ExtensionPointName, SchedulerMetrics } from '../metrics.js';
import { codeName } from './status.js';

/** Longest a Permit plugin may make a pod wait (upstream maxTimeout, 15 min). */
export const MAX_PERMIT_TIMEOUT_MS = 15 * 60 * 1000;

const noNominated: PodInfo[] = [];
const emptyNominator: I.PodNominator = { nominatedPodsForNode: () => noNominated };

export interface FrameworkOptions {
  registry: Registry;
  profile: Profile;
  client: Client;
  eventRecorder: EventRecorder;
  nominator?: I.PodNominator;
  timers?: Timers;
  /** informer-backed listers; default empty */
  listers?: ClusterListers;
  /** where durations and counts are recorded; default none */
  metrics?: SchedulerMetrics | null;
}

function wrapError(what: string, plugin: string, s: Status): Status {
  return asStatus(new Error(`running ${what} plugin "${plugin}": ${s.message()}`)).withPlugin(plugin);
}

export class Framework implements I.Handle {
  readonly profileName: string;
  readonly percentageOfNodesToScore: number | undefined;
  readonly client: Client;
  readonly eventRecorder: EventRecorder;
  nominator: I.PodNominator;
  readonly listers: ClusterListers;
  readonly metrics: SchedulerMetrics | null;
  readonly plugins: PluginLists;
  private snapshot = new Snapshot();
  private scoreBuf: number[] = [];
  private readonly successChildren = new Map<string, { observe(v: number): void }>();
  private readonly waitingPods = new Map<string, WaitingPod>();
  private readonly timers: Timers;
  private readonly stopping = new AbortController();
  /** Aborted by {@link close}. */
  readonly signal = this.stopping.signal;

  constructor(opts: FrameworkOptions) {
    const profile = completeProfile(opts.profile);
    this.profileName = profile.schedulerName;
    this.percentageOfNodesToScore = profile.percentageOfNodesToScore || undefined;
    this.client = opts.client;
    this.eventRecorder = opts.eventRecorder;
    this.nominator = opts.nominator ?? emptyNominator;
    this.timers = opts.timers ?? realTimers;
    this.listers = opts.listers ?? staticListers();
    this.metrics = opts.metrics ?? null;
    this.plugins = buildPlugins(profile, opts.registry, this);
  }

  /** The scheduler stops: waits in binding cycles (VolumeBinding's PreBind) end. */
  close(): void {
    this.stopping.abort();
  }

  /** Records an extension point's duration (from `t0`, performance.now() ms) and status. */
  observe(point: ExtensionPointName, t0: number, s: Status | null): void {
    const m = this.metrics;
    if (!m) return;
    const ms = performance.now() - t0;
    if (s === null) {
      // the common case: a child per point, resolved once
      let c = this.successChildren.get(point);
      if (!c) this.successChildren.set(point, (c = m.extensionPointDuration.labels(point, 'Success', this.profileName)));
      c.observe(ms / 1000);
      m.extensionPointTotals.set(point, (m.extensionPointTotals.get(point) ?? 0) + ms);
    } else m.observeExtensionPoint(point, codeName(s.code), this.profileName, ms);
  }

  /** Records one plugin's duration when the cycle samples plugin metrics. */
  observePlugin(state: CycleState, plugin: string, point: ExtensionPointName, t0: number, s: Status | null, rejected?: readonly string[]): void {
    state.pluginObserver?.(plugin, point, t0, rejected);
    if (!state.recordPluginMetrics || !this.metrics) return;
    this.metrics.pluginExecutionDuration.labels(plugin, point, s ? codeName(s.code) : 'Success').observe((performance.now() - t0) / 1000);
  }

  // ---- Handle ----

  snapshotSharedLister(): Snapshot {
    return this.snapshot;
  }

  /** Sets the snapshot plugins see (once per cycle, by the scheduler). */
  setSnapshot(s: Snapshot): void {
    this.snapshot = s;
  }

  // ---- queue ----

  /** The QueueSort plugin's less function. */
  queueSortFunc(): (a: QueuedPodInfo, b: QueuedPodInfo) => boolean {
    const p = this.plugins.queueSort[0]!;
    return (a, b) => p.less(a, b);
  }

  /** First non-success PreEnqueue status (with its plugin), or null. */
  runPreEnqueuePlugins(pod: Pod): Status | null {
    for (const p of this.plugins.preEnqueue) {
      const s = p.preEnqueue(pod);
      if (!isSuccess(s)) return s!.withPlugin(p.name);
    }
    return null;
  }

  /**
   * Events each enabled plugin registered, by plugin name. Plugins without
   * EnqueueExtensions are retried on every event (upstream's wildcard).
   */
  eventsToRegister(): Map<string, ClusterEventWithHint[]> {
    const m = new Map<string, ClusterEventWithHint[]>();
    const wild: ClusterEventWithHint[] = [{ event: { resource: '*', actionType: ActionType.All, label: 'WildCard' } }];
    const relevant = new Set<I.Plugin>([...this.plugins.preEnqueue, ...this.plugins.preFilter, ...this.plugins.filter, ...this.plugins.reserve, ...this.plugins.permit]);
    for (const p of relevant) m.set(p.name, I.isEnqueueExtensions(p) ? p.eventsToRegister() : wild);
    return m;
  }

  // ---- filtering ----

  hasFilterPlugins(): boolean {
    return this.plugins.filter.length > 0;
  }

  hasPostFilterPlugins(): boolean {
    return this.plugins.postFilter.length > 0;
  }

  hasScorePlugins(): boolean {
    return this.plugins.score.length > 0;
  }

  /**
   * Runs PreFilter plugins. Returns the merged node narrowing, the status (rejections
   * carry their plugin; an Unschedulable one lets the others still run), and the
   * plugins whose result narrowed the nodes.
   */
  runPreFilterPlugins(state: CycleState, pod: Pod): [PreFilterResult | null, Status | null, Set<string>] {
    const t0 = performance.now();
    const r = this.runPreFilterPluginsInner(state, pod);
    this.observe('PreFilter', t0, r[1]);
    return r;
  }

  private runPreFilterPluginsInner(state: CycleState, pod: Pod): [PreFilterResult | null, Status | null, Set<string>] {
    let result: PreFilterResult | null = null;
    let returnStatus: Status | null = null;
    const pluginsWithNodes = new Set<string>();
    const nodes = this.snapshot.list();
    for (const p of this.plugins.preFilter) {
      const t1 = performance.now();
      const [r, s] = p.preFilter(state, pod, nodes);
      this.observePlugin(state, p.name, 'PreFilter', t1, s);
      if (s && s.code === Code.Skip) {
        state.skipFilterPlugins.add(p.name);
        continue;
      }
      if (!isSuccess(s)) {
        s!.withPlugin(p.name);
        if (s!.code === Code.UnschedulableAndUnresolvable) return [null, s, pluginsWithNodes];
        if (s!.code === Code.Unschedulable) {
          returnStatus = s;
          continue;
        }
        return [null, wrapError('PreFilter', p.name, s!), pluginsWithNodes];
      }
      if (r && !r.allNodes()) pluginsWithNodes.add(p.name);
      result = PreFilterResult.merge(result, r);
      if (result && !result.allNodes() && result.nodeNames!.size === 0) {
        const names = [...pluginsWithNodes].sort();
        const msg = names.length === 1 ? `node(s) didn't satisfy plugin ${names[0]}` : `node(s) didn't satisfy plugin(s) [${names.join(' ')}] simultaneously`;
        return [result, new Status(Code.UnschedulableAndUnresolvable, [msg]), pluginsWithNodes];
      }
    }
    return [result, returnStatus, pluginsWithNodes];
  }

  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status | null {
    for (const p of this.plugins.preFilter) {
      if (state.skipFilterPlugins.has(p.name)) continue;
      const ext = p.preFilterExtensions?.();
      if (!ext) continue;
      const s = ext.addPod(state, podToSchedule, podInfoToAdd, nodeInfo);
      if (!isSuccess(s)) return wrapError('AddPod on PreFilter', p.name, s!);
    }
    return null;
  }

  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status | null {
    for (const p of this.plugins.preFilter) {
      if (state.skipFilterPlugins.has(p.name)) continue;
      const ext = p.preFilterExtensions?.();
      if (!ext) continue;
      const s = ext.removePod(state, podToSchedule, podInfoToRemove, nodeInfo);
      if (!isSuccess(s)) return wrapError('RemovePod on PreFilter', p.name, s!);
    }
    return null;
  }

  /** Runs Filter plugins on one node; stops at the first non-success (plugin set on it). */
  runFilterPlugins(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status | null {
    const skip = state.skipFilterPlugins;
    const list = this.plugins.filter;
    for (let i = 0; i < list.length; i++) {
      const p = list[i]!;
      if (skip.size !== 0 && skip.has(p.name)) continue;
      const s = p.filter(state, pod, nodeInfo);
      if (s !== null && s.code !== Code.Success) {
        if (!s.isRejected()) return asStatus(new Error(`running "${p.name}" filter plugin: ${s.message()}`)).withPlugin(p.name);
        return s.withPlugin(p.name);
      }
    }
    return null;
  }

  /**
   * Runs Filter with the node's nominated pods of equal or higher priority added
   * (and, if that passes, again without them), as upstream does so that preemptors
   * keep their room.
   */
  runFilterPluginsWithNominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status | null {
    if (this.nominator.isEmpty?.()) return this.runFilterPlugins(state, pod, nodeInfo);
    const nominated = nodeInfo.node ? this.nominator.nominatedPodsForNode(nodeInfo.name) : noNominated;
    if (nominated.length === 0) return this.runFilterPlugins(state, pod, nodeInfo);
    const prio = pod.spec?.priority ?? 0;
    const uid = pod.metadata?.uid;
    let added = false;
    let stateOut = state;
    let infoOut = nodeInfo;
    for (const pi of nominated) {
      if (pi.priority < prio || pi.uid === uid) continue;
      if (!added) {
        stateOut = state.clone();
        infoOut = nodeInfo.clone();
        added = true;
      }
      infoOut.addPodInfo(pi);
      const s = this.runPreFilterExtensionAddPod(stateOut, pod, pi, infoOut);
      if (s) return s;
    }
    const first = this.runFilterPlugins(stateOut, pod, infoOut);
    if (!added || !isSuccess(first)) return first;
    return this.runFilterPlugins(state, pod, nodeInfo);
  }

  /** Runs PostFilter plugins until one succeeds or is UnschedulableAndUnresolvable. */
  async runPostFilterPlugins(state: CycleState, pod: Pod, m: NodeToStatus): Promise<[PostFilterResult | null, Status | null]> {
    const t0 = performance.now();
    const r = await this.runPostFilterPluginsInner(state, pod, m);
    this.observe('PostFilter', t0, r[1]);
    return r;
  }

  private async runPostFilterPluginsInner(state: CycleState, pod: Pod, m: NodeToStatus): Promise<[PostFilterResult | null, Status | null]> {
    const reasons: string[] = [];
    let rejector = '';
    let result: PostFilterResult | null = null;
    for (const p of this.plugins.postFilter) {
      const [r, s] = await p.postFilter(state, pod, m);
      if (isSuccess(s)) return [r, null];
      if (s!.code === Code.UnschedulableAndUnresolvable) return [r, s!.withPlugin(p.name)];
      if (!s!.isRejected()) return [null, asStatus(new Error(s!.message())).withPlugin(p.name)];
      if (r?.nominatingInfo && r.nominatingInfo.mode !== 'Noop') result = r;
      reasons.push(...s!.reasons);
      if (!rejector) rejector = p.name;
    }
    return [result, new Status(Code.Unschedulable, reasons).withPlugin(rejector)];
  }

  // ---- scoring ----

  /** Runs PreScore plugins; Skip disables the plugin's Score for this cycle. */
  runPreScorePlugins(state: CycleState, pod: Pod, nodes: NodeInfo[]): Status | null {
    const t0 = performance.now();
    let out: Status | null = null;
    for (const p of this.plugins.preScore) {
      const t1 = performance.now();
      const s = p.preScore(state, pod, nodes);
      this.observePlugin(state, p.name, 'PreScore', t1, s);
      if (s && s.code === Code.Skip) {
        state.skipScorePlugins.add(p.name);
        continue;
      }
      if (!isSuccess(s)) {
        out = wrapError('PreScore', p.name, s!);
        break;
      }
    }
    this.observe('PreScore', t0, out);
    return out;
  }

  /**
   * Runs Score plugins over `nodes`, normalizes, checks the [0, 100] range and sums
   * the weighted scores. Returns the totals (`totals[i]` for `nodes[i]`) or an error.
   */
  runScorePlugins(state: CycleState, pod: Pod, nodes: NodeInfo[], idx?: Int32Array): [number[], Status | null] {
    const t0 = performance.now();
    const r = this.runScorePluginsInner(state, pod, nodes, idx ?? rowsOf(this, nodes));
    this.observe('Score', t0, r[1]);
    return r;
  }

  private runScorePluginsInner(state: CycleState, pod: Pod, nodes: NodeInfo[], idx: Int32Array): [number[], Status | null] {
    const cols = this.snapshot.cols;
    const n = nodes.length;
    const totals = new Array<number>(n).fill(0);
    const list = this.plugins.score;
    const scores = this.scoreBuf.length >= n ? this.scoreBuf : (this.scoreBuf = new Array<number>(n));
    scores.length = n;
    const skip = state.skipScorePlugins;
    for (let k = 0; k < list.length; k++) {
      const p = list[k]!;
      if (skip.size !== 0 && skip.has(p.name)) continue;
      const t1 = performance.now();
      if (p.scoreAll) {
        const s = p.scoreAll(state, pod, nodes, idx, cols, scores);
        if (s) return [totals, wrapError('Score', p.name, s)];
      } else {
        for (let i = 0; i < n; i++) {
          const r = p.score(state, pod, nodes[i]!);
          if (typeof r !== 'number') return [totals, wrapError('Score', p.name, r)];
          scores[i] = r;
        }
      }
      const ext = p.scoreExtensions?.();
      if (ext) {
        const s = ext.normalizeScore(state, pod, scores, nodes);
        if (!isSuccess(s)) return [totals, wrapError('Normalize score', p.name, s!)];
      }
      this.observePlugin(state, p.name, 'Score', t1, null);
      const w = this.plugins.scoreWeights[k]!;
      for (let i = 0; i < n; i++) {
        const v = scores[i]!;
        if (v > MAX_NODE_SCORE || v < MIN_NODE_SCORE || Number.isNaN(v)) {
          return [
            totals,
            asStatus(new Error(`plugin "${p.name}" returns an invalid score ${v}, it should in the range of [${MIN_NODE_SCORE}, ${MAX_NODE_SCORE}] after normalizing`)).withPlugin(
              p.name,
            ),
          ];
        }
        totals[i] += v * w;
      }
    }
    return [totals, null];
  }

  // ---- reserve / permit ----

  runReservePluginsReserve(state: CycleState, pod: Pod, nodeName: string): Status | null {
    const t0 = performance.now();
    let out: Status | null = null;
    for (const p of this.plugins.reserve) {
      const s = p.reserve(state, pod, nodeName);
      if (!isSuccess(s)) {
        out = s!.isRejected() ? s!.withPlugin(p.name) : wrapError('Reserve', p.name, s!);
        break;
      }
    }
    this.observe('Reserve', t0, out);
    return out;
  }

  /** Unreserve in reverse order (upstream). */
  runReservePluginsUnreserve(state: CycleState, pod: Pod, nodeName: string): void {
    const t0 = performance.now();
    const l = this.plugins.reserve;
    for (let i = l.length - 1; i >= 0; i--) l[i]!.unreserve(state, pod, nodeName);
    this.observe('Unreserve', t0, null);
  }

  /** Runs Permit plugins. Wait: the pod is parked until allowed/rejected/timed out (see waitOnPermit). */
  runPermitPlugins(state: CycleState, pod: Pod, nodeName: string): Status | null {
    const t0 = performance.now();
    const s = this.runPermitPluginsInner(state, pod, nodeName);
    this.observe('Permit', t0, s);
    return s;
  }

  private runPermitPluginsInner(state: CycleState, pod: Pod, nodeName: string): Status | null {
    const waits = new Map<string, number>();
    for (const p of this.plugins.permit) {
      const [s, timeout] = p.permit(state, pod, nodeName);
      if (isSuccess(s)) continue;
      if (s!.isRejected()) return s!.withPlugin(p.name);
      if (s!.code === Code.Wait) {
        waits.set(p.name, Math.min(timeout, MAX_PERMIT_TIMEOUT_MS));
        continue;
      }
      return wrapError('Permit', p.name, s!);
    }
    if (waits.size === 0) return null;
    const uid = pod.metadata?.uid ?? '';
    this.waitingPods.set(uid, new WaitingPod(pod, waits, this.timers));
    return new Status(Code.Wait, [`one or more plugins asked to wait and no plugin rejected pod "${pod.metadata?.name}"`]);
  }

  /** Resolves when a pod parked at Permit is allowed (null) or rejected (status). */
  async waitOnPermit(pod: Pod): Promise<Status | null> {
    const uid = pod.metadata?.uid ?? '';
    const wp = this.waitingPods.get(uid);
    if (!wp) return null;
    try {
      return await wp.done;
    } finally {
      this.waitingPods.delete(uid);
    }
  }

  plugin(name: string): I.Plugin | undefined {
    return this.plugins.all.get(name);
  }

  getWaitingPod(uid: string): WaitingPod | undefined {
    return this.waitingPods.get(uid);
  }

  /** Rejects a waiting pod (e.g. it was deleted). Returns whether one was waiting. */
  rejectWaitingPod(uid: string): boolean {
    const wp = this.waitingPods.get(uid);
    if (!wp) return false;
    wp.reject('', 'removed');
    return true;
  }

  // ---- binding cycle ----

  async runPreBindPlugins(state: CycleState, pod: Pod, nodeName: string): Promise<Status | null> {
    if (this.plugins.preBind.length === 0) return null;
    const t0 = performance.now();
    let out: Status | null = null;
    for (const p of this.plugins.preBind) {
      const s = await p.preBind(state, pod, nodeName);
      if (!isSuccess(s)) {
        out = s!.isRejected() ? s!.withPlugin(p.name) : wrapError('PreBind', p.name, s!);
        break;
      }
    }
    this.observe('PreBind', t0, out);
    return out;
  }

  /** Runs Bind plugins until one does not Skip. All skipping gives a Skip status. */
  async runBindPlugins(state: CycleState, pod: Pod, nodeName: string): Promise<Status | null> {
    const t0 = performance.now();
    const s = await this.runBindPluginsInner(state, pod, nodeName);
    this.observe('Bind', t0, s);
    return s;
  }

  private async runBindPluginsInner(state: CycleState, pod: Pod, nodeName: string): Promise<Status | null> {
    let last: Status | null = null;
    for (const p of this.plugins.bind) {
      const s = await p.bind(state, pod, nodeName);
      if (s && s.code === Code.Skip) {
        last = s;
        continue;
      }
      if (!isSuccess(s)) {
        if (s!.isRejected()) return s!.withPlugin(p.name);
        return wrapError('Bind', p.name, s!);
      }
      return null;
    }
    return last;
  }

  runPostBindPlugins(state: CycleState, pod: Pod, nodeName: string): void {
    if (this.plugins.postBind.length === 0) return;
    const t0 = performance.now();
    for (const p of this.plugins.postBind) p.postBind(state, pod, nodeName);
    this.observe('PostBind', t0, null);
  }

  /** A fresh CycleState (convenience for callers). */
  newCycleState(): CycleState {
    return new CycleState();
  }
}

/**
 * The scheduling framework's extension points: one interface per point, as upstream.
 * A plugin is an object with a `name` implementing any subset of them; the runner
 * detects which by the presence of the method. Hot-path methods (filter, score) are
 * synchronous and return `null` for Success; binding-cycle methods are asynchronous.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/interface.go
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/scheduling-framework/
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../client/types.js';
import type { EventRecorder } from '../../client/events.js';
import type { CycleState } from './cycle-state.js';
import type { NodeToStatus } from './fit-error.js';
import type { ClusterListers } from './listers.js';
import type { SchedulerMetrics } from '../metrics.js';
import type { NodeColumns } from './node-columns.js';
import type { NodeInfo } from './node-info.js';
import type { Snapshot } from './snapshot.js';
import type { Status } from './status.js';
import type { ClusterEventWithHint, PodInfo, PostFilterResult, PreFilterResult, QueuedPodInfo } from './types.js';
import type { WaitingPod } from './waiting-pods.js';

/** Every plugin has a name (the upstream plugin name, e.g. "NodeAffinity"). */
export interface Plugin {
  readonly name: string;
}

/** Gates pods before they enter the active queue (e.g. SchedulingGates). */
export interface PreEnqueuePlugin extends Plugin {
  preEnqueue(pod: Pod): Status | null;
}

/** Orders the active queue; exactly one per profile. */
export interface QueueSortPlugin extends Plugin {
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
}

/** Incremental updates of PreFilter state when preemption/nomination adds or removes pods. */
export interface PreFilterExtensions {
  addPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status | null;
  removePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status | null;
}

/**
 * Runs once per cycle before Filter: precomputes per-pod data into the CycleState,
 * may narrow the nodes (PreFilterResult), reject the pod, or return Skip so its Filter
 * is not run.
 */
export interface PreFilterPlugin extends Plugin {
  preFilter(state: CycleState, pod: Pod, nodes: NodeInfo[]): [PreFilterResult | null, Status | null];
  preFilterExtensions?(): PreFilterExtensions | null;
}

/** Decides whether the pod can run on one node. Must not mutate nodeInfo. */
export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status | null;
  /**
   * Optional fast path, equivalent to `out[i] = filter(state, pod, nodes[i])` for
   * i < n. `idx[i]` is the row of `nodes[i]` in `cols` (the snapshot's columns).
   * Implemented by hot plugins so the per-node work is monomorphic and cache-friendly.
   * May return how many of the n verdicts are not success; a returned 0 means every
   * node passed and `out` may have been left unwritten (the caller then skips its scan).
   */
  filterAll?(state: CycleState, pod: Pod, nodes: NodeInfo[], idx: Int32Array, cols: NodeColumns, n: number, out: (Status | null)[]): number | void;
}

/** Runs when no node fits (e.g. preemption). */
export interface PostFilterPlugin extends Plugin {
  postFilter(state: CycleState, pod: Pod, filteredNodeStatusMap: NodeToStatus): Promise<[PostFilterResult | null, Status | null]>;
}

/** Runs once per cycle before Score over the feasible nodes; Skip disables its Score. */
export interface PreScorePlugin extends Plugin {
  preScore(state: CycleState, pod: Pod, nodes: NodeInfo[]): Status | null;
}

/** Normalizes a plugin's raw scores to [0, 100] in place; `scores[i]` belongs to `nodes[i]`. */
export interface ScoreExtensions {
  normalizeScore(state: CycleState, pod: Pod, scores: number[], nodes: NodeInfo[]): Status | null;
}

/** Scores one feasible node: an integer, or a Status on error. */
export interface ScorePlugin extends Plugin {
  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status;
  /**
   * Optional fast path, equivalent to `scores[i] = score(state, pod, nodes[i])` for
   * every node (`idx[i]`: row of `nodes[i]` in `cols`); returns the first error status, or null.
   */
  scoreAll?(state: CycleState, pod: Pod, nodes: NodeInfo[], idx: Int32Array, cols: NodeColumns, scores: number[]): Status | null;
  scoreExtensions?(): ScoreExtensions | null;
}

/** Reserves resources for the chosen node; unreserve undoes it on later failure. */
export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: Pod, nodeName: string): Status | null;
  unreserve(state: CycleState, pod: Pod, nodeName: string): void;
}

/** Approves, rejects or delays (Wait + timeout ms) binding. */
export interface PermitPlugin extends Plugin {
  permit(state: CycleState, pod: Pod, nodeName: string): [Status | null, number];
}

export interface PreBindPlugin extends Plugin {
  preBind(state: CycleState, pod: Pod, nodeName: string): Promise<Status | null>;
}

/** Binds the pod; Skip passes to the next bind plugin. */
export interface BindPlugin extends Plugin {
  bind(state: CycleState, pod: Pod, nodeName: string): Promise<Status | null>;
}

export interface PostBindPlugin extends Plugin {
  postBind(state: CycleState, pod: Pod, nodeName: string): void;
}

/** Declares the cluster events that may make pods this plugin rejected schedulable. */
export interface EnqueueExtensions extends Plugin {
  eventsToRegister(): ClusterEventWithHint[];
}

/** Pods nominated to nodes (by preemption), as the framework sees them. */
export interface PodNominator {
  /** Nominated pods of a node (copies of the list; PodInfos shared). */
  nominatedPodsForNode(nodeName: string): PodInfo[];
  /** Whether no pod is nominated anywhere (lets Filter skip the lookup). */
  isEmpty?(): boolean;
}

/**
 * What plugins get from the framework: the cycle's snapshot, the API client, the
 * event recorder, the nominator, and the runner entry points preemption needs.
 */
export interface Handle {
  snapshotSharedLister(): Snapshot;
  readonly client: Client;
  readonly eventRecorder: EventRecorder;
  readonly nominator: PodNominator;
  /** informer-backed read access to namespaces, services, PVCs, PDBs, … */
  readonly listers: ClusterListers;
  /** aborted when the scheduler stops (upstream: its context), ending waits in binding cycles */
  readonly signal?: AbortSignal;
  /** the scheduler's metrics, when it records any */
  readonly metrics: SchedulerMetrics | null;
  /** The profile's instance of a plugin, if enabled (lets plugins use each other's logic). */
  plugin(name: string): Plugin | undefined;
  /** The pod waiting at Permit with this uid, if any. */
  getWaitingPod(uid: string): WaitingPod | undefined;
  /** Runs all Filter plugins (with nominated pods) on a node. */
  runFilterPluginsWithNominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status | null;
  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status | null;
  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status | null;
}

/** Builds a plugin from its args (the pluginConfig entry, or defaults) and the handle. */
export type PluginFactory = (args: unknown, handle: Handle) => Plugin;

// Type guards used by the runner.
export const isPreEnqueue = (p: Plugin): p is PreEnqueuePlugin => typeof (p as PreEnqueuePlugin).preEnqueue === 'function';
export const isQueueSort = (p: Plugin): p is QueueSortPlugin => typeof (p as QueueSortPlugin).less === 'function';
export const isPreFilter = (p: Plugin): p is PreFilterPlugin => typeof (p as PreFilterPlugin).preFilter === 'function';
export const isFilter = (p: Plugin): p is FilterPlugin => typeof (p as FilterPlugin).filter === 'function';
export const isPostFilter = (p: Plugin): p is PostFilterPlugin => typeof (p as PostFilterPlugin).postFilter === 'function';
export const isPreScore = (p: Plugin): p is PreScorePlugin => typeof (p as PreScorePlugin).preScore === 'function';
export const isScore = (p: Plugin): p is ScorePlugin => typeof (p as ScorePlugin).score === 'function';
export const isReserve = (p: Plugin): p is ReservePlugin => typeof (p as ReservePlugin).reserve === 'function';
export const isPermit = (p: Plugin): p is PermitPlugin => typeof (p as PermitPlugin).permit === 'function';
export const isPreBind = (p: Plugin): p is PreBindPlugin => typeof (p as PreBindPlugin).preBind === 'function';
export const isBind = (p: Plugin): p is BindPlugin => typeof (p as BindPlugin).bind === 'function';
export const isPostBind = (p: Plugin): p is PostBindPlugin => typeof (p as PostBindPlugin).postBind === 'function';
export const isEnqueueExtensions = (p: Plugin): p is EnqueueExtensions => typeof (p as EnqueueExtensions).eventsToRegister === 'function';

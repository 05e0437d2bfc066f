/**
 * Shared scheduler data types: PodInfo (a pod with its requests and host ports parsed
 * once), QueuedPodInfo (a pod in the scheduling queue with its attempts and the
 * plugins that rejected it), cluster events, PreFilterResult.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/types.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/events.go
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { affinityTerms, NO_TERMS, NO_WEIGHTED, weightedAffinityTerms, type AffinityTerm, type WeightedAffinityTerm } from './affinity.js';
import { computePodRequests, type Resource } from './resource.js';

/** A host port a pod claims: `ip` defaults to 0.0.0.0, `protocol` to TCP. */
export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

/** `namespace/name`, the key pods are known by in queue, cache and informers. */
export function podKey(pod: Pod): string {
  const m = pod.metadata ?? {};
  return `${m.namespace ?? ''}/${m.name ?? ''}`;
}

/** spec.priority, 0 when unset (upstream corev1helpers.PodPriority). */
export function podPriority(pod: Pod): number {
  return pod.spec?.priority ?? 0;
}

/** Host ports of the app containers (hostPort > 0 only), defaults applied. */
export function podHostPorts(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      if (!p.hostPort || p.hostPort <= 0) continue;
      out.push({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol || 'TCP', port: p.hostPort });
    }
  }
  return out;
}

/** `namespace/claim` keys of the PVCs a pod's volumes use (ephemeral volumes: `<pod>-<volume>`). */
export function podPVCKeys(pod: Pod): string[] {
  const vols = pod.spec?.volumes;
  if (!vols || vols.length === 0) return NO_STRINGS;
  const ns = pod.metadata?.namespace ?? '';
  let out: string[] | null = null;
  for (const v of vols) {
    let claim = '';
    if (v.persistentVolumeClaim) claim = v.persistentVolumeClaim.claimName;
    else if (v.ephemeral) claim = `${pod.metadata?.name ?? ''}-${v.name}`;
    else continue;
    (out ??= []).push(`${ns}/${claim}`);
  }
  return out ?? NO_STRINGS;
}

const NO_STRINGS: string[] = [];
const NO_PORTS: HostPort[] = [];

/**
 * A pod with the data every cycle needs precomputed. Build one per pod object (a new
 * object after each update); never mutate `pod`. Inter-pod affinity terms are parsed
 * only for pods that have them; a parse error is kept in `parseError` (the pod is then
 * unschedulable by InterPodAffinity, as upstream's NewPodInfo error).
 */
export class PodInfo {
  readonly key: string;
  readonly uid: string;
  readonly priority: number;
  /** effective requests (see computePodRequests) */
  readonly requests: Resource;
  /** cpu (millicores) with the 100m default for containers lacking a request */
  readonly nonZeroCPU: number;
  /** memory (bytes) with the 200Mi default for containers lacking a request */
  readonly nonZeroMemory: number;
  readonly hostPorts: HostPort[];
  /** PVC keys (`ns/claim`) of the pod's volumes */
  readonly pvcKeys: string[];
  requiredAffinityTerms: AffinityTerm[] = NO_TERMS;
  requiredAntiAffinityTerms: AffinityTerm[] = NO_TERMS;
  preferredAffinityTerms: WeightedAffinityTerm[] = NO_WEIGHTED;
  preferredAntiAffinityTerms: WeightedAffinityTerm[] = NO_WEIGHTED;
  /** the pod has podAffinity or podAntiAffinity (upstream podWithAffinity) */
  readonly hasAffinity: boolean;
  /** message of a selector parse error in the affinity terms, '' if none */
  parseError = '';

  /**
   * @param from a PodInfo of an earlier version of the same pod whose spec did not
   *   change in the fields parsed here (e.g. the assumed copy of a pod now seen bound):
   *   its parsed data is reused instead of parsing again.
   */
  constructor(
    readonly pod: Pod,
    from?: PodInfo,
  ) {
    if (from) {
      this.key = from.key;
      this.uid = from.uid;
      this.priority = from.priority;
      this.requests = from.requests;
      this.nonZeroCPU = from.nonZeroCPU;
      this.nonZeroMemory = from.nonZeroMemory;
      this.hostPorts = from.hostPorts;
      this.pvcKeys = from.pvcKeys;
      this.hasAffinity = from.hasAffinity;
      this.requiredAffinityTerms = from.requiredAffinityTerms;
      this.requiredAntiAffinityTerms = from.requiredAntiAffinityTerms;
      this.preferredAffinityTerms = from.preferredAffinityTerms;
      this.preferredAntiAffinityTerms = from.preferredAntiAffinityTerms;
      this.parseError = from.parseError;
      return;
    }
    this.key = podKey(pod);
    this.uid = pod.metadata?.uid ?? '';
    this.priority = podPriority(pod);
    this.requests = computePodRequests(pod, false);
    const nz = computePodRequests(pod, true);
    this.nonZeroCPU = nz.milliCPU;
    this.nonZeroMemory = nz.memory;
    const ports = podHostPorts(pod);
    this.hostPorts = ports.length ? ports : NO_PORTS;
    this.pvcKeys = podPVCKeys(pod);
    const a = pod.spec?.affinity;
    this.hasAffinity = !!a && (!!a.podAffinity || !!a.podAntiAffinity);
    if (this.hasAffinity) {
      try {
        this.requiredAffinityTerms = affinityTerms(pod, a!.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
        this.requiredAntiAffinityTerms = affinityTerms(pod, a!.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
        this.preferredAffinityTerms = weightedAffinityTerms(pod, a!.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
        this.preferredAntiAffinityTerms = weightedAffinityTerms(pod, a!.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
      } catch (e) {
        this.parseError = e instanceof Error ? e.message : String(e);
      }
    }
  }
}

/** A pod in the scheduling queue. Times are ms from the queue's clock. */
export interface QueuedPodInfo {
  podInfo: PodInfo;
  /** when the pod was added to (or last moved within) the queue */
  timestamp: number;
  /** scheduling attempts so far (incremented on every pop) */
  attempts: number;
  /** when the pod was first popped; undefined before */
  initialAttemptTimestamp?: number;
  /** plugins that rejected the pod in its last attempt (Unschedulable*) */
  unschedulablePlugins: Set<string>;
  /** plugins that returned Pending in its last attempt */
  pendingPlugins: Set<string>;
  /** the PreEnqueue plugin holding the pod back ('' when not gated) */
  gatingPlugin: string;
  /** the gating plugin's message (e.g. "waiting for scheduling gates: [a b]") */
  gatingMessage: string;
}

export function newQueuedPodInfo(pod: Pod, now: number): QueuedPodInfo {
  return {
    podInfo: new PodInfo(pod),
    timestamp: now,
    attempts: 0,
    unschedulablePlugins: new Set(),
    pendingPlugins: new Set(),
    gatingPlugin: '',
    gatingMessage: '',
  };
}

/** What a cluster event is about. */
export type EventResource = 'Pod' | 'Node' | 'PersistentVolume' | 'PersistentVolumeClaim' | 'StorageClass' | 'CSIDriver' | 'CSIStorageCapacity' | '*';

/** Bit flags of what happened, as upstream's `framework.ActionType`. */
export const ActionType = {
  Add: 1,
  Delete: 1 << 1,
  UpdateNodeAllocatable: 1 << 2,
  UpdateNodeLabel: 1 << 3,
  UpdateNodeTaint: 1 << 4,
  UpdateNodeCondition: 1 << 5,
  UpdateNodeAnnotation: 1 << 6,
  UpdatePodLabel: 1 << 7,
  UpdatePodScaleDown: 1 << 8,
  UpdatePodTolerations: 1 << 9,
  UpdatePodSchedulingGatesEliminated: 1 << 10,
  /** any other pod update */
  UpdatePodOther: 1 << 11,
  /** every update */
  Update: (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11),
  All: (1 << 12) - 1,
} as const;

/** A change in the cluster that may make unschedulable pods schedulable. */
export interface ClusterEvent {
  resource: EventResource;
  /** ActionType bits */
  actionType: number;
  /** for logs and metrics, e.g. "NodeAdd", "AssignedPodDelete" */
  label: string;
}

/** Upstream's QueueingHint: whether an event may make a rejected pod schedulable. */
export enum QueueingHint {
  QueueSkip = 0,
  Queue = 1,
}

/**
 * Decides for one rejected `pod` whether `event` (old/new objects, either may be
 * undefined) is worth a retry. Throwing is treated as Queue.
 */
export type QueueingHintFn = (pod: Pod, oldObj: unknown, newObj: unknown) => QueueingHint;

export interface ClusterEventWithHint {
  event: ClusterEvent;
  queueingHintFn?: QueueingHintFn;
}

/** Well-known events. */
export const Events = {
  NodeAdd: { resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' },
  NodeDelete: { resource: 'Node', actionType: ActionType.Delete, label: 'NodeDelete' },
  AssignedPodAdd: { resource: 'Pod', actionType: ActionType.Add, label: 'AssignedPodAdd' },
  AssignedPodUpdate: { resource: 'Pod', actionType: ActionType.Update, label: 'AssignedPodUpdate' },
  AssignedPodDelete: { resource: 'Pod', actionType: ActionType.Delete, label: 'AssignedPodDelete' },
  UnschedulableTimeout: { resource: '*', actionType: ActionType.All, label: 'UnschedulableTimeout' },
  ForceActivate: { resource: '*', actionType: ActionType.All, label: 'ForceActivate' },
} as const satisfies Record<string, ClusterEvent>;

/** Whether `registered` covers `ev` (resource equal or wildcard, any common action bit). */
export function eventMatches(registered: ClusterEvent, ev: ClusterEvent): boolean {
  if (ev.resource === '*') return true;
  if (registered.resource !== '*' && registered.resource !== ev.resource) return false;
  return (registered.actionType & ev.actionType) !== 0;
}

/**
 * A PreFilter plugin's narrowing of the candidate nodes. `nodeNames` null = all nodes.
 */
export class PreFilterResult {
  constructor(readonly nodeNames: Set<string> | null) {}

  allNodes(): boolean {
    return this.nodeNames === null;
  }

  /** Intersection of two results (null stands for "all nodes"). */
  static merge(a: PreFilterResult | null, b: PreFilterResult | null): PreFilterResult | null {
    if (!a || a.allNodes()) return b;
    if (!b || b.allNodes()) return a;
    const out = new Set<string>();
    for (const n of a.nodeNames!) if (b.nodeNames!.has(n)) out.add(n);
    return new PreFilterResult(out);
  }
}

/** How PostFilter wants the pod's nominatedNodeName set. */
export interface NominatingInfo {
  nominatedNodeName: string;
  /** 'Override' sets/clears the field; 'Noop' leaves it */
  mode: 'Override' | 'Noop';
}

export interface PostFilterResult {
  nominatingInfo: NominatingInfo | null;
}

/** Highest and lowest score a Score plugin may return after NormalizeScore. */
export const MAX_NODE_SCORE = 100;
export const MIN_NODE_SCORE = 0;

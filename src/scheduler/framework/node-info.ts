/**
 * NodeInfo: a node together with what the scheduler knows is placed on it — pods
 * (bound and assumed), requested and non-zero-requested resources, host ports in use,
 * image states — plus a generation that grows on every change, used to refresh
 * snapshots incrementally. The node's allocatable is parsed once per node object.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/types.go
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { Resource, resourceFromList } from './resource.js';
import type { HostPort, PodInfo } from './types.js';

let generationCounter = 0;

/** A new, cluster-unique, increasing generation number. */
export function nextGeneration(): number {
  return ++generationCounter;
}

/**
 * Host ports in use on a node: ip → set of `protocol/port`. `0.0.0.0` conflicts with
 * every ip.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/types.go (HostPortInfo)
 */
export class HostPortInfo {
  private readonly byIP = new Map<string, Map<string, number>>();

  get size(): number {
    return this.byIP.size;
  }

  add(p: HostPort): void {
    let m = this.byIP.get(p.ip);
    if (!m) this.byIP.set(p.ip, (m = new Map()));
    const k = `${p.protocol}/${p.port}`;
    m.set(k, (m.get(k) ?? 0) + 1);
  }

  remove(p: HostPort): void {
    const m = this.byIP.get(p.ip);
    if (!m) return;
    const k = `${p.protocol}/${p.port}`;
    const n = (m.get(k) ?? 0) - 1;
    if (n > 0) m.set(k, n);
    else m.delete(k);
    if (m.size === 0) this.byIP.delete(p.ip);
  }

  /** Whether `p` conflicts with a port in use. */
  checkConflict(p: HostPort): boolean {
    if (this.byIP.size === 0) return false;
    const k = `${p.protocol}/${p.port}`;
    if (p.ip === '0.0.0.0') {
      for (const m of this.byIP.values()) if (m.has(k)) return true;
      return false;
    }
    return !!(this.byIP.get(p.ip)?.has(k) || this.byIP.get('0.0.0.0')?.has(k));
  }

  clone(): HostPortInfo {
    const c = new HostPortInfo();
    for (const [ip, m] of this.byIP) c.byIP.set(ip, new Map(m));
    return c;
  }
}

/** Size and spread of an image across nodes (for ImageLocality). */
export interface ImageStateSummary {
  /** bytes */
  size: number;
  /** how many nodes have the image */
  numNodes: number;
}

export class NodeInfo {
  /** The node object; null while only pods are known (node not yet seen). */
  node: Node | null = null;
  /** node name (kept when node is null) */
  name = '';
  /** node labels ({} when the node has none), for hot-path lookups */
  labels: Record<string, string> = NO_LABELS;
  pods: PodInfo[] = [];
  /** pods with podAffinity or podAntiAffinity */
  podsWithAffinity: PodInfo[] = [];
  /** pods with required pod anti-affinity terms */
  podsWithRequiredAntiAffinity: PodInfo[] = [];
  /** sum of the pods' effective requests */
  requested = new Resource();
  /** requested, with the 100m/200Mi defaults for containers without requests */
  nonZeroRequested = new Resource();
  /** parsed status.allocatable; allowedPodNumber from `pods` */
  allocatable = new Resource();
  usedPorts = new HostPortInfo();
  /** `ns/claim` → number of pods on the node using the PVC */
  pvcRefCounts = new Map<string, number>();
  /** image name → summary (size, nodes having it), filled by the cache */
  imageStates: Map<string, ImageStateSummary> = NO_IMAGES;
  generation = nextGeneration();
  /** row in its snapshot's list and columns; -1 when not a snapshot's copy */
  index = -1;
  /** values derived from the pods (e.g. how many match a selector), dropped on any change */
  private memo: Map<string, unknown> | null = null;

  constructor(node?: Node) {
    if (node) this.setNode(node);
  }

  /**
   * A value derived from this node's pods and labels, computed once per NodeInfo
   * version: the cache is dropped whenever pods or the node change, and snapshot copies
   * start empty. `key` must identify the computation completely.
   */
  memoized<T>(key: string, compute: () => T): T {
    const m = (this.memo ??= new Map());
    let v = m.get(key) as T | undefined;
    if (v === undefined) {
      v = compute();
      m.set(key, v);
    }
    return v;
  }

  /** The memoized value under `key` (see {@link memoized}), or undefined. Pass the same key string object each time: its hash is cached. */
  memoGet<T>(key: string): T | undefined {
    return this.memo === null ? undefined : (this.memo.get(key) as T | undefined);
  }

  memoSet(key: string, v: unknown): void {
    (this.memo ??= new Map()).set(key, v);
  }

  /** Sets the node object; re-parses allocatable. */
  setNode(node: Node): void {
    this.memo = null;
    this.node = node;
    this.name = node.metadata?.name ?? '';
    this.labels = (node.metadata?.labels as Record<string, string> | undefined) ?? NO_LABELS;
    this.allocatable = resourceFromList(node.status?.allocatable as Record<string, string> | undefined);
    this.generation = nextGeneration();
  }

  /** Forgets the node object (pods may still be accounted). */
  removeNode(): void {
    this.node = null;
    this.generation = nextGeneration();
  }

  addPodInfo(pi: PodInfo): void {
    this.memo = null;
    this.pods.push(pi);
    if (pi.hasAffinity) {
      this.podsWithAffinity.push(pi);
      if (pi.requiredAntiAffinityTerms.length) this.podsWithRequiredAntiAffinity.push(pi);
    }
    this.update(pi, 1);
  }

  /** Removes the pod with this key; returns false if it is not on the node. */
  removePod(key: string): boolean {
    const i = this.pods.findIndex((p) => p.key === key);
    if (i < 0) return false;
    const pi = this.pods[i]!;
    this.memo = null;
    // order does not matter: swap-remove
    this.pods[i] = this.pods[this.pods.length - 1]!;
    this.pods.pop();
    if (pi.hasAffinity) {
      this.podsWithAffinity = this.podsWithAffinity.filter((p) => p.key !== key);
      this.podsWithRequiredAntiAffinity = this.podsWithRequiredAntiAffinity.filter((p) => p.key !== key);
    }
    this.update(pi, -1);
    return true;
  }

  private update(pi: PodInfo, sign: 1 | -1): void {
    if (sign > 0) this.requested.add(pi.requests);
    else this.requested.sub(pi.requests);
    this.nonZeroRequested.milliCPU += sign * pi.nonZeroCPU;
    this.nonZeroRequested.memory += sign * pi.nonZeroMemory;
    for (const p of pi.hostPorts) {
      if (sign > 0) this.usedPorts.add(p);
      else this.usedPorts.remove(p);
    }
    for (const k of pi.pvcKeys) {
      const n = (this.pvcRefCounts.get(k) ?? 0) + sign;
      if (n > 0) this.pvcRefCounts.set(k, n);
      else this.pvcRefCounts.delete(k);
    }
    this.generation = nextGeneration();
  }

  /** A copy whose lists and vectors can change without touching this one. PodInfos are shared (immutable). */
  clone(): NodeInfo {
    const c = new NodeInfo();
    c.node = this.node;
    c.name = this.name;
    c.labels = this.labels;
    c.pods = this.pods.slice();
    c.podsWithAffinity = this.podsWithAffinity.length ? this.podsWithAffinity.slice() : [];
    c.podsWithRequiredAntiAffinity = this.podsWithRequiredAntiAffinity.length ? this.podsWithRequiredAntiAffinity.slice() : [];
    c.requested = this.requested.clone();
    c.nonZeroRequested = this.nonZeroRequested.clone();
    c.allocatable = this.allocatable;
    c.usedPorts = this.usedPorts.size ? this.usedPorts.clone() : new HostPortInfo();
    c.pvcRefCounts = this.pvcRefCounts.size ? new Map(this.pvcRefCounts) : new Map();
    c.imageStates = this.imageStates;
    c.generation = this.generation;
    return c;
  }
}

const NO_LABELS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NO_IMAGES: Map<string, ImageStateSummary> = new Map();

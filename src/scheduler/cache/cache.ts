/**
 * The scheduler cache: a NodeInfo per node with the pods bound or assumed on it.
 * A pod is assumed when the scheduler picks its node (before the bind is sent),
 * confirmed when the bound pod arrives from the informer, forgotten when binding
 * fails, and — with a TTL — expired if no confirmation arrives after binding finished
 * (upstream's TTL is 0: never). Snapshots are refreshed incrementally: NodeInfos are
 * kept in most-recently-changed order and only those newer than the snapshot's
 * generation are copied.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/backend/cache/cache.go
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { NodeInfo, type ImageStateSummary } from '../framework/node-info.js';
import type { Snapshot } from '../framework/snapshot.js';
import { PodInfo, podKey } from '../framework/types.js';
import type { Clock } from '../queue/scheduling-queue.js';
import { NodeTree } from './node-tree.js';

interface PodState {
  pi: PodInfo;
  node: string;
  assumed: boolean;
  bindingFinished: boolean;
  /** ms deadline after binding finished (assumed pods with a TTL) */
  deadline?: number;
}

/** A NodeInfo in the recency list. */
interface Item {
  info: NodeInfo;
  prev: Item | null;
  next: Item | null;
}

/** Thrown for inconsistent cache operations (upstream returns errors). */
export class CacheError extends Error {
  override name = 'CacheError';
}

export class Cache {
  private readonly items = new Map<string, Item>();
  private head: Item | null = null;
  private readonly pods = new Map<string, PodState>();
  private readonly nodeTree = new NodeTree();
  /** image name → summary shared by the NodeInfos of the nodes having it */
  private readonly images = new Map<string, ImageStateSummary>();

  /** @param ttlMs how long an assumed pod may stay unconfirmed after binding finished; 0 = forever */
  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = 0,
  ) {}

  // ---- nodes ----

  addNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    const it = this.items.get(name) ?? this.newItem(name);
    if (it.info.node) this.nodeTree.update(it.info.node, node);
    else this.nodeTree.add(node);
    const oldImages = it.info.node?.status?.images;
    const newImages = node.status?.images;
    it.info.setNode(node);
    if (oldImages !== newImages && (oldImages?.length || newImages?.length)) this.updateImages(it.info, newImages);
    this.moveToHead(it);
  }

  /** Re-links a node's image summaries (upstream addNodeImageStates/removeNodeImageStates). */
  private updateImages(info: NodeInfo, images: { names?: string[]; sizeBytes?: number }[] | undefined): void {
    for (const [name, st] of info.imageStates) {
      st.numNodes--;
      if (st.numNodes <= 0) this.images.delete(name);
    }
    const m = new Map<string, ImageStateSummary>();
    for (const img of images ?? []) {
      for (const name of img.names ?? []) {
        if (m.has(name)) continue;
        let st = this.images.get(name);
        if (!st) this.images.set(name, (st = { size: img.sizeBytes ?? 0, numNodes: 0 }));
        st.numNodes++;
        m.set(name, st);
      }
    }
    info.imageStates = m;
  }

  updateNode(_old: Node, node: Node): void {
    this.addNode(node);
  }

  /** Removes the node; its NodeInfo stays while pods still reference it. */
  removeNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    const it = this.items.get(name);
    if (!it) return;
    if (it.info.node) this.nodeTree.remove(it.info.node);
    if (it.info.imageStates.size) this.updateImages(it.info, undefined);
    it.info.removeNode();
    if (it.info.pods.length === 0) this.removeItem(it);
    else this.moveToHead(it);
  }

  nodeCount(): number {
    return this.nodeTree.size;
  }

  // ---- pods ----

  /**
   * Accounts a pod the scheduler picked `pod.spec.nodeName` for. Throws if already known.
   *
   * @param from the PodInfo of the same pod before its node was set (the queue's), whose
   *   parsed data is reused: a PodInfo does not depend on `spec.nodeName`
   */
  assumePod(pod: Pod, from?: PodInfo): void {
    const key = from ? from.key : podKey(pod);
    if (this.pods.has(key)) throw new CacheError(`pod ${key} is in the cache, so can't be assumed`);
    const node = pod.spec?.nodeName ?? '';
    const pi = from && from.uid === (pod.metadata?.uid ?? '') ? new PodInfo(pod, from) : new PodInfo(pod);
    this.addToNode(node, pi);
    this.pods.set(key, { pi, node, assumed: true, bindingFinished: false });
  }

  /** Binding returned (successfully or not): the TTL starts. `key` is the pod's podKey when the caller has it. */
  finishBinding(pod: Pod, key?: string): void {
    const st = this.pods.get(key ?? podKey(pod));
    if (!st || !st.assumed) return;
    st.bindingFinished = true;
    if (this.ttlMs > 0) st.deadline = this.clock.now() + this.ttlMs;
  }

  /** Drops an assumed pod (binding failed). Throws if the pod is not assumed. */
  forgetPod(pod: Pod): void {
    const key = podKey(pod);
    const st = this.pods.get(key);
    if (!st) return;
    if (!st.assumed) throw new CacheError(`pod ${key} wasn't assumed so cannot be forgotten`);
    this.removeFromNode(st.node, key);
    this.pods.delete(key);
  }

  /** Whether the pod is assumed; `key` is its podKey when the caller has it. */
  isAssumedPod(pod: Pod, key?: string): boolean {
    return this.pods.get(key ?? podKey(pod))?.assumed ?? false;
  }

  /**
   * A bound pod seen by the informer: confirms an assumed pod (moving it if it landed
   * elsewhere) or adds it.
   */
  addPod(pod: Pod): void {
    const key = podKey(pod);
    const node = pod.spec?.nodeName ?? '';
    const st = this.pods.get(key);
    // confirming an assumed pod: the spec fields PodInfo parses are immutable, reuse them
    const reuse = st && st.assumed && st.pi.uid === (pod.metadata?.uid ?? '') && st.pi.pod.spec?.nodeName === node;
    const pi = reuse ? new PodInfo(pod, st.pi) : new PodInfo(pod);
    if (st) {
      this.removeFromNode(st.node, key);
      if (!st.assumed) {
        // already known (e.g. relist): treat as update
      }
    }
    this.addToNode(node, pi);
    this.pods.set(key, { pi, node, assumed: false, bindingFinished: false });
  }

  updatePod(_old: Pod, pod: Pod): void {
    this.addPod(pod);
  }

  removePod(pod: Pod): void {
    const key = podKey(pod);
    const st = this.pods.get(key);
    if (!st) return;
    this.removeFromNode(st.node, key);
    this.pods.delete(key);
  }

  /** Drops assumed pods whose binding finished more than the TTL ago. Returns the expired pods. */
  cleanupExpiredAssumedPods(): Pod[] {
    if (this.ttlMs <= 0) return [];
    const now = this.clock.now();
    const out: Pod[] = [];
    for (const [key, st] of this.pods) {
      if (st.assumed && st.bindingFinished && st.deadline !== undefined && now >= st.deadline) {
        this.removeFromNode(st.node, key);
        this.pods.delete(key);
        out.push(st.pi.pod);
      }
    }
    return out;
  }

  podCount(): number {
    return this.pods.size;
  }

  /** Pods assumed and not yet confirmed by the informer. */
  assumedPodCount(): number {
    let n = 0;
    for (const st of this.pods.values()) if (st.assumed) n++;
    return n;
  }

  /** The cache's NodeInfo (live; do not mutate). For tests and debugging. */
  nodeInfo(name: string): NodeInfo | undefined {
    return this.items.get(name)?.info;
  }

  // ---- snapshot ----

  /**
   * Brings `snap` up to date: copies NodeInfos changed since `snap.generation`, drops
   * removed nodes, and rebuilds the node order when the set of nodes changed.
   */
  updateSnapshot(snap: Snapshot): void {
    const before = snap.generation;
    let listChanged = false;
    const replaced: NodeInfo[] = [];
    for (let it = this.head; it && it.info.generation > before; it = it.next) {
      const info = it.info;
      const had = snap.nodeInfoMap.has(info.name);
      if (!info.node) {
        if (had) {
          snap.nodeInfoMap.delete(info.name);
          listChanged = true;
        }
        continue;
      }
      const copy = info.clone();
      snap.nodeInfoMap.set(info.name, copy);
      if (!had) listChanged = true;
      else replaced.push(copy);
    }
    if (this.head) snap.generation = this.head.info.generation;
    if (snap.nodeInfoMap.size !== this.nodeTree.size) {
      for (const name of [...snap.nodeInfoMap.keys()]) {
        const it = this.items.get(name);
        if (!it || !it.info.node) snap.nodeInfoMap.delete(name);
      }
      listChanged = true;
    }
    if (listChanged) {
      const list: NodeInfo[] = [];
      for (const n of this.nodeTree.list()) {
        const ni = snap.nodeInfoMap.get(n);
        if (ni) list.push(ni);
      }
      snap.setList(list);
    } else {
      for (const ni of replaced) {
        const i = snap.positions.get(ni.name);
        if (i !== undefined) snap.replaceAt(i, ni);
      }
    }
  }

  // ---- internals ----

  private addToNode(node: string, pi: PodInfo): void {
    const it = this.items.get(node) ?? this.newItem(node);
    it.info.addPodInfo(pi);
    this.moveToHead(it);
  }

  private removeFromNode(node: string, key: string): void {
    const it = this.items.get(node);
    if (!it) return;
    it.info.removePod(key);
    if (!it.info.node && it.info.pods.length === 0) this.removeItem(it);
    else this.moveToHead(it);
  }

  private newItem(name: string): Item {
    const info = new NodeInfo();
    info.name = name;
    const it: Item = { info, prev: null, next: null };
    this.items.set(name, it);
    return it;
  }

  private unlink(it: Item): void {
    if (it.prev) it.prev.next = it.next;
    if (it.next) it.next.prev = it.prev;
    if (this.head === it) this.head = it.next;
    it.prev = it.next = null;
  }

  private moveToHead(it: Item): void {
    if (this.head === it) return;
    this.unlink(it);
    it.next = this.head;
    if (this.head) this.head.prev = it;
    this.head = it;
  }

  private removeItem(it: Item): void {
    this.unlink(it);
    this.items.delete(it.info.name);
  }
}

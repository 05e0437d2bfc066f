/**
 * Snapshot: the cluster state one scheduling cycle works on — a NodeInfo per node
 * (copies, refreshed incrementally from the cache by generation), the node list in the
 * order nodes are examined, and the derived lists InterPodAffinity and
 * VolumeRestrictions need (nodes having pods with affinity / required anti-affinity,
 * PVCs in use), rebuilt lazily when a node holding such pods changed.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/backend/cache/snapshot.go
 */
import { NodeColumns } from './node-columns.js';
import type { NodeInfo } from './node-info.js';

export class Snapshot {
  /** node name → NodeInfo (only infos whose node object is known are listed) */
  readonly nodeInfoMap = new Map<string, NodeInfo>();
  /** nodes in examination order (zones interleaved) */
  nodeInfoList: NodeInfo[] = [];
  /** node name → index in nodeInfoList (maintained by the cache) */
  readonly positions = new Map<string, number>();
  /** the cache generation this snapshot reflects */
  generation = 0;
  /** hot per-node numbers by row (= position in nodeInfoList) */
  readonly cols = new NodeColumns();
  private derivedDirty = true;
  private withAffinity: NodeInfo[] = [];
  private withRequiredAntiAffinity: NodeInfo[] = [];
  private usedPVCs = new Set<string>();

  /** The NodeInfo of a node, or undefined. */
  get(name: string): NodeInfo | undefined {
    return this.nodeInfoMap.get(name);
  }

  list(): NodeInfo[] {
    return this.nodeInfoList;
  }

  numNodes(): number {
    return this.nodeInfoList.length;
  }

  /** Replaces the node list, re-indexing every row. */
  setList(list: NodeInfo[]): void {
    this.nodeInfoList = list;
    this.positions.clear();
    this.cols.resize(list.length);
    for (let i = 0; i < list.length; i++) {
      const ni = list[i]!;
      ni.index = i;
      this.positions.set(ni.name, i);
      this.cols.set(i, ni);
    }
    this.derivedDirty = true;
  }

  /** Replaces the NodeInfo at row `i` (same node). */
  replaceAt(i: number, ni: NodeInfo): void {
    ni.index = i;
    this.nodeInfoList[i] = ni;
    this.cols.set(i, ni);
  }

  /**
   * Tells the snapshot that a node's pods with affinity or PVCs may have changed
   * (called by the cache when it replaces such a NodeInfo).
   */
  invalidateDerived(): void {
    this.derivedDirty = true;
  }

  private refreshDerived(): void {
    if (!this.derivedDirty) return;
    this.derivedDirty = false;
    const a: NodeInfo[] = [];
    const r: NodeInfo[] = [];
    const pvcs = new Set<string>();
    for (const ni of this.nodeInfoList) {
      if (ni.podsWithAffinity.length) a.push(ni);
      if (ni.podsWithRequiredAntiAffinity.length) r.push(ni);
      if (ni.pvcRefCounts.size) for (const k of ni.pvcRefCounts.keys()) pvcs.add(k);
    }
    this.withAffinity = a;
    this.withRequiredAntiAffinity = r;
    this.usedPVCs = pvcs;
  }

  /** Nodes with at least one pod having pod affinity or anti-affinity (upstream HavePodsWithAffinityList). */
  havePodsWithAffinityList(): NodeInfo[] {
    this.refreshDerived();
    return this.withAffinity;
  }

  /** Nodes with at least one pod having required anti-affinity (upstream HavePodsWithRequiredAntiAffinityList). */
  havePodsWithRequiredAntiAffinityList(): NodeInfo[] {
    this.refreshDerived();
    return this.withRequiredAntiAffinity;
  }

  /** Whether some pod on a node uses the PVC `ns/claim` (upstream IsPVCUsedByPods). */
  isPVCUsedByPods(key: string): boolean {
    this.refreshDerived();
    return this.usedPVCs.has(key);
  }

  /** A snapshot of the given NodeInfos (for tests and tools). */
  static from(infos: NodeInfo[]): Snapshot {
    const s = new Snapshot();
    for (const ni of infos) s.nodeInfoMap.set(ni.name, ni);
    s.setList(infos.slice());
    return s;
  }
}

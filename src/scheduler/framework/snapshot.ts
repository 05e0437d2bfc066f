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
import { TopologyIndexes } from './topology-index.js';
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
  /** label-value and pod-count columns for topology plugins */
  readonly topo = new TopologyIndexes();
  /** rows whose node has pods with affinity / required anti-affinity */
  private readonly affinityRows = new Set<number>();
  private readonly antiRows = new Set<number>();
  /** `ns/claim` → number of nodes with pods using it */
  private readonly pvcNodes = new Map<string, number>();
  private listsDirty = true;
  private withAffinity: NodeInfo[] = [];
  private withRequiredAntiAffinity: NodeInfo[] = [];

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
    this.topo.reset();
    this.affinityRows.clear();
    this.antiRows.clear();
    this.pvcNodes.clear();
    for (let i = 0; i < list.length; i++) {
      const ni = list[i]!;
      ni.index = i;
      this.positions.set(ni.name, i);
      this.cols.set(i, ni);
      this.track(i, ni, 1);
    }
    this.listsDirty = true;
  }

  /** Replaces the NodeInfo at row `i` (same node). */
  replaceAt(i: number, ni: NodeInfo): void {
    const old = this.nodeInfoList[i];
    if (old) this.track(i, old, -1);
    ni.index = i;
    this.nodeInfoList[i] = ni;
    this.cols.set(i, ni);
    this.topo.replaced(i, ni);
    this.track(i, ni, 1);
  }

  /** Adds (+1) or removes (−1) a row's contribution to the derived lists. */
  private track(i: number, ni: NodeInfo, sign: 1 | -1): void {
    if (ni.podsWithAffinity.length) {
      this.listsDirty = true;
      if (sign > 0) this.affinityRows.add(i);
      else this.affinityRows.delete(i);
    }
    if (ni.podsWithRequiredAntiAffinity.length) {
      this.listsDirty = true;
      if (sign > 0) this.antiRows.add(i);
      else this.antiRows.delete(i);
    }
    if (ni.pvcRefCounts.size) {
      for (const k of ni.pvcRefCounts.keys()) {
        const n = (this.pvcNodes.get(k) ?? 0) + sign;
        if (n > 0) this.pvcNodes.set(k, n);
        else this.pvcNodes.delete(k);
      }
    }
  }

  private refreshLists(): void {
    if (!this.listsDirty) return;
    this.listsDirty = false;
    const rows = (s: Set<number>) => {
      const out: NodeInfo[] = [];
      for (const r of s) out.push(this.nodeInfoList[r]!);
      return out;
    };
    this.withAffinity = rows(this.affinityRows);
    this.withRequiredAntiAffinity = rows(this.antiRows);
  }

  /** Nodes with at least one pod having pod affinity or anti-affinity (upstream HavePodsWithAffinityList). */
  havePodsWithAffinityList(): NodeInfo[] {
    this.refreshLists();
    return this.withAffinity;
  }

  /** Nodes with at least one pod having required anti-affinity (upstream HavePodsWithRequiredAntiAffinityList). */
  havePodsWithRequiredAntiAffinityList(): NodeInfo[] {
    this.refreshLists();
    return this.withRequiredAntiAffinity;
  }

  /** Whether some pod on a node uses the PVC `ns/claim` (upstream IsPVCUsedByPods). */
  isPVCUsedByPods(key: string): boolean {
    return this.pvcNodes.has(key);
  }

  /** A snapshot of the given NodeInfos (for tests and tools). */
  static from(infos: NodeInfo[]): Snapshot {
    const s = new Snapshot();
    for (const ni of infos) s.nodeInfoMap.set(ni.name, ni);
    s.setList(infos.slice());
    return s;
  }
}

/**
 * Snapshot: the cluster state one scheduling cycle works on — a NodeInfo per node
 * (copies, refreshed incrementally from the cache by generation) and the node list in
 * the order nodes are examined.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/backend/cache/snapshot.go
 */
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

  /** A snapshot of the given NodeInfos (for tests and tools). */
  static from(infos: NodeInfo[]): Snapshot {
    const s = new Snapshot();
    for (const ni of infos) s.nodeInfoMap.set(ni.name, ni);
    s.nodeInfoList = infos.slice();
    infos.forEach((ni, i) => s.positions.set(ni.name, i));
    return s;
  }
}

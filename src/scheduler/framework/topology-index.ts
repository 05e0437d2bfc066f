/**
 * Per-snapshot indexes for topology-aware plugins (PodTopologySpread): for a node
 * label key, the value of every row as a small integer id; for a (namespace, selector)
 * pair, the number of matching pods of every row, filled lazily. Both are kept in step
 * with the snapshot (a replaced row is re-read, its count forgotten), so a cycle sums
 * typed arrays instead of walking every node's labels and pods.
 */
import type { NodeInfo } from './node-info.js';

/** Label values of one key, by row: ids[row] = id of the value, −1 when the node lacks the label. */
export class TopologyIndex {
  ids: Int32Array;
  readonly values: string[] = [];
  private readonly byValue = new Map<string, number>();

  constructor(
    readonly key: string,
    list: NodeInfo[],
  ) {
    this.ids = new Int32Array(list.length);
    for (let i = 0; i < list.length; i++) this.ids[i] = this.idOf(list[i]!.labels[key]);
  }

  /** The id of a value (assigned on first sight); −1 for undefined. */
  idOf(value: string | undefined): number {
    if (value === undefined) return -1;
    let id = this.byValue.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.byValue.set(value, id);
    }
    return id;
  }

  /** The id of a value if it was seen, else −1 (no assignment). */
  peek(value: string): number {
    return this.byValue.get(value) ?? -1;
  }

  /** Re-reads row `i`. */
  update(i: number, ni: NodeInfo): void {
    this.ids[i] = this.idOf(ni.labels[this.key]);
  }
}

/** Most (namespace, selector) count columns kept; beyond, all are dropped. */
const MAX_COUNT_COLUMNS = 64;
/** Most label keys indexed; beyond, all are dropped. */
const MAX_TOPOLOGY_KEYS = 32;

/** The indexes of one snapshot. */
export class TopologyIndexes {
  private readonly topo = new Map<string, TopologyIndex>();
  private readonly counts = new Map<string, Int32Array>();

  /** The index of label `key` over `list` (built on first use). */
  topology(key: string, list: NodeInfo[]): TopologyIndex {
    let t = this.topo.get(key);
    if (!t) {
      if (this.topo.size >= MAX_TOPOLOGY_KEYS) this.topo.clear();
      this.topo.set(key, (t = new TopologyIndex(key, list)));
    }
    return t;
  }

  /** A per-row count column for `key` (−1 = not computed yet), created on first use. */
  countColumn(key: string, rows: number): Int32Array {
    let c = this.counts.get(key);
    if (!c) {
      if (this.counts.size >= MAX_COUNT_COLUMNS) this.counts.clear();
      this.counts.set(key, (c = new Int32Array(rows).fill(-1)));
    }
    return c;
  }

  /** The snapshot re-listed its nodes: everything is rebuilt on demand. */
  reset(): void {
    this.topo.clear();
    this.counts.clear();
  }

  /** Row `i` now holds `ni`. */
  replaced(i: number, ni: NodeInfo): void {
    for (const t of this.topo.values()) t.update(i, ni);
    for (const c of this.counts.values()) c[i] = -1;
  }
}

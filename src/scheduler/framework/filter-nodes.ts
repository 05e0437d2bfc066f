/**
 * The Filter phase over many nodes, plugin by plugin: nodes are taken in chunks from
 * the round-robin start, each Filter plugin runs over the chunk's surviving nodes
 * (through its `filterAll` fast path when it has one, so the per-node call is
 * monomorphic), and a node is dropped at the first plugin rejecting it — the same
 * verdicts as running all plugins node by node, in far less time. Nodes with nominated
 * pods take the per-node path (two passes with and without the nominated pods).
 * The search stops once `toFind` feasible nodes are found; like upstream's parallel
 * search, nodes of the last chunk beyond that point may have been examined.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/schedule_one.go (findNodesThatPassFilters)
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState } from './cycle-state.js';
import type { Diagnosis } from './fit-error.js';
import type { FilterPlugin } from './interface.js';
import type { NodeInfo } from './node-info.js';
import type { Framework } from './runtime.js';
import { asStatus, Code, type Status } from './status.js';

/** Thrown for an Error status in the cycle (the scheduler's "SchedulerError"). */
export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message());
    this.name = 'SchedulingStatusError';
  }
}

/** Smallest chunk examined at once. */
const MIN_CHUNK = 8;

let buf: NodeInfo[] = [];
let bufIdx = new Int32Array(0);
let out: (Status | null)[] = [];

/** Feasible nodes with their snapshot rows (−1 when unknown). */
export interface Feasible {
  nodes: NodeInfo[];
  idx: Int32Array;
}

/** The snapshot rows of `nodes` (−1 for NodeInfos that are not the snapshot's). */
export function rowsOf(fwk: Framework, nodes: NodeInfo[]): Int32Array {
  const list = fwk.snapshotSharedLister().nodeInfoList;
  const idx = new Int32Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) {
    const ni = nodes[i]!;
    const r = ni.index;
    idx[i] = r >= 0 && list[r] === ni ? r : -1;
  }
  return idx;
}

/** Whether a node has nominated pods the filter must account for. */
function hasNominated(fwk: Framework, ni: NodeInfo, prio: number, uid: string | undefined): boolean {
  const l = fwk.nominator.nominatedPodsForNode(ni.name);
  for (const pi of l) if (pi.priority >= prio && pi.uid !== uid) return true;
  return false;
}

/** Records a rejection (or throws on an error status). */
function reject(d: Diagnosis, plugin: string, ni: NodeInfo, s: Status): void {
  if (!s.isRejected()) throw new StatusError(wrapFilterError(plugin, s));
  s.withPlugin(plugin);
  d.nodeToStatus.set(ni.name, s);
  d.addPluginStatus(s);
}

function wrapFilterError(plugin: string, s: Status): Status {
  return asStatus(new Error(`running "${plugin}" filter plugin: ${s.message()}`)).withPlugin(plugin);
}

/**
 * Filters `nodes` starting at `start` (wrapping) until `toFind` fit. Rejections go to
 * `d`. Returns the feasible nodes (at most `toFind`).
 *
 * @throws StatusError when a plugin returns an Error status
 */
export function filterNodes(fwk: Framework, state: CycleState, pod: Pod, nodes: NodeInfo[], start: number, toFind: number, d: Diagnosis): Feasible {
  const n = nodes.length;
  const feasible: NodeInfo[] = [];
  // rows of the feasible nodes; at most toFind + one chunk of them
  let feasibleIdx: Int32Array = new Int32Array(Math.min(n, toFind) + MIN_CHUNK);
  let nf = 0;
  const snap = fwk.snapshotSharedLister();
  const list = snap.nodeInfoList;
  const cols = snap.cols;
  const direct = nodes === list;
  const skip = state.skipFilterPlugins;
  const filters: FilterPlugin[] = skip.size === 0 ? fwk.plugins.filter : fwk.plugins.filter.filter((p) => !skip.has(p.name));
  const nominatorEmpty = fwk.nominator.isEmpty?.() ?? false;
  const prio = pod.spec?.priority ?? 0;
  const uid = pod.metadata?.uid;
  const observed = state.pluginObserver !== undefined;
  const sample = state.recordPluginMetrics || observed;
  let examined = 0;
  while (examined < n && feasible.length < toFind) {
    const need = toFind - feasible.length;
    const size = Math.min(n - examined, Math.max(need, MIN_CHUNK));
    if (buf.length < size) {
      buf = new Array<NodeInfo>(size);
      bufIdx = new Int32Array(size);
      out = new Array<Status | null>(size);
    }
    let k = 0;
    for (let i = 0; i < size; i++) {
      let pos = start + examined + i;
      if (pos >= n) pos -= n;
      const ni = nodes[pos]!;
      let row = pos;
      if (!direct) {
        row = ni.index;
        if (row < 0 || list[row] !== ni) row = -1;
      }
      if (!nominatorEmpty && hasNominated(fwk, ni, prio, uid)) {
        const s = fwk.runFilterPluginsWithNominatedPods(state, pod, ni);
        if (s === null || s.code === Code.Success) {
          if (nf === feasibleIdx.length) feasibleIdx = grow(feasibleIdx);
          feasible.push(ni);
          feasibleIdx[nf++] = row;
        } else if (s.code === Code.Error) throw new StatusError(s);
        else {
          d.nodeToStatus.set(ni.name, s);
          d.addPluginStatus(s);
        }
        continue;
      }
      bufIdx[k] = row;
      buf[k++] = ni;
    }
    examined += size;
    for (let f = 0; f < filters.length && k > 0; f++) {
      const p = filters[f]!;
      const t0 = sample ? performance.now() : 0;
      if (p.filterAll) {
        // a plugin that says every node passed leaves the chunk as it is
        if (p.filterAll(state, pod, buf, bufIdx, cols, k, out) === 0) {
          if (sample) fwk.observePlugin(state, p.name, 'Filter', t0, null);
          continue;
        }
      } else for (let i = 0; i < k; i++) out[i] = p.filter(state, pod, buf[i]!);
      let j = 0;
      const rejected: string[] | undefined = observed ? [] : undefined;
      for (let i = 0; i < k; i++) {
        const s = out[i]!;
        if (s === null || s.code === Code.Success) {
          bufIdx[j] = bufIdx[i]!;
          buf[j++] = buf[i]!;
        } else {
          reject(d, p.name, buf[i]!, s);
          rejected?.push(buf[i]!.name);
        }
      }
      k = j;
      if (sample) fwk.observePlugin(state, p.name, 'Filter', t0, null, rejected);
    }
    if (nf + k > feasibleIdx.length) feasibleIdx = grow(feasibleIdx, nf + k);
    for (let i = 0; i < k; i++) {
      feasible.push(buf[i]!);
      feasibleIdx[nf++] = bufIdx[i]!;
    }
  }
  if (feasible.length > toFind) feasible.length = toFind;
  return { nodes: feasible, idx: feasibleIdx.subarray(0, feasible.length) };
}

/** A copy of `a` with room for at least `min` (default: twice as many) entries. */
function grow(a: Int32Array, min = 0): Int32Array<ArrayBuffer> {
  const b = new Int32Array(Math.max(min, a.length * 2, 16));
  b.set(a);
  return b;
}

/**
 * Why a pod fits nowhere: per-node statuses (NodeToStatus), the PreFilter and
 * PostFilter messages, and the plugins that rejected the pod (used to decide which
 * cluster events retry it). FitError renders upstream's message exactly:
 * `0/3 nodes are available: 1 node(s) had untolerated taint {k: v}, 2 Insufficient cpu.`
 * then ` preemption: …` when a PostFilter plugin ran.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/types.go (FitError, Diagnosis)
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Code, Status } from './status.js';

/** The message prefix when no node fits (`0/<N> nodes are available`). */
export function noNodeAvailableMsg(numAllNodes: number): string {
  return `0/${numAllNodes} nodes are available`;
}

/** Message when the cluster has no nodes at all (upstream ErrNoNodesAvailable). */
export const ERR_NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

/**
 * Statuses of the nodes a pod was tried on. Nodes not listed explicitly have
 * `absentNodesStatus` (default UnschedulableAndUnresolvable without reasons).
 */
export class NodeToStatus {
  private readonly m = new Map<string, Status>();
  absentNodesStatus: Status = new Status(Code.UnschedulableAndUnresolvable);

  set(node: string, s: Status): void {
    this.m.set(node, s);
  }

  /** The node's status (the absent status when not listed). */
  get(node: string): Status {
    return this.m.get(node) ?? this.absentNodesStatus;
  }

  /** Explicitly listed node count. */
  get size(): number {
    return this.m.size;
  }

  entries(): IterableIterator<[string, Status]> {
    return this.m.entries();
  }

  /** Nodes (from `all`) whose status has `code`, absent ones included. */
  nodesForStatusCode<T extends { name: string }>(all: T[], code: Code): T[] {
    const out: T[] = [];
    for (const n of all) if (this.get(n.name).code === code) out.push(n);
    return out;
  }
}

/** What the scheduling cycle learned about a failure. */
export class Diagnosis {
  nodeToStatus = new NodeToStatus();
  /** plugins that returned Unschedulable/UnschedulableAndUnresolvable */
  unschedulablePlugins = new Set<string>();
  /** plugins that returned Pending */
  pendingPlugins = new Set<string>();
  /** message of a PreFilter rejection ('' if PreFilter passed) */
  preFilterMsg = '';
  /** message of the PostFilter plugins ('' if none ran or they had nothing to say) */
  postFilterMsg = '';

  /** Records the plugin of a rejecting status. */
  addPluginStatus(s: Status): void {
    if (!s.plugin) return;
    if (s.code === Code.Pending) this.pendingPlugins.add(s.plugin);
    else if (s.isRejected()) this.unschedulablePlugins.add(s.plugin);
  }
}

/** Sort like Go's sort.Strings (byte-wise for the ASCII reasons we produce). */
function goSortStrings(a: string[]): string[] {
  return a.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}

/** A pod fits no node. `message` is upstream's FitError.Error(). */
export class FitError extends Error {
  constructor(
    readonly pod: Pod,
    readonly numAllNodes: number,
    readonly diagnosis: Diagnosis,
  ) {
    super(); // no own `message`: the getter below renders it
    this.name = 'FitError';
  }

  override get message(): string {
    return fitErrorMessage(this.numAllNodes, this.diagnosis);
  }

  override set message(_v: string) {
    /* computed */
  }
}

/** Renders FitError.Error(): counts per reason sorted as strings, PreFilter message instead when set. */
export function fitErrorMessage(numAllNodes: number, d: Diagnosis): string {
  let msg = noNodeAvailableMsg(numAllNodes) + ':';
  if (d.preFilterMsg) {
    msg += ` ${d.preFilterMsg}.`;
  } else {
    const counts = new Map<string, number>();
    for (const [, s] of d.nodeToStatus.entries()) {
      for (const r of s.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
    }
    const absent = numAllNodes - d.nodeToStatus.size;
    if (absent > 0) {
      for (const r of d.nodeToStatus.absentNodesStatus.reasons) counts.set(r, (counts.get(r) ?? 0) + absent);
    }
    const parts: string[] = [];
    for (const [r, n] of counts) parts.push(`${n} ${r}`);
    if (parts.length) msg += ` ${goSortStrings(parts).join(', ')}.`;
  }
  if (d.postFilterMsg) msg += ` ${d.postFilterMsg}`;
  return msg;
}

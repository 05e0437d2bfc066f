/**
 * The taints the node lifecycle controller keeps on nodes: NoSchedule taints mirroring
 * the node's conditions and spec.unschedulable (upstream doNoScheduleTaintingPass), and the
 * NoExecute taint of an unready node — `node.kubernetes.io/not-ready` when Ready is False,
 * `node.kubernetes.io/unreachable` when Unknown (upstream doNoExecuteTaintingPass), which
 * taint-based eviction acts on.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/nodelifecycle/node_lifecycle_controller.go
 */
import type { Taint } from 'kubernetes-types/core/v1.js';
import type { Node } from './health.js';

const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

/** condition type → status → NoSchedule taint key (upstream nodeConditionToTaintKeyStatusMap) */
const CONDITION_TAINTS: Record<string, Record<string, string>> = {
  Ready: { False: TAINT_NOT_READY, Unknown: TAINT_UNREACHABLE },
  MemoryPressure: { True: 'node.kubernetes.io/memory-pressure' },
  DiskPressure: { True: 'node.kubernetes.io/disk-pressure' },
  NetworkUnavailable: { True: 'node.kubernetes.io/network-unavailable' },
  PIDPressure: { True: 'node.kubernetes.io/pid-pressure' },
};

/** Every key the NoSchedule pass manages. */
const NO_SCHEDULE_KEYS = new Set([...Object.values(CONDITION_TAINTS).flatMap((m) => Object.values(m)), TAINT_UNSCHEDULABLE]);

export interface TaintChange {
  add: Taint[];
  remove: Taint[];
}

/** The NoSchedule taints the node's conditions and spec.unschedulable call for, against those it has. */
export function noScheduleTaintChange(node: Node): TaintChange {
  const want = new Set<string>();
  for (const c of node.status?.conditions ?? []) {
    const key = CONDITION_TAINTS[c.type]?.[c.status];
    if (key) want.add(key);
  }
  if (node.spec?.unschedulable) want.add(TAINT_UNSCHEDULABLE);
  const have = (node.spec?.taints ?? []).filter((t) => t.effect === 'NoSchedule' && NO_SCHEDULE_KEYS.has(t.key));
  const haveKeys = new Set(have.map((t) => t.key));
  return {
    add: [...want].filter((k) => !haveKeys.has(k)).map((key) => ({ key, effect: 'NoSchedule' })),
    remove: have.filter((t) => !want.has(t.key)),
  };
}

/** The NoExecute taint change for the node's Ready condition status. */
export function noExecuteTaintChange(node: Node, readyStatus: string | undefined): TaintChange {
  const taints = node.spec?.taints ?? [];
  const has = (key: string): Taint | undefined => taints.find((t) => t.key === key && t.effect === 'NoExecute');
  const swap = (addKey: string, removeKey: string): TaintChange => {
    const old = has(removeKey);
    return { add: has(addKey) ? [] : [{ key: addKey, effect: 'NoExecute' }], remove: old ? [old] : [] };
  };
  if (readyStatus === 'False') return swap(TAINT_NOT_READY, TAINT_UNREACHABLE);
  if (readyStatus === 'Unknown') return swap(TAINT_UNREACHABLE, TAINT_NOT_READY);
  return { add: [], remove: [has(TAINT_UNREACHABLE), has(TAINT_NOT_READY)].filter((t): t is Taint => !!t) };
}

/**
 * The node's taints with `change` applied; added taints get `timeAdded` = `now` (upstream
 * SwapNodeControllerTaint). Undefined when nothing changes.
 */
export function applyTaintChange(node: Node, change: TaintChange, now: string): Taint[] | undefined {
  if (!change.add.length && !change.remove.length) return undefined;
  const same = (a: Taint, b: Taint): boolean => a.key === b.key && a.effect === b.effect;
  const kept = (node.spec?.taints ?? []).filter((t) => !change.remove.some((r) => same(r, t)) && !change.add.some((a) => same(a, t)));
  return [...kept, ...change.add.map((t) => ({ ...t, timeAdded: now }))];
}

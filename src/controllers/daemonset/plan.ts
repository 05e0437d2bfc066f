/**
 * The DaemonSet controller's decisions as pure functions over one snapshot (nodes,
 * the DaemonSet's pods grouped by target node, the current revision hash, now):
 * which nodes need a pod and which pods go (upstream manage / podsShouldBeOnNode),
 * the RollingUpdate step with maxUnavailable or maxSurge (upstream rollingUpdate), and
 * the status counts (upstream updateDaemonSetStatus).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/daemon/daemon_controller.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/daemon/update.go
 */
import type { DaemonSetStatus } from 'kubernetes-types/apps/v1.js';
import { isPodAvailable, isPodReady, type Pod } from '../util/pods.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../util/history.js';
import { type DaemonPredicates, type DaemonSet, isPodUpdated, type Node, targetNodeName, templateGeneration } from './predicates.js';

/** node name → the DaemonSet's pods targeting it (terminal pods being deleted left out). */
export function groupByNode(pods: Pod[]): Map<string, Pod[]> {
  const m = new Map<string, Pod[]>();
  for (const p of pods) {
    const phase = p.status?.phase;
    if ((phase === 'Succeeded' || phase === 'Failed') && p.metadata?.deletionTimestamp) continue;
    const n = targetNodeName(p);
    if (n === undefined) continue;
    const l = m.get(n);
    if (l) l.push(p);
    else m.set(n, [p]);
  }
  return m;
}

const created = (p: Pod): number => (p.metadata?.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : 0);
const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** Oldest first; equal times by phase (upstream podByCreationTimestampAndPhase). */
function byCreationAndPhase(a: Pod, b: Pod): number {
  const d = created(a) - created(b);
  if (d !== 0) return d;
  const pa = PHASE_ORDER[a.status?.phase ?? ''] ?? 0;
  const pb = PHASE_ORDER[b.status?.phase ?? ''] ?? 0;
  if (pa !== pb) return pb - pa;
  return (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

/** A percentage or count of `total` rounded up (intstr.GetScaledValueFromIntOrPercent with roundUp). */
function scaled(v: number | string | undefined, total: number): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  if (v.endsWith('%')) return Math.ceil((Number(v.slice(0, -1)) * total) / 100);
  return Number.parseInt(v, 10) || 0;
}

/** maxSurge > 0 allowed (upstream AllowsSurge). */
function allowsSurge(ds: DaemonSet): boolean {
  const ru = ds.spec?.updateStrategy?.rollingUpdate;
  return (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' && scaled(ru?.maxSurge, 1) > 0;
}

interface ManagePlan {
  /** nodes needing a new daemon pod */
  create: string[];
  /** pods to delete */
  delete: Pod[];
  /** failed pods found (for the FailedDaemonPod event), with their node */
  failed: { pod: Pod; node: string }[];
}

/**
 * Upstream manage: per node, create a missing pod, delete failed/succeeded ones
 * (failed ones only when `failedAllowed(node)`), excess ones (the oldest kept; with
 * surge, the oldest new and oldest old per upstream's rule), and every pod on a node the
 * DaemonSet may no longer run on; plus unscheduled pods targeting nodes that no longer exist.
 */
export function managePlan(ds: DaemonSet, nodes: Node[], byNode: Map<string, Pod[]>, hash: string, pred: DaemonPredicates, failedAllowed: (node: string) => boolean): ManagePlan {
  const plan: ManagePlan = { create: [], delete: [], failed: [] };
  const surge = allowsSurge(ds);
  const names = new Set<string>();
  for (const node of nodes) {
    const name = node.metadata?.name ?? '';
    names.add(name);
    const [shouldRun, shouldContinue] = pred.shouldRun(node);
    const pods = byNode.get(name);
    if (shouldRun && !pods) {
      plan.create.push(name);
    } else if (shouldContinue) {
      const running: Pod[] = [];
      for (const p of pods ?? []) {
        if (p.metadata?.deletionTimestamp) continue;
        if (p.status?.phase === 'Failed') {
          if (!failedAllowed(name)) continue;
          plan.failed.push({ pod: p, node: name });
          plan.delete.push(p);
        } else if (p.status?.phase === 'Succeeded') plan.delete.push(p);
        else running.push(p);
      }
      if (running.length <= 1) continue;
      running.sort(byCreationAndPhase);
      if (!surge) {
        plan.delete.push(...running.slice(1));
        continue;
      }
      let oldestNew: Pod | undefined;
      let oldestOld: Pod | undefined;
      for (const p of running) {
        if (p.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash) {
          if (!oldestNew) {
            oldestNew = p;
            continue;
          }
        } else if (!oldestOld) {
          oldestOld = p;
          continue;
        }
        plan.delete.push(p);
      }
      if (oldestNew && oldestOld && (!isPodReady(oldestOld) || isPodReady(oldestNew))) plan.delete.push(oldestOld);
    } else if (pods) {
      for (const p of pods) if (!p.metadata?.deletionTimestamp) plan.delete.push(p);
    }
  }
  for (const [name, pods] of byNode) {
    if (names.has(name)) continue;
    for (const p of pods) if (!p.spec?.nodeName && !p.metadata?.deletionTimestamp) plan.delete.push(p);
  }
  return plan;
}

/** The pods on a node split into the one new and one old non-terminating pod; undefined when several of a kind (upstream findUpdatedPodsOnNode). */
function splitOnNode(ds: DaemonSet, pods: Pod[], hash: string): { newPod?: Pod; oldPod?: Pod } | undefined {
  const gen = templateGeneration(ds);
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const p of pods) {
    if (p.metadata?.deletionTimestamp) continue;
    if (isPodUpdated(p, hash, gen)) {
      if (newPod) return undefined;
      newPod = p;
    } else {
      if (oldPod) return undefined;
      oldPod = p;
    }
  }
  return { newPod, oldPod };
}

/**
 * Upstream rollingUpdate: without surge, delete old pods while fewer than maxUnavailable
 * nodes are unavailable (unavailable old pods always); with surge, create new pods next to
 * available old ones up to maxSurge (next to unavailable ones always) and delete each old
 * pod once the new one beside it is available.
 * @param now ms
 */
export function rollingUpdatePlan(
  ds: DaemonSet,
  nodes: Node[],
  byNode: Map<string, Pod[]>,
  hash: string,
  pred: DaemonPredicates,
  now: number,
): { delete: Pod[]; create: string[] } {
  const groups = new Map(byNode);
  const shouldRunOn = new Map<string, boolean>();
  let desired = 0;
  for (const n of nodes) {
    const name = n.metadata?.name ?? '';
    const run = pred.shouldRun(n)[0];
    shouldRunOn.set(name, run);
    if (!run) continue;
    desired++;
    if (!groups.has(name)) groups.set(name, []);
  }
  const ru = ds.spec?.updateStrategy?.rollingUpdate;
  let maxUnavailable = scaled(ru?.maxUnavailable ?? 1, desired);
  const maxSurge = scaled(ru?.maxSurge, desired);
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const available = (p: Pod): boolean => isPodAvailable(p, minReady, now);

  if (maxSurge === 0) {
    let unavailable = 0;
    const replace: Pod[] = [];
    const candidates: Pod[] = [];
    for (const pods of groups.values()) {
      const s = splitOnNode(ds, pods, hash);
      if (!s) {
        unavailable++;
        continue;
      }
      const { newPod, oldPod } = s;
      if ((!oldPod && !newPod) || (oldPod && newPod)) unavailable++;
      else if (newPod) {
        if (!available(newPod)) unavailable++;
      } else if (!available(oldPod!)) replace.push(oldPod!);
      else if (unavailable < maxUnavailable) candidates.push(oldPod!);
    }
    const room = Math.min(Math.max(0, maxUnavailable - unavailable), candidates.length);
    return { delete: [...replace, ...candidates.slice(0, room)], create: [] };
  }

  let surged = 0;
  const create: string[] = [];
  const del: Pod[] = [];
  for (const [node, pods] of groups) {
    const s = splitOnNode(ds, pods, hash);
    if (!s) continue;
    const { newPod, oldPod } = s;
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) {
        if (shouldRunOn.get(node)) create.push(node);
      } else if (surged < maxSurge) {
        surged++;
        create.push(node);
      }
    } else if (!available(newPod)) {
      surged++;
    } else {
      del.push(oldPod);
    }
  }
  return { delete: del, create };
}

/**
 * The status counts (upstream updateDaemonSetStatus); the oldest pod on a node decides
 * its readiness and whether it is updated.
 * @param now ms
 */
export function daemonSetStatus(ds: DaemonSet, nodes: Node[], byNode: Map<string, Pod[]>, hash: string, pred: DaemonPredicates, now: number): DaemonSetStatus {
  let desired = 0,
    current = 0,
    mis = 0,
    ready = 0,
    avail = 0,
    updated = 0;
  const gen = templateGeneration(ds);
  const minReady = ds.spec?.minReadySeconds ?? 0;
  for (const n of nodes) {
    const pods = byNode.get(n.metadata?.name ?? '') ?? [];
    const scheduled = pods.length > 0;
    if (!pred.shouldRun(n)[0]) {
      if (scheduled) mis++;
      continue;
    }
    desired++;
    if (!scheduled) continue;
    current++;
    const pod = [...pods].sort(byCreationAndPhase)[0]!;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReady, now)) avail++;
    }
    if (isPodUpdated(pod, hash, gen)) updated++;
  }
  return {
    desiredNumberScheduled: desired,
    currentNumberScheduled: current,
    numberMisscheduled: mis,
    numberReady: ready,
    numberAvailable: avail,
    updatedNumberScheduled: updated,
    numberUnavailable: desired - avail,
  };
}

/**
 * The StatefulSet update algorithm (upstream defaultStatefulSetControl.updateStatefulSet):
 * sort the pods into the replicas the ordinal range [start, start+replicas) wants and
 * the condemned ones beyond it, then
 *  1. recreate failed/succeeded pods, create missing ones, fix identity and storage —
 *     one at a time, waiting for each to be Running and Ready (OrderedReady), or all at
 *     once (Parallel);
 *  2. delete condemned pods from the highest ordinal down, one at a time unless Parallel,
 *     and not while an earlier one is unhealthy;
 *  3. RollingUpdate: delete the highest-ordinal pod ≥ partition not at the update revision
 *     once every higher one is healthy (or up to maxUnavailable with the
 *     MaxUnavailableStatefulSet gate); OnDelete: nothing.
 * Pods below the partition are created at the current revision.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/statefulset/stateful_set_control.go
 */
import type { StatefulSetStatus } from 'kubernetes-types/apps/v1.js';
import { slowStartBatch } from '../util/pod-control.js';
import type { Pod } from '../util/pods.js';
import {
  endOrdinal,
  identityMatches,
  isCreated,
  isFailed,
  isHealthy,
  isPending,
  isRunningAndAvailable,
  isRunningAndReady,
  isSucceeded,
  isTerminating,
  newStatefulSetPod,
  ordinalOf,
  podInOrdinalRange,
  podRevision,
  startOrdinal,
  type StatefulSet,
  storageMatches,
} from './pods.js';

/** The writes the algorithm makes (events included). */
export interface StatefulPodOps {
  /** creates the pod's missing claims, then the pod */
  createPod(set: StatefulSet, pod: Pod): Promise<void>;
  /** fixes identity and storage of an existing pod (a copy) and creates missing claims */
  updatePod(set: StatefulSet, pod: Pod): Promise<void>;
  deletePod(set: StatefulSet, pod: Pod): Promise<void>;
  /** creates the claims of a pending pod that are missing */
  createMissingClaims(set: StatefulSet, pod: Pod): Promise<void>;
  /** whether the pod's existing claims carry the owner references the retention policy wants */
  claimsMatchPolicy(set: StatefulSet, pod: Pod): boolean;
  /** fixes the owner references of the pod's claims for the retention policy */
  updateClaimsForPolicy(set: StatefulSet, pod: Pod): Promise<void>;
  /** a claim of the pod still belongs to an earlier pod of the same name */
  claimIsStale(set: StatefulSet, pod: Pod): boolean;
  /** a Warning/Normal event about the set */
  event(set: StatefulSet, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

interface UpdateInput {
  set: StatefulSet;
  /** the set with the current revision's template */
  currentSet: StatefulSet;
  /** the set with the update revision's template */
  updateSet: StatefulSet;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
  /** the set's pods (claimed, members by name) */
  pods: Pod[];
  ops: StatefulPodOps;
  /** ms */
  now: number;
  /** upstream feature gate MaxUnavailableStatefulSet (alpha, off by default) */
  maxUnavailableGate?: boolean;
  /** compute the status only (earlier writes not yet observed) */
  statusOnly?: boolean;
}

/** Upstream computeReplicaStatus over the given pods. */
function replicaStatus(pods: Pod[], minReadySeconds: number, currentRevision: string, updateRevision: string, now: number) {
  let replicas = 0,
    ready = 0,
    available = 0,
    current = 0,
    updated = 0;
  for (const p of pods) {
    if (isCreated(p)) replicas++;
    if (isRunningAndReady(p)) {
      ready++;
      if (isRunningAndAvailable(p, minReadySeconds, now)) available++;
    }
    if (isCreated(p) && !isTerminating(p)) {
      const r = podRevision(p);
      if (r === currentRevision) current++;
      if (r === updateRevision) updated++;
    }
  }
  return { replicas, readyReplicas: ready, availableReplicas: available, currentReplicas: current, updatedReplicas: updated };
}

/**
 * The new pod for `ordinal`: at the current revision below the partition (or, without
 * a rollingUpdate block, below the current replica count), else at the update revision
 * (upstream newVersionedStatefulSetPod).
 */
export function newVersionedPod(currentSet: StatefulSet, updateSet: StatefulSet, currentRevision: string, updateRevision: string, ordinal: number): Pod {
  const us = currentSet.spec?.updateStrategy;
  const start = startOrdinal(currentSet);
  if (
    (us?.type ?? 'RollingUpdate') === 'RollingUpdate' &&
    ((us?.rollingUpdate === undefined && ordinal < start + (currentSet.status?.currentReplicas ?? 0)) ||
      (us?.rollingUpdate !== undefined && ordinal < start + (us.rollingUpdate.partition ?? 0)))
  ) {
    return newStatefulSetPod(currentSet, ordinal, currentRevision);
  }
  return newStatefulSetPod(updateSet, ordinal, updateRevision);
}

/** A percentage or count of `total`, rounded up, at least 1 (upstream getStatefulSetMaxUnavailable). */
function scaledMaxUnavailable(v: number | string | undefined, total: number): number {
  let n: number;
  if (v === undefined) n = 1;
  else if (typeof v === 'number') n = v;
  else if (/^\d+%$/.test(v)) n = Math.ceil((Number(v.slice(0, -1)) * total) / 100);
  else n = Number.parseInt(v, 10) || 0;
  return Math.max(1, n);
}

interface UpdateResult {
  status: StatefulSetStatus;
  /** ms until a pod becomes available (requeue), when waiting on minReadySeconds */
  requeueAfterMs?: number;
}

/**
 * One pass of the algorithm; returns the status to write.
 * @throws the first write error (the status computed so far is lost; the caller retries)
 */
export async function updateStatefulSet(inp: UpdateInput): Promise<UpdateResult> {
  const { set, currentSet, updateSet, currentRevision, updateRevision, ops, now } = inp;
  const minReady = set.spec?.minReadySeconds ?? 0;
  const start = startOrdinal(set);
  const count = endOrdinal(set) - start;
  const replicas: Pod[] = new Array(count);
  const condemned: Pod[] = [];
  for (const p of inp.pods) {
    if (podInOrdinalRange(p, set)) replicas[ordinalOf(p) - start] = p;
    else if (ordinalOf(p) >= 0) condemned.push(p);
  }
  for (let i = 0; i < count; i++) replicas[i] ??= newVersionedPod(currentSet, updateSet, currentRevision, updateRevision, start + i);
  condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));

  let requeueAfterMs: number | undefined;
  const finish = (): UpdateResult => ({
    status: {
      observedGeneration: set.metadata?.generation ?? 0,
      currentRevision,
      updateRevision,
      collisionCount: inp.collisionCount,
      ...replicaStatus([...replicas, ...condemned], minReady, currentRevision, updateRevision, now),
    },
    requeueAfterMs,
  });

  let firstUnhealthy: Pod | undefined;
  for (const p of replicas)
    if (!isHealthy(p)) {
      firstUnhealthy = p;
      break;
    }
  if (!firstUnhealthy)
    for (const p of condemned)
      if (!isHealthy(p)) {
        firstUnhealthy = p;
        break;
      }

  if (set.metadata?.deletionTimestamp || inp.statusOnly) return finish();
  const monotonic = set.spec?.podManagementPolicy !== 'Parallel';

  const waitAvailable = (p: Pod): void => {
    const c = p.status?.conditions?.find((x) => x.type === 'Ready' && x.status === 'True');
    const at = c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) + minReady * 1000 : now + minReady * 1000;
    const ms = Math.max(0, at - now) + 100;
    requeueAfterMs = requeueAfterMs === undefined ? ms : Math.min(requeueAfterMs, ms);
  };

  /** upstream processReplica: true = stop here (monotonic) */
  const processReplica = async (i: number): Promise<boolean> => {
    const pod = replicas[i]!;
    if (isFailed(pod) || isSucceeded(pod)) {
      if (isFailed(pod))
        ops.event(set, 'Warning', 'RecreatingFailedPod', `StatefulSet ${set.metadata?.namespace}/${set.metadata?.name} is recreating failed Pod ${pod.metadata?.name}`);
      else ops.event(set, 'Normal', 'RecreatingTerminatedPod', `StatefulSet ${set.metadata?.namespace}/${set.metadata?.name} is recreating terminated Pod ${pod.metadata?.name}`);
      if (!pod.metadata?.deletionTimestamp) await ops.deletePod(set, pod);
      return true;
    }
    if (!isCreated(pod)) {
      // wait for the garbage collector to remove a claim of an earlier incarnation
      if (ops.claimIsStale(set, pod)) return true;
      await ops.createPod(set, pod);
      return monotonic;
    }
    if (isPending(pod)) await ops.createMissingClaims(set, pod);
    if (isTerminating(pod) && monotonic) return true;
    if (!isRunningAndReady(pod) && monotonic) return true;
    if (!isRunningAndAvailable(pod, minReady, now) && monotonic) {
      waitAvailable(pod);
      return true;
    }
    if (identityMatches(set, pod) && storageMatches(set, pod) && ops.claimsMatchPolicy(updateSet, pod)) return false;
    await ops.updatePod(updateSet, structuredClone(pod));
    return false;
  };

  /** upstream processCondemned */
  const processCondemned = async (i: number): Promise<boolean> => {
    const pod = condemned[i]!;
    if (isTerminating(pod)) return monotonic;
    if (monotonic && pod !== firstUnhealthy) {
      if (!isRunningAndReady(pod)) return true;
      if (!isRunningAndAvailable(pod, minReady, now)) {
        waitAvailable(pod);
        return true;
      }
    }
    await ops.deletePod(set, pod);
    return true;
  };

  /** upstream runForAll: in order and stopping when told (monotonic), else slow-start batches */
  const runForAll = async (n: number, fn: (i: number) => Promise<boolean>): Promise<boolean> => {
    if (monotonic) {
      for (let i = 0; i < n; i++) if (await fn(i)) return true;
      return false;
    }
    const { error } = await slowStartBatch(n, 1, async (i) => {
      await fn(i);
    });
    if (error !== undefined) throw error;
    return false;
  };

  if (await runForAll(count, processReplica)) return finish();
  // claims of condemned pods: owned by the pod when whenScaled=Delete, before it goes
  for (const p of condemned) if (!ops.claimsMatchPolicy(updateSet, p)) await ops.updateClaimsForPolicy(updateSet, p);
  if (await runForAll(condemned.length, processCondemned)) return finish();

  const strategy = set.spec?.updateStrategy;
  if (strategy?.type === 'OnDelete') return finish();
  const updateMin = strategy?.rollingUpdate?.partition ?? 0;

  if (inp.maxUnavailableGate) {
    const maxUnavailable = scaledMaxUnavailable(strategy?.rollingUpdate?.maxUnavailable, count);
    let unavailable = 0;
    for (const p of replicas) if (!isHealthy(p)) unavailable++;
    if (unavailable >= maxUnavailable) return finish();
    let budget = maxUnavailable - unavailable;
    for (let t = count - 1; t >= updateMin && budget > 0; t--) {
      const p = replicas[t]!;
      if (podRevision(p) !== updateRevision && !isTerminating(p)) {
        budget--;
        await ops.deletePod(set, p);
      }
    }
    return finish();
  }

  for (let t = count - 1; t >= updateMin; t--) {
    const p = replicas[t]!;
    if (podRevision(p) !== updateRevision && !isTerminating(p)) {
      await ops.deletePod(set, p);
      return finish();
    }
    if (!isHealthy(p)) return finish();
  }
  return finish();
}

/**
 * Upstream completeRollingUpdate: once every pod is updated and ready, the update
 * revision becomes the current one. Mutates `status`.
 */
export function completeRollingUpdate(set: StatefulSet, status: StatefulSetStatus): void {
  if ((set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' && status.updatedReplicas === status.replicas && status.readyReplicas === status.replicas) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
}

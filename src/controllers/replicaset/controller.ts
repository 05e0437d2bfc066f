/**
 * ReplicaSet controller: keeps `spec.replicas` active pods matching the selector.
 * Orphans matching the selector are adopted, owned pods that stop matching are
 * released; missing pods are created from the template (`<rs>-<5 random>`, owner
 * reference controller=true blockOwnerDeletion=true) in slow-start batches, surplus pods
 * deleted in upstream's ranking order; expectations keep a stale cache from causing
 * double work. Status: replicas, fullyLabeledReplicas, readyReplicas, availableReplicas
 * (ready for minReadySeconds), observedGeneration and the ReplicaFailure condition.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/replicaset/replica_set.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/replicaset/replica_set_utils.go
 */
import type { ReplicaSet as KReplicaSet, ReplicaSetCondition, ReplicaSetStatus } from 'kubernetes-types/apps/v1.js';
import type { KObject } from '../../api/resource.js';
import { isNotFound, StatusError } from '../../apimachinery/errors.js';
import { labelSelectorAsSelector, selectorFromSet, type Selector } from '../../apimachinery/labels.js';
import { jsonEqual } from '../../apimachinery/validation.js';
import { keyOf } from '../../client/informer.js';
import { R, type ResourceRef } from '../../client/types.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { claimObjects, controllerRefOf, controllerResolver, controllersSelecting, isControlledBy, newControllerRef } from '../util/controller-ref.js';
import { adoptOrphans, ownedObjectHandlers } from '../util/owner-events.js';
import { Expectations } from '../util/expectations.js';
import { byControllerUID, byNamespace, Index } from '../util/informers.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import { PodControl, slowStartBatch, SLOW_START_INITIAL_BATCH_SIZE } from '../util/pod-control.js';
import { isPodActive, isPodAvailable, isPodReady, type Pod, podFromTemplate, podsToDelete, podAvailableAt } from '../util/pods.js';
import { W } from '../util/resources.js';
import { realClock } from '../../util/clock.js';

export type ReplicaSet = KReplicaSet & KObject;

/** Upstream BurstReplicas: most pods created or deleted in one sync. */
const BURST_REPLICAS = 500;

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Upstream calculateStatus: counts of the active pods, and the ReplicaFailure condition
 * set from a manage error (FailedCreate / FailedDelete) or removed once it succeeds.
 */
export function calculateReplicaSetStatus(rs: ReplicaSet, pods: Pod[], manageErr: unknown, now: number): ReplicaSetStatus {
  const status = structuredClone(rs.status ?? ({} as ReplicaSetStatus));
  const templateSel = selectorFromSet(rs.spec?.template?.metadata?.labels);
  let fully = 0;
  let ready = 0;
  let available = 0;
  const minReady = rs.spec?.minReadySeconds ?? 0;
  for (const p of pods) {
    if (templateSel.matches(p.metadata?.labels)) fully++;
    if (isPodReady(p)) {
      ready++;
      if (isPodAvailable(p, minReady, now)) available++;
    }
  }
  const failure = status.conditions?.find((c) => c.type === 'ReplicaFailure');
  if (manageErr && !failure) {
    const diff = pods.length - (rs.spec?.replicas ?? 1);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    const cond: ReplicaSetCondition = {
      type: 'ReplicaFailure',
      status: 'True',
      lastTransitionTime: rfc3339(now),
      reason,
      message: manageErr instanceof Error ? manageErr.message : String(manageErr),
    };
    status.conditions = [...(status.conditions ?? []), cond];
  } else if (!manageErr && failure) {
    status.conditions = status.conditions!.filter((c) => c.type !== 'ReplicaFailure');
    if (status.conditions.length === 0) delete status.conditions;
  }
  status.replicas = pods.length;
  status.fullyLabeledReplicas = fully;
  status.readyReplicas = ready;
  status.availableReplicas = available;
  return status;
}

/**
 * What differs between the ReplicaSet and the ReplicationController controllers
 * (upstream runs one controller for both, parametrised the same way).
 */
interface ReplicaSetKind {
  /** controller name (ServiceAccount, work queue) */
  name: string;
  resource: ResourceRef;
  apiVersion: string;
  kind: string;
  /** the object's selector: a LabelSelector (ReplicaSet) or a plain label map (ReplicationController) */
  selector(rs: ReplicaSet): Selector;
}

const REPLICASET_KIND: ReplicaSetKind = {
  name: 'replicaset-controller',
  resource: W.replicasets,
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  selector: (rs) => labelSelectorAsSelector(rs.spec?.selector),
};

/** The ReplicationController controller: the ReplicaSet controller over v1 ReplicationControllers. */
const REPLICATIONCONTROLLER_KIND: ReplicaSetKind = {
  name: 'replication-controller',
  resource: { group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController', namespaced: true },
  apiVersion: 'v1',
  kind: 'ReplicationController',
  selector: (rc) => {
    const set = rc.spec?.selector as unknown as Record<string, string> | undefined;
    return set && Object.keys(set).length ? selectorFromSet(set) : selectorFromSet(rc.spec?.template?.metadata?.labels);
  },
};

/** Starts the ReplicationController controller (upstream pkg/controller/replication). */
export function startReplicationControllerController(ctx: WorkloadControllerContext): Promise<RunningController> {
  return startReplicaSetController(ctx, REPLICATIONCONTROLLER_KIND);
}

export async function startReplicaSetController(ctx: WorkloadControllerContext, gvk: ReplicaSetKind = REPLICASET_KIND): Promise<RunningController> {
  const { client, recorder, informers } = ctx;
  const clock = ctx.clock ?? realClock;
  const rsInformer = informers.get<ReplicaSet>(gvk.resource);
  const podInformer = informers.get<Pod>(R.pods);
  const podsByNs = new Index(podInformer, byNamespace);
  const podsByOwner = new Index(podInformer, byControllerUID);
  const rsByNs = new Index(rsInformer, byNamespace);
  const expectations = new Expectations(() => clock.now());
  const podControl = new PodControl(client, recorder);

  const loop = new ControllerLoop({ name: gvk.name, clock, workers: ctx.workers, sync: (k) => sync(k) });

  /** The RS a pod's controller reference names (same namespace, same UID). */
  const resolveRef = controllerResolver(rsInformer, gvk.kind);

  /** ReplicaSets whose selector matches an orphan pod. */
  const rsForOrphan = (pod: Pod): ReplicaSet[] => controllersSelecting(rsByNs.get(pod.metadata?.namespace ?? ''), pod, gvk.selector);

  const enqueue = (rs: ReplicaSet): void => loop.enqueueObj(rs);
  const adopt = adoptOrphans(rsForOrphan, enqueue);
  const labelsChanged = (old: Pod, cur: Pod): boolean => !jsonEqual(old.metadata?.labels ?? {}, cur.metadata?.labels ?? {});
  podInformer.addEventHandler(
    ownedObjectHandlers<ReplicaSet, Pod>({
      resolve: resolveRef,
      enqueue,
      // a pod that is already going counts as a deletion, not a creation
      added: (rs, pod) => (pod.metadata?.deletionTimestamp ? expectations.deletionObserved(keyOf(rs), keyOf(pod)) : expectations.creationObserved(keyOf(rs))),
      updated(rs, old, cur) {
        if (cur.metadata?.deletionTimestamp) return expectations.deletionObserved(keyOf(rs), keyOf(cur));
        // a pod that just became ready becomes available after minReadySeconds
        const minReady = rs.spec?.minReadySeconds ?? 0;
        if (!isPodReady(old) && isPodReady(cur) && minReady > 0) loop.enqueueAfter(keyOf(rs), minReady * 1000 + 1000);
      },
      deleted: (rs, pod) => expectations.deletionObserved(keyOf(rs), keyOf(pod)),
      // an orphan may be adopted when it appears, or when its labels or owner change
      noOwner(pod, event, old) {
        if (event === 'delete' || pod.metadata?.deletionTimestamp) return;
        if (event === 'update' && old && !labelsChanged(old, pod) && !controllerRefOf(old)) return;
        adopt(pod);
      },
    }),
  );
  rsInformer.addEventHandler({
    add: (rs) => loop.enqueueObj(rs),
    update: (_o, rs) => loop.enqueueObj(rs),
    delete(rs) {
      expectations.delete(keyOf(rs));
      loop.enqueueObj(rs);
    },
  });

  async function manageReplicas(rs: ReplicaSet, pods: Pod[], key: string): Promise<void> {
    const ns = rs.metadata!.namespace!;
    const want = rs.spec?.replicas ?? 1;
    let diff = pods.length - want;
    if (diff < 0) {
      diff = Math.min(-diff, BURST_REPLICAS);
      expectations.expectCreations(key, diff);
      const ref = newControllerRef(rs, gvk.apiVersion, gvk.kind);
      const { successes, error } = await slowStartBatch(diff, SLOW_START_INITIAL_BATCH_SIZE, async () => {
        try {
          await podControl.create(ns, podFromTemplate(rs.spec?.template, rs.metadata!.name!, ref), rs);
        } catch (e) {
          // a terminating namespace refuses new pods: not an error of this ReplicaSet
          if (e instanceof StatusError && e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return;
          throw e;
        }
      });
      for (let i = 0; i < diff - successes; i++) expectations.creationObserved(key);
      if (error) throw error;
    } else if (diff > 0) {
      diff = Math.min(diff, BURST_REPLICAS);
      const related = relatedPods(rs);
      const victims = podsToDelete(pods, related, diff, clock.now());
      expectations.expectDeletions(
        key,
        victims.map((p) => keyOf(p)),
      );
      const results = await Promise.allSettled(
        victims.map(async (p) => {
          try {
            await podControl.delete(ns, p.metadata!.name!, rs);
          } catch (e) {
            expectations.deletionObserved(key, keyOf(p));
            if (!isNotFound(e)) throw e;
          }
        }),
      );
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
    }
  }

  /** Active pods of every ReplicaSet sharing this one's controller (upstream getIndirectlyRelatedPods). */
  function relatedPods(rs: ReplicaSet): Pod[] {
    const owner = controllerRefOf(rs);
    if (!owner) return podsByOwner.get(rs.metadata?.uid ?? '');
    const out: Pod[] = [];
    for (const sib of rsByNs.get(rs.metadata?.namespace ?? '')) {
      if (controllerRefOf(sib)?.uid !== owner.uid) continue;
      out.push(...podsByOwner.get(sib.metadata?.uid ?? ''));
    }
    return out;
  }

  async function updateStatus(rs: ReplicaSet, status: ReplicaSetStatus): Promise<ReplicaSet> {
    const gen = rs.metadata?.generation ?? 0;
    const cur = rs.status ?? ({} as ReplicaSetStatus);
    if (
      (cur.replicas ?? 0) === (status.replicas ?? 0) &&
      (cur.fullyLabeledReplicas ?? 0) === (status.fullyLabeledReplicas ?? 0) &&
      (cur.readyReplicas ?? 0) === (status.readyReplicas ?? 0) &&
      (cur.availableReplicas ?? 0) === (status.availableReplicas ?? 0) &&
      (cur.observedGeneration ?? 0) === gen &&
      jsonEqual(cur.conditions ?? [], status.conditions ?? [])
    ) {
      return rs;
    }
    let target = rs;
    for (let i = 0; ; i++) {
      const next = { ...target, status: { ...status, observedGeneration: target.metadata?.generation ?? gen } } as ReplicaSet;
      try {
        return await client.update<ReplicaSet>(gvk.resource, target.metadata!.namespace!, next, { subresource: 'status' });
      } catch (e) {
        if (i >= 1) throw e;
        target = await client.get<ReplicaSet>(gvk.resource, target.metadata!.namespace!, target.metadata!.name!);
      }
    }
  }

  async function sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const cached = rsInformer.getByName(ns, name);
    if (!cached) {
      expectations.delete(key);
      return;
    }
    const rs = structuredClone(cached);
    const needsSync = expectations.satisfied(key);
    let selector;
    try {
      selector = gvk.selector(rs);
    } catch {
      return; // invalid selector: validation prevents this
    }
    const active = podsByNs.get(ns).filter(isPodActive);
    const pods = await claimObjects<Pod>(active, {
      client,
      controller: rs,
      controllerAPIVersion: gvk.apiVersion,
      controllerKind: gvk.kind,
      controllerResource: gvk.resource,
      resource: R.pods,
      selector,
    });
    let manageErr: unknown;
    if (needsSync && !rs.metadata?.deletionTimestamp) {
      try {
        await manageReplicas(rs, pods, key);
      } catch (e) {
        manageErr = e;
      }
    }
    const now = clock.now();
    const status = calculateReplicaSetStatus(rs, pods, manageErr, now);
    const updated = await updateStatus(rs, status);
    const minReady = updated.spec?.minReadySeconds ?? 0;
    const want = updated.spec?.replicas ?? 1;
    if (!manageErr && minReady > 0 && updated.status?.readyReplicas === want && updated.status?.availableReplicas !== want) {
      // requeue when the next pod becomes available
      let next = Infinity;
      for (const p of pods) {
        const at = podAvailableAt(p, minReady);
        if (at !== undefined && at > now) next = Math.min(next, at);
      }
      loop.enqueueAfter(key, Number.isFinite(next) ? next - now + 100 : minReady * 1000);
    }
    if (manageErr) throw manageErr;
  }

  informers.start();
  await informers.waitForSync();
  loop.run();
  return {
    async stop() {
      await loop.stop();
    },
  };
}

export { isControlledBy };

/**
 * Deployment controller: owns ReplicaSets named `<deployment>-<pod-template-hash>` and
 * moves pods from old to new templates. RollingUpdate scales the new ReplicaSet up within
 * maxSurge and old ones down within maxUnavailable; Recreate scales old ones to zero,
 * waits for their pods to go, then scales the new one up. Scaling events (spec.replicas
 * changed) and paused deployments scale all active ReplicaSets proportionally. Old
 * ReplicaSets beyond revisionHistoryLimit are deleted once the rollout completes.
 *
 * Status: replicas / updated / ready / available / unavailable counts, observedGeneration,
 * the Available condition (MinimumReplicasAvailable / MinimumReplicasUnavailable) and the
 * Progressing condition (NewReplicaSetCreated, FoundNewReplicaSet, ReplicaSetUpdated,
 * NewReplicaSetAvailable, ProgressDeadlineExceeded, DeploymentPaused/Resumed), the
 * `deployment.kubernetes.io/revision` annotation on ReplicaSets and the Deployment.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/deployment/deployment_controller.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/deployment/sync.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/deployment/rolling.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/deployment/recreate.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/deployment/progress.go
 */
import type { DeploymentStatus } from 'kubernetes-types/apps/v1.js';
import { isAlreadyExists, isNotFound, StatusError } from '../../apimachinery/errors.js';
import { labelSelectorAsSelector } from '../../apimachinery/labels.js';
import { jsonEqual } from '../../apimachinery/validation.js';
import { keyOf } from '../../client/informer.js';
import { R } from '../../client/types.js';
import type { ReplicaSet } from '../replicaset/controller.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { claimObjects, controllerRefOf, controllerResolver, controllersSelecting, newControllerRef } from '../util/controller-ref.js';
import { adoptOrphans, ownedObjectHandlers } from '../util/owner-events.js';
import { computeHash } from '../util/hash.js';
import { byControllerUID, byNamespace, Index } from '../util/informers.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import type { Pod } from '../util/pods.js';
import { W } from '../util/resources.js';
import { realClock } from '../../util/clock.js';
import {
  activeRSs,
  byCreation,
  calculateStatus,
  type Deployment,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  DESIRED_REPLICAS_ANNOTATION,
  equalIgnoreHash,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  getCondition,
  getProportion,
  hasProgressDeadline,
  isRollingUpdate,
  isSaturated,
  maxRevision,
  maxSurge,
  maxUnavailable,
  newCondition,
  newRSNewReplicas,
  POD_TEMPLATE_HASH_LABEL,
  Reason,
  removeCondition,
  replicasAnnotationsNeedUpdate,
  revisionOf,
  setCondition,
  setDeploymentRevision,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  sumAvailable,
  sumReplicas,
} from './util.js';

const replicasOf = (o: { spec?: { replicas?: number } }): number => o.spec?.replicas ?? 0;

export async function startDeploymentController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, recorder, informers } = ctx;
  const clock = ctx.clock ?? realClock;
  const dInformer = informers.get<Deployment>(W.deployments);
  const rsInformer = informers.get<ReplicaSet>(W.replicasets);
  const podInformer = informers.get<Pod>(R.pods);
  const dByNs = new Index(dInformer, byNamespace);
  const rsByNs = new Index(rsInformer, byNamespace);
  const podsByOwner = new Index(podInformer, byControllerUID);

  const loop = new ControllerLoop({ name: 'deployment-controller', clock, workers: ctx.workers, sync: (k) => syncDeployment(k) });

  const resolveRef = controllerResolver(dInformer, 'Deployment');
  const deploymentsForOrphan = (rs: ReplicaSet): Deployment[] =>
    controllersSelecting(dByNs.get(rs.metadata?.namespace ?? ''), rs, (d) => labelSelectorAsSelector(d.spec?.selector));
  dInformer.addEventHandler({ add: (d) => loop.enqueueObj(d), update: (_o, d) => loop.enqueueObj(d), delete: (d) => loop.enqueueObj(d) });
  const enqueue = (d: Deployment): void => loop.enqueueObj(d);
  rsInformer.addEventHandler(ownedObjectHandlers<Deployment, ReplicaSet>({ resolve: resolveRef, enqueue, noOwner: adoptOrphans(deploymentsForOrphan, enqueue) }));
  podInformer.addEventHandler({
    // Recreate waits for old pods to go away
    delete(pod) {
      const rsRef = controllerRefOf(pod);
      if (!rsRef || rsRef.kind !== 'ReplicaSet') return;
      const rs = rsInformer.getByName(pod.metadata?.namespace ?? '', rsRef.name);
      if (!rs) return;
      const d = resolveRef(rs.metadata?.namespace ?? '', controllerRefOf(rs));
      if (d && d.spec?.strategy?.type === 'Recreate') loop.enqueueObj(d);
    },
  });

  /** Status write that keeps `d` current (resourceVersion and status) for later writes in the same sync. */
  async function updateStatus(d: Deployment): Promise<void> {
    const updated = await client.update<Deployment>(W.deployments, d.metadata!.namespace!, d, { subresource: 'status' });
    (d.metadata as { resourceVersion?: string }).resourceVersion = updated.metadata?.resourceVersion;
  }

  async function updateRS(rs: ReplicaSet): Promise<ReplicaSet> {
    return client.update<ReplicaSet>(W.replicasets, rs.metadata!.namespace!, rs);
  }

  async function getReplicaSetsForDeployment(d: Deployment): Promise<ReplicaSet[]> {
    const selector = labelSelectorAsSelector(d.spec?.selector);
    const rss = rsByNs.get(d.metadata!.namespace!).map((rs) => structuredClone(rs));
    return claimObjects<ReplicaSet>(rss, {
      client,
      controller: d,
      controllerAPIVersion: 'apps/v1',
      controllerKind: 'Deployment',
      controllerResource: W.deployments,
      resource: W.replicasets,
      selector,
    });
  }

  async function getNewReplicaSet(d: Deployment, rsList: ReplicaSet[], oldRSs: ReplicaSet[], create: boolean): Promise<ReplicaSet | undefined> {
    const now = clock.now();
    const existing = findNewReplicaSet(d, rsList);
    const newRevision = maxRevision(oldRSs) + 1;
    if (existing) {
      const rs = structuredClone(existing);
      const annotationsUpdated = setNewReplicaSetAnnotations(d, rs, newRevision, true);
      const minReadyChanged = (rs.spec?.minReadySeconds ?? 0) !== (d.spec?.minReadySeconds ?? 0);
      if (annotationsUpdated || minReadyChanged) {
        if (d.spec?.minReadySeconds) rs.spec!.minReadySeconds = d.spec.minReadySeconds;
        else delete rs.spec!.minReadySeconds;
        return updateRS(rs);
      }
      let needsUpdate = setDeploymentRevision(d, rs.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? '');
      const cond = getCondition(d.status, 'Progressing');
      if (hasProgressDeadline(d) && !cond) {
        const st = (d.status ??= {});
        setCondition(st, newCondition('Progressing', 'True', Reason.FoundNewRS, `Found new replica set "${rs.metadata!.name}"`, now));
        needsUpdate = true;
      }
      if (needsUpdate) await updateStatus(d);
      return rs;
    }
    if (!create) return undefined;

    const template = structuredClone(d.spec!.template);
    const hash = computeHash(template, d.status?.collisionCount);
    template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash } };
    const selector = structuredClone(d.spec!.selector);
    selector.matchLabels = { ...selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash };
    const newRS: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata!.name}-${hash}`,
        namespace: d.metadata!.namespace,
        ownerReferences: [newControllerRef(d, 'apps/v1', 'Deployment')],
        labels: { ...template.metadata.labels },
      },
      spec: { replicas: 0, selector, template },
    };
    if (d.spec?.minReadySeconds) newRS.spec!.minReadySeconds = d.spec.minReadySeconds;
    const count = newRSNewReplicas(d, [...oldRSs, newRS], newRS);
    newRS.spec!.replicas = count;
    setNewReplicaSetAnnotations(d, newRS, newRevision, false);
    let createdRS: ReplicaSet;
    let alreadyExists = false;
    try {
      createdRS = await client.create<ReplicaSet>(W.replicasets, d.metadata!.namespace!, newRS);
    } catch (e) {
      if (isAlreadyExists(e)) {
        alreadyExists = true;
        const rs = await client.get<ReplicaSet>(W.replicasets, d.metadata!.namespace!, newRS.metadata!.name!);
        if (controllerRefOf(rs)?.uid === d.metadata?.uid && equalIgnoreHash(d.spec?.template, rs.spec?.template)) {
          createdRS = rs;
        } else {
          // hash collision: bump collisionCount and retry on the next sync
          const st = (d.status ??= {});
          st.collisionCount = (st.collisionCount ?? 0) + 1;
          await updateStatus(d);
          throw e;
        }
      } else if (e instanceof StatusError && e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) {
        throw e;
      } else {
        const msg = `Failed to create new replica set "${newRS.metadata!.name}": ${e instanceof Error ? e.message : String(e)}`;
        if (hasProgressDeadline(d)) {
          setCondition((d.status ??= {}), newCondition('Progressing', 'False', Reason.FailedRSCreate, msg, now));
          await updateStatus(d).catch(() => undefined);
        }
        recorder.event(d, 'Warning', Reason.FailedRSCreate, msg);
        throw e;
      }
    }
    if (!alreadyExists && count > 0) recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${createdRS.metadata!.name} to ${count}`);
    let needsUpdate = setDeploymentRevision(d, String(newRevision));
    if (!alreadyExists && hasProgressDeadline(d)) {
      setCondition((d.status ??= {}), newCondition('Progressing', 'True', Reason.NewReplicaSet, `Created new replica set "${createdRS.metadata!.name}"`, now));
      needsUpdate = true;
    }
    if (needsUpdate) await updateStatus(d);
    return createdRS;
  }

  async function getAllReplicaSetsAndSyncRevision(d: Deployment, rsList: ReplicaSet[], create: boolean): Promise<[ReplicaSet | undefined, ReplicaSet[]]> {
    const oldRSs = findOldReplicaSets(d, rsList);
    const newRS = await getNewReplicaSet(d, rsList, oldRSs, create);
    return [newRS, oldRSs];
  }

  /** Scales one ReplicaSet (and its replica annotations), with the ScalingReplicaSet event. */
  async function scaleReplicaSet(rs: ReplicaSet, newScale: number, d: Deployment, op: string): Promise<[boolean, ReplicaSet]> {
    const want = d.spec?.replicas ?? 1;
    const max = want + maxSurge(d);
    const sizeNeedsUpdate = replicasOf(rs) !== newScale;
    if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, want, max)) return [false, rs];
    const oldScale = replicasOf(rs);
    const copy = structuredClone(rs);
    copy.spec!.replicas = newScale;
    setReplicasAnnotations(copy, want, max);
    const updated = await updateRS(copy);
    if (sizeNeedsUpdate) recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${op} replica set ${rs.metadata!.name} to ${newScale} from ${oldScale}`);
    return [sizeNeedsUpdate, updated];
  }

  async function scaleAndRecord(rs: ReplicaSet, newScale: number, d: Deployment): Promise<[boolean, ReplicaSet]> {
    if (replicasOf(rs) === newScale) return [false, rs];
    return scaleReplicaSet(rs, newScale, d, replicasOf(rs) < newScale ? 'up' : 'down');
  }

  /** Proportional scaling on scaling events and while paused (upstream scale). */
  async function scale(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): Promise<void> {
    const want = d.spec?.replicas ?? 1;
    const single = findActiveOrLatest(newRS, oldRSs);
    if (single) {
      if (replicasOf(single) === want) return;
      await scaleAndRecord(single, want, d);
      return;
    }
    if (isSaturated(d, newRS)) {
      for (const old of activeRSs(oldRSs)) await scaleAndRecord(old, 0, d);
      return;
    }
    if (!isRollingUpdate(d)) return;
    const all = activeRSs([...oldRSs, newRS]);
    const allowed = want > 0 ? want + maxSurge(d) : 0;
    const toAdd = allowed - sumReplicas(all);
    let op = '';
    if (toAdd > 0) {
      all.sort((a, b) => replicasOf(b) - replicasOf(a) || byCreation(b, a));
      op = 'up';
    } else if (toAdd < 0) {
      all.sort((a, b) => replicasOf(b) - replicasOf(a) || byCreation(a, b));
      op = 'down';
    }
    let added = 0;
    const sizes = new Map<ReplicaSet, number>();
    for (const rs of all) {
      if (toAdd !== 0) {
        const p = getProportion(rs, d, toAdd, added);
        sizes.set(rs, replicasOf(rs) + p);
        added += p;
      } else sizes.set(rs, replicasOf(rs));
    }
    for (let i = 0; i < all.length; i++) {
      const rs = all[i]!;
      if (i === 0 && toAdd !== 0) sizes.set(rs, Math.max(0, sizes.get(rs)! + toAdd - added));
      await scaleReplicaSet(rs, sizes.get(rs)!, d, op);
    }
  }

  async function cleanupDeployment(oldRSs: ReplicaSet[], d: Deployment): Promise<void> {
    const limit = d.spec?.revisionHistoryLimit;
    if (limit === undefined || limit === null) return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata?.deletionTimestamp);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    cleanable.sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    for (let i = 0; i < diff; i++) {
      const rs = cleanable[i]!;
      if ((rs.status?.replicas ?? 0) !== 0 || replicasOf(rs) !== 0 || (rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      try {
        await client.delete(W.replicasets, rs.metadata!.namespace!, rs.metadata!.name!);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }

  async function syncDeploymentStatus(allRSs: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment): Promise<void> {
    const st = calculateStatus(allRSs, newRS, d, clock.now());
    if (jsonEqual(d.status ?? {}, st)) return;
    d.status = st;
    await updateStatus(d);
  }

  /** Upstream syncRolloutStatus. */
  async function syncRolloutStatus(allRSs: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment): Promise<void> {
    const now = clock.now();
    const st = calculateStatus(allRSs, newRS, d, now);
    if (!hasProgressDeadline(d)) removeCondition(st, 'Progressing');
    const cur = getCondition(d.status, 'Progressing');
    const isComplete = st.replicas === st.updatedReplicas && cur?.reason === Reason.NewRSAvailable;
    if (hasProgressDeadline(d) && !isComplete) {
      const name = newRS?.metadata?.name;
      if (deploymentComplete(d, st)) {
        const msg = name ? `ReplicaSet "${name}" has successfully progressed.` : `Deployment "${d.metadata!.name}" has successfully progressed.`;
        setCondition(st, newCondition('Progressing', 'True', Reason.NewRSAvailable, msg, now));
      } else if (deploymentProgressing(d, st)) {
        const msg = name ? `ReplicaSet "${name}" is progressing.` : `Deployment "${d.metadata!.name}" is progressing.`;
        const c = newCondition('Progressing', 'True', Reason.ReplicaSetUpdated, msg, now);
        if (cur) {
          if (cur.status === 'True') c.lastTransitionTime = cur.lastTransitionTime;
          removeCondition(st, 'Progressing');
        }
        setCondition(st, c);
      } else if (deploymentTimedOut(d, st, now)) {
        const msg = name ? `ReplicaSet "${name}" has timed out progressing.` : `Deployment "${d.metadata!.name}" has timed out progressing.`;
        setCondition(st, newCondition('Progressing', 'False', Reason.TimedOut, msg, now));
      }
    }
    const failures = [...(newRS?.status?.conditions ?? []), ...allRSs.filter((rs) => rs !== newRS).flatMap((rs) => rs?.status?.conditions ?? [])].filter(
      (c) => c.type === 'ReplicaFailure',
    );
    if (failures.length) {
      const f = failures[0]!;
      setCondition(st, {
        type: 'ReplicaFailure',
        status: f.status,
        lastUpdateTime: f.lastTransitionTime,
        lastTransitionTime: f.lastTransitionTime,
        reason: f.reason,
        message: f.message,
      });
    } else removeCondition(st, 'ReplicaFailure');
    if (jsonEqual(d.status ?? {}, st)) {
      requeueStuckDeployment(d, st);
      return;
    }
    d.status = st;
    await updateStatus(d);
  }

  function requeueStuckDeployment(d: Deployment, st: DeploymentStatus): void {
    const cur = getCondition(d.status, 'Progressing');
    if (!hasProgressDeadline(d) || !cur) return;
    if (deploymentComplete(d, st) || cur.reason === Reason.TimedOut) return;
    const after = Date.parse(cur.lastUpdateTime ?? '') + (d.spec!.progressDeadlineSeconds ?? 0) * 1000 - clock.now();
    loop.enqueueAfter(keyOf(d), after < 1000 ? 1000 : after + 1000);
  }

  async function checkPausedConditions(d: Deployment): Promise<void> {
    if (!hasProgressDeadline(d)) return;
    const cond = getCondition(d.status, 'Progressing');
    if (cond?.reason === Reason.TimedOut) return;
    const pausedExists = cond?.reason === Reason.PausedDeploy;
    const st = (d.status ??= {});
    if (d.spec?.paused && !pausedExists) setCondition(st, newCondition('Progressing', 'Unknown', Reason.PausedDeploy, 'Deployment is paused', clock.now()));
    else if (!d.spec?.paused && pausedExists) setCondition(st, newCondition('Progressing', 'Unknown', Reason.ResumedDeploy, 'Deployment is resumed', clock.now()));
    else return;
    await updateStatus(d);
  }

  async function sync(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(d, rsList, false);
    await scale(d, newRS, oldRSs);
    if (d.spec?.paused) await cleanupDeployment(oldRSs, d);
    await syncDeploymentStatus([...oldRSs, newRS], newRS, d);
  }

  async function isScalingEvent(d: Deployment, rsList: ReplicaSet[]): Promise<boolean> {
    const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(d, rsList, false);
    for (const rs of activeRSs([...oldRSs, newRS])) {
      const want = Number(rs.metadata?.annotations?.[DESIRED_REPLICAS_ANNOTATION]);
      if (!Number.isInteger(want)) continue;
      if (want !== (d.spec?.replicas ?? 1)) return true;
    }
    return false;
  }

  async function rolloutRolling(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const [newRS0, oldRSs] = await getAllReplicaSetsAndSyncRevision(d, rsList, true);
    const newRS = newRS0!;
    const allRSs = [...oldRSs, newRS];
    // scale up, if we can
    const want = d.spec?.replicas ?? 1;
    let scaledUp = false;
    if (replicasOf(newRS) > want) [scaledUp] = await scaleAndRecord(newRS, want, d);
    else if (replicasOf(newRS) < want) [scaledUp] = await scaleAndRecord(newRS, newRSNewReplicas(d, allRSs, newRS), d);
    if (scaledUp) return syncRolloutStatus(allRSs, newRS, d);
    // scale down, if we can
    if (await reconcileOldReplicaSets(allRSs, activeRSs(oldRSs), newRS, d)) return syncRolloutStatus(allRSs, newRS, d);
    if (deploymentComplete(d, d.status ?? {})) await cleanupDeployment(oldRSs, d);
    await syncRolloutStatus(allRSs, newRS, d);
  }

  async function reconcileOldReplicaSets(allRSs: ReplicaSet[], oldRSs: ReplicaSet[], newRS: ReplicaSet, d: Deployment): Promise<boolean> {
    if (sumReplicas(oldRSs) === 0) return false;
    const minAvailable = (d.spec?.replicas ?? 1) - maxUnavailable(d);
    const newUnavailable = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
    const maxScaledDown = sumReplicas(allRSs) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    // unhealthy replicas of old ReplicaSets go first
    const olds = [...oldRSs].sort(byCreation);
    let cleaned = 0;
    for (let i = 0; i < olds.length; i++) {
      if (cleaned >= maxScaledDown) break;
      const rs = olds[i]!;
      const avail = rs.status?.availableReplicas ?? 0;
      if (replicasOf(rs) === 0 || replicasOf(rs) === avail) continue;
      const down = Math.min(maxScaledDown - cleaned, replicasOf(rs) - avail);
      const [, updated] = await scaleAndRecord(rs, replicasOf(rs) - down, d);
      cleaned += down;
      olds[i] = updated;
    }
    // then available ones while minAvailable holds
    const available = sumAvailable([...olds, newRS]);
    let scaledDown = 0;
    if (available > minAvailable) {
      const total = available - minAvailable;
      for (const rs of olds) {
        if (scaledDown >= total) break;
        if (replicasOf(rs) === 0) continue;
        const down = Math.min(replicasOf(rs), total - scaledDown);
        await scaleAndRecord(rs, replicasOf(rs) - down, d);
        scaledDown += down;
      }
    }
    return cleaned + scaledDown > 0;
  }

  async function rolloutRecreate(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    let [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(d, rsList, false);
    let allRSs: (ReplicaSet | undefined)[] = [...oldRSs, newRS];
    let scaledDown = false;
    for (const rs of activeRSs(oldRSs)) {
      const [s] = await scaleAndRecord(rs, 0, d);
      scaledDown ||= s;
    }
    if (scaledDown) return syncRolloutStatus(allRSs, newRS, d);
    if (oldPodsRunning(newRS, oldRSs)) return syncRolloutStatus(allRSs, newRS, d);
    if (!newRS) {
      [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(d, rsList, true);
      allRSs = [...oldRSs, newRS];
    }
    await scaleAndRecord(newRS!, d.spec?.replicas ?? 1, d);
    if (deploymentComplete(d, d.status ?? {})) await cleanupDeployment(oldRSs, d);
    await syncRolloutStatus(allRSs, newRS, d);
  }

  function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): boolean {
    if (oldRSs.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0) > 0) return true;
    for (const rs of oldRSs) {
      if (rs.metadata?.uid === newRS?.metadata?.uid) continue;
      for (const p of podsByOwner.get(rs.metadata?.uid ?? '')) {
        const phase = p.status?.phase;
        if (phase !== 'Failed' && phase !== 'Succeeded') return true;
      }
    }
    return false;
  }

  async function syncDeployment(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const cached = dInformer.getByName(ns, name);
    if (!cached) return;
    const d = structuredClone(cached);
    const sel = d.spec?.selector;
    if (sel && Object.keys(sel.matchLabels ?? {}).length + (sel.matchExpressions?.length ?? 0) === 0) {
      recorder.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((d.status?.observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) {
        (d.status ??= {}).observedGeneration = d.metadata?.generation;
        await updateStatus(d);
      }
      return;
    }
    const rsList = await getReplicaSetsForDeployment(d);
    if (d.metadata?.deletionTimestamp) {
      const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(d, rsList, false);
      return syncDeploymentStatus([...oldRSs, newRS], newRS, d);
    }
    await checkPausedConditions(d);
    if (d.spec?.paused) return sync(d, rsList);
    if (await isScalingEvent(d, rsList)) return sync(d, rsList);
    if (d.spec?.strategy?.type === 'Recreate') return rolloutRecreate(d, rsList);
    return rolloutRolling(d, rsList);
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

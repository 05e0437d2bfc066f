/**
 * StatefulSet controller: pods `<set>-<ordinal>` with stable identity and storage, created
 * and deleted in ordinal order (OrderedReady) or all at once (Parallel), updated by
 * RollingUpdate (partition, optional maxUnavailable) or OnDelete against
 * ControllerRevisions (`<set>-<hash>`; pods carry `controller-revision-hash=<revision
 * name>`), claims `<claim>-<set>-<ordinal>` from volumeClaimTemplates (kept: the
 * retention policy's Retain default), status (replicas, readyReplicas, currentReplicas,
 * updatedReplicas, availableReplicas, current/updateRevision, observedGeneration,
 * collisionCount) and upstream's events (`create Pod web-0 in StatefulSet web successful`).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/statefulset/stateful_set.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/statefulset/stateful_pod_control.go
 */
import type { StatefulSetStatus } from 'kubernetes-types/apps/v1.js';
import type { KObject } from '../../api/resource.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../apimachinery/errors.js';
import { labelSelectorAsSelector } from '../../apimachinery/labels.js';
import { keyOf } from '../../client/informer.js';
import { R } from '../../client/types.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { claimObjects, controllerRefOf, controllerResolver, controllersSelecting } from '../util/controller-ref.js';
import { adoptOrphans, ownedObjectHandlers } from '../util/owner-events.js';
import { EXPECTATIONS_TIMEOUT_MS } from '../util/expectations.js';
import {
  type ControllerRevision,
  createControllerRevision,
  equalRevision,
  newControllerRevision,
  nextRevision,
  sortRevisions,
  templateOfRevision,
  templatePatch,
  truncateHistory,
} from '../util/history.js';
import { byControllerUID, byNamespace, Index } from '../util/informers.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import { isPodReady, type Pod } from '../util/pods.js';
import { W } from '../util/resources.js';
import { realClock } from '../../util/clock.js';
import { completeRollingUpdate, type StatefulPodOps, updateStatefulSet } from './control.js';
import { claimIsStale, updateClaimOwnerRefs } from './retention.js';
import { type Claim, claimsFor, identityMatches, isMemberOf, ordinalOf, podRevision, type StatefulSet, storageMatches, updateIdentity, updateStorage } from './pods.js';

export type { StatefulSet } from './pods.js';

/** The workload controller context plus the StatefulSet feature gates. */
interface StatefulSetControllerContext extends WorkloadControllerContext {
  /** upstream feature gate MaxUnavailableStatefulSet (alpha in 1.32, default off) */
  maxUnavailableStatefulSet?: boolean;
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The set with the template a revision holds (upstream ApplyRevision). */
function applyRevision(set: StatefulSet, rev: ControllerRevision): StatefulSet {
  const out = structuredClone(set);
  out.spec!.template = templateOfRevision(rev);
  return out;
}

/**
 * A revision of the set's current template (upstream newRevision): it carries the set's
 * annotations, as the DaemonSet controller's revisions do.
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/statefulset/stateful_set_utils.go (newRevision)
 */
function newStatefulSetRevision(set: StatefulSet, revision: number, collisionCount: number): ControllerRevision {
  const rev = newControllerRevision(set, 'StatefulSet', set.spec?.template?.metadata?.labels, templatePatch(set.spec?.template), revision, collisionCount);
  const annotations = set.metadata?.annotations;
  if (annotations && Object.keys(annotations).length) rev.metadata!.annotations = { ...annotations };
  return rev;
}

/**
 * Starts the StatefulSet controller on the shared informers (statefulsets, pods,
 * controllerrevisions, persistentvolumeclaims) and runs `ctx.workers` (default 5)
 * concurrent syncs.
 * @returns a handle whose `stop()` waits for the syncs in progress
 */
export async function startStatefulSetController(ctx: StatefulSetControllerContext): Promise<RunningController> {
  const { client, recorder, informers } = ctx;
  const clock = ctx.clock ?? realClock;
  const setInformer = informers.get<StatefulSet>(W.statefulsets);
  const podInformer = informers.get<Pod>(R.pods);
  const revInformer = informers.get<ControllerRevision>(W.controllerrevisions);
  const claimInformer = informers.get<Claim>(R.persistentvolumeclaims);
  const podsByNs = new Index(podInformer, byNamespace);
  const setsByNs = new Index(setInformer, byNamespace);
  const revsByNs = new Index(revInformer, byNamespace);
  const revsByOwner = new Index(revInformer, byControllerUID);

  /** writes issued and not yet seen in the informer, per set: `+<pod>` creates, `-<pod>` deletes */
  const pending = new Map<string, { ops: Set<string>; at: number }>();
  const expect = (key: string, op: string): void => {
    let e = pending.get(key);
    if (!e) pending.set(key, (e = { ops: new Set(), at: clock.now() }));
    e.ops.add(op);
    e.at = clock.now();
  };
  const observe = (key: string, op: string): void => {
    const e = pending.get(key);
    if (e && e.ops.delete(op) && e.ops.size === 0) pending.delete(key);
  };
  const satisfied = (key: string): boolean => {
    const e = pending.get(key);
    return !e || e.ops.size === 0 || clock.now() - e.at > EXPECTATIONS_TIMEOUT_MS;
  };

  const loop = new ControllerLoop({ name: 'statefulset-controller', clock, workers: ctx.workers, sync: (k) => sync(k) });

  const resolveRef = controllerResolver(setInformer, 'StatefulSet');
  const setsForOrphan = (o: KObject): StatefulSet[] => controllersSelecting(setsByNs.get(o.metadata?.namespace ?? ''), o, (s) => labelSelectorAsSelector(s.spec?.selector));

  const enqueue = (set: StatefulSet): void => loop.enqueueObj(set);
  const adopt = adoptOrphans(setsForOrphan, enqueue);
  const podObserved = (set: StatefulSet, pod: Pod, gone: boolean): void => {
    const k = keyOf(set);
    observe(k, `+${pod.metadata?.name}`);
    if (gone || pod.metadata?.deletionTimestamp) observe(k, `-${pod.metadata?.name}`);
  };
  podInformer.addEventHandler(
    ownedObjectHandlers<StatefulSet, Pod>({
      resolve: resolveRef,
      enqueue,
      added: (set, pod) => podObserved(set, pod, false),
      updated(set, old, cur) {
        podObserved(set, cur, false);
        const minReady = set.spec?.minReadySeconds ?? 0;
        if (minReady > 0 && !isPodReady(old) && isPodReady(cur)) loop.enqueueAfter(keyOf(set), minReady * 1000 + 100);
      },
      deleted: (set, pod) => podObserved(set, pod, true),
      noOwner: adopt,
    }),
  );
  setInformer.addEventHandler({
    add: (s) => loop.enqueueObj(s),
    update: (_o, s) => loop.enqueueObj(s),
    delete(s) {
      pending.delete(keyOf(s));
      loop.enqueueObj(s);
    },
  });
  revInformer.addEventHandler(ownedObjectHandlers<StatefulSet, ControllerRevision>({ resolve: resolveRef, enqueue, noOwner: adopt }));
  // a pod waiting for a stale claim to go is created once it is gone (claims carry the set's selector labels)
  claimInformer.addEventHandler({ delete: (cl) => setsForOrphan(cl).forEach((s) => loop.enqueueObj(s)) });

  const podEvent = (verb: string, set: StatefulSet, pod: Pod, err?: unknown): void => {
    const Verb = verb[0]!.toUpperCase() + verb.slice(1);
    if (err === undefined) recorder.event(set, 'Normal', `Successful${Verb}`, `${verb} Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} successful`);
    else recorder.event(set, 'Warning', `Failed${Verb}`, `${verb} Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} failed error: ${errText(err)}`);
  };
  const claimEvent = (verb: string, set: StatefulSet, pod: Pod, claim: Claim, err?: unknown): void => {
    const Verb = verb[0]!.toUpperCase() + verb.slice(1);
    if (err === undefined)
      recorder.event(set, 'Normal', `Successful${Verb}`, `${verb} Claim ${claim.metadata?.name} Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} success`);
    else
      recorder.event(
        set,
        'Warning',
        `Failed${Verb}`,
        `${verb} Claim ${claim.metadata?.name} for Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} failed error: ${errText(err)}`,
      );
  };

  /** upstream createPersistentVolumeClaims (only the missing ones) */
  async function createMissingClaims(set: StatefulSet, pod: Pod): Promise<void> {
    const errs: string[] = [];
    const ns = set.metadata!.namespace!;
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const name = claim.metadata!.name!;
      let cur = claimInformer.getByName(ns, name);
      if (!cur) {
        try {
          cur = await client.get<Claim>(R.persistentvolumeclaims, ns, name);
        } catch (e) {
          if (!isNotFound(e)) {
            errs.push(`failed to retrieve PVC ${name}: ${errText(e)}`);
            claimEvent('create', set, pod, claim, e);
            continue;
          }
        }
      }
      if (cur) {
        if (cur.metadata?.deletionTimestamp) errs.push(`pvc ${name} is being deleted`);
        continue;
      }
      updateClaimOwnerRefs(claim, set, pod);
      try {
        await client.create<Claim>(R.persistentvolumeclaims, ns, claim);
        claimEvent('create', set, pod, claim);
      } catch (e) {
        errs.push(`failed to create PVC ${name}: ${errText(e)}`);
        if (!isAlreadyExists(e)) claimEvent('create', set, pod, claim, e);
      }
    }
    if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  }

  /** upstream ClaimsMatchRetentionPolicy: the existing claims already carry the wanted owner references */
  function claimsMatchPolicy(set: StatefulSet, pod: Pod): boolean {
    const ns = set.metadata!.namespace!;
    for (const c of claimsFor(set, ordinalOf(pod)).values()) {
      const cur = claimInformer.getByName(ns, c.metadata!.name!);
      if (cur && updateClaimOwnerRefs(structuredClone(cur), set, pod)) return false;
    }
    return true;
  }

  /** upstream UpdatePodClaimForRetentionPolicy: the owner references of the pod's existing claims */
  async function updateClaimsForPolicy(set: StatefulSet, pod: Pod): Promise<void> {
    const ns = set.metadata!.namespace!;
    for (const c of claimsFor(set, ordinalOf(pod)).values()) {
      const cached = claimInformer.getByName(ns, c.metadata!.name!);
      if (!cached) continue;
      const claim = structuredClone(cached);
      if (!updateClaimOwnerRefs(claim, set, pod)) continue;
      try {
        await client.update<Claim>(R.persistentvolumeclaims, ns, claim);
      } catch (e) {
        if (!isNotFound(e)) throw new Error(`could not update claim ${claim.metadata?.name} for delete policy ownerRefs: ${errText(e)}`);
      }
    }
  }

  const ops = (key: string): StatefulPodOps => ({
    async createPod(set, pod) {
      await createMissingClaims(set, pod);
      expect(key, `+${pod.metadata?.name}`);
      try {
        await client.create<Pod>(R.pods, set.metadata!.namespace!, pod);
      } catch (e) {
        observe(key, `+${pod.metadata?.name}`);
        if (!isAlreadyExists(e)) podEvent('create', set, pod, e);
        throw e;
      }
      podEvent('create', set, pod);
    },
    async updatePod(set, pod) {
      let cur = pod;
      for (let i = 0; ; i++) {
        let consistent = true;
        if (!identityMatches(set, cur)) {
          updateIdentity(set, cur);
          consistent = false;
        }
        if (!storageMatches(set, cur)) {
          updateStorage(set, cur);
          consistent = false;
          await createMissingClaims(set, cur);
        }
        if (!claimsMatchPolicy(set, cur)) await updateClaimsForPolicy(set, cur);
        if (consistent) return;
        try {
          await client.update<Pod>(R.pods, set.metadata!.namespace!, cur);
          podEvent('update', set, cur);
          return;
        } catch (e) {
          if (!isConflict(e) || i >= 3) {
            podEvent('update', set, cur, e);
            throw e;
          }
          cur = await client.get<Pod>(R.pods, set.metadata!.namespace!, cur.metadata!.name!);
        }
      }
    },
    async deletePod(set, pod) {
      expect(key, `-${pod.metadata?.name}`);
      try {
        await client.delete(R.pods, set.metadata!.namespace!, pod.metadata!.name!, { preconditions: { uid: pod.metadata?.uid } });
      } catch (e) {
        observe(key, `-${pod.metadata?.name}`);
        if (isNotFound(e)) return;
        podEvent('delete', set, pod, e);
        throw e;
      }
      podEvent('delete', set, pod);
    },
    createMissingClaims,
    claimsMatchPolicy,
    updateClaimsForPolicy: (set, pod) => updateClaimsForPolicy(set, pod),
    claimIsStale(set, pod) {
      const ns = set.metadata!.namespace!;
      for (const c of claimsFor(set, ordinalOf(pod)).values()) {
        const cur = claimInformer.getByName(ns, c.metadata!.name!);
        if (cur && claimIsStale(cur, pod)) return true;
      }
      return false;
    },
    event: (set, type, reason, message) => recorder.event(set, type, reason, message),
  });

  /** upstream getStatefulSetRevisions: the current and update revisions, creating or renumbering one. */
  async function revisionsOf(set: StatefulSet, revisions: ControllerRevision[]): Promise<{ current: ControllerRevision; update: ControllerRevision; collisionCount: number }> {
    const sorted = sortRevisions(revisions);
    const counter = { collisionCount: set.status?.collisionCount ?? 0 };
    const candidate = newStatefulSetRevision(set, nextRevision(sorted), counter.collisionCount);
    const equal = sorted.filter((r) => equalRevision(r, candidate));
    let update: ControllerRevision;
    const last = sorted[sorted.length - 1];
    if (equal.length && equalRevision(last, equal[equal.length - 1])) {
      update = last!;
    } else if (equal.length) {
      const e = structuredClone(equal[equal.length - 1]!);
      e.revision = candidate.revision;
      update = await client.update<ControllerRevision>(W.controllerrevisions, e.metadata!.namespace!, e);
    } else {
      update = await createControllerRevision(
        client,
        set,
        'StatefulSet',
        set.spec?.template?.metadata?.labels,
        candidate.data,
        candidate.revision,
        counter,
        candidate.metadata?.annotations,
      );
    }
    const current = sorted.find((r) => r.metadata?.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount: counter.collisionCount };
  }

  async function updateStatus(set: StatefulSet, status: StatefulSetStatus): Promise<void> {
    const cur = set.status ?? ({} as StatefulSetStatus);
    const keys: (keyof StatefulSetStatus)[] = [
      'replicas',
      'readyReplicas',
      'currentReplicas',
      'updatedReplicas',
      'availableReplicas',
      'currentRevision',
      'updateRevision',
      'observedGeneration',
      'collisionCount',
    ];
    if (keys.every((k) => (cur[k] ?? 0) === (status[k] ?? 0))) return;
    // a conflict is retried by the next sync, from the informer's newer copy (the role has no `get` on statefulsets)
    await client.update<StatefulSet>(W.statefulsets, set.metadata!.namespace!, { ...set, status: { ...(set.status ?? {}), ...status } } as StatefulSet, { subresource: 'status' });
  }

  async function sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const cached = setInformer.getByName(ns, name);
    if (!cached) {
      pending.delete(key);
      return;
    }
    const set = structuredClone(cached);
    let selector;
    try {
      selector = labelSelectorAsSelector(set.spec?.selector);
    } catch {
      return;
    }
    if (selector.empty()) {
      recorder.event(set, 'Warning', 'SelectingAll', 'This statefulset is selecting all pods. A non-empty selector is required.');
      return;
    }
    const revCandidates = [...revsByOwner.get(set.metadata?.uid ?? ''), ...revsByNs.get(ns).filter((r) => !controllerRefOf(r))];
    const revisions = await claimObjects<ControllerRevision>(revCandidates, {
      client,
      controller: set,
      controllerAPIVersion: 'apps/v1',
      controllerKind: 'StatefulSet',
      controllerResource: W.statefulsets,
      resource: W.controllerrevisions,
      selector,
    });
    const pods = await claimObjects<Pod>(podsByNs.get(ns), {
      client,
      controller: set,
      controllerAPIVersion: 'apps/v1',
      controllerKind: 'StatefulSet',
      controllerResource: W.statefulsets,
      resource: R.pods,
      selector,
      filter: (p) => isMemberOf(set, p),
    });
    const { current, update, collisionCount } = await revisionsOf(set, revisions);
    const now = clock.now();
    const result = await updateStatefulSet({
      set,
      currentSet: applyRevision(set, current),
      updateSet: applyRevision(set, update),
      currentRevision: current.metadata!.name!,
      updateRevision: update.metadata!.name!,
      collisionCount,
      pods,
      ops: ops(key),
      now,
      maxUnavailableGate: ctx.maxUnavailableStatefulSet,
      // writes in flight and not yet seen: only refresh the status from what is known
      statusOnly: !satisfied(key),
    });
    completeRollingUpdate(set, result.status);
    await updateStatus(set, result.status);
    const live = new Set<string>([current.metadata!.name!, update.metadata!.name!]);
    for (const p of pods) live.add(podRevision(p));
    await truncateHistory(client, revisions, live, set.spec?.revisionHistoryLimit ?? 10);
    if (result.requeueAfterMs !== undefined) loop.enqueueAfter(key, result.requeueAfterMs);
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

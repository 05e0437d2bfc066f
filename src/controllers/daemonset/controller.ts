/**
 * DaemonSet controller: one pod per eligible node (nodeSelector, required node affinity,
 * taints against the template's tolerations plus the daemon ones), created unbound with
 * a `metadata.name` node affinity for the default scheduler to place; extra, failed
 * (with backoff) and misplaced pods deleted; RollingUpdate (maxUnavailable / maxSurge)
 * or OnDelete against ControllerRevisions `<ds>-<hash>` (pods labelled
 * `controller-revision-hash=<hash>`, `pod-template-generation`); status counts and
 * upstream's events (`Created pod: <name>`, `Deleted pod: <name>`, FailedDaemonPod).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/daemon/daemon_controller.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/daemon/update.go
 */
import type { DaemonSetStatus } from 'kubernetes-types/apps/v1.js';
import type { KObject } from '../../api/resource.js';
import { isAlreadyExists, isNotFound, StatusError } from '../../apimachinery/errors.js';
import { labelSelectorAsSelector } from '../../apimachinery/labels.js';
import { jsonEqual } from '../../apimachinery/validation.js';
import { keyOf } from '../../client/informer.js';
import { R } from '../../client/types.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { claimObjects, controllerRefOf, controllerResolver, controllersSelecting, newControllerRef } from '../util/controller-ref.js';
import { adoptOrphans, ownedObjectHandlers } from '../util/owner-events.js';
import { EXPECTATIONS_TIMEOUT_MS } from '../util/expectations.js';
import { computeHash } from '../util/hash.js';
import { CONTROLLER_REVISION_HASH_LABEL, type ControllerRevision, templatePatch, truncateHistory } from '../util/history.js';
import { byControllerUID, byNamespace, Index } from '../util/informers.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import { PodControl, slowStartBatch, SLOW_START_INITIAL_BATCH_SIZE } from '../util/pod-control.js';
import { isPodReady, type Pod } from '../util/pods.js';
import { W } from '../util/resources.js';
import { realClock } from '../../util/clock.js';
import { daemonSetStatus, groupByNode, managePlan, rollingUpdatePlan } from './plan.js';
import { DaemonPredicates, type DaemonSet, newDaemonPod, type Node } from './predicates.js';

export type { DaemonSet } from './predicates.js';

/** Upstream BurstReplicas of the DaemonSet controller: most creates or deletes per sync. */
const DS_BURST_REPLICAS = 250;
/** Failed-pod backoff on one node: first delay and cap (ms), as upstream's failedPodsBackoff. */
const FAILED_POD_BACKOFF_MS = 1000;
const FAILED_POD_BACKOFF_MAX_MS = 15 * 60 * 1000;

/** Creates and deletes issued and not yet observed, per DaemonSet (upstream ControllerExpectations). */
class PodExpectations {
  private readonly m = new Map<string, { adds: number; dels: Set<string>; at: number }>();
  constructor(private readonly now: () => number) {}
  set(key: string, adds: number, dels: string[]): void {
    this.m.set(key, { adds, dels: new Set(dels), at: this.now() });
  }
  creationObserved(key: string): void {
    const e = this.m.get(key);
    if (e && e.adds > 0) e.adds--;
  }
  deletionObserved(key: string, podKey: string): void {
    this.m.get(key)?.dels.delete(podKey);
  }
  satisfied(key: string): boolean {
    const e = this.m.get(key);
    return !e || (e.adds <= 0 && e.dels.size === 0) || this.now() - e.at > EXPECTATIONS_TIMEOUT_MS;
  }
  delete(key: string): void {
    this.m.delete(key);
  }
}

/**
 * Starts the DaemonSet controller on the shared informers (daemonsets, pods, nodes,
 * controllerrevisions) and runs `ctx.workers` (default 5) concurrent syncs.
 * @returns a handle whose `stop()` waits for the syncs in progress
 */
export async function startDaemonSetController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, recorder, informers } = ctx;
  const clock = ctx.clock ?? realClock;
  const dsInformer = informers.get<DaemonSet>(W.daemonsets);
  const podInformer = informers.get<Pod>(R.pods);
  const nodeInformer = informers.get<Node>(R.nodes);
  const revInformer = informers.get<ControllerRevision>(W.controllerrevisions);
  const podsByNs = new Index(podInformer, byNamespace);
  const dsByNs = new Index(dsInformer, byNamespace);
  const revsByNs = new Index(revInformer, byNamespace);
  const revsByOwner = new Index(revInformer, byControllerUID);
  const expectations = new PodExpectations(() => clock.now());
  const podControl = new PodControl(client, recorder);
  /** `<ds key>/<node>` → failed-pod backoff */
  const backoff = new Map<string, { delay: number; at: number }>();

  const loop = new ControllerLoop({ name: 'daemon-set-controller', clock, workers: ctx.workers, sync: (k) => sync(k) });

  const resolveRef = controllerResolver(dsInformer, 'DaemonSet');
  const dsForOrphan = (o: KObject): DaemonSet[] => controllersSelecting(dsByNs.get(o.metadata?.namespace ?? ''), o, (ds) => labelSelectorAsSelector(ds.spec?.selector));
  const enqueueAll = (): void => {
    for (const ds of dsInformer.list()) loop.enqueueObj(ds);
  };

  const enqueue = (ds: DaemonSet): void => loop.enqueueObj(ds);
  const adopt = adoptOrphans(dsForOrphan, enqueue);
  podInformer.addEventHandler(
    ownedObjectHandlers<DaemonSet, Pod>({
      resolve: resolveRef,
      enqueue,
      added(ds, pod) {
        expectations.creationObserved(keyOf(ds));
        if (pod.metadata?.deletionTimestamp) expectations.deletionObserved(keyOf(ds), keyOf(pod));
      },
      updated(ds, old, cur) {
        if (cur.metadata?.deletionTimestamp) expectations.deletionObserved(keyOf(ds), keyOf(cur));
        const minReady = ds.spec?.minReadySeconds ?? 0;
        if (minReady > 0 && !isPodReady(old) && isPodReady(cur)) loop.enqueueAfter(keyOf(ds), minReady * 1000 + 100);
      },
      deleted: (ds, pod) => expectations.deletionObserved(keyOf(ds), keyOf(pod)),
      noOwner: (pod, event) => event !== 'delete' && adopt(pod),
    }),
  );
  nodeInformer.addEventHandler({
    add: enqueueAll,
    update(old, cur) {
      if (!jsonEqual(old.metadata?.labels ?? {}, cur.metadata?.labels ?? {}) || !jsonEqual(old.spec?.taints ?? [], cur.spec?.taints ?? [])) enqueueAll();
    },
    delete: enqueueAll,
  });
  dsInformer.addEventHandler({
    add: (ds) => loop.enqueueObj(ds),
    update: (_o, ds) => loop.enqueueObj(ds),
    delete(ds) {
      expectations.delete(keyOf(ds));
      loop.enqueueObj(ds);
    },
  });
  revInformer.addEventHandler(ownedObjectHandlers<DaemonSet, ControllerRevision>({ resolve: resolveRef, enqueue, noOwner: adoptOrphans(dsForOrphan, enqueue) }));

  /** A new revision of the current template (upstream snapshot); a name taken by other data bumps collisionCount and fails. */
  async function snapshot(ds: DaemonSet, revision: number): Promise<ControllerRevision> {
    const ns = ds.metadata!.namespace!;
    const hash = computeHash(ds.spec?.template, ds.status?.collisionCount);
    const data = templatePatch(ds.spec?.template);
    const rev: ControllerRevision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: `${ds.metadata!.name}-${hash}`,
        namespace: ns,
        labels: { ...(ds.spec?.template?.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash },
        annotations: ds.metadata?.annotations ? { ...ds.metadata.annotations } : undefined,
        ownerReferences: [newControllerRef(ds, 'apps/v1', 'DaemonSet')],
      },
      data,
      revision,
    };
    try {
      return await client.create<ControllerRevision>(W.controllerrevisions, ns, rev);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await client.get<ControllerRevision>(W.controllerrevisions, ns, rev.metadata!.name!);
      if (jsonEqual(existing.data, data)) return existing;
      const cur = dsInformer.getByName(ns, ds.metadata!.name!) ?? ds;
      if ((cur.status?.collisionCount ?? 0) !== (ds.status?.collisionCount ?? 0)) {
        throw new Error(
          `found a stale collision count (${ds.status?.collisionCount ?? 0}, expected ${cur.status?.collisionCount ?? 0}) of DaemonSet "${ds.metadata?.name}" while processing; will retry until it is updated`,
        );
      }
      const bumped = { ...cur, status: { ...(cur.status ?? {}), collisionCount: (cur.status?.collisionCount ?? 0) + 1 } as DaemonSetStatus };
      await client.update(W.daemonsets, ns, bumped, { subresource: 'status' });
      throw e;
    }
  }

  /** upstream constructHistory: the revision matching the template (created or renumbered), and all revisions. */
  async function constructHistory(ds: DaemonSet, revisions: ControllerRevision[]): Promise<ControllerRevision> {
    const data = templatePatch(ds.spec?.template);
    const cur: ControllerRevision[] = [];
    let maxOld = 0;
    for (const r of revisions) {
      if (jsonEqual(r.data, data)) cur.push(r);
      else maxOld = Math.max(maxOld, r.revision);
    }
    const next = maxOld + 1;
    if (!cur.length) return snapshot(ds, next);
    cur.sort((a, b) => b.revision - a.revision);
    const keep = cur[0]!;
    for (const dup of cur.slice(1)) {
      try {
        await client.delete(W.controllerrevisions, dup.metadata!.namespace!, dup.metadata!.name!);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    if (keep.revision < next) {
      const upd = structuredClone(keep);
      upd.revision = next;
      return client.update<ControllerRevision>(W.controllerrevisions, upd.metadata!.namespace!, upd);
    }
    return keep;
  }

  /** upstream syncNodes: deletes `del`, creates a pod on each node of `create`, within the burst limit. */
  async function syncNodes(ds: DaemonSet, key: string, del: Pod[], create: string[], hash: string): Promise<void> {
    const ns = ds.metadata!.namespace!;
    const creates = create.slice(0, DS_BURST_REPLICAS);
    const deletes = del.slice(0, DS_BURST_REPLICAS);
    expectations.set(
      key,
      creates.length,
      deletes.map((p) => keyOf(p)),
    );
    const ref = newControllerRef(ds, 'apps/v1', 'DaemonSet');
    const errors: unknown[] = [];
    const { successes, error } = await slowStartBatch(creates.length, SLOW_START_INITIAL_BATCH_SIZE, async (i) => {
      const pod = newDaemonPod(ds, creates[i]!, hash);
      pod.metadata!.ownerReferences = [{ ...ref }];
      try {
        await podControl.create(ns, pod, ds);
      } catch (e) {
        if (e instanceof StatusError && e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return;
        throw e;
      }
    });
    for (let i = successes; i < creates.length; i++) expectations.creationObserved(key);
    if (error) errors.push(error);
    await Promise.all(
      deletes.map(async (p) => {
        try {
          await podControl.delete(ns, p.metadata!.name!, ds);
        } catch (e) {
          expectations.deletionObserved(key, keyOf(p));
          errors.push(e);
        }
      }),
    );
    if (errors.length) throw errors[0];
  }

  /** Whether a failed pod on `node` may be deleted now; otherwise requeues for the end of the backoff. */
  function failedPodAllowed(key: string, node: string): boolean {
    const k = `${key}/${node}`;
    const b = backoff.get(k);
    const now = clock.now();
    if (b && now < b.at + b.delay) {
      loop.enqueueAfter(key, b.at + b.delay - now);
      return false;
    }
    backoff.set(k, { delay: b ? Math.min(b.delay * 2, FAILED_POD_BACKOFF_MAX_MS) : FAILED_POD_BACKOFF_MS, at: now });
    return true;
  }

  async function updateStatus(ds: DaemonSet, status: DaemonSetStatus, observed: boolean): Promise<void> {
    const next: DaemonSetStatus = { ...(ds.status ?? ({} as DaemonSetStatus)), ...status };
    if (observed) next.observedGeneration = ds.metadata?.generation ?? 0;
    const cur = ds.status ?? ({} as DaemonSetStatus);
    const keys: (keyof DaemonSetStatus)[] = [
      'desiredNumberScheduled',
      'currentNumberScheduled',
      'numberMisscheduled',
      'numberReady',
      'numberAvailable',
      'updatedNumberScheduled',
      'numberUnavailable',
      'observedGeneration',
    ];
    if (keys.every((k) => (cur[k] ?? 0) === (next[k] ?? 0))) return;
    // a conflict is retried by the next sync, from the informer's newer copy (the role has no `get` on daemonsets)
    await client.update<DaemonSet>(W.daemonsets, ds.metadata!.namespace!, { ...ds, status: next }, { subresource: 'status' });
  }

  async function sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const cached = dsInformer.getByName(ns, name);
    if (!cached) {
      expectations.delete(key);
      for (const k of backoff.keys()) if (k.startsWith(`${key}/`)) backoff.delete(k);
      return;
    }
    const ds = structuredClone(cached);
    let selector;
    try {
      selector = labelSelectorAsSelector(ds.spec?.selector);
    } catch {
      return;
    }
    if (selector.empty()) {
      recorder.event(ds, 'Warning', 'SelectingAll', 'This daemon set is selecting all pods. A non-empty selector is required.');
      return;
    }
    if (ds.metadata?.deletionTimestamp) return;
    const nodes = nodeInformer.list();
    const claimOpts = { client, controller: ds, controllerAPIVersion: 'apps/v1', controllerKind: 'DaemonSet', controllerResource: W.daemonsets, selector };
    const revisions = await claimObjects<ControllerRevision>([...revsByOwner.get(ds.metadata?.uid ?? ''), ...revsByNs.get(ns).filter((r) => !controllerRefOf(r))], {
      ...claimOpts,
      resource: W.controllerrevisions,
    });
    const cur = await constructHistory(ds, revisions);
    const hash = cur.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? cur.metadata!.name!;
    const pods = await claimObjects<Pod>(podsByNs.get(ns), { ...claimOpts, resource: R.pods });
    const byNode = groupByNode(pods);
    const pred = new DaemonPredicates(ds);
    const now = clock.now();

    if (!expectations.satisfied(key)) {
      await updateStatus(ds, daemonSetStatus(ds, nodes, byNode, hash, pred, now), false);
      return;
    }
    let err: unknown;
    try {
      const plan = managePlan(ds, nodes, byNode, hash, pred, (node) => failedPodAllowed(key, node));
      for (const f of plan.failed)
        recorder.event(ds, 'Warning', 'FailedDaemonPod', `Found failed daemon pod ${f.pod.metadata?.namespace}/${f.pod.metadata?.name} on node ${f.node}, will try to kill it`);
      if (plan.create.length || plan.delete.length) await syncNodes(ds, key, plan.delete, plan.create, hash);
      if (expectations.satisfied(key) && (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
        const step = rollingUpdatePlan(ds, nodes, byNode, hash, pred, now);
        if (step.create.length || step.delete.length) await syncNodes(ds, key, step.delete, step.create, hash);
      }
      const liveHashes = new Set<string>([hash]);
      for (const p of pods) {
        const h = p.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
        if (h) liveHashes.add(h);
      }
      const live = new Set<string>();
      for (const r of revisions) if (liveHashes.has(r.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? r.metadata!.name!)) live.add(r.metadata!.name!);
      live.add(cur.metadata!.name!);
      await truncateHistory(client, revisions, live, ds.spec?.revisionHistoryLimit ?? 10);
    } catch (e) {
      err = e;
    }
    const status = daemonSetStatus(ds, nodes, byNode, hash, pred, now);
    await updateStatus(ds, status, true);
    const minReady = ds.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && status.numberReady !== status.numberAvailable) loop.enqueueAfter(key, minReady * 1000);
    if (err) throw err;
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

/**
 * Garbage collector: deletes objects whose owners are gone, following ownerReferences
 * across every resource served (found through discovery, re-read every 30 s).
 *
 * - Background: once an owner is gone, each dependent without another existing owner is
 *   deleted (with the policy its own finalizers ask for, Background by default).
 * - Foreground: an owner with deletionTimestamp and the `foregroundDeletion` finalizer has
 *   its dependents deleted (dependents that have dependents themselves in the foreground
 *   too); the finalizer is removed once no dependent with blockOwnerDeletion=true is left.
 * - Orphan: an owner with deletionTimestamp and the `orphan` finalizer has its reference
 *   removed from every dependent, then the finalizer.
 *
 * A dependent with an owner UID absent from the graph is verified with a live GET of the
 * owner (404 or another UID = absent) before it is deleted; deletes carry the dependent's
 * UID as a precondition.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/garbagecollector/garbagecollector.go
 * @see https://kubernetes.io/docs/concepts/architecture/garbage-collection/
 */
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { KObject } from '../../api/resource.js';
import { isNotFound } from '../../apimachinery/errors.js';
import type { ResourceRef } from '../../client/types.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { ControllerLoop } from '../util/loop.js';
import { realClock } from '../../util/clock.js';
import { discoverResources, type ResourceMap } from './discovery.js';
import { DependencyGraph, FINALIZER_FOREGROUND, FINALIZER_ORPHAN, type GraphNode } from './graph.js';

/** How often discovery is re-read for new resources (upstream resyncs every 30 s). */
const DISCOVERY_RESYNC_MS = 30_000;

interface GarbageCollectorOptions extends WorkloadControllerContext {
  /** discovery re-read period, ms (default {@link DISCOVERY_RESYNC_MS}; 0 = never) */
  discoveryResyncMs?: number;
}

type Policy = 'Orphan' | 'Background' | 'Foreground';

export async function startGarbageCollector(ctx: GarbageCollectorOptions): Promise<RunningController> {
  const { client, informers } = ctx;
  const clock = ctx.clock ?? realClock;
  let stopped = false;
  let mapping: ResourceMap = await discoverResources(client);
  /** resources with an informer feeding the graph, by `group/resource` */
  const watched = new Map<string, ResourceRef>();
  /** UIDs verified absent by a live lookup (upstream absentOwnerCache) */
  const absent = new Set<string>();

  const deleteLoop = new ControllerLoop({ name: 'garbage-collector (delete)', clock, workers: ctx.workers ?? 5, sync: (uid) => attemptToDelete(uid) });
  const orphanLoop = new ControllerLoop({ name: 'garbage-collector (orphan)', clock, workers: 2, sync: (uid) => attemptToOrphan(uid) });
  const graph = new DependencyGraph({
    attemptToDelete: (uid) => deleteLoop.enqueue(uid),
    attemptToOrphan: (uid) => orphanLoop.enqueue(uid),
  });

  const watch = (ref: ResourceRef): void => {
    const k = `${ref.group}/${ref.resource}`;
    if (watched.has(k)) return;
    watched.set(k, ref);
    const inf = informers.get(ref);
    inf.addEventHandler({
      add: (o) => graph.upsert(ref, o),
      update: (_o, o) => graph.upsert(ref, o),
      delete: (o) => graph.remove(o),
    });
  };
  for (const r of mapping.watchable) watch(r);

  /** Owner state: 'solid', 'waiting' (foreground deletion under way), 'dangling' (absent). */
  async function classify(dep: GraphNode, ref: OwnerReference): Promise<'solid' | 'waiting' | 'dangling'> {
    const known = graph.get(ref.uid);
    if (known) return known.deletingDependents ? 'waiting' : 'solid';
    if (absent.has(ref.uid)) return 'dangling';
    const r = mapping.resolve(ref.apiVersion, ref.kind);
    // unresolvable kind (e.g. a custom resource discovery has not shown yet): keep the
    // dependent and retry rate-limited until the next discovery resync, as upstream
    if (!r) throw new Error(`unable to resolve owner ${ref.apiVersion}/${ref.kind} ${ref.name}: not (yet) in discovery`);
    try {
      const live = await client.get(r, r.namespaced ? dep.namespace : '', ref.name);
      if (live.metadata?.uid !== ref.uid) {
        absent.add(ref.uid);
        return 'dangling';
      }
      const fin = live.metadata?.finalizers ?? [];
      return live.metadata?.deletionTimestamp && fin.includes(FINALIZER_FOREGROUND) ? 'waiting' : 'solid';
    } catch (e) {
      if (!isNotFound(e)) throw e;
      absent.add(ref.uid);
      return 'dangling';
    }
  }

  async function deleteObject(n: GraphNode, policy: Policy): Promise<void> {
    try {
      await client.delete(n.ref, n.namespace, n.name, { propagationPolicy: policy, preconditions: { uid: n.uid } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /** Removes the references to `owners` from `n` (strategic merge patch with the UID as precondition). */
  async function removeOwnerRefs(n: GraphNode, owners: string[]): Promise<void> {
    try {
      await client.patch(n.ref, n.namespace, n.name, 'strategic', {
        metadata: { ownerReferences: owners.map((uid) => ({ $patch: 'delete', uid })), uid: n.uid },
      });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /** Removes `finalizer` from the object (read, filter, update; conflicts retried by the queue). */
  async function removeFinalizer(n: GraphNode, finalizer: string): Promise<void> {
    let cur: KObject;
    try {
      cur = await client.get(n.ref, n.namespace, n.name);
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (cur.metadata?.uid !== n.uid) return;
    const fin = cur.metadata?.finalizers ?? [];
    if (!fin.includes(finalizer)) return;
    const next = { ...cur, metadata: { ...cur.metadata, finalizers: fin.filter((f) => f !== finalizer) } };
    try {
      await client.update(n.ref, n.namespace, next);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /** Upstream attemptToDeleteItem. */
  async function attemptToDelete(uid: string): Promise<void> {
    const n = graph.get(uid);
    if (!n) return;
    if (n.deletingDependents) {
      // upstream processDeletingDependentsItem
      const blocking = graph.blockingDependents(uid);
      if (blocking.length === 0) return removeFinalizer(n, FINALIZER_FOREGROUND);
      for (const d of blocking) if (!d.beingDeleted) deleteLoop.enqueue(d.uid);
      return;
    }
    if (n.beingDeleted || n.owners.length === 0) return;
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of n.owners) {
      const s = await classify(n, ref);
      (s === 'solid' ? solid : s === 'dangling' ? dangling : waiting).push(ref);
    }
    if (solid.length) {
      if (dangling.length === 0 && waiting.length === 0) return;
      return removeOwnerRefs(
        n,
        [...dangling, ...waiting].map((r) => r.uid),
      );
    }
    if (waiting.length && graph.dependentsOf(uid).size > 0) return deleteObject(n, 'Foreground');
    const cur = informers.get(n.ref).getByName(n.namespace, n.name);
    const fin = cur?.metadata?.uid === uid ? (cur.metadata?.finalizers ?? []) : [];
    const policy: Policy = fin.includes(FINALIZER_ORPHAN) ? 'Orphan' : fin.includes(FINALIZER_FOREGROUND) ? 'Foreground' : 'Background';
    return deleteObject(n, policy);
  }

  /** Upstream attemptToOrphanWorker: drop references to the owner from its dependents, then the finalizer. */
  async function attemptToOrphan(uid: string): Promise<void> {
    const n = graph.get(uid);
    if (!n || !n.orphaning) return;
    const deps = [...graph.dependentsOf(uid)].map((d) => graph.get(d)).filter((d): d is GraphNode => !!d);
    const results = await Promise.allSettled(deps.map((d) => removeOwnerRefs(d, [uid])));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    await removeFinalizer(n, FINALIZER_ORPHAN);
  }

  let resyncTimer: unknown;
  const resyncMs = ctx.discoveryResyncMs ?? DISCOVERY_RESYNC_MS;
  const resync = (): void => {
    if (stopped || resyncMs <= 0) return;
    resyncTimer = clock.setTimeout(() => {
      void discoverResources(client)
        .then((m) => {
          if (stopped) return;
          mapping = m;
          for (const r of m.watchable) watch(r);
          // resources discovery no longer lists (a deleted CRD's): stop their informers,
          // as upstream's GraphBuilder.syncMonitors stops monitors of removed resources
          const now = new Set(m.watchable.map((r) => `${r.group}/${r.resource}`));
          for (const [k, r] of watched) {
            if (now.has(k)) continue;
            watched.delete(k);
            informers.remove(r);
          }
          absent.clear();
        })
        .catch(() => undefined)
        .finally(resync);
    }, resyncMs);
  };

  informers.start();
  await informers.waitForSync();
  deleteLoop.run();
  orphanLoop.run();
  resync();
  return {
    async stop() {
      stopped = true;
      if (resyncTimer !== undefined) clock.clearTimeout(resyncTimer);
      await Promise.all([deleteLoop.stop(), orphanLoop.stop()]);
    },
  };
}

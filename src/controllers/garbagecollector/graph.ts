/**
 * The garbage collector's dependency graph (upstream GraphBuilder): one node per object
 * seen by the informers, keyed by UID, with its owner references and the UIDs of its
 * dependents. Owners that were never seen (or are gone) still collect dependents under
 * their UID, so a dependent whose owner is absent can be found and verified.
 *
 * The graph only records; the collector decides what to do from the changes it reports
 * through {@link GraphListener}.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/garbagecollector/graph_builder.go
 */
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { KObject } from '../../api/resource.js';
import type { ResourceRef } from '../../client/types.js';

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

/** One object in the graph. */
export interface GraphNode {
  uid: string;
  ref: ResourceRef;
  namespace: string;
  name: string;
  owners: OwnerReference[];
  /** has a deletionTimestamp */
  beingDeleted: boolean;
  /** being deleted with the foregroundDeletion finalizer */
  deletingDependents: boolean;
  /** being deleted with the orphan finalizer */
  orphaning: boolean;
}

/** What the collector hears about. */
interface GraphListener {
  /** `uid` should be checked for deletion (its owners changed or went away) */
  attemptToDelete(uid: string): void;
  /** `uid` is being deleted with the orphan finalizer */
  attemptToOrphan(uid: string): void;
}

function toNode(ref: ResourceRef, o: KObject): GraphNode {
  const m = o.metadata ?? {};
  const fin = m.finalizers ?? [];
  const beingDeleted = !!m.deletionTimestamp;
  return {
    uid: m.uid ?? '',
    ref,
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    owners: m.ownerReferences ?? [],
    beingDeleted,
    deletingDependents: beingDeleted && fin.includes(FINALIZER_FOREGROUND),
    orphaning: beingDeleted && fin.includes(FINALIZER_ORPHAN),
  };
}

const EMPTY: ReadonlySet<string> = new Set();

export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();
  /** owner UID → dependent UIDs (also for owners not in `nodes`) */
  private readonly dependents = new Map<string, Set<string>>();

  constructor(private readonly listener: GraphListener) {}

  /** The node with this UID, if the object is known. */
  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** UIDs of the objects naming `uid` as an owner. */
  dependentsOf(uid: string): ReadonlySet<string> {
    return this.dependents.get(uid) ?? EMPTY;
  }

  /** Dependents whose reference to `owner` has blockOwnerDeletion=true (upstream blockingDependents). */
  blockingDependents(owner: string): GraphNode[] {
    const out: GraphNode[] = [];
    for (const d of this.dependentsOf(owner)) {
      const n = this.nodes.get(d);
      if (n?.owners.some((r) => r.uid === owner && r.blockOwnerDeletion)) out.push(n);
    }
    return out;
  }

  /** Number of known objects. */
  get size(): number {
    return this.nodes.size;
  }

  /** An object was added or changed. */
  upsert(ref: ResourceRef, obj: KObject): void {
    const n = toNode(ref, obj);
    if (!n.uid) return;
    const old = this.nodes.get(n.uid);
    this.nodes.set(n.uid, n);
    const oldOwners = old?.owners ?? [];
    let ownersChanged = oldOwners.length !== n.owners.length;
    for (const r of oldOwners) {
      if (!n.owners.some((x) => x.uid === r.uid)) {
        ownersChanged = true;
        this.unlink(r.uid, n.uid);
      }
    }
    for (const r of n.owners) {
      if (!oldOwners.some((x) => x.uid === r.uid && x.blockOwnerDeletion === r.blockOwnerDeletion)) ownersChanged = true;
      this.link(r.uid, n.uid);
    }
    // a new object, or one whose owners changed: are its owners still there?
    if ((!old || ownersChanged) && n.owners.length) this.listener.attemptToDelete(n.uid);
    // an owner that stops blocking on this one may now finish its foreground deletion
    if (old && ownersChanged) for (const r of oldOwners) this.kickDeletingOwner(r.uid);
    if (n.orphaning && (!old || !old.orphaning)) this.listener.attemptToOrphan(n.uid);
    if (n.deletingDependents && (!old || !old.deletingDependents)) {
      this.listener.attemptToDelete(n.uid);
      for (const d of this.dependentsOf(n.uid)) this.listener.attemptToDelete(d);
    }
    // an object being deleted that a foreground owner waits for: the owner re-checks
    if (n.beingDeleted && (!old || !old.beingDeleted)) for (const r of n.owners) this.kickDeletingOwner(r.uid);
  }

  /** An object was deleted: its dependents lose an owner, owners waiting on it re-check. */
  remove(obj: KObject): void {
    const uid = obj.metadata?.uid;
    if (!uid) return;
    const n = this.nodes.get(uid);
    if (!n) return;
    this.nodes.delete(uid);
    for (const r of n.owners) {
      this.unlink(r.uid, uid);
      this.kickDeletingOwner(r.uid);
    }
    for (const d of this.dependentsOf(uid)) this.listener.attemptToDelete(d);
  }

  private kickDeletingOwner(owner: string): void {
    if (this.nodes.get(owner)?.deletingDependents) this.listener.attemptToDelete(owner);
  }

  private link(owner: string, dep: string): void {
    let s = this.dependents.get(owner);
    if (!s) {
      s = new Set();
      this.dependents.set(owner, s);
    }
    s.add(dep);
  }

  private unlink(owner: string, dep: string): void {
    const s = this.dependents.get(owner);
    if (!s) return;
    s.delete(dep);
    if (s.size === 0) this.dependents.delete(owner);
  }
}

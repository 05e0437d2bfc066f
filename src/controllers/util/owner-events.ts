/**
 * The informer → queue wiring every workload controller has for the objects it owns
 * (pods of a ReplicaSet, DaemonSet, StatefulSet or Job; ReplicaSets of a Deployment;
 * ControllerRevisions), written once: upstream's add<Obj>/update<Obj>/delete<Obj>
 * handlers resolve the object's controllerRef to a live owner (same kind, name and
 * UID) and enqueue it; when the reference moves, the old owner is enqueued too; an
 * object without a live owner goes to `noOwner` (typically: enqueue the controllers
 * whose selector matches an orphan, see {@link adoptOrphans}).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/replicaset/replica_set.go (addPod, updatePod, deletePod)
 */
import type { KObject } from '../../api/resource.js';
import { controllerRefOf } from './controller-ref.js';

/** Where an owned object's events go. `O` is the owner kind, `T` the owned kind. */
interface OwnedObjectEvents<O extends KObject, T extends KObject> {
  /** the live owner `ref` names in namespace `ns`, if any (see controllerResolver) */
  resolve(ns: string, ref: ReturnType<typeof controllerRefOf>): O | undefined;
  /** queues an owner for a sync */
  enqueue(owner: O): void;
  /** runs first for every event, owned or not */
  observe?(obj: T, event: 'add' | 'update' | 'delete'): void;
  /** an owned object appeared (before its owner is enqueued), e.g. expectations.creationObserved */
  added?(owner: O, obj: T): void;
  /** an owned object changed (resourceVersion moved; before its owner is enqueued) */
  updated?(owner: O, old: T, cur: T): void;
  /** an owned object went away (before its owner is enqueued), e.g. expectations.deletionObserved */
  deleted?(owner: O, obj: T): void;
  /** the object's controllerRef names no live owner of this kind (or it has none); `old` on updates */
  noOwner?(obj: T, event: 'add' | 'update' | 'delete', old?: T): void;
}

/** The handlers to pass to an owned kind's informer `addEventHandler`. */
export function ownedObjectHandlers<O extends KObject, T extends KObject>(h: OwnedObjectEvents<O, T>): { add(obj: T): void; update(old: T, cur: T): void; delete(obj: T): void } {
  const ownerOf = (obj: T): O | undefined => h.resolve(obj.metadata?.namespace ?? '', controllerRefOf(obj));
  return {
    add(obj) {
      h.observe?.(obj, 'add');
      const owner = ownerOf(obj);
      if (!owner) return h.noOwner?.(obj, 'add');
      h.added?.(owner, obj);
      h.enqueue(owner);
    },
    update(old, cur) {
      if (old.metadata?.resourceVersion === cur.metadata?.resourceVersion) return;
      h.observe?.(cur, 'update');
      const oldRef = controllerRefOf(old);
      if (oldRef && oldRef.uid !== controllerRefOf(cur)?.uid) {
        const previous = ownerOf(old);
        if (previous) h.enqueue(previous);
      }
      const owner = ownerOf(cur);
      if (!owner) return h.noOwner?.(cur, 'update', old);
      h.updated?.(owner, old, cur);
      h.enqueue(owner);
    },
    delete(obj) {
      h.observe?.(obj, 'delete');
      const owner = ownerOf(obj);
      if (!owner) return h.noOwner?.(obj, 'delete');
      h.deleted?.(owner, obj);
      h.enqueue(owner);
    },
  };
}

/**
 * A `noOwner` that enqueues the controllers that could adopt an orphan (no controllerRef
 * at all; an object another controller owns is left alone).
 * @param candidates the controllers whose selector matches the object (controllersSelecting)
 */
export function adoptOrphans<O extends KObject, T extends KObject>(candidates: (obj: T) => O[], enqueue: (owner: O) => void): (obj: T) => void {
  return (obj) => {
    if (!controllerRefOf(obj)) for (const c of candidates(obj)) enqueue(c);
  };
}

/**
 * Controller references and the adopt/release protocol of upstream's
 * ControllerRefManager: a controller claims the objects its selector matches — orphans
 * are adopted (owner reference with controller=true, blockOwnerDeletion=true, added by a
 * strategic merge patch that also carries the object's UID as precondition), its own
 * objects that no longer match are released, objects of other controllers are left
 * alone. Adoption first re-reads the controller to make sure it is not being deleted.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/controller_ref_manager.go
 */
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { KObject } from '../../api/resource.js';
import { isNotFound } from '../../apimachinery/errors.js';
import type { Selector } from '../../apimachinery/labels.js';
import type { Client, ResourceRef } from '../../client/types.js';

/** The owner reference with controller=true, if any (upstream metav1.GetControllerOf). */
export function controllerRefOf(obj: KObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** A controller owner reference (controller=true, blockOwnerDeletion=true) to `owner`. */
export function newControllerRef(owner: KObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** Is `obj` controlled by the object with this UID? */
export function isControlledBy(obj: KObject, uid: string | undefined): boolean {
  return !!uid && controllerRefOf(obj)?.uid === uid;
}

interface ClaimOptions<T extends KObject> {
  client: Client;
  /** the controller (its metadata is read: uid, namespace, deletionTimestamp) */
  controller: KObject;
  controllerAPIVersion: string;
  controllerKind: string;
  /** the controller's resource, for the deletion re-check */
  controllerResource: ResourceRef;
  /** the claimed objects' resource */
  resource: ResourceRef;
  selector: Selector;
  /** extra test an orphan must pass besides the selector */
  filter?: (obj: T) => boolean;
  /** finalizers added on adoption (job tracking) */
  adoptFinalizers?: string[];
}

/**
 * Claims `objs` for the controller (upstream ClaimPods / ClaimReplicaSets): returns the
 * objects it now controls. Adoption and release are strategic merge patches; objects that
 * vanished meanwhile are skipped.
 * @throws StatusError when a patch fails for another reason, or the controller is gone
 */
export async function claimObjects<T extends KObject>(objs: T[], o: ClaimOptions<T>): Promise<T[]> {
  const out: T[] = [];
  const ctl = o.controller.metadata ?? {};
  const uid = ctl.uid ?? '';
  let canAdopt: Promise<boolean> | undefined;
  const checkAdopt = (): Promise<boolean> =>
    (canAdopt ??= (async () => {
      try {
        const fresh = await o.client.get(o.controllerResource, ctl.namespace ?? '', ctl.name ?? '');
        return fresh.metadata?.uid === uid && !fresh.metadata?.deletionTimestamp;
      } catch (e) {
        if (isNotFound(e)) return false;
        throw e;
      }
    })());
  for (const obj of objs) {
    const m = obj.metadata ?? {};
    const labels = m.labels ?? {};
    const ref = controllerRefOf(obj);
    const matches = o.selector.matches(labels) && (o.filter ? o.filter(obj) : true);
    if (ref) {
      if (ref.uid !== uid) continue;
      if (matches) {
        out.push(obj);
        continue;
      }
      if (ctl.deletionTimestamp) continue;
      try {
        await o.client.patch(o.resource, m.namespace ?? '', m.name ?? '', 'strategic', {
          metadata: { ownerReferences: [{ $patch: 'delete', uid }], uid: m.uid },
        });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      continue;
    }
    if (ctl.deletionTimestamp || !matches || m.deletionTimestamp) continue;
    if (ctl.namespace && ctl.namespace !== m.namespace) continue;
    if (!(await checkAdopt())) continue;
    const newRef = newControllerRef(o.controller, o.controllerAPIVersion, o.controllerKind);
    const meta: Record<string, unknown> = { ownerReferences: [newRef], uid: m.uid };
    if (o.adoptFinalizers?.length) meta.finalizers = o.adoptFinalizers;
    try {
      const adopted = await o.client.patch<T>(o.resource, m.namespace ?? '', m.name ?? '', 'strategic', { metadata: meta });
      out.push(adopted);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  return out;
}

/** A controller reference as the resolvers below read it. */
type ControllerRefLike = { kind: string; name: string; uid: string } | undefined;

/**
 * Resolves controller references to the live controller a cache holds: same kind, and
 * the object named `ref.name` in namespace `ns` with the reference's UID (a recreated
 * controller of the same name is not the owner). Upstream resolveControllerRef.
 */
export function controllerResolver<T extends KObject>(
  cache: { getByName(ns: string, name: string): T | undefined },
  kind: string,
): (ns: string, ref: ControllerRefLike) => T | undefined {
  return (ns, ref) => {
    if (!ref || ref.kind !== kind) return undefined;
    const o = cache.getByName(ns, ref.name);
    return o && o.metadata?.uid === ref.uid ? o : undefined;
  };
}

/**
 * The controllers among `candidates` whose selector matches `obj`'s labels; an empty or
 * invalid selector matches nothing. Upstream get<Kind>sFor<Object> for orphans.
 */
export function controllersSelecting<T>(candidates: readonly T[], obj: KObject, selectorOf: (c: T) => Selector): T[] {
  return candidates.filter((c) => {
    try {
      const sel = selectorOf(c);
      return !sel.empty() && sel.matches(obj.metadata?.labels);
    } catch {
      return false;
    }
  });
}

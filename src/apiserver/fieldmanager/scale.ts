/**
 * Field ownership through the `scale` subresource: a Scale write by a manager that
 * changes spec.replicas gives the parent's `spec.replicas` to that manager, in an Update
 * entry with subresource `scale` and the parent's apiVersion; every other manager loses
 * it (upstream ScaleHandler: ToSubresource → Update of the Scale → ToParent).
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/util/managedfields/scalehandler.go
 */
import type { Obj } from '../../api/resource.js';
import { rfc3339 } from '../registry/meta.js';
import type { FieldManagerScope } from './fieldmanager.js';
import { FieldSet } from './fieldset.js';
import { decodeOrEmpty, encodeManagedFields, managerId, type ManagedFieldsEntry } from './managed.js';

const REPLICAS = ['f:spec', 'f:replicas'];

/**
 * Records a Scale write on the parent object `obj` (mutates its managedFields): `obj`
 * carries the live managedFields and the new spec.replicas, `oldReplicas` is the live
 * value. Objects without managedFields stay without them; an unchanged value changes nothing.
 * @param scope the parent resource; `subresource` is ignored ('scale')
 * @param replicasPath the replicas field as fieldsV1 keys (default `f:spec`,`f:replicas`;
 *   a custom resource's specReplicasPath otherwise)
 * @param newReplicas the value written (default: the object's spec.replicas)
 */
export function recordScaleUpdate(
  obj: Obj,
  oldReplicas: number | undefined,
  manager: string,
  scope: Pick<FieldManagerScope, 'def' | 'now'>,
  replicasPath: readonly string[] = REPLICAS,
  newReplicas: number | undefined = (obj as { spec?: { replicas?: number } }).spec?.replicas,
): void {
  if (newReplicas === oldReplicas) return;
  const path = replicasPath as string[];
  const managed = decodeOrEmpty(obj.metadata.managedFields as ManagedFieldsEntry[] | undefined);
  if (managed.size === 0) return;
  const owned = new FieldSet();
  owned.insert(path);
  for (const [id, e] of managed) {
    if (!e.set.has(path)) continue;
    e.set = e.set.difference(owned);
    if (e.set.isEmpty()) managed.delete(id);
  }
  const name = manager || 'unknown';
  const apiVersion = scope.def.group ? `${scope.def.group}/${scope.def.version}` : scope.def.version;
  const id = managerId(name, 'Update', apiVersion, 'scale');
  const prev = managed.get(id);
  managed.set(id, { manager: name, operation: 'Update', apiVersion, subresource: 'scale', time: rfc3339(scope.now), set: prev ? owned.union(prev.set) : owned });
  const enc = encodeManagedFields(managed);
  if (enc) obj.metadata.managedFields = enc as never;
  else delete obj.metadata.managedFields;
}

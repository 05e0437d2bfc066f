/**
 * Equivalent resources for `matchPolicy: Equivalent` (upstream's EquivalentResourceMapper):
 * the served resources that keep their objects under the same storage key, e.g.
 * autoscaling/v1 and autoscaling/v2 horizontalpodautoscalers, v1 and events.k8s.io/v1
 * events, the versions of a custom resource. An object is converted between two of them
 * through their shared stored form (the definitions' storage conversions), as upstream
 * converts through the internal version.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/runtime/mapper.go (equivalentResourceRegistry)
 * @see https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#matching-requests-matchpolicy
 */
import type { GroupVersionResource, Obj, ResourceDefinition } from '../../../api/resource.js';
import { storageKeyPrefix } from '../../registry/key-prefix.js';
import type { GroupVersionKind } from './review.js';

/** One resource of a set of equivalents, with the kind it serves. */
export interface Equivalent {
  resource: GroupVersionResource;
  kind: GroupVersionKind;
  def: ResourceDefinition;
}

const keyOf = (d: ResourceDefinition): string => d.storagePrefix ?? storageKeyPrefix(d.group, d.resource);

/** Equivalents and conversions over the served definitions (read on each call: custom resources come and go). */
export class EquivalentResources {
  constructor(private readonly definitions: () => readonly ResourceDefinition[]) {}

  /** The definition serving `r`, if any. */
  definition(r: GroupVersionResource): ResourceDefinition | undefined {
    return this.definitions().find((d) => d.group === r.group && d.version === r.version && d.resource === r.resource);
  }

  /**
   * The resources equivalent to `r` (itself included) that serve `subresource` ('' = the
   * resource; `status` where the definition has a status strategy; other subresources
   * have no equivalents here).
   */
  equivalentsFor(r: GroupVersionResource, subresource: string): Equivalent[] {
    const self = this.definition(r);
    if (!self) return [];
    const key = keyOf(self);
    return this.definitions()
      .filter((d) => keyOf(d) === key)
      .filter((d) => d === self || subresource === '' || (subresource === 'status' && d.status !== undefined))
      .map((def) => ({ resource: { group: def.group, version: def.version, resource: def.resource }, kind: { group: def.group, version: def.version, kind: def.kind }, def }));
  }

  /**
   * `obj` (served as `from`) converted to `to`'s version, through the stored form.
   * @returns a new object
   */
  convert(obj: Obj, from: GroupVersionResource, to: GroupVersionResource): Obj {
    const a = this.definition(from);
    const b = this.definition(to);
    const stored = a?.storageConversion ? a.storageConversion.toStored(obj) : structuredClone(obj);
    return b?.storageConversion ? b.storageConversion.fromStored(stored) : (stored as Obj);
  }
}

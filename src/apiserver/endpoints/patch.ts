/**
 * PATCH bodies: JSON Patch (RFC 6902), JSON merge patch (RFC 7386), strategic merge
 * patch (built-in kinds) and apply patches (server-side apply, simplified: the applied
 * configuration is strategically merged onto the live object, or creates it; field
 * ownership in managedFields is not tracked yet).
 *
 * @see https://kubernetes.io/docs/tasks/manage-kubernetes-objects/update-api-object-kubectl-patch/
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/handlers/patch.go
 */
import { parse as parseYAML } from 'yaml';
import type { KObject, Obj, ResourceDefinition } from '../../api/resource.js';
import { newBadRequest, newNotFound, newUnsupportedMediaType } from '../../apimachinery/errors.js';
import { applyJSONPatch } from '../../apimachinery/patch/json-patch.js';
import { applyMergePatch } from '../../apimachinery/patch/merge-patch.js';
import { isStrategicMergeSupported, strategicMergePatch } from '../../apimachinery/patch/strategic-merge-patch.js';
import { parseJSONBody } from '../http/body.js';
import type { BodyFormat } from '../http/negotiate.js';

const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

function kindKey(def: ResourceDefinition): string {
  return def.group ? `${def.group}/${def.version}/${def.kind}` : `${def.version}/${def.kind}`;
}

/**
 * Applies a patch body to `current` (undefined when the object does not exist).
 * @throws StatusError 415 for unsupported patch types, 400/422 for bad patches, 404 when
 * the object is missing (except for apply patches, which create it)
 */
export function applyPatch(
  def: ResourceDefinition,
  fmt: BodyFormat | undefined,
  contentType: string | undefined,
  body: Buffer,
  current: Obj | undefined,
  name: string,
  query: URLSearchParams,
): KObject {
  const text = body.toString('utf8');
  switch (fmt) {
    case 'json-patch': {
      if (!current) throw newNotFound({ group: def.group, resource: def.resource }, name);
      const ops = parseJSONBody(text);
      return applyJSONPatch(current, ops) as KObject;
    }
    case 'merge-patch': {
      if (!current) throw newNotFound({ group: def.group, resource: def.resource }, name);
      return applyMergePatch(current, parseJSONBody(text)) as KObject;
    }
    case 'strategic-merge-patch': {
      if (!isStrategicMergeSupported(kindKey(def))) throw newUnsupportedMediaType(contentType ?? '', PATCH_TYPES.filter((t) => !t.includes('strategic')));
      if (!current) throw newNotFound({ group: def.group, resource: def.resource }, name);
      return strategicMergePatch(current, parseJSONBody(text), kindKey(def)) as KObject;
    }
    case 'apply-patch': {
      if (!query.get('fieldManager')) throw newBadRequest('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
      let applied: unknown;
      try {
        applied = parseYAML(text);
      } catch (e) {
        throw newBadRequest(`error decoding YAML: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (!applied || typeof applied !== 'object' || Array.isArray(applied)) throw newBadRequest('invalid object for apply patch');
      const a = applied as KObject;
      if (!current) return a;
      if (isStrategicMergeSupported(kindKey(def))) return strategicMergePatch(current, a, kindKey(def)) as KObject;
      return applyMergePatch(current, a) as KObject;
    }
    default:
      throw newUnsupportedMediaType(contentType ?? '', PATCH_TYPES);
  }
}

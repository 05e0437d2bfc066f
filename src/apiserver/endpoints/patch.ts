/**
 * PATCH bodies: JSON Patch (RFC 6902), JSON merge patch (RFC 7386), strategic merge
 * patch (built-in kinds) and apply patches (server-side apply with field ownership, see
 * {@link serverSideApply}; `applyPatch` keeps a plain strategic merge of apply bodies for
 * callers without field management, the Scale subresource).
 *
 * @see https://kubernetes.io/docs/tasks/manage-kubernetes-objects/update-api-object-kubectl-patch/
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/handlers/patch.go
 */
import { parse as parseYAML } from 'yaml';
import type { KObject, Obj, ResourceDefinition } from '../../api/resource.js';
import { newBadRequest, newNotFound, newUnsupportedMediaType } from '../../apimachinery/errors.js';
import { jsonPatchBody } from '../../apimachinery/patch/json-patch.js';
import { applyMergePatch, mergePatchBody } from '../../apimachinery/patch/merge-patch.js';
import type { JsonObject } from '../../apimachinery/patch/json-value.js';
import { isStrategicMergeSupported, strategicMergePatch, strategicMergePatchBody } from '../../apimachinery/patch/strategic-merge-patch.js';
import type { BodyFormat } from '../http/negotiate.js';
import { tooDeep } from '../http/body.js';
import { MAX_JSON_DEPTH } from '../http/json-syntax.js';
import { applyFields, type FieldManagerScope } from '../fieldmanager/fieldmanager.js';
import { queryBool } from '../../apimachinery/query-params.js';

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

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
): { object: KObject; strictErrors: string[] } {
  const fv = fieldValidationOf(query);
  const missing = () => newNotFound({ group: def.group, resource: def.resource }, name);
  switch (fmt) {
    case 'json-patch': {
      if (!current) throw missing();
      const r = jsonPatchBody(current as unknown as JsonObject, body, { fieldValidation: fv });
      return { object: r.object as KObject, strictErrors: r.strictErrors };
    }
    case 'merge-patch': {
      if (!current) throw missing();
      const r = mergePatchBody(current as unknown as JsonObject, body, { fieldValidation: fv });
      return { object: r.object as KObject, strictErrors: r.strictErrors };
    }
    case 'strategic-merge-patch': {
      if (!isStrategicMergeSupported(kindKey(def)))
        throw newUnsupportedMediaType(
          contentType ?? '',
          PATCH_TYPES.filter((t) => !t.includes('strategic')),
        );
      if (!current) throw missing();
      const r = strategicMergePatchBody(current, body, kindKey(def), { fieldValidation: fv });
      return { object: r.object as KObject, strictErrors: r.strictErrors };
    }
    case 'apply-patch': {
      const a = parseApplyBody(body, query);
      if (!current) return { object: a, strictErrors: [] };
      if (isStrategicMergeSupported(kindKey(def))) return { object: strategicMergePatch(current, a, kindKey(def)) as KObject, strictErrors: [] };
      return { object: applyMergePatch(current as unknown as JsonObject, a as unknown as JsonObject) as KObject, strictErrors: [] };
    }
    default:
      throw newUnsupportedMediaType(contentType ?? '', PATCH_TYPES);
  }
}

/**
 * The applied configuration of an apply patch (YAML or JSON).
 * @throws StatusError 400 without `fieldManager`, for undecodable bodies and non-objects
 */
function parseApplyBody(body: Buffer, query: URLSearchParams): KObject {
  if (!query.get('fieldManager')) throw newBadRequest('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  let applied: unknown;
  try {
    applied = parseYAML(body.toString('utf8'));
  } catch (e) {
    throw newBadRequest(`error decoding YAML: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!applied || typeof applied !== 'object' || Array.isArray(applied)) throw newBadRequest('invalid object for apply patch');
  if (tooDeep(applied, MAX_JSON_DEPTH)) throw newBadRequest(`error decoding YAML: yaml: exceeded max depth of ${MAX_JSON_DEPTH}`);
  return applied as KObject;
}

/**
 * Server-side apply (PATCH application/apply-patch+yaml): the applied configuration is
 * merged into `current` (or creates the object) with field ownership, see
 * {@link applyFields}; `force=true` takes fields from other managers instead of failing.
 * @throws StatusError 400 (no fieldManager, bad body, apiVersion/kind other than the
 *   endpoint's), 409 on conflicts with other managers
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/endpoints/handlers/patch.go (applyPatcher)
 */
export function serverSideApply(
  def: ResourceDefinition,
  body: Buffer,
  current: Obj | undefined,
  query: URLSearchParams,
  manager: string,
  scope: FieldManagerScope,
): { object: KObject; strictErrors: string[] } {
  const a = parseApplyBody(body, query);
  const want = def.group ? `${def.group}/${def.version}` : def.version;
  if (a.apiVersion !== want || a.kind !== def.kind) {
    const gv = typeof a.apiVersion === 'string' ? a.apiVersion : '';
    throw newBadRequest(`invalid object type: ${gv.includes('/') ? gv : `/${gv}`}, Kind=${typeof a.kind === 'string' ? a.kind : ''}`);
  }
  const md = a.metadata as unknown;
  if (md !== undefined && md !== null && (typeof md !== 'object' || Array.isArray(md))) {
    throw newBadRequest(
      `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: json: cannot unmarshal ${Array.isArray(md) ? 'array' : typeof md} into Go struct field ${def.kind}.metadata of type v1.ObjectMeta`,
    );
  }
  const force = queryBool(query, 'force');
  return { object: applyFields(current, a, manager, force, scope), strictErrors: [] };
}

function fieldValidationOf(q: URLSearchParams): 'Strict' | 'Warn' | 'Ignore' {
  const v = q.get('fieldValidation');
  return v === 'Strict' || v === 'Ignore' ? v : 'Warn';
}

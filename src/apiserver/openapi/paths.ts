/**
 * OpenAPI v3 `paths` for one resource, shaped as upstream's apiserver installs them
 * (endpoints/installer.go): the collection (list, create, deletecollection), the item
 * (read, replace, patch, delete), the status subresource, the cross-namespace list and
 * the deprecated `/watch/` paths, with the query parameters each verb takes and the
 * `x-kubernetes-action` / `x-kubernetes-group-version-kind` extensions kubectl looks for
 * (it checks that the kind's PATCH operation takes `fieldValidation`).
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/installer.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go
 */
import type { ResourceDefinition, Verb } from '../../api/resource.js';
import type { Schema } from './schemas.js';

const REF = '#/components/schemas/';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** All eight verbs, the default of a ResourceDefinition. */
export const ALL_VERBS: readonly Verb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/** Schema names a resource's operations use for its kind and list. */
export interface ResourceSchemas {
  kind: string;
  list: string;
  /** whether the kind is built in (strategic merge patch offered) */
  builtin: boolean;
}

type Param = { description: string; in: 'query' | 'path'; name: string; required?: boolean; schema: Schema };

function q(name: string, type: 'string' | 'boolean' | 'integer', description: string): Param {
  return { description, in: 'query', name, schema: { type, uniqueItems: true } };
}

const P = {
  allowWatchBookmarks: q(
    'allowWatchBookmarks',
    'boolean',
    'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers may send bookmarks at their discretion. Ignored unless watching.',
  ),
  continue: q('continue', 'string', 'The continue token from a previous list result with limit set, to fetch the next chunk.'),
  dryRun: q('dryRun', 'string', 'When present, indicates that modifications should not be persisted. The only valid value is All: all dry run stages are processed.'),
  fieldManager: q('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes. At most 128 printable characters.'),
  fieldManagerApply: q(
    'fieldManager',
    'string',
    'fieldManager is a name associated with the actor or entity that is making these changes. Required for apply requests (application/apply-patch); optional for the other patch types.',
  ),
  fieldSelector: q('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  fieldValidation: q(
    'fieldValidation',
    'string',
    'fieldValidation instructs the server how to handle objects in the request containing unknown or duplicate fields: Ignore (drop them silently), Warn (drop them and send a warning header for each, the default) or Strict (fail the request with BadRequest).',
  ),
  force: q(
    'force',
    'boolean',
    'Force is going to "force" Apply requests: the request re-acquires conflicting fields owned by other managers. Must be unset for non-apply patch requests.',
  ),
  gracePeriodSeconds: q(
    'gracePeriodSeconds',
    'integer',
    'The duration in seconds before the object should be deleted. Zero means delete immediately; unset means the default of the type.',
  ),
  ignoreStoreReadError: q(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'boolean',
    'if set to true, deletes objects that cannot be read from storage (corrupt). Unsafe; off by default.',
  ),
  labelSelector: q('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  limit: q('limit', 'integer', 'limit is a maximum number of responses to return for a list call. If more items exist, the list metadata carries a continue token.'),
  orphanDependents: q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy. Whether dependent objects should be orphaned.'),
  pretty: q('pretty', 'string', "If 'true', then the output is pretty printed."),
  propagationPolicy: q('propagationPolicy', 'string', "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'."),
  resourceVersion: q('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from. Defaults to unset.'),
  resourceVersionMatch: q('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls. Defaults to unset.'),
  sendInitialEvents: q('sendInitialEvents', 'boolean', 'With watch=true, begin the watch stream with synthetic events for the current state of the collection, then a BOOKMARK.'),
  timeoutSeconds: q('timeoutSeconds', 'integer', 'Timeout for the list/watch call, regardless of any activity or inactivity.'),
  watch: q('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.'),
} satisfies Record<string, Param>;

const LIST_PARAMS = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];
const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];
const PATCH_PARAMS = [P.dryRun, P.fieldManagerApply, P.fieldValidation, P.force];
const DELETE_PARAMS = [P.dryRun, P.gracePeriodSeconds, P.ignoreStoreReadError, P.orphanDependents, P.propagationPolicy];
const DELETECOLLECTION_PARAMS = [
  P.continue,
  P.dryRun,
  P.fieldSelector,
  P.gracePeriodSeconds,
  P.ignoreStoreReadError,
  P.labelSelector,
  P.limit,
  P.orphanDependents,
  P.propagationPolicy,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
];

function pathParam(name: 'name' | 'namespace', description: string): Param {
  return { description, in: 'path', name, required: true, schema: { type: 'string', uniqueItems: true } };
}
const NAMESPACE_PARAM = pathParam('namespace', 'object name and auth scope, such as for teams and projects');

/** Response media types: what the server writes (JSON, or YAML on request). */
function content(schemaName: string, types: readonly string[] = ['application/json', 'application/yaml']): Schema {
  const out: Schema = {};
  for (const t of types) out[t] = { schema: { $ref: REF + schemaName } };
  return out;
}
const WATCH_TYPES = ['application/json', 'application/json;stream=watch', 'application/yaml'];

/** `CoreV1`, `AppsV1`, `RbacAuthorizationV1`, `ExampleComV1`: the group-version part of operation ids. */
export function operationGroupVersion(group: string, version: string): string {
  const g = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  return g.split('.').map(capitalize).join('') + capitalize(version);
}

/** `core_v1`, `apps_v1`, `rbacAuthorization_v1`: upstream's operation tags. */
export function operationTag(group: string, version: string): string {
  const g = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  const parts = g.split('.');
  return parts[0] + parts.slice(1).map(capitalize).join('') + '_' + version;
}

function capitalize(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

/**
 * The `paths` entries of one resource, keyed by URL path (`/api/v1/namespaces/{namespace}/pods`).
 * Only the verbs the definition serves appear; PATCH offers strategic merge patch only
 * for built-in kinds (kubectl would otherwise send SMP to a custom kind).
 */
export function resourcePaths(def: ResourceDefinition, names: ResourceSchemas): Record<string, Schema> {
  const verbs = new Set(def.verbs ?? ALL_VERBS);
  const root = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
  const scope = def.namespaced ? '/namespaces/{namespace}' : '';
  const nsd = def.namespaced ? 'Namespaced' : '';
  const gv = operationGroupVersion(def.group, def.version);
  const tags = [operationTag(def.group, def.version)];
  const gvk = { group: def.group, kind: def.kind, version: def.version };
  const kind = def.kind;
  const op = (id: string, action: string, description: string, extra: Schema): Schema => ({
    description,
    operationId: id,
    ...extra,
    tags,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
  });
  const ok = (schemaName: string, types?: readonly string[]): Schema => ({ content: content(schemaName, types), description: 'OK' });
  const created = (schemaName: string): Schema => ({ content: content(schemaName), description: 'Created' });
  const accepted = (schemaName: string): Schema => ({ content: content(schemaName), description: 'Accepted' });
  const unauthorized = { description: 'Unauthorized' };
  const body = (schemaName: string): Schema => ({ content: { '*/*': { schema: { $ref: REF + schemaName } } }, required: true });
  const patchTypes = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'];
  if (names.builtin) patchTypes.push('application/strategic-merge-patch+json');
  patchTypes.sort();
  const patchBody: Schema = { content: Object.fromEntries(patchTypes.map((t) => [t, { schema: { $ref: REF + META + 'Patch' } }])), required: true };
  const deleteBody: Schema = { content: { '*/*': { schema: { $ref: REF + META + 'DeleteOptions' } } } };
  const nameParam = pathParam('name', `name of the ${kind}`);
  const scopeParams = def.namespaced ? [NAMESPACE_PARAM] : [];

  const out: Record<string, Schema> = {};

  // collection
  const collection: Schema = {};
  if (verbs.has('list')) {
    collection.get = op(`list${gv}${nsd}${kind}`, 'list', `list or watch objects of kind ${kind}`, {
      parameters: LIST_PARAMS,
      responses: { '200': ok(names.list, WATCH_TYPES), '401': unauthorized },
    });
  }
  if (verbs.has('create')) {
    collection.post = op(`create${gv}${nsd}${kind}`, 'post', `create a ${kind}`, {
      parameters: WRITE_PARAMS,
      requestBody: body(names.kind),
      responses: { '200': ok(names.kind), '201': created(names.kind), '202': accepted(names.kind), '401': unauthorized },
    });
  }
  if (verbs.has('deletecollection')) {
    collection.delete = op(`delete${gv}Collection${nsd}${kind}`, 'deletecollection', `delete collection of ${kind}`, {
      parameters: DELETECOLLECTION_PARAMS,
      requestBody: deleteBody,
      responses: { '200': ok(META + 'Status'), '401': unauthorized },
    });
  }
  if (Object.keys(collection).length) {
    collection.parameters = [...scopeParams, P.pretty];
    out[`${root}${scope}/${def.resource}`] = collection;
  }

  // item
  const item: Schema = {};
  if (verbs.has('get')) {
    item.get = op(`read${gv}${nsd}${kind}`, 'get', `read the specified ${kind}`, { responses: { '200': ok(names.kind), '401': unauthorized } });
  }
  if (verbs.has('update')) {
    item.put = op(`replace${gv}${nsd}${kind}`, 'put', `replace the specified ${kind}`, {
      parameters: WRITE_PARAMS,
      requestBody: body(names.kind),
      responses: { '200': ok(names.kind), '201': created(names.kind), '401': unauthorized },
    });
  }
  if (verbs.has('patch')) {
    item.patch = op(`patch${gv}${nsd}${kind}`, 'patch', `partially update the specified ${kind}`, {
      parameters: PATCH_PARAMS,
      requestBody: patchBody,
      responses: { '200': ok(names.kind), '201': created(names.kind), '401': unauthorized },
    });
  }
  if (verbs.has('delete')) {
    item.delete = op(`delete${gv}${nsd}${kind}`, 'delete', `delete a ${kind}`, {
      parameters: DELETE_PARAMS,
      requestBody: deleteBody,
      responses: { '200': ok(names.kind), '202': accepted(names.kind), '401': unauthorized },
    });
  }
  if (Object.keys(item).length) {
    item.parameters = [nameParam, ...scopeParams, P.pretty];
    out[`${root}${scope}/${def.resource}/{name}`] = item;
  }

  // status subresource: get, replace and patch of the same kind
  if (def.status) {
    const status: Schema = {};
    if (verbs.has('get')) {
      status.get = op(`read${gv}${nsd}${kind}Status`, 'get', `read status of the specified ${kind}`, { responses: { '200': ok(names.kind), '401': unauthorized } });
    }
    if (verbs.has('update')) {
      status.put = op(`replace${gv}${nsd}${kind}Status`, 'put', `replace status of the specified ${kind}`, {
        parameters: WRITE_PARAMS,
        requestBody: body(names.kind),
        responses: { '200': ok(names.kind), '201': created(names.kind), '401': unauthorized },
      });
    }
    if (verbs.has('patch')) {
      status.patch = op(`patch${gv}${nsd}${kind}Status`, 'patch', `partially update status of the specified ${kind}`, {
        parameters: PATCH_PARAMS,
        requestBody: patchBody,
        responses: { '200': ok(names.kind), '201': created(names.kind), '401': unauthorized },
      });
    }
    if (Object.keys(status).length) {
      status.parameters = [nameParam, ...scopeParams, P.pretty];
      out[`${root}${scope}/${def.resource}/{name}/status`] = status;
    }
  }

  // list across namespaces
  if (def.namespaced && verbs.has('list')) {
    out[`${root}/${def.resource}`] = {
      get: op(`list${gv}${kind}ForAllNamespaces`, 'list', `list or watch objects of kind ${kind}`, {
        responses: { '200': ok(names.list, WATCH_TYPES), '401': unauthorized },
      }),
      parameters: [...LIST_PARAMS, P.pretty].sort(byName),
    };
  }

  // deprecated watch paths
  if (verbs.has('watch')) {
    const watchParams = [...LIST_PARAMS, P.pretty].sort(byName);
    const event = META + 'WatchEvent';
    out[`${root}/watch${scope}/${def.resource}`] = {
      get: op(`watch${gv}${nsd}${kind}List`, 'watchlist', `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`, {
        responses: { '200': ok(event, WATCH_TYPES), '401': unauthorized },
      }),
      parameters: [...scopeParams, ...watchParams],
    };
    out[`${root}/watch${scope}/${def.resource}/{name}`] = {
      get: op(
        `watch${gv}${nsd}${kind}`,
        'watch',
        `watch changes to an object of kind ${kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
        {
          responses: { '200': ok(event, WATCH_TYPES), '401': unauthorized },
        },
      ),
      parameters: [nameParam, ...scopeParams, ...watchParams],
    };
    if (def.namespaced) {
      out[`${root}/watch/${def.resource}`] = {
        get: op(
          `watch${gv}${kind}ListForAllNamespaces`,
          'watchlist',
          `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
          {
            responses: { '200': ok(event, WATCH_TYPES), '401': unauthorized },
          },
        ),
        parameters: watchParams,
      };
    }
  }
  return out;
}

function byName(a: Param, b: Param): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

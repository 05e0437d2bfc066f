/**
 * REST verbs on a resource served by the generic store: get, list, watch, create,
 * update, patch, delete, deletecollection, plus the status subresource. One handler
 * for every resource (upstream apiserver/pkg/endpoints/handlers).
 *
 * @see https://github.com/kubernetes/apiserver/tree/master/pkg/endpoints/handlers
 */
import type { KObject, Obj, StatusStrategy } from '../../api/resource.js';
import { failureStatus, newBadRequest, newInvalid, newMethodNotAllowed, newMethodNotSupported, StatusError, successStatus } from '../../apimachinery/errors.js';
import { forbidden, invalid, Path, tooLong, type FieldError } from '../../apimachinery/field-errors.js';
import type { Storage } from '../../storage/interface.js';
import { decodeDeleteOptions, decodeObjectBody } from '../http/body.js';
import { depthExceededAt } from '../http/json-syntax.js';
import { bodyFormat, negotiateOutput, type Negotiated } from '../http/negotiate.js';
import type { RequestInfo } from '../http/request-info.js';
import { writeJSON, writeRawJSON } from '../http/respond.js';
import type { ApiRequest, ResponseWriter } from '../http/types.js';
import type { CachedObject } from '../registry/cached-object.js';
import type { Store, WriteContext, DeleteParams } from '../registry/store.js';
import { applyPatch, serverSideApply } from './patch.js';
import { parseIncludeObject, toTable } from './table.js';
import { serveWatch } from './watch.js';
import { checkFieldValidation } from './field-validation.js';
import { dryRunOf, optionsKindOf } from './options.js';
import { queryBool } from '../../apimachinery/query-params.js';
import { checkPatchedTypes, checkTypes } from './typed-decode.js';
import { managerName, PRINTABLE_ASCII, updateFields, type FieldManagerScope } from '../fieldmanager/fieldmanager.js';

/** What a resource handler needs besides the request. */
export interface ResourceContext {
  store: Store;
  storage: Storage;
  info: RequestInfo;
  query: URLSearchParams;
  req: ApiRequest;
  res: ResponseWriter;
  now: Date;
  /**
   * The update strategy of a subresource the resource definition does not declare, set by
   * a custom handler that serves it through the generic verbs (pods/ephemeralcontainers).
   */
  subresourceStrategy?: StatusStrategy;
}

function apiVersionOf(store: Store): string {
  return store.def.group ? `${store.def.group}/${store.def.version}` : store.def.version;
}

/**
 * The write context of a request: its user, `dryRun` (only `All`, as upstream),
 * `fieldManager` and clock.
 * @throws StatusError 422 `<Create|Update|Patch|Delete>Options.meta.k8s.io "" is invalid: dryRun: Unsupported value: …` for other dryRun values
 */
export function writeContext(c: ResourceContext): WriteContext {
  return {
    user: c.req.user ?? { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    dryRun: dryRunOf(c.query.getAll('dryRun'), optionsKindOf(c.info.verb)),
    warnings: [],
    now: c.now,
    fieldManager: c.query.get('fieldManager') ?? undefined,
    fieldValidation: c.query.get('fieldValidation') ?? undefined,
    trace: c.req.trace,
  };
}

/**
 * The field manager of a write: `fieldManager`, else derived from the User-Agent.
 * @throws StatusError 422 `<options>.meta.k8s.io "" is invalid: fieldManager: …` for a
 *   parameter over 128 bytes or with unprintable characters (upstream ValidateFieldManager),
 *   and for `force` on patches other than apply
 */
function managerOf(c: ResourceContext, options: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', applyPatch = false): string {
  const fm = c.query.get('fieldManager');
  const errs: FieldError[] = [];
  if (fm) {
    const p = Path.root('fieldManager');
    if (Buffer.byteLength(fm) > 128) errs.push(tooLong(p, fm, 128));
    // printable ASCII (the common case) has none of the characters looked for below
    if (!PRINTABLE_ASCII.test(fm))
      for (const ch of fm) {
        if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]/u.test(ch)) {
          errs.push(invalid(p, fm, `invalid character U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`));
        }
      }
  }
  if (options === 'PatchOptions' && !applyPatch && c.query.has('force')) errs.push(forbidden(Path.root('force'), 'may not be specified for non-apply patch'));
  if (errs.length) throw newInvalid({ group: 'meta.k8s.io', kind: options }, '', errs);
  return managerName(fm, c.req.headers['user-agent']);
}

function scopeOf(c: ResourceContext, sub: string): FieldManagerScope {
  return { def: c.store.def, subresource: sub, now: c.now };
}

function sendObject(c: ResourceContext, status: number, o: CachedObject | Obj, neg: Negotiated, warnings?: string[]): void {
  const isCached = 'rv' in o && 'key' in o;
  if (neg.transform === 'Table') {
    const t = toTable(c.store.def, [o], { includeObject: parseIncludeObject(c.query.get('includeObject')), now: c.now });
    writeJSON(c.res, status, t, { format: neg.format, warnings });
    return;
  }
  const obj = isCached ? (o as CachedObject).obj : (o as Obj);
  if (neg.transform === 'PartialObjectMetadata') {
    writeJSON(c.res, status, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata }, { format: neg.format, warnings });
    return;
  }
  const json = isCached ? (o as CachedObject).json : JSON.stringify(obj);
  writeRawJSON(c.res, status, json, { format: neg.format, warnings });
}

/** Entry point for resource requests. */
export async function handleResource(c: ResourceContext): Promise<void> {
  const { store, info } = c;
  const def = store.def;
  const ns = def.namespaced ? info.namespace : '';
  const sub = info.subresource;
  if (sub && !(sub === 'status' ? def.status : (def.subresourceStrategies?.[sub] ?? c.subresourceStrategy))) throw notFoundPath();
  const verbs = def.verbs;
  if (verbs && info.verb !== '' && !verbs.includes(info.verb as never)) throw newMethodNotSupported(store.groupResource, info.verb);
  if (def.namespaced && !ns) {
    // the all-namespaces path (/api/v1/configmaps) serves only list and watch upstream;
    // a name there addresses nothing (/api/v1/configmaps/x is no route)
    if (info.name) throw notFoundPath();
    if (info.verb !== 'list' && info.verb !== 'watch') throw newMethodNotAllowed();
  }
  switch (info.verb) {
    case 'get':
      return doGet(c, ns);
    case 'list':
      return doList(c, ns);
    case 'watch':
      return doWatch(c, ns);
    case 'create':
      if (sub) throw newMethodNotSupported(store.groupResource, 'create');
      return doCreate(c, ns);
    case 'update':
      return doUpdate(c, ns, sub);
    case 'patch':
      return doPatch(c, ns, sub);
    case 'delete':
      if (sub) throw newMethodNotSupported(store.groupResource, 'delete');
      return doDelete(c, ns);
    case 'deletecollection':
      return doDeleteCollection(c, ns);
    default:
      throw newMethodNotSupported(store.groupResource, c.req.method);
  }
}

async function doGet(c: ResourceContext, ns: string): Promise<void> {
  const neg = negotiateOutput(c.req.headers['accept'], true);
  const o = await c.store.get(ns, c.info.name, c.query.get('resourceVersion') ?? undefined);
  sendObject(c, 200, o, neg);
}

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/**
 * An int64 query parameter (`limit`, `timeoutSeconds`, `gracePeriodSeconds`) as upstream's
 * parameter codec reads it (strconv.ParseInt), held to JavaScript's safe integers: values
 * beyond them mean "no bound" to every use here.
 * @throws StatusError 400 `strconv.ParseInt: parsing "abc": invalid syntax` / `…: value out of range`
 */
function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw newBadRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const big = BigInt(v);
  if (big > INT64_MAX || big < INT64_MIN) throw newBadRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  const n = Number(big);
  return Math.min(Math.max(n, Number.MIN_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
}

async function doList(c: ResourceContext, ns: string): Promise<void> {
  const neg = negotiateOutput(c.req.headers['accept'], true);
  const q = c.query;
  const r = await c.store.list(ns, {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    limit: intParam(q, 'limit'),
    continue: q.get('continue') ?? undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
  });
  const rv = String(r.resourceVersion);
  if (neg.transform === 'Table') {
    const t = toTable(c.store.def, r.items, {
      includeObject: parseIncludeObject(q.get('includeObject')),
      now: c.now,
      resourceVersion: rv,
      continue: r.continue,
      remainingItemCount: r.remainingItemCount,
    });
    writeJSON(c.res, 200, t, { format: neg.format });
    return;
  }
  const meta: Record<string, unknown> = { resourceVersion: rv };
  if (r.continue) meta.continue = r.continue;
  if (r.remainingItemCount !== undefined) meta.remainingItemCount = r.remainingItemCount;
  if (neg.transform === 'PartialObjectMetadataList' || neg.transform === 'PartialObjectMetadata') {
    const items = r.items.map((o) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.obj.metadata }));
    writeJSON(c.res, 200, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: meta, items }, { format: neg.format });
    return;
  }
  // Build the list text from each object's cached JSON: no re-serialisation.
  const head = `{"kind":${JSON.stringify(c.store.def.listKind)},"apiVersion":${JSON.stringify(apiVersionOf(c.store))},"metadata":${JSON.stringify(meta)},"items":[`;
  const parts: string[] = new Array(r.items.length);
  for (let i = 0; i < r.items.length; i++) parts[i] = r.items[i]!.json;
  writeRawJSON(c.res, 200, `${head}${parts.join(',')}]}`, { format: neg.format });
}

async function doWatch(c: ResourceContext, ns: string): Promise<void> {
  const neg = negotiateOutput(c.req.headers['accept'], true);
  const q = c.query;
  await serveWatch(
    c.store,
    c.storage,
    ns,
    {
      resourceVersion: q.get('resourceVersion') ?? undefined,
      labelSelector: q.get('labelSelector') ?? undefined,
      fieldSelector: q.get('fieldSelector') ?? undefined,
      allowWatchBookmarks: queryBool(q, 'allowWatchBookmarks'),
      timeoutSeconds: intParam(q, 'timeoutSeconds'),
      sendInitialEvents: queryBool(q, 'sendInitialEvents'),
      includeObject: parseIncludeObject(q.get('includeObject')),
    },
    neg,
    c.res,
  );
}

/**
 * Checks apiVersion/kind of a decoded body against the endpoint. Missing parts are taken
 * from the request's resource, as upstream's decoder defaults them (gvkWithDefaults): no
 * kind → the resource's kind; no apiVersion → the resource's group/version; a group
 * without a version (`apps/`) → the resource's version when the groups match.
 * @returns the object with apiVersion and kind first (a new object when they were defaulted)
 * @throws StatusError 400 when apiVersion or kind name something else than the URL
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/runtime/serializer/json/json.go
 */
export function checkKind(c: Pick<ResourceContext, 'store'>, obj: KObject): KObject {
  const want = apiVersionOf(c.store as Store);
  const def = c.store.def;
  const md = obj.metadata as unknown;
  if (md !== undefined && md !== null && (typeof md !== 'object' || Array.isArray(md))) {
    // upstream's decoder: json: cannot unmarshal <type> into Go struct field … of type v1.ObjectMeta
    throw newBadRequest(
      `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: json: cannot unmarshal ${Array.isArray(md) ? 'array' : typeof md} into Go struct field ${def.kind}.metadata of type v1.ObjectMeta`,
    );
  }
  if (!obj.kind || !obj.apiVersion || obj.apiVersion === `${def.group}/`) {
    const { apiVersion, kind, ...rest } = obj;
    let av = apiVersion;
    if (!av || (def.group && av === `${def.group}/`)) av = want;
    obj = { apiVersion: av, kind: kind || def.kind, ...rest } as KObject;
  }
  if (obj.apiVersion !== want) {
    throw newBadRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${want})`);
  }
  if (obj.kind !== def.kind) {
    throw newBadRequest(`the object provided is unrecognized (must be of type ${def.kind}): ${obj.kind} in version "${want}" cannot be handled as a ${def.kind}`);
  }
  return obj;
}

function checkNamespace(c: ResourceContext, obj: KObject, ns: string): void {
  if (!c.store.def.namespaced) return;
  const meta = (obj.metadata ??= {});
  if (meta.namespace && meta.namespace !== ns) {
    throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  meta.namespace = ns;
}

async function doCreate(c: ResourceContext, ns: string): Promise<void> {
  const neg = negotiateOutput(c.req.headers['accept'], false);
  const wc = writeContext(c);
  const obj = checkKind(c, decodeObjectBody(c.req.headers['content-type'], c.req.body, c.store.def.kind));
  checkTypes(c.store.def, obj);
  checkFieldValidation(c.store.def, obj, c.query.get('fieldValidation'), wc.warnings);
  checkNamespace(c, obj, ns);
  const o = obj as Obj;
  o.metadata ??= {};
  c.store.def.defaults?.(o);
  updateFields(undefined, o, managerOf(c, 'CreateOptions'), scopeOf(c, ''));
  const created = await c.store.create(ns, o, wc);
  sendObject(c, 201, created, neg, wc.warnings);
  c.req.trace?.responded();
}

async function doUpdate(c: ResourceContext, ns: string, sub: string): Promise<void> {
  const neg = negotiateOutput(c.req.headers['accept'], false);
  const wc = writeContext(c);
  const obj = checkKind(c, decodeObjectBody(c.req.headers['content-type'], c.req.body, c.store.def.kind));
  checkTypes(c.store.def, obj);
  checkFieldValidation(c.store.def, obj, c.query.get('fieldValidation'), wc.warnings);
  checkNamespace(c, obj, ns);
  const o = obj as Obj;
  o.metadata ??= {};
  if (o.metadata.name !== undefined && o.metadata.name !== c.info.name) {
    throw newBadRequest(`the name of the object (${o.metadata.name}) does not match the name on the URL (${c.info.name})`);
  }
  if (!sub) c.store.def.defaults?.(o);
  const manager = managerOf(c, 'UpdateOptions');
  const scope = scopeOf(c, sub);
  const requestManagedFields = o.metadata.managedFields;
  const r = await c.store.update(
    ns,
    c.info.name,
    (current) => {
      // each attempt starts from the request's managedFields (CAS retries re-run this)
      if (requestManagedFields === undefined) delete o.metadata.managedFields;
      else o.metadata.managedFields = requestManagedFields;
      updateFields(current, o, manager, scope);
      return o;
    },
    wc,
    sub,
    { strategy: c.subresourceStrategy },
  );
  sendObject(c, r.created ? 201 : 200, r.obj, neg, wc.warnings);
}

async function doPatch(c: ResourceContext, ns: string, sub: string): Promise<void> {
  const neg = negotiateOutput(c.req.headers['accept'], false);
  const wc = writeContext(c);
  const fmt = bodyFormat(c.req.headers['content-type']);
  const body = c.req.body ?? Buffer.alloc(0);
  if (fmt !== 'yaml' && fmt !== 'apply-patch' && depthExceededAt(body) >= 0) {
    // patch bodies are held to the nesting limit of objects (http/json-syntax.ts)
    throw newBadRequest(`error decoding patch: invalid character '${String.fromCharCode(body[depthExceededAt(body)]!)}' exceeded max depth`);
  }
  const def = c.store.def;
  const fieldValidation = c.query.get('fieldValidation');
  const manager = managerOf(c, 'PatchOptions', fmt === 'apply-patch');
  const scope = scopeOf(c, sub);
  const r = await c.store.update(
    ns,
    c.info.name,
    (current) => {
      const r =
        fmt === 'apply-patch'
          ? serverSideApply(def, body, current, c.query, manager, scope)
          : applyPatch(def, fmt, c.req.headers['content-type'], body, current, c.info.name, c.query);
      const patched = r.object as Obj;
      checkPatchedTypes(def, fmt, patched, fmt === 'strategic-merge-patch' ? patchValue(body) : undefined);
      if (!patched.metadata) patched.metadata = {};
      checkFieldValidation(def, patched, fieldValidation, wc.warnings, r.strictErrors, patchValue(body));
      dropNulls(patched);
      // the resourceVersion the patch did not set is not a precondition: re-apply on conflicts
      if (current && patched.metadata.resourceVersion === current.metadata.resourceVersion) delete patched.metadata.resourceVersion;
      if (!sub) def.defaults?.(patched);
      if (fmt !== 'apply-patch') updateFields(current, patched, manager, scope);
      return patched;
    },
    wc,
    sub,
    { unconditional: true, createIfMissing: fmt === 'apply-patch', strategy: c.subresourceStrategy },
  );
  sendObject(c, r.created ? 201 : 200, r.obj, neg, wc.warnings);
}

/** DeleteOptions from the body (JSON, YAML or protobuf) and the query string. */
function deleteParams(c: ResourceContext): DeleteParams {
  const p: DeleteParams = {};
  const o = decodeDeleteOptions(c.req.headers['content-type'], c.req.body);
  if (typeof o.gracePeriodSeconds === 'number') p.gracePeriodSeconds = o.gracePeriodSeconds;
  if (o.propagationPolicy) p.propagationPolicy = o.propagationPolicy as DeleteParams['propagationPolicy'];
  if (o.preconditions && typeof o.preconditions === 'object') p.preconditions = o.preconditions;
  if (o.orphanDependents === true) p.propagationPolicy = 'Orphan';
  if (Array.isArray(o.dryRun) && o.dryRun.length) {
    if (dryRunOf(o.dryRun, 'DeleteOptions')) c.query.set('dryRun', 'All');
  }
  const g = intParam(c.query, 'gracePeriodSeconds');
  if (g !== undefined) p.gracePeriodSeconds = g;
  const qp = c.query.get('propagationPolicy');
  if (qp) p.propagationPolicy = qp as DeleteParams['propagationPolicy'];
  const pp = p.propagationPolicy as string | undefined;
  if (pp !== undefined && pp !== 'Orphan' && pp !== 'Background' && pp !== 'Foreground') {
    throw newBadRequest(`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${pp}": supported values: "Foreground", "Background", "Orphan", "nil"`);
  }
  if (p.gracePeriodSeconds !== undefined && p.gracePeriodSeconds < 0) p.gracePeriodSeconds = 1;
  return p;
}

async function doDelete(c: ResourceContext, ns: string): Promise<void> {
  const neg = negotiateOutput(c.req.headers['accept'], false);
  const p = deleteParams(c);
  const wc = writeContext(c);
  const r = await c.store.delete(ns, c.info.name, p, wc);
  if (!r.deleted || c.store.def.returnDeletedObject) {
    // the object: 202 while grace or finalizers hold it, 200 with its last state when gone (pods)
    sendObject(c, r.deleted ? 200 : 202, r.obj, neg, wc.warnings);
    return;
  }
  const st = successStatus({ name: r.obj.metadata.name, group: c.store.def.group || undefined, kind: c.store.def.resource, uid: r.obj.metadata.uid });
  if (!c.store.def.group) delete st.details!.group;
  writeJSON(c.res, 200, st, { warnings: wc.warnings });
}

async function doDeleteCollection(c: ResourceContext, ns: string): Promise<void> {
  const neg = negotiateOutput(c.req.headers['accept'], false);
  const p = deleteParams(c);
  const wc = writeContext(c);
  const q = c.query;
  const l = await c.store.list(ns, { labelSelector: q.get('labelSelector') ?? undefined, fieldSelector: q.get('fieldSelector') ?? undefined });
  const out: unknown[] = [];
  for (const o of l.items) {
    try {
      const r = await c.store.delete(o.namespace, o.name, p, wc);
      out.push(r.obj);
    } catch (e) {
      if ((e as { code?: number }).code === 404) continue;
      throw e;
    }
  }
  writeJSON(
    c.res,
    200,
    { kind: c.store.def.listKind, apiVersion: apiVersionOf(c.store), metadata: { resourceVersion: String(c.store.cache.resourceVersion) }, items: out },
    { format: neg.format, warnings: wc.warnings },
  );
}

/** 404 for paths that name no resource or subresource. */
export function notFoundPath(): StatusError {
  return new StatusError(failureStatus(404, 'NotFound', 'the server could not find the requested resource', {}));
}

/** The decoded patch body for error messages (undefined when not JSON). */
function patchValue(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return body.toString('utf8');
  }
}

/**
 * Removes null members of objects, as decoding a patched document into typed objects does
 * upstream (null means "unset" for optional fields). Array elements are kept.
 */
export function dropNulls(v: unknown): void {
  if (Array.isArray(v)) {
    for (const x of v) dropNulls(x);
    return;
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (o[k] === null) delete o[k];
      else dropNulls(o[k]);
    }
  }
}

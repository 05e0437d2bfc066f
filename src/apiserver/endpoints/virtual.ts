/**
 * POST of a computed, create-only resource (upstream rest.Creater without storage):
 * the access reviews, TokenReview and SelfSubjectReview. The body is decoded and its
 * kind checked against the URL (missing apiVersion/kind default from it, as upstream's
 * decoder does); the resource computes the answer, returned as 201 Created.
 * Authorization has already happened in the handler chain.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/handlers/create.go
 */
import type { VirtualResource } from '../../api/authorization/virtual.js';
import { newBadRequest, newMethodNotSupported, newNotFound, newUnauthorized } from '../../apimachinery/errors.js';
import type { KObject, Obj } from '../../api/resource.js';
import { toTable } from './table.js';
import { decodeObjectBody } from '../http/body.js';
import { splitURL } from '../filters/request-info.js';
import { dryRunOf } from './options.js';
import { negotiateOutput } from '../http/negotiate.js';
import type { RequestInfo } from '../http/request-info.js';
import { writeJSON } from '../http/respond.js';
import type { ApiRequest, ResponseWriter } from '../http/types.js';

/** Computed resources by "group/version/resource". */
export class VirtualResources {
  private readonly byGVR = new Map<string, VirtualResource>();

  constructor(resources: readonly VirtualResource[]) {
    for (const v of resources) this.byGVR.set(`${v.group}/${v.version}/${v.resource}`, v);
  }

  /** The computed resource that serves this request: a POST to its collection in its scope; undefined otherwise (the generic store answers). */
  match(method: string, info: RequestInfo): VirtualResource | undefined {
    if (!info.isResourceRequest || info.subresource) return undefined;
    const v = this.byGVR.get(`${info.apiGroup}/${info.apiVersion}/${info.resource}`);
    if (!v) return undefined;
    // a namespaced resource is read across all namespaces without one
    const acrossNamespaces = v.namespaced && !info.namespace && (info.verb === 'list' || info.verb === 'watch');
    if (v.namespaced !== !!info.namespace && !acrossNamespaces) return undefined;
    if (method === 'POST' && !info.name && v.create) return v;
    if (method === 'GET' && v.read && (info.verb === 'get' || info.verb === 'list' || (info.verb === 'watch' && v.read.watch))) return v;
    return undefined;
  }
}

/**
 * Serves one create of `v`.
 * @throws StatusError 400 when the body is not a `v.kind` of `v`'s group/version, 422 for a bad dryRun, 401 without a user, and whatever `v.create` throws
 */
export async function serveVirtual(v: VirtualResource, info: RequestInfo, req: ApiRequest, res: ResponseWriter): Promise<void> {
  const user = req.user;
  if (!user) throw newUnauthorized();
  if (req.method === 'GET' && v.read) return serveVirtualRead(v.read, info, req, res);
  if (!v.create) throw newMethodNotSupported({ group: v.group, resource: v.resource }, 'create');
  const neg = negotiateOutput(req.headers['accept'], false);
  const dryRun = dryRunOf(splitURL(req.url).query.getAll('dryRun'), 'CreateOptions');
  const body = decodeObjectBody(req.headers['content-type'], req.body);
  const want = v.group ? `${v.group}/${v.version}` : v.version;
  // missing parts default from the URL, as upstream's decoder does
  body.apiVersion ||= want;
  body.kind ||= v.kind;
  if (body.apiVersion !== want || body.kind !== v.kind) {
    throw newBadRequest(
      `the object provided is unrecognized (must be of type ${v.kind}): ${String(body.kind)} in version "${String(body.apiVersion)}" cannot be handled as a ${v.kind}`,
    );
  }
  const out = await v.create(body, { user, namespace: info.namespace, dryRun });
  writeJSON(res, 201, out, { format: neg.format });
}

/**
 * GET of a computed resource (get or list), as JSON or as the Table kubectl asks for.
 * @throws StatusError 404 for an unknown name
 */
async function serveVirtualRead(r: NonNullable<VirtualResource['read']>, info: RequestInfo, req: ApiRequest, res: ResponseWriter): Promise<void> {
  const neg = negotiateOutput(req.headers['accept'], true);
  const now = new Date();
  const def = r.def;
  if (info.verb === 'watch') return serveVirtualWatch(r, info, req, res);
  if (info.verb === 'get') {
    const o = await r.get(info.name, info.namespace);
    if (!o) throw newNotFound({ group: def.group, resource: def.resource }, info.name);
    if (neg.transform === 'Table') writeJSON(res, 200, toTable(def, [o as Obj], { includeObject: 'Metadata', now }), { format: neg.format });
    else writeJSON(res, 200, o, { format: neg.format });
    return;
  }
  const items = await r.list(info.namespace);
  if (neg.transform === 'Table') {
    writeJSON(res, 200, toTable(def, items as Obj[], { includeObject: 'Metadata', now }), { format: neg.format });
    return;
  }
  const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  writeJSON(res, 200, { kind: def.listKind, apiVersion, metadata: {}, items }, { format: neg.format });
}

/**
 * WATCH of a computed resource: newline-delimited JSON events as the generic watch
 * (src/apiserver/endpoints/watch.ts) writes them, Tables for kubectl's `-w`. Without a
 * resourceVersion (or "0") the current objects come first as ADDED; with one, only
 * changes from now on (a computed resource keeps no history). A `watch` of one name
 * (`fieldSelector=metadata.name=…`, as kubectl sends for `get <name> -w`) sees that name only.
 */
async function serveVirtualWatch(r: NonNullable<VirtualResource['read']>, info: RequestInfo, req: ApiRequest, res: ResponseWriter): Promise<void> {
  const watch = r.watch!;
  const neg = negotiateOutput(req.headers['accept'], true);
  const { query } = splitURL(req.url);
  const rv = query.get('resourceVersion') ?? '';
  const nameSel = /(?:^|,)metadata\.name=([^,]*)/.exec(query.get('fieldSelector') ?? '')?.[1] ?? info.name;
  const timeoutSeconds = Number(query.get('timeoutSeconds') ?? '') || 1800;
  let first = true;
  const encode = (o: KObject): string => {
    if (neg.transform !== 'Table') return JSON.stringify(o);
    const t = toTable(r.def, [o as Obj], { includeObject: 'Metadata', noHeaders: !first, now: new Date() });
    first = false;
    return JSON.stringify(t);
  };
  const send = (type: 'ADDED' | 'MODIFIED' | 'DELETED', o: KObject): void => {
    if (res.closed || (nameSel && o.metadata?.name !== nameSel)) return;
    res.write(`{"type":"${type}","object":${encode(o)}}\n`);
  };
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.write('');
  const initial = rv === '' || rv === '0' ? await r.list(info.namespace) : [];
  const stop = watch(info.namespace, send);
  for (const o of initial) send('ADDED', o);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => finish(), Math.min(timeoutSeconds * 1000, 2_147_483_647));
    timer.unref?.();
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stop();
      if (!res.closed) res.end();
      resolve();
    };
    res.onClose(finish);
  });
}

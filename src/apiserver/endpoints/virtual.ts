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
import { newBadRequest, newUnauthorized } from '../../apimachinery/errors.js';
import { decodeObjectBody } from '../http/body.js';
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
    if (method !== 'POST' || !info.isResourceRequest || info.name || info.subresource) return undefined;
    const v = this.byGVR.get(`${info.apiGroup}/${info.apiVersion}/${info.resource}`);
    return v && v.namespaced === !!info.namespace ? v : undefined;
  }
}

/**
 * Serves one create of `v`.
 * @throws StatusError 400 when the body is not a `v.kind` of `v`'s group/version, 401 without a user, and whatever `v.create` throws
 */
export async function serveVirtual(v: VirtualResource, info: RequestInfo, req: ApiRequest, res: ResponseWriter): Promise<void> {
  const user = req.user;
  if (!user) throw newUnauthorized();
  const neg = negotiateOutput(req.headers['accept'], false);
  const body = decodeObjectBody(req.headers['content-type'], req.body);
  const want = `${v.group}/${v.version}`;
  // missing parts default from the URL, as upstream's decoder does
  body.apiVersion ||= want;
  body.kind ||= v.kind;
  if (body.apiVersion !== want || body.kind !== v.kind) {
    throw newBadRequest(`the object provided is unrecognized (must be of type ${v.kind}): ${String(body.kind)} in version "${String(body.apiVersion)}" cannot be handled as a ${v.kind}`);
  }
  const out = await v.create(body, { user, namespace: info.namespace });
  writeJSON(res, 201, out, { format: neg.format });
}

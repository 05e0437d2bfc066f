/**
 * The request plumbing the subresource `create` handlers share (pods/binding,
 * pods/eviction, serviceaccounts/token), in the order of upstream's create handler
 * before it calls the subresource's REST Create: only POST, the response format
 * negotiated, the CreateOptions query (dryRun) validated, then the body decoded.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/endpoints/handlers/create.go
 */
import type { KObject } from '../../api/resource.js';
import { newBadRequest } from '../../apimachinery/errors.js';
import type { ResourceContext } from '../endpoints/resource.js';
import { dryRunOf } from '../endpoints/options.js';
import { decodeTypedBody, type KindOf } from '../endpoints/typed-decode.js';
import { negotiateOutput, type Negotiated } from '../http/negotiate.js';

export interface CreateRequest<T> {
  /** the negotiated response format */
  neg: Negotiated;
  /** `dryRun=All` */
  dryRun: boolean;
  /** the decoded body */
  body: T;
}

/**
 * @param c the request (its `info.subresource` names the subresource in errors)
 * @param kind the kind of the body (Binding, Eviction, TokenRequest), type-checked against its schema
 * @throws StatusError 400 `<METHOD> is not supported on <resource>/<subresource>` for other
 *   verbs, 406 for an unsupported Accept, 422 for a bad dryRun, 400/415 for a body that does not decode
 */
export function createRequest<T = KObject>(c: ResourceContext, kind: KindOf): CreateRequest<T> {
  if (c.info.verb !== 'create') throw newBadRequest(`${c.req.method} is not supported on ${c.info.resource}/${c.info.subresource}`);
  const neg = negotiateOutput(c.req.headers['accept'], false);
  const dryRun = dryRunOf(c.query.getAll('dryRun'), 'CreateOptions');
  const body = decodeTypedBody(c.req.headers['content-type'], c.req.body, kind) as T;
  return { neg, dryRun, body };
}

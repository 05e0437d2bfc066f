/**
 * The request's way through the API server, written down in one place after upstream's
 * DefaultBuildHandlerChain. Each filter wraps the handler inside it, so the chain reads
 * inside out below; a request meets the steps in this order:
 *
 * 1. panic recovery — whatever an inner step throws becomes a Status answer
 * 2. request received timestamp — when the request arrived (request duration metric)
 * 3. request info — the URL parsed once into group/version/resource/verb
 * 4. authentication — `req.user` from the client certificate or a bearer token;
 *    no credentials = anonymous on the public paths, 401 elsewhere
 * 5. audit — audit.k8s.io Events for everything below (failed authentications too)
 * 6. impersonation — Impersonate-* headers replace the user when allowed
 * 7. max in flight — concurrency limits (upstream: priority and fairness)
 * 8. authorization — the authorizer's decision, 403 on deny
 * 9. the API handler — discovery, OpenAPI, health, metrics, and resource requests on
 *    the generic store (admission and validation run inside the store)
 *
 * With a pod trace (src/trace), a traced request (a pod create) gets its marks after the
 * request info, and notes the end of authentication and of authorization.
 *
 * Nothing replaces a handler at run time: the chain is built once, from data.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/server/config.go (DefaultBuildHandlerChain)
 */
import type { Authorizer } from '../apiserver.js';
import type { Auditor } from '../audit/audit.js';
import type { Authentication } from '../authn/filter.js';
import type { UnionAuthorizer } from '../authz/types.js';
import { withAudit } from './audit.js';
import { unauthorizedHandler, withAuthentication } from './authentication.js';
import { withAuthorization } from './authorization.js';
import { withImpersonation } from './impersonation.js';
import { withMaxInFlightLimit, type MaxInFlightLimits } from './max-in-flight.js';
import { withPanicRecovery } from './panic-recovery.js';
import { withRequestInfo } from './request-info.js';
import { withRequestReceivedTimestamp } from './request-received.js';
import { withTraceBegin, withTraceMark } from './trace.js';
import type { RequestTracer } from '../../trace/request-marks.js';
import type { Handler } from './types.js';

/** What the filters need; every part is optional (a bare test server has none). */
export interface HandlerChainConfig {
  /** bearer-token authenticators; none = the transport's user only */
  authentication?: Authentication;
  /** audit policy and sink; none = no audit log */
  auditor?: Auditor;
  /** decides the `impersonate` checks; none = Impersonate-* headers are not looked at */
  impersonation?: UnionAuthorizer;
  /** concurrency limits; none = unlimited */
  maxInFlight?: MaxInFlightLimits;
  /** none = every authenticated request is allowed */
  authorizer?: Authorizer;
  /** the pod creation trace (src/trace); none = nothing traced */
  tracer?: RequestTracer;
}

/** Wraps the API handler in the filters, outermost last (see the module comment for the order a request sees). */
export function buildHandlerChain(apiHandler: Handler, c: HandlerChainConfig): Handler {
  let h = apiHandler;
  h = withTraceMark(h, 'Authorization', c.tracer);
  h = withAuthorization(h, c.authorizer);
  h = withMaxInFlightLimit(h, c.maxInFlight ?? { nonMutating: 0, mutating: 0 });
  h = withImpersonation(h, c.impersonation);
  h = withAudit(h, c.auditor);
  h = withTraceMark(h, 'Authentication', c.tracer);
  h = withAuthentication(h, c.authentication, withAudit(unauthorizedHandler, c.auditor));
  h = withTraceBegin(h, c.tracer);
  h = withRequestInfo(h);
  h = withRequestReceivedTimestamp(h);
  h = withPanicRecovery(h);
  return h;
}

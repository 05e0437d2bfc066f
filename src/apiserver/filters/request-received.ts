/**
 * The request-received-timestamp filter (upstream WithRequestReceivedTimestamp): notes
 * when the request arrived, before any other step, so the request duration metric counts
 * authentication, authorization and waiting too.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/filters/request_received_time.go
 */
import type { Handler } from './types.js';

/** Sets `req.receivedAt` (performance.now() ms) before calling `next`. */
export function withRequestReceivedTimestamp(next: Handler): Handler {
  return (req, res) => {
    req.receivedAt ??= performance.now();
    return next(req, res);
  };
}

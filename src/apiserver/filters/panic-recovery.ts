/**
 * The outermost filter (upstream WithPanicRecovery): anything an inner handler throws
 * instead of answering becomes a metav1.Status response (500 InternalError unless it is
 * a StatusError), so a request is always answered and the server never crashes on one.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/server/filters/wrap.go
 */
import { writeError } from '../http/respond.js';
import type { Handler } from './types.js';

/** Wraps `next` so that a rejection is written as a Status (or ends the response when that fails too). */
export function withPanicRecovery(next: Handler): Handler {
  return async (req, res) => {
    try {
      await next(req, res);
    } catch (e) {
      if (res.closed) return;
      try {
        writeError(res, e);
      } catch {
        res.end();
      }
    }
  };
}

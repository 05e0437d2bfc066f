/**
 * The max-in-flight filter (upstream WithMaxInFlightLimit, `--max-requests-inflight` and
 * `--max-mutating-requests-inflight`): at most N read-only (get, list) and M mutating
 * requests are served at once; one more is answered `429 Too Many Requests` with
 * `Retry-After: 1`, unless its user is in `system:masters` (always answered, as
 * upstream). Long-running requests (watches, exec/attach/port-forward, logs, proxy) are
 * not counted.
 *
 * This is the concurrency step of upstream's chain; upstream enables API Priority and
 * Fairness there by default, which k8ts does not implement, so the limits default to 0
 * (no limit) and the step is left out of the chain unless a limit is set.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/server/filters/maxinflight.go
 */
import type { RequestInfo } from '../http/request-info.js';
import { requestInfoOf } from './request-info.js';
import type { Handler } from './types.js';

/** Limits of concurrently served requests; 0 = unlimited. */
export interface MaxInFlightLimits {
  /** get, list (upstream default 400 when APF is off) */
  nonMutating: number;
  /** every other verb (upstream default 200 when APF is off) */
  mutating: number;
}

const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** Upstream's BasicLongRunningRequestCheck with kube-apiserver's verbs and subresources. */
export function isLongRunning(info: RequestInfo): boolean {
  return LONG_RUNNING_VERBS.has(info.verb) || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}

/** Wraps `next` in the limits; returns `next` itself when both are 0. */
export function withMaxInFlightLimit(next: Handler, limits: MaxInFlightLimits): Handler {
  if (!limits.nonMutating && !limits.mutating) return next;
  let nonMutating = 0;
  let mutating = 0;
  return async (req, res) => {
    const info = requestInfoOf(req);
    if (isLongRunning(info)) return next(req, res);
    const isMutating = !NON_MUTATING_VERBS.has(info.verb);
    const limit = isMutating ? limits.mutating : limits.nonMutating;
    if (!limit) return next(req, res);
    const inFlight = isMutating ? mutating : nonMutating;
    if (inFlight >= limit) {
      // a super-admin or loopback client is always answered
      if (req.user?.groups.includes('system:masters')) return next(req, res);
      res.writeHead(429, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Retry-After': '1' });
      res.end('Too many requests, please try again later.\n');
      return;
    }
    if (isMutating) mutating++;
    else nonMutating++;
    try {
      await next(req, res);
    } finally {
      if (isMutating) mutating--;
      else nonMutating--;
    }
  };
}

/**
 * The pod creation trace's filters (src/trace): `withTraceBegin` gives a traced request
 * (a pod create) its marks once the request info is known; `withTraceMark` notes that the
 * filter outside it (authentication, authorization) is done. Without a tracer both are
 * the handler itself.
 */
import type { RequestTracer } from '../../trace/request-marks.js';
import type { StepName } from '../../trace/steps.js';
import { requestInfoOf } from './request-info.js';
import type { Handler } from './types.js';

/** Sets `req.trace` for requests the tracer traces. */
export function withTraceBegin(next: Handler, tracer: RequestTracer | undefined): Handler {
  if (!tracer) return next;
  return (req, res) => {
    const info = requestInfoOf(req);
    if (info.isResourceRequest) req.trace = tracer.begin(info, req.receivedAt ?? performance.now(), req.headers['traceparent']);
    return next(req, res);
  };
}

/** Marks `step` done on traced requests, then calls `next`. */
export function withTraceMark(next: Handler, step: StepName, tracer: RequestTracer | undefined): Handler {
  if (!tracer) return next;
  return (req, res) => {
    req.trace?.mark(step);
    return next(req, res);
  };
}

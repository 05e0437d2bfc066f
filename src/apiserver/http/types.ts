/**
 * Transport-neutral request and response used by every API server handler, so the
 * same code serves HTTPS connections (src/apiserver/server.ts) and the in-process
 * loopback transport the all-in-one server gives its components.
 */
import type { UserInfo } from '../../api/resource.js';
import type { RequestMarks } from '../../trace/request-marks.js';
import type { RequestInfo } from './request-info.js';

export interface ApiRequest {
  method: string;
  /** path and query, e.g. `/api/v1/namespaces/default/pods?limit=500` */
  url: string;
  /** lower-cased header names */
  headers: Record<string, string | undefined>;
  /** the full request body (bodies are read before dispatch, up to the size limit) */
  body?: Buffer;
  /** set by authentication */
  user?: UserInfo;
  /** remote address for audit/logging */
  remoteAddress?: string;
  /** when the request arrived (performance.now() ms), for the request duration metric; dispatch time otherwise */
  receivedAt?: number;
  /**
   * set by the request-info filter (src/apiserver/filters/request-info.ts); a field rather
   * than a WeakMap entry, so a request costs the GC no ephemeron
   */
  requestInfo?: RequestInfo;
  /** the pod creation trace's steps of this request (set by the tracing filter for traced requests; see src/trace) */
  trace?: RequestMarks;
}

export interface ResponseWriter {
  writeHead(status: number, headers: Record<string, string | string[]>): void;
  write(chunk: string | Buffer): void;
  end(chunk?: string | Buffer): void;
  /** called once when the client goes away or the response ends */
  onClose(cb: () => void): void;
  readonly closed: boolean;
  /**
   * Present only on the loopback transport's watch streams (in-process watchers): takes
   * a watch event's object as the shared, deep-frozen decoded value instead of its JSON
   * line, so the watcher does not parse it again. Network connections leave it undefined.
   */
  writeWatchEvent?(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: object): void;
  /** JSON replies are indented (`?pretty=true`, or curl's User-Agent; see negotiate.ts isPrettyPrint) */
  readonly pretty?: boolean;
}

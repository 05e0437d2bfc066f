/**
 * Writing responses: JSON objects, pre-serialised JSON, and metav1.Status errors
 * (the one error format every client understands).
 */
import { StatusError, statusInOrder, toStatusError } from '../../apimachinery/errors.js';
import type { ResponseWriter } from './types.js';
import { stringify as toYAML } from 'yaml';

export interface ResponseOptions {
  format?: 'json' | 'yaml';
  warnings?: string[];
  headers?: Record<string, string>;
}

function warningHeaders(warnings: string[] | undefined): Record<string, string | string[]> {
  if (!warnings || warnings.length === 0) return {};
  const seen = [...new Set(warnings)];
  return { Warning: seen.map((w) => `299 - ${JSON.stringify(w)}`) };
}

const NO_OPTIONS: ResponseOptions = {};

/**
 * Writes a JSON (or YAML) body given as an already-serialised JSON string, with its
 * Content-Length: a response whose length is known goes out as one write (head and
 * body together) instead of Node's chunked encoding of a body ended after writeHead
 * (size line, body, CRLF and the last-chunk marker as separate pieces).
 *
 * JSON ends with a newline, as Go's json.Encoder writes it upstream; when the client
 * asked for pretty output (`res.pretty`) it is indented by two spaces instead, without
 * the newline (json.MarshalIndent).
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/runtime/serializer/json/json.go (doEncode)
 */
export function writeRawJSON(res: ResponseWriter, status: number, json: string, opts: ResponseOptions = NO_OPTIONS): void {
  if (res.closed) return;
  let body: string;
  let ct = 'application/json';
  if (opts.format === 'yaml') {
    body = toYAML(JSON.parse(json));
    ct = 'application/yaml';
  } else {
    body = res.pretty === true ? JSON.stringify(JSON.parse(json), null, 2) : json + '\n';
  }
  const headers: Record<string, string | string[]> = {
    'Content-Type': ct,
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(Buffer.byteLength(body)),
  };
  if (opts.warnings !== undefined && opts.warnings.length > 0) Object.assign(headers, warningHeaders(opts.warnings));
  if (opts.headers !== undefined) Object.assign(headers, opts.headers);
  res.writeHead(status, headers);
  res.end(body);
}

export function writeJSON(res: ResponseWriter, status: number, obj: unknown, opts: ResponseOptions = {}): void {
  writeRawJSON(res, status, JSON.stringify(obj), opts);
}

/** Writes any error as a metav1.Status with its code. */
export function writeError(res: ResponseWriter, err: unknown, warnings?: string[]): void {
  const se: StatusError = toStatusError(err);
  if (se.code >= 500 && !(err instanceof StatusError)) {
    // unexpected: keep a trace on the server side
    console.error('internal error:', err);
  }
  const headers: Record<string, string> = {};
  if (se.status.details?.retryAfterSeconds) headers['Retry-After'] = String(se.status.details.retryAfterSeconds);
  writeJSON(res, se.code, statusInOrder(se.status), { warnings, headers });
}

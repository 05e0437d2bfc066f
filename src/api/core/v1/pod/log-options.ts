/**
 * PodLogOptions (core/v1) as query parameters: decoding with the apiserver's
 * parameter-codec rules, validation with upstream's messages, and the query the
 * API server sends to the kubelet. Shared by the pods/log handler and the kubelet's
 * /containerLogs endpoint.
 *
 * @see https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#get-read-log-of-the-specified-pod
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go (ValidatePodLogOptions)
 */
import { forbidden, invalid, notSupported, type FieldError } from '../../../../apimachinery/field-errors.js';
import { parseRFC3339 } from '../../../../apimachinery/time.js';
import { queryBool } from '../../../../apimachinery/query-params.js';

/** PodLogOptions.stream: which output streams to return. */
export type LogStream = 'All' | 'Stdout' | 'Stderr';

/** Decoded PodLogOptions (numbers as given; validate with {@link validatePodLogOptions}). */
interface PodLogOptions {
  container?: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  /** RFC3339 as given */
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
  stream?: LogStream;
  insecureSkipTLSVerifyBackend: boolean;
}

/** Thrown when a query parameter does not decode (the API server answers 400). */
export class LogOptionsDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogOptionsDecodeError';
  }
}

export { queryBool };

function queryInt(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw new LogOptionsDecodeError(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new LogOptionsDecodeError(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return n;
}

/**
 * Decodes the options from a query string (the `tail` alias is accepted as the
 * kubelet does; `tail=all` means no limit).
 * @throws LogOptionsDecodeError on a malformed number, time or stream
 */
export function decodePodLogOptions(q: URLSearchParams): PodLogOptions {
  const o: PodLogOptions = {
    follow: queryBool(q, 'follow'),
    previous: queryBool(q, 'previous'),
    timestamps: queryBool(q, 'timestamps'),
    insecureSkipTLSVerifyBackend: queryBool(q, 'insecureSkipTLSVerifyBackend'),
  };
  const c = q.get('container');
  if (c) o.container = c;
  o.sinceSeconds = queryInt(q, 'sinceSeconds');
  const tail = q.get('tail');
  if (tail !== null && !q.has('tailLines')) {
    if (tail !== 'all') {
      const t = new URLSearchParams({ tailLines: tail });
      o.tailLines = queryInt(t, 'tailLines');
    }
  } else o.tailLines = queryInt(q, 'tailLines');
  o.limitBytes = queryInt(q, 'limitBytes');
  const since = q.get('sinceTime');
  if (since !== null && since !== '') {
    if (Number.isNaN(parseRFC3339(since))) {
      throw new LogOptionsDecodeError(`parsing time ${JSON.stringify(since)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(since)} as "2006"`);
    }
    o.sinceTime = since;
  }
  const stream = q.get('stream');
  if (stream !== null) o.stream = stream as LogStream;
  for (const k of ['sinceSeconds', 'tailLines', 'limitBytes'] as const) if (o[k] === undefined) delete o[k];
  return o;
}

/** Field errors as upstream's ValidatePodLogOptions (1.32, with the split-streams checks). */
export function validatePodLogOptions(o: PodLogOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0) errs.push(invalid('tailLines', o.tailLines, 'must be greater than or equal to 0'));
  if (o.limitBytes !== undefined && o.limitBytes < 1) errs.push(invalid('limitBytes', o.limitBytes, 'must be greater than 0'));
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) {
    errs.push(forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  } else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) {
    errs.push(invalid('sinceSeconds', o.sinceSeconds, 'must be greater than 0'));
  }
  if (o.stream !== undefined) {
    if (o.stream !== 'All' && o.stream !== 'Stdout' && o.stream !== 'Stderr') errs.push(notSupported('stream', o.stream, ['Stdout', 'Stderr', 'All']));
    if (o.stream !== 'All' && o.tailLines !== undefined) errs.push(forbidden('', '`tailLines` and specific `stream` are mutually exclusive for now'));
  }
  return errs;
}

/** The query the API server sends to the kubelet's /containerLogs (upstream LogLocation). */
export function kubeletLogQuery(o: PodLogOptions): string {
  const p = new URLSearchParams();
  if (o.follow) p.append('follow', 'true');
  if (o.previous) p.append('previous', 'true');
  if (o.timestamps) p.append('timestamps', 'true');
  if (o.sinceSeconds !== undefined) p.append('sinceSeconds', String(o.sinceSeconds));
  if (o.sinceTime !== undefined) p.append('sinceTime', new Date(Math.floor(parseRFC3339(o.sinceTime) / 1000) * 1000).toISOString().replace('.000Z', 'Z'));
  if (o.tailLines !== undefined) p.append('tailLines', String(o.tailLines));
  if (o.limitBytes !== undefined) p.append('limitBytes', String(o.limitBytes));
  if (o.stream !== undefined) p.append('stream', o.stream);
  return p.toString();
}

/**
 * The earliest entry time to show, in ms since the epoch: now − sinceSeconds, or
 * sinceTime (the later of the two when both are somehow set); undefined = all.
 */
export function sinceMs(o: PodLogOptions, nowMs: number): number | undefined {
  let since: number | undefined;
  if (o.sinceSeconds !== undefined) since = nowMs - o.sinceSeconds * 1000;
  if (o.sinceTime !== undefined) {
    const t = parseRFC3339(o.sinceTime);
    if (since === undefined || t > since) since = t;
  }
  return since;
}

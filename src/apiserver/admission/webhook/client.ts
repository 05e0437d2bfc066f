/**
 * POSTs an AdmissionReview (or ConversionReview) to a webhook over TLS, as upstream's
 * webhook client (client-go's REST client configured by util/webhook.ClientManager):
 *  - `clientConfig.url` as given (`https://host[:port]/path`, port 443 by default), or
 *    `clientConfig.service`: `https://<name>.<namespace>.svc:<port><path>`, dialled at an
 *    endpoint of the Service (src/apiserver/util/service-resolver.ts) with TLS verifying that name;
 *  - the server certificate verified against `caBundle` (PEM, base64 in the object), or
 *    the system roots without one; client credentials (bearer token, client certificate,
 *    basic auth) per webhook host from `--admission-control-config-file`
 *    (./authentication-info.ts);
 *  - `?timeout=<n>s` on the URL and the call abandoned after `timeoutSeconds`.
 *
 * Failures are thrown as {@link CallFailure} with the text Go's HTTP client and
 * client-go give (`Post "https://127.0.0.1:9443/validate?timeout=10s": dial tcp
 * 127.0.0.1:9443: connect: connection refused`, `… context deadline exceeded`, `…
 * tls: failed to verify certificate: x509: certificate signed by unknown authority`).
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/util/webhook/client.go
 * @see https://github.com/kubernetes/client-go/blob/v0.32.0/rest/request.go (transformResponse)
 */
import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import { posix } from 'node:path';
import type { PeerCertificate } from 'node:tls';
import { failureStatus, newBadRequest, type Status, StatusError, type StatusReason } from '../../../apimachinery/errors.js';
import type { ResolvedEndpoint } from '../../util/service-resolver.js';

/** admissionregistration.k8s.io/v1 WebhookClientConfig (and apiextensions' one). */
export interface HookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
  /** base64 of PEM certificates */
  caBundle?: string;
}

/** A failed call: `message` is upstream's error text, `status` what client-go made of it. */
export class CallFailure extends Error {
  constructor(
    message: string,
    readonly status: StatusError,
  ) {
    super(message);
    this.name = 'CallFailure';
  }
}

/** Client credentials towards one webhook host (upstream AuthenticationInfoResolver's rest.Config). */
export interface HookCredentials {
  /** bearer token */
  token?: string;
  /** PEM client certificate and key */
  cert?: string;
  key?: string;
  /** basic authentication */
  basic?: { username: string; password: string };
}

export interface CallOptions {
  timeoutSeconds: number;
  /**
   * the credentials for a webhook `host[:port]` (`<name>.<namespace>.svc:<port>` for service
   * references, the URL's host as written otherwise), from `--admission-control-config-file`;
   * none = no client credentials
   */
  credentials?: (hostPort: string) => HookCredentials | undefined;
  /** resolves a service reference to an endpoint (required for `service` configs) */
  resolve?: (namespace: string, name: string, port: number) => Promise<ResolvedEndpoint>;
}

/** Where a call goes: the URL upstream prints and the address it dials. */
interface Target {
  /** `https://host:port/path?timeout=10s` as printed in errors */
  url: string;
  /** host name or IP in the URL */
  host: string;
  port: number;
  path: string;
  /** the name TLS verifies (and sends as SNI unless an IP) */
  serverName: string;
  /** what the credentials are looked up by (upstream ClientConfigFor / ClientConfigForService) */
  authTarget: string;
  dial(): Promise<ResolvedEndpoint>;
}

/** The HTTP answer of a webhook. */
interface Answer {
  code: number;
  contentType: string;
  text: string;
}

/** A reused connection was closed under the request: try once more. */
class RetryOnNewConnection extends Error {}

const agents = new Map<string, Agent>();
const MAX_AGENTS = 200;

function agentFor(ca: string, cred: HookCredentials | undefined): Agent {
  const key = cred?.cert ? `${ca}\u0000${cred.cert}` : ca;
  let a = agents.get(key);
  if (!a) {
    if (agents.size >= MAX_AGENTS) {
      const [k, v] = agents.entries().next().value as [string, Agent];
      v.destroy();
      agents.delete(k);
    }
    a = new Agent({ keepAlive: true, ca: ca || undefined, cert: cred?.cert, key: cred?.key, maxSockets: 100 });
    agents.set(key, a);
  }
  return a;
}

/** Go's path.Join of the configured path: cleaned, no trailing slash, '' stays ''. */
function cleanPath(p: string | undefined): string {
  if (!p) return '';
  const c = posix.normalize(p.startsWith('/') ? p : `/${p}`);
  return c.length > 1 && c.endsWith('/') ? c.slice(0, -1) : c;
}

const joinHostPort = (h: string, p: number): string => (isIP(h) === 6 ? `[${h}]:${p}` : `${h}:${p}`);

/**
 * @throws CallFailure when the configuration has neither url nor service or is unparsable
 */
function targetOf(cc: HookClientConfig, o: CallOptions): Target {
  const query = `?timeout=${o.timeoutSeconds}s`;
  if (cc.service) {
    const s = cc.service;
    const port = s.port || 443;
    const serverName = `${s.name}.${s.namespace}.svc`;
    const path = cleanPath(s.path);
    return {
      url: `https://${serverName}:${port}${path}${query}`,
      host: serverName,
      port,
      path: path || '/',
      serverName,
      authTarget: `${serverName}:${port}`,
      dial: async () => {
        if (!o.resolve) throw new Error('cannot resolve an empty service name or namespace or port');
        return o.resolve(s.namespace, s.name, port);
      },
    };
  }
  if (!cc.url) throw new CallFailure('webhook configuration must have either service or URL', newBadRequest('error getting REST client'));
  let u: URL;
  try {
    u = new URL(cc.url);
  } catch (e) {
    throw new CallFailure(`Unparsable URL: ${(e as Error).message}`, newBadRequest('error getting REST client'));
  }
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  const port = u.port ? Number(u.port) : 443;
  const rawPath = /^[a-z]+:\/\/[^/?#]*(\/[^?#]*)?/i.exec(cc.url)?.[1];
  const path = cleanPath(rawPath);
  return {
    url: `${u.protocol}//${u.host}${path}${query}`,
    host,
    port,
    path: path || '/',
    serverName: host,
    authTarget: u.host,
    dial: async () => ({ host, port }),
  };
}

/**
 * POSTs `body` (JSON) and returns the decoded JSON answer of a 2xx response.
 * @throws CallFailure for every failure (the caller wraps it in `failed to call webhook: …`)
 */
export async function postJSON(cc: HookClientConfig, body: string, o: CallOptions): Promise<Record<string, unknown>> {
  const t = targetOf(cc, o);
  const prefix = `Post ${JSON.stringify(t.url)}: `;
  const deadline = AbortSignal.timeout(o.timeoutSeconds * 1000);
  let ep: ResolvedEndpoint;
  try {
    ep = await t.dial();
  } catch (e) {
    throw new CallFailure(prefix + (e instanceof Error ? e.message : String(e)), newBadRequest('error calling webhook'));
  }
  const ca = cc.caBundle ? Buffer.from(cc.caBundle, 'base64').toString('utf8') : '';
  const cred = o.credentials?.(t.authTarget);
  const auth = cred?.token ? `Bearer ${cred.token}` : cred?.basic ? `Basic ${Buffer.from(`${cred.basic.username}:${cred.basic.password}`).toString('base64')}` : undefined;
  const send = (): Promise<Answer> =>
    new Promise<Answer>((resolve, reject) => {
      const req = request({
        host: ep.host,
        port: ep.port,
        method: 'POST',
        path: t.path + `?timeout=${o.timeoutSeconds}s`,
        servername: isIP(t.serverName) ? undefined : t.serverName,
        agent: agentFor(ca, cred),
        signal: deadline,
        headers: {
          host: joinHostPort(t.host, t.port),
          'content-type': 'application/json',
          accept: 'application/json, */*',
          'user-agent': 'kube-apiserver-admission',
          'content-length': Buffer.byteLength(body),
          ...(auth ? { authorization: auth } : {}),
        },
      });
      let answered = false;
      req.on('response', (r) => {
        answered = true;
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => resolve({ code: r.statusCode ?? 0, contentType: String(r.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
        r.on('error', reject);
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        // a kept-alive connection the server closed meanwhile: send again on a new one, as
        // Go's transport does for a request that got no answer on a reused connection
        if (req.reusedSocket && !answered && (e.code === 'ECONNRESET' || e.message === 'socket hang up')) reject(new RetryOnNewConnection());
        else reject(e);
      });
      req.end(body);
    });
  let res: Answer;
  try {
    res = await send().catch((e: unknown) => (e instanceof RetryOnNewConnection ? send() : Promise.reject(e)));
  } catch (e) {
    throw new CallFailure(
      prefix + goTransportError(e instanceof RetryOnNewConnection ? Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) : e, t, ep),
      newBadRequest('error calling webhook'),
    );
  }
  return decodeResponse(res.code, res.contentType, res.text);
}

/** client-go's treatment of the answer: a Status error for non-2xx, the decoded object otherwise. */
function decodeResponse(code: number, contentType: string, text: string): Record<string, unknown> {
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const jsonType = mediaType === '' || mediaType === 'application/json';
  if (code < 200 || code > 206) {
    let parsed: unknown;
    if (jsonType) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    const st = parsed as Partial<Status> | undefined;
    if (st && typeof st === 'object' && st.kind === 'Status' && st.status === 'Failure') {
      const err = new StatusError({ ...(st as Status), code: st.code || code });
      throw new CallFailure(st.message ?? '', err);
    }
    const isText = mediaType === '' || mediaType.startsWith('text/');
    const err = genericServerResponse(code, isText ? text.trim().slice(0, 1024) : 'unknown');
    throw new CallFailure(err.message, err);
  }
  if (!jsonType) throw new CallFailure(`serializer for ${contentType} doesn't exist`, newBadRequest('error calling webhook'));
  if (text.length === 0) throw new CallFailure(`0-length response with status code: ${code} and content type: ${contentType}`, newBadRequest('error calling webhook'));
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    throw new CallFailure(`couldn't get version/kind; json parse error: ${(e as Error).message}`, newBadRequest('error calling webhook'));
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new CallFailure(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(obj) ? 'array' : typeof obj} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
      newBadRequest('error calling webhook'),
    );
  }
  const o = obj as Record<string, unknown>;
  if (!o.kind) throw new CallFailure(`Object 'Kind' is missing in '${text.trim()}'`, newBadRequest('error calling webhook'));
  if (o.kind === 'Status' && (o as Partial<Status>).status !== 'Success') {
    const st = o as unknown as Status;
    throw new CallFailure(st.message ?? '', new StatusError(st));
  }
  return o;
}

/** Upstream NewGenericServerResponse for a response that is not a Status (no resource named). */
function genericServerResponse(code: number, serverMessage: string): StatusError {
  let reason: StatusReason = '';
  let message = `the server responded with the status code ${code} but did not return more information`;
  const table: Record<number, [StatusReason, string]> = {
    409: ['Conflict', 'the server reported a conflict'],
    404: ['NotFound', 'the server could not find the requested resource'],
    400: ['BadRequest', 'the server rejected our request for an unknown reason'],
    401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
    403: ['Forbidden', serverMessage],
    405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    415: ['UnsupportedMediaType', serverMessage],
    422: ['Invalid', 'the server rejected our request due to an error in our request'],
    503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
    504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
    429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  };
  if (code === 409) reason = 'AlreadyExists'; // a POST
  if (table[code]) {
    if (code !== 409) reason = table[code][0];
    message = table[code][1];
  } else if (code === 406) {
    reason = 'NotAcceptable';
    message = serverMessage && serverMessage !== 'unknown' ? serverMessage : 'the server was unable to respond with a content type that the client supports';
  } else if (code >= 500) {
    reason = 'InternalError';
    message = `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
  }
  return new StatusError(failureStatus(code, reason, message, { causes: [{ reason: 'UnexpectedServerResponse', message: serverMessage }] }));
}

const UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
]);

/** The text Go's net/http and crypto/tls give for a Node transport error. */
function goTransportError(e: unknown, t: Target, ep: ResolvedEndpoint): string {
  const err = e as NodeJS.ErrnoException & { reason?: string; cert?: PeerCertificate; host?: string };
  const addr = joinHostPort(ep.host, ep.port);
  const name = err?.name;
  if (name === 'AbortError' || name === 'TimeoutError' || err?.code === 'ABORT_ERR') return 'context deadline exceeded';
  switch (err?.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${addr}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${addr}: connect: network is unreachable`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${ep.host}: no such host`;
    case 'ECONNRESET':
      return 'EOF';
    case 'ETIMEDOUT':
      return `dial tcp ${addr}: i/o timeout`;
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: ${hostnameError(t.serverName, err.cert)}`;
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
  }
  if (err?.code && UNKNOWN_AUTHORITY.has(err.code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  if (err?.code === 'EPROTO' && /wrong version number|packet length too long|http request/i.test(err.message)) return 'http: server gave HTTP response to HTTPS client';
  if (err?.message === 'socket hang up') return 'EOF';
  return err?.message ?? String(e);
}

/** Go's x509.HostnameError text. */
function hostnameError(host: string, cert: PeerCertificate | undefined): string {
  const sans = (cert?.subjectaltname ?? '').split(', ').filter(Boolean);
  const ip = isIP(host) !== 0;
  const valid = sans.filter((s) => s.startsWith(ip ? 'IP Address:' : 'DNS:')).map((s) => s.slice(s.indexOf(':') + 1));
  if (ip && !valid.length) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
  if (valid.length) return `x509: certificate is valid for ${valid.join(', ')}, not ${host}`;
  return `x509: certificate is not valid for any names, but wanted to match ${host}`;
}

/**
 * The aggregator's proxy to an extension API server (upstream kube-aggregator's
 * proxyHandler over apimachinery's UpgradeAwareHandler): the client's request is replayed
 * over TLS to the backend the APIService's Service resolves to — verified with the
 * APIService's `caBundle` against the name `<service>.<namespace>.svc`, or not at all with
 * `insecureSkipTLSVerify` — authenticated with the front-proxy client certificate, the
 * caller's identity in the request headers (`X-Remote-User`, one `X-Remote-Group` per
 * group, `X-Remote-Extra-<key>` per extra value), its own credentials
 * (`Authorization`, `Impersonate-*`) removed. The answer streams back as it comes (watches);
 * an upgrade (exec-like subresources, WebSocket watches) is spliced once the backend
 * answers 101.
 *
 * Failures are answered as upstream's `http.Error`: plain text with the status —
 * `service unavailable` (503) while the APIService is not Available or its Service has no
 * endpoint, the dial error (503) when the backend cannot be reached.
 *
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/apiserver/handler_proxy.go
 * @see https://github.com/kubernetes/client-go/blob/v0.32.0/transport/round_trippers.go (SetAuthProxyHeaders)
 */
import * as https from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { UserInfo } from '../../api/resource.js';
import type { ApiRequest, ResponseWriter } from '../http/types.js';
import type { PendingUpgrade } from '../proxy/upgrade.js';
import { splice } from '../proxy/splice.js';

/** Where and how to reach one backend. */
export interface BackendTarget {
  host: string;
  port: number;
  /** PEM CA bundle (APIService spec.caBundle decoded); undefined with insecureSkipTLSVerify */
  ca?: string;
  insecureSkipTLSVerify: boolean;
  /** TLS server name checked against the backend's certificate: `<service>.<namespace>.svc` */
  serverName: string;
}

/** The front-proxy client certificate and key (PEM) the aggregator presents. */
export interface ProxyClientCert {
  cert: string;
  key: string;
}

/** Request headers never replayed: hop-by-hop ones and the client's own credentials. */
const DROP_REQUEST = new Set([
  'authorization',
  'host',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
]);
/** Response headers not relayed (the listener frames the body itself). */
const DROP_RESPONSE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'trailer', 'upgrade']);

/**
 * Front-proxy headers for `user` (client-go SetAuthProxyHeaders): any such headers the
 * client sent are removed first.
 */
export function setAuthProxyHeaders(headers: OutgoingHttpHeaders, user: UserInfo): void {
  for (const k of Object.keys(headers)) {
    const lk = k.toLowerCase();
    if (lk === 'x-remote-user' || lk === 'x-remote-group' || lk.startsWith('x-remote-extra-') || lk.startsWith('impersonate-')) delete headers[k];
  }
  headers['X-Remote-User'] = user.username;
  if (user.groups.length) headers['X-Remote-Group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    headers[`X-Remote-Extra-${encodeExtraKey(key)}`] = [...values];
  }
}

/** Extra keys are URL path-escaped in the header name (upstream headerKeyEscape). */
function encodeExtraKey(key: string): string {
  return encodeURIComponent(key).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Writes upstream's `http.Error` answer: the text and a newline, as text/plain. */
export function proxyError(res: ResponseWriter, message: string, code: number): void {
  if (res.closed) return;
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(`${message}\n`);
}

/** A Go-style dial error text (`dial tcp 127.0.0.1:443: connect: connection refused`) from a Node socket error. */
export function dialErrorText(e: NodeJS.ErrnoException & { address?: string; port?: number }, target: { host: string; port: number }): string {
  const addr = `${e.address ?? target.host}:${e.port ?? target.port}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ETIMEDOUT':
      return `dial tcp ${addr}: i/o timeout`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${target.host}: no such host`;
    case 'ECONNRESET':
      return 'read: connection reset by peer';
    default:
      return e.message;
  }
}

function requestOptions(t: BackendTarget, client: ProxyClientCert, method: string, path: string, headers: OutgoingHttpHeaders): https.RequestOptions {
  return {
    host: t.host,
    port: t.port,
    method,
    path,
    headers,
    cert: client.cert,
    key: client.key,
    ca: t.ca,
    rejectUnauthorized: !t.insecureSkipTLSVerify,
    servername: t.serverName,
    agent: false,
  };
}

/** The headers replayed to the backend for `req` as `user`. */
function forwardHeaders(req: ApiRequest, user: UserInfo, upgrade: boolean): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    if (DROP_REQUEST.has(k) && !(upgrade && (k === 'connection' || k === 'upgrade'))) continue;
    out[k] = v;
  }
  setAuthProxyHeaders(out, user);
  if (req.body && req.body.length) out['content-length'] = String(req.body.length);
  return out;
}

/**
 * Proxies one request to `target` and streams the answer into `res`. Resolves when the
 * answer has ended (or the client went away).
 */
export function proxyRequest(req: ApiRequest, res: ResponseWriter, user: UserInfo, target: BackendTarget, client: ProxyClientCert, path: string): Promise<void> {
  return new Promise((resolve) => {
    const out = https.request(requestOptions(target, client, req.method, path, forwardHeaders(req, user, false)), (bres: IncomingMessage) => {
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(bres.headers)) if (v !== undefined && !DROP_RESPONSE.has(k)) headers[k] = v;
      res.writeHead(bres.statusCode ?? 502, headers);
      res.write(''); // the head goes out at once: a watch may wait long for its first event
      bres.on('data', (c: Buffer) => res.write(c));
      bres.on('end', () => {
        res.end();
        resolve();
      });
      bres.on('error', () => {
        res.end();
        resolve();
      });
    });
    res.onClose(() => out.destroy());
    out.on('error', (e: NodeJS.ErrnoException) => {
      // upstream's responder: the round-trip error as text, 503
      proxyError(res, dialErrorText(e, target), 503);
      resolve();
    });
    out.end(req.body && req.body.length ? req.body : undefined);
  });
}

/**
 * Replays an upgrade request to `target` and splices the connections once it answers 101;
 * any other answer is relayed as is and the connection closed.
 * @throws Error with the dial error's text when the backend cannot be reached (nothing was written yet)
 */
export function proxyUpgrade(up: PendingUpgrade, req: ApiRequest, user: UserInfo, target: BackendTarget, client: ProxyClientCert, path: string): Promise<void> {
  const headers = forwardHeaders(req, user, true);
  const sock = up.socket;
  return new Promise((resolve, reject) => {
    const out = https.request(requestOptions(target, client, req.method, path, headers));
    out.on('upgrade', (bres: IncomingMessage, bsock, bhead: Buffer) => {
      up.hijack();
      if (sock.destroyed) {
        bsock.destroy();
        return resolve();
      }
      const lines = [`HTTP/1.1 101 ${bres.statusMessage || 'Switching Protocols'}`];
      for (let i = 0; i < bres.rawHeaders.length; i += 2) lines.push(`${bres.rawHeaders[i]}: ${bres.rawHeaders[i + 1]}`);
      sock.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (bhead.length) sock.write(bhead);
      if (up.head.length) bsock.write(up.head);
      splice(bsock, sock);
      resolve();
    });
    out.on('response', (bres: IncomingMessage) => {
      up.hijack();
      const chunks: Buffer[] = [];
      bres.on('data', (c: Buffer) => chunks.push(c));
      bres.on('end', () => {
        const body = Buffer.concat(chunks);
        const lines = [`HTTP/1.1 ${bres.statusCode} ${bres.statusMessage ?? ''}`];
        for (let i = 0; i < bres.rawHeaders.length; i += 2) {
          const lk = bres.rawHeaders[i]!.toLowerCase();
          if (lk === 'content-length' || lk === 'transfer-encoding' || lk === 'connection') continue;
          lines.push(`${bres.rawHeaders[i]}: ${bres.rawHeaders[i + 1]}`);
        }
        lines.push(`Content-Length: ${body.length}`, 'Connection: close');
        if (!sock.destroyed) sock.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
        resolve();
      });
      bres.on('error', () => {
        sock.destroy();
        resolve();
      });
    });
    out.on('error', (e: NodeJS.ErrnoException) => reject(new Error(dialErrorText(e, target))));
    out.end();
  });
}

/**
 * One GET on the backend as `user` with a `timeoutMs` deadline, the body read whole.
 * @throws Error with the dial error's text, or `request timed out`
 */
export function backendGet(
  target: BackendTarget,
  client: ProxyClientCert,
  path: string,
  user: UserInfo,
  accept: string,
  timeoutMs = 5_000,
): Promise<{ status: number; contentType: string; body: string }> {
  const headers: OutgoingHttpHeaders = { Accept: accept };
  setAuthProxyHeaders(headers, user);
  return new Promise((resolve, reject) => {
    const req = https.request(requestOptions(target, client, 'GET', path, headers), (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (e) => reject(e));
    });
    const timer = setTimeout(() => req.destroy(new Error('request timed out')), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (e: NodeJS.ErrnoException) => reject(new Error(e.message === 'request timed out' ? e.message : dialErrorText(e, target))));
    req.end();
  });
}

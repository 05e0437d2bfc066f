/**
 * The API server's connection to kubelets: where a node's kubelet listens (a node
 * address in preference order, `status.daemonEndpoints.kubeletEndpoint.Port`), an
 * HTTPS GET whose body is streamed back (pods/log), and a byte-level proxy of an
 * upgrade request (pods/exec, attach, portforward): the client's upgrade is replayed
 * to the kubelet with the API server's client certificate and, once the kubelet
 * answers 101, both connections are spliced; any other answer is relayed as is.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/client/kubelet_client.go
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/util/proxy/upgradeaware.go
 */
import * as https from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import type { Node } from 'kubernetes-types/core/v1.js';
import { failureStatus, newBadRequest, newInternalError, newServiceUnavailable, StatusError, type GroupResource } from '../../apimachinery/errors.js';
import type { ResponseWriter } from '../http/types.js';
import type { PendingUpgrade } from './upgrade.js';
import { splice } from './splice.js';

/** How the API server reaches kubelets (upstream --kubelet-client-certificate/key, --kubelet-certificate-authority, --kubelet-preferred-address-types). */
export interface KubeletClientConfig {
  /** the API server's client certificate and key (PEM); the kubelet must accept it (system:masters) */
  cert: string;
  key: string;
  /**
   * CA that signed the kubelets' serving certificates (PEM). Unset: kubelet serving
   * certificates are not verified — upstream's default without
   * --kubelet-certificate-authority (kubelets usually serve self-signed certificates).
   */
  ca?: string;
  /** port when a node publishes none (default 10250) */
  defaultPort?: number;
  /** node address types in order of preference (default InternalIP, Hostname, InternalDNS, ExternalIP, ExternalDNS) */
  preferredAddressTypes?: string[];
  /** ms to wait for the kubelet's response head (default 30 000) */
  timeoutMs?: number;
}

/** Where one kubelet listens. */
export interface KubeletLocation {
  host: string;
  port: number;
}

const DEFAULT_TYPES = ['InternalIP', 'Hostname', 'InternalDNS', 'ExternalIP', 'ExternalDNS'];

/** Headers not replayed to the kubelet: the client's credentials and per-connection ones. */
const DROP = new Set(['authorization', 'host', 'content-length', 'transfer-encoding', 'proxy-authorization', 'cookie', 'keep-alive']);

/** A non-2xx kubelet answer as the Status upstream's GenericHttpResponseChecker makes of it. */
export function kubeletResponseError(status: number, body: string, qualified: GroupResource, name: string): StatusError {
  if (status === 500) return newInternalError(body);
  if (status === 400) return newBadRequest(body);
  const reason = status === 404 ? 'NotFound' : status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : status === 503 ? 'ServiceUnavailable' : 'InternalError';
  const what =
    status === 404
      ? 'the server could not find the requested resource'
      : status === 401
        ? 'the server has asked for the client to provide credentials'
        : status === 403
          ? 'the server does not allow access to the requested resource'
          : `an error on the server ("${body}") has prevented the request from succeeding`;
  const res = qualified.group ? `${qualified.resource}.${qualified.group}` : qualified.resource;
  return new StatusError(
    failureStatus(status, reason, `${what} ( ${res} ${name})`, {
      name,
      kind: qualified.resource,
      causes: [{ reason: 'UnexpectedServerResponse', message: body }],
    }),
  );
}

/** The API server's client of kubelets: addresses, log streaming, upgrade proxying (keep-alive agent for logs). */
export class KubeletClient {
  private readonly types: string[];
  private readonly agent: https.Agent;
  /**
   * The client certificate, key and CA parsed once: without it every new connection
   * (each metrics scrape of a node without a kept-alive connection) builds its own
   * TLS context from the PEM texts, ~1 ms of CPU each.
   */
  private readonly secureContext: SecureContext;

  constructor(private readonly cfg: KubeletClientConfig) {
    this.types = cfg.preferredAddressTypes ?? DEFAULT_TYPES;
    this.secureContext = createSecureContext({ cert: cfg.cert, key: cfg.key, ca: cfg.ca });
    this.agent = new https.Agent({ keepAlive: true, secureContext: this.secureContext, rejectUnauthorized: cfg.ca !== undefined });
  }

  /**
   * The kubelet of `node`.
   * @throws StatusError 500 `no preferred addresses found; known addresses: [...]`
   */
  location(node: Node): KubeletLocation {
    const addrs = node.status?.addresses ?? [];
    for (const t of this.types) {
      const a = addrs.find((x) => x.type === t && x.address);
      if (a) {
        const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
        return { host: a.address, port: port && port > 0 ? port : (this.cfg.defaultPort ?? 10250) };
      }
    }
    throw newInternalError(`no preferred addresses found; known addresses: [${addrs.map((a) => `{${a.type} ${a.address}}`).join(' ')}]`);
  }

  private options(loc: KubeletLocation, method: string, path: string, headers: Record<string, string | string[]>): https.RequestOptions {
    // tls.connect's secureContext option (RequestOptions' type does not list it)
    const o: https.RequestOptions & { secureContext: SecureContext } = {
      host: loc.host,
      port: loc.port,
      method,
      path,
      headers,
      secureContext: this.secureContext,
      rejectUnauthorized: this.cfg.ca !== undefined,
      timeout: this.cfg.timeoutMs ?? 30_000,
    };
    return o;
  }

  /**
   * GETs `path` from the kubelet and streams a 2xx body into `res` (text/plain),
   * flushing as it arrives; ends `res` when the kubelet ends, aborts the kubelet
   * request when the client goes away.
   * @throws StatusError for non-2xx answers (see {@link kubeletResponseError}) and for connection failures
   */
  streamGet(loc: KubeletLocation, path: string, res: ResponseWriter, qualified: GroupResource, name: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = https.request({ ...this.options(loc, 'GET', path, {}), agent: this.agent }, (kres: IncomingMessage) => {
        const code = kres.statusCode ?? 0;
        if (code < 200 || code > 206) {
          const chunks: Buffer[] = [];
          let n = 0;
          kres.on('data', (c: Buffer) => {
            if (n < 1 << 16) chunks.push(c);
            n += c.length;
          });
          kres.on('end', () =>
            reject(
              kubeletResponseError(
                code,
                Buffer.concat(chunks)
                  .toString('utf8')
                  .slice(0, 1 << 16),
                qualified,
                name,
              ),
            ),
          );
          kres.on('error', (e) => reject(newInternalError(e)));
          return;
        }
        req.setTimeout(0);
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
        res.write(''); // flush the head: a follow may wait long for its first line
        kres.on('data', (c: Buffer) => res.write(c));
        kres.on('end', () => {
          res.end();
          resolve();
        });
        kres.on('error', () => {
          res.end();
          resolve();
        });
      });
      res.onClose(() => req.destroy());
      req.on('timeout', () => req.destroy(new Error(`timeout awaiting response headers from ${loc.host}:${loc.port}`)));
      req.on('error', (e) => reject(newInternalError(`error dialing backend: ${e.message}`)));
      req.end();
    });
  }

  /**
   * GETs (or HEADs) `path` from the kubelet and relays its answer as is — status code,
   * content type and body — as upstream's proxy handler does for nodes/proxy.
   * @throws StatusError 503 `error trying to reach service: …` when the kubelet cannot be reached (nothing was written yet)
   */
  relay(loc: KubeletLocation, method: 'GET' | 'HEAD', path: string, res: ResponseWriter): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = https.request({ ...this.options(loc, method, path, {}), agent: this.agent }, (kres: IncomingMessage) => {
        req.setTimeout(0);
        const headers: Record<string, string> = {};
        for (const h of ['content-type', 'content-encoding', 'cache-control']) {
          const v = kres.headers[h];
          if (typeof v === 'string') headers[h.replace(/(^|-)[a-z]/g, (x) => x.toUpperCase())] = v;
        }
        res.writeHead(kres.statusCode ?? 502, headers);
        kres.on('data', (c: Buffer) => res.write(c));
        const done = (): void => {
          res.end();
          resolve();
        };
        kres.on('end', done);
        kres.on('error', done);
      });
      res.onClose(() => req.destroy());
      req.on('timeout', () => req.destroy(new Error(`timeout awaiting response headers from ${loc.host}:${loc.port}`)));
      req.on('error', (e) => reject(newServiceUnavailable(`error trying to reach service: ${e.message}`)));
      req.end();
    });
  }

  /**
   * Replays the client's upgrade request as `method path` to the kubelet and splices
   * the connections on 101; relays any other answer unchanged. Resolves once the
   * kubelet answered (the client socket then belongs to the proxy).
   * @throws StatusError 500 `error dialing backend: …` when the kubelet cannot be reached (nothing was written to the client yet)
   */
  proxyUpgrade(up: PendingUpgrade, loc: KubeletLocation, path: string): Promise<void> {
    const headers: Record<string, string | string[]> = {};
    const raw = up.req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const k = raw[i]!;
      const lk = k.toLowerCase();
      if (DROP.has(lk) || lk.startsWith('impersonate-')) continue;
      const prev = headers[k];
      headers[k] = prev === undefined ? raw[i + 1]! : [...(Array.isArray(prev) ? prev : [prev]), raw[i + 1]!];
    }
    if ((up.req.method ?? 'GET') !== 'GET') headers['Content-Length'] = '0';
    const client = up.socket;
    return new Promise((resolve, reject) => {
      const req = https.request(this.options(loc, up.req.method ?? 'GET', path, headers));
      req.on('upgrade', (kres: IncomingMessage, ksock, khead: Buffer) => {
        up.hijack();
        if (client.destroyed) {
          ksock.destroy();
          return resolve();
        }
        const lines = [`HTTP/1.1 101 ${kres.statusMessage || 'Switching Protocols'}`];
        for (let i = 0; i < kres.rawHeaders.length; i += 2) lines.push(`${kres.rawHeaders[i]}: ${kres.rawHeaders[i + 1]}`);
        client.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (khead.length) client.write(khead);
        if (up.head.length) ksock.write(up.head);
        ksock.setTimeout(0);
        // once either side is gone the session is over: the other is ended once what is queued
        // for it is written (see splice), so a half-closed peer cannot keep it open
        splice(ksock, client);
        resolve();
      });
      req.on('response', (kres: IncomingMessage) => {
        up.hijack();
        const chunks: Buffer[] = [];
        kres.on('data', (c: Buffer) => chunks.push(c));
        kres.on('end', () => {
          const body = Buffer.concat(chunks);
          const lines = [`HTTP/1.1 ${kres.statusCode} ${kres.statusMessage ?? ''}`];
          for (let i = 0; i < kres.rawHeaders.length; i += 2) {
            const lk = kres.rawHeaders[i]!.toLowerCase();
            if (lk === 'content-length' || lk === 'transfer-encoding' || lk === 'connection') continue;
            lines.push(`${kres.rawHeaders[i]}: ${kres.rawHeaders[i + 1]}`);
          }
          lines.push(`Content-Length: ${body.length}`, 'Connection: close');
          if (!client.destroyed) client.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
          resolve();
        });
        kres.on('error', () => {
          client.destroy();
          resolve();
        });
      });
      req.on('timeout', () => req.destroy(new Error(`timeout awaiting response headers from ${loc.host}:${loc.port}`)));
      req.on('error', (e) => reject(newInternalError(`error dialing backend: ${e.message}`)));
      req.end();
    });
  }

  /**
   * GETs `path` from the kubelet and reads the whole answer (the metrics scraper's
   * `/metrics/resource`).
   * @throws Error with the connection error, or `timeout awaiting response headers` after `timeoutMs`
   */
  getText(loc: KubeletLocation, path: string, timeoutMs = 10_000): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = https.request({ ...this.options(loc, 'GET', path, {}), agent: this.agent, timeout: timeoutMs }, (kres) => {
        const chunks: Buffer[] = [];
        kres.on('data', (c: Buffer) => chunks.push(c));
        kres.on('end', () => resolve({ status: kres.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        kres.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`timeout awaiting response headers from ${loc.host}:${loc.port}`)));
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

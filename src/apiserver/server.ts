/**
 * The HTTPS listener: TLS with optional client certificates (x509 authentication:
 * user = CN, groups = O, verified against the cluster CA), request bodies read up
 * to the 3 MiB limit, and the transport-neutral pipeline in apiserver.ts.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authentication/#x509-client-certificates
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { UserInfo } from '../api/resource.js';
import { newRequestEntityTooLarge } from '../apimachinery/errors.js';
import type { APIServer } from './apiserver.js';
import { MAX_REQUEST_BODY_BYTES } from './http/body.js';
import { writeError } from './http/respond.js';
import type { ApiRequest, ResponseWriter } from './http/types.js';

export interface ListenOptions {
  host: string;
  port: number;
  cert: string;
  key: string;
  /** CA that signs client certificates */
  clientCA: string;
}

/** Handles HTTP upgrades (exec/attach/port-forward WebSockets); registered by the streaming code. */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, user: UserInfo | undefined) => boolean;

const socketUsers = new WeakMap<TLSSocket, UserInfo | null>();

/**
 * Identity from a verified client certificate, or undefined. Computed once per TLS
 * connection (the certificate cannot change on a connection).
 */
export function userFromCertificate(sock: TLSSocket): UserInfo | undefined {
  const cached = socketUsers.get(sock);
  if (cached !== undefined) return cached ?? undefined;
  const u = certificateUser(sock);
  socketUsers.set(sock, u ?? null);
  return u;
}

function certificateUser(sock: TLSSocket): UserInfo | undefined {
  if (!sock.authorized) return undefined;
  const cert = sock.getPeerCertificate();
  if (!cert || !cert.subject) return undefined;
  const cn = cert.subject.CN;
  const username = Array.isArray(cn) ? cn[0] : cn;
  if (!username) return undefined;
  const o = cert.subject.O;
  const orgs = o === undefined ? [] : Array.isArray(o) ? o : [o];
  return { username, groups: [...orgs, 'system:authenticated'] };
}

/** Adapts a Node ServerResponse to the pipeline's ResponseWriter. */
export function responseWriter(res: ServerResponse): ResponseWriter {
  let closed = false;
  const closers: (() => void)[] = [];
  const fire = (): void => {
    if (closed) return;
    closed = true;
    for (const c of closers.splice(0)) c();
  };
  res.on('close', fire);
  return {
    writeHead(status, headers) {
      if (!res.headersSent) res.writeHead(status, headers);
    },
    write(chunk) {
      if (closed) return;
      if (chunk === '' || (Buffer.isBuffer(chunk) && chunk.length === 0)) {
        res.flushHeaders();
        return;
      }
      res.write(chunk);
    },
    end(chunk) {
      if (res.writableEnded) return;
      if (chunk !== undefined) res.end(chunk);
      else res.end();
    },
    onClose(cb) {
      if (closed) cb();
      else closers.push(cb);
    },
    get closed() {
      return closed || res.writableEnded;
    },
  };
}

function headersOf(req: IncomingMessage): Record<string, string | undefined> {
  const h: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) h[k] = Array.isArray(v) ? v.join(', ') : v;
  return h;
}

/** Starts the HTTPS server; resolves once listening. */
export function listen(api: APIServer, o: ListenOptions, upgrade?: UpgradeHandler): Promise<Server> {
  const server = createServer(
    {
      cert: o.cert,
      key: o.key,
      ca: o.clientCA,
      requestCert: true,
      rejectUnauthorized: false,
      // long watches: no request timeout
      requestTimeout: 0,
      headersTimeout: 60_000,
      keepAliveTimeout: 65_000,
    },
    (req, res) => {
      const rw = responseWriter(res);
      const chunks: Buffer[] = [];
      let size = 0;
      let tooLarge = false;
      req.on('data', (c: Buffer) => {
        if (tooLarge) return;
        size += c.length;
        if (size > MAX_REQUEST_BODY_BYTES) {
          tooLarge = true;
          writeError(rw, newRequestEntityTooLarge(`limit is ${MAX_REQUEST_BODY_BYTES}`));
          req.resume();
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        if (tooLarge) return;
        const ar: ApiRequest = {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: headersOf(req),
          body: chunks.length ? Buffer.concat(chunks) : undefined,
          user: userFromCertificate(req.socket as TLSSocket),
          remoteAddress: req.socket.remoteAddress,
        };
        void api.handle(ar, rw);
      });
      req.on('error', () => rw.end());
    },
  );
  if (upgrade) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const user = userFromCertificate(req.socket as TLSSocket);
      if (!upgrade(req, socket, head, user)) socket.destroy();
    });
  }
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

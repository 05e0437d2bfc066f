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
import { failureStatus, newRequestEntityTooLarge } from '../apimachinery/errors.js';
import type { APIServer } from './apiserver.js';
import { MAX_REQUEST_BODY_BYTES } from './http/body.js';
import { writeError } from './http/respond.js';
import { isPrettyPrint } from './http/negotiate.js';
import type { ApiRequest, ResponseWriter } from './http/types.js';

export interface ListenOptions {
  host: string;
  port: number;
  cert: string;
  key: string;
  /** CA that signs client certificates */
  clientCA: string;
  /** ms a connection may take to send a request's headers (default 60 000); tests shorten it */
  headersTimeout?: number;
  /** ms between the checks of that timeout (Node's default 30 000); tests shorten it */
  connectionsCheckingInterval?: number;
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

/**
 * A Node ServerResponse as the pipeline's ResponseWriter. A class (no per-request
 * closures or accessor literals); the 'close' listener is added only when someone
 * asks to hear of it (watches, proxied streams).
 */
class NodeResponseWriter implements ResponseWriter {
  private fired = false;
  private closers: (() => void)[] | undefined;

  constructor(
    private readonly res: ServerResponse,
    readonly pretty = false,
  ) {}

  /** the response's 'close': the client went away or the response ended */
  private readonly fire = (): void => {
    if (this.fired) return;
    this.fired = true;
    const cs = this.closers;
    this.closers = undefined;
    if (cs) for (const c of cs) c();
  };

  /** 'close' was emitted (Node sets `destroyed` as it emits it) */
  private get hasClosed(): boolean {
    return this.fired || this.res.destroyed;
  }

  writeHead(status: number, headers: Record<string, string | string[]>): void {
    if (!this.res.headersSent) this.res.writeHead(status, headers);
  }

  write(chunk: string | Buffer): void {
    if (this.hasClosed) return;
    if (chunk === '' || (Buffer.isBuffer(chunk) && chunk.length === 0)) {
      this.res.flushHeaders();
      return;
    }
    this.res.write(chunk);
  }

  end(chunk?: string | Buffer): void {
    const res = this.res;
    if (res.writableEnded) return;
    if (chunk !== undefined) res.end(chunk);
    else res.end();
  }

  onClose(cb: () => void): void {
    if (this.hasClosed) {
      cb();
      return;
    }
    if (this.closers === undefined) {
      this.closers = [];
      this.res.on('close', this.fire);
    }
    this.closers.push(cb);
  }

  get closed(): boolean {
    return this.hasClosed || this.res.writableEnded;
  }
}

/**
 * Adapts a Node ServerResponse to the pipeline's ResponseWriter.
 * @param pretty JSON replies are indented (see {@link isPrettyPrint})
 */
export function responseWriter(res: ServerResponse, pretty = false): ResponseWriter {
  return new NodeResponseWriter(res, pretty);
}

/** Whether a request asks for indented JSON: `?pretty=…` or a human's User-Agent (upstream isPrettyPrint). */
function wantsPretty(req: IncomingMessage): boolean {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  return isPrettyPrint(q < 0 ? undefined : url.slice(q + 1), req.headers['user-agent']);
}

/** The request headers as the pipeline takes them: Node's object itself unless a header is multi-valued. */
function headersOf(req: IncomingMessage): Record<string, string | undefined> {
  const src = req.headers;
  // only set-cookie comes as an array from Node's parser
  if (src['set-cookie'] === undefined) return src as Record<string, string | undefined>;
  const h: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(src)) h[k] = Array.isArray(v) ? v.join(', ') : v;
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
      headersTimeout: o.headersTimeout ?? 60_000,
      keepAliveTimeout: 65_000,
      ...(o.connectionsCheckingInterval ? { connectionsCheckingInterval: o.connectionsCheckingInterval } : {}),
    },
    (req, res) => {
      const rw = responseWriter(res, wantsPretty(req));
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
          // one chunk (the usual case) is used as it is: Node hands each read its own buffer
          body: chunks.length === 0 ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size),
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
  server.on('clientError', onClientError);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/**
 * What the HTTP layer does with a connection whose request never reached the pipeline
 * (Node's `clientError`): an error the parser found or the header timeout.
 *
 * - Header timeout (`ERR_HTTP_REQUEST_TIMEOUT`), reset or unwritable socket: the connection
 *   is closed without a word, as Go's http.Server does on its ReadHeaderTimeout. Node
 *   starts that timer when a connection opens, so it fires on keep-alive connections a
 *   client dialled but has not used yet; anything written there is read by the client as
 *   the response to the request it sends next (client-go: `the server rejected our
 *   request for an unknown reason` for helm's PUT after a long `--wait`, for kubectl's
 *   PATCH late in a long apply). A plain close lets the client dial again.
 * - Parse errors (malformed request line or headers, headers over the size limit): a
 *   metav1.Status (400 BadRequest, or 431 for too large headers) with `Connection: close`,
 *   unless a response is already under way on the socket (then it is only closed).
 *
 * @see https://pkg.go.dev/net/http#Server (ReadHeaderTimeout; errors before a request are answered 400/431)
 */
export function onClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const code = err.code ?? '';
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ECONNRESET' || !socket.writable || (inFlight && inFlight.headersSent)) {
    socket.destroy();
    return;
  }
  const tooLarge = code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? failureStatus(431, '', 'request header fields too large') : failureStatus(400, 'BadRequest', `malformed HTTP request: ${err.message}`);
  const body = JSON.stringify(status);
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

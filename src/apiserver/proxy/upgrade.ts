/**
 * HTTP upgrade requests (WebSocket and SPDY/3.1: exec, attach, port-forward) through
 * the normal request pipeline: the HTTPS listener hands every upgrade to
 * {@link createUpgradeHandler}, which runs it through `APIServer.handle` (so
 * authentication, authorization, audit and the subresource handler apply exactly as
 * for other requests) with a response writer on the raw socket. A subresource
 * handler claims the connection with {@link takeUpgrade} and proxies it to the
 * kubelet; if it fails before that, the pipeline's metav1.Status error is written to
 * the socket as an ordinary HTTP response — which kubectl reads as an upgrade
 * failure (and prints the Status).
 *
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/util/proxy/upgradeaware.go
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { UserInfo } from '../../api/resource.js';
import type { APIServer } from '../apiserver.js';
import type { ApiRequest } from '../http/types.js';
import type { UpgradeHandler } from '../server.js';
import { rawResponseWriter, type RawResponseWriter } from './raw-response.js';

/** A client connection waiting to be upgraded. */
export interface PendingUpgrade {
  /** the client's request (method, URL, raw headers) */
  req: IncomingMessage;
  socket: Duplex;
  /** bytes the client sent after the request head */
  head: Buffer;
  /** call before writing anything on `socket` yourself: the pipeline's writer then stays silent */
  hijack(): void;
}

const pending = new WeakMap<ApiRequest, PendingUpgrade>();

/**
 * The upgrade behind `req`, if it came in as one; undefined for ordinary requests
 * (the handler then answers `400 Upgrade request required`, as upstream).
 */
export function takeUpgrade(req: ApiRequest): PendingUpgrade | undefined {
  const p = pending.get(req);
  pending.delete(req);
  return p;
}

function headersOf(req: IncomingMessage): Record<string, string | undefined> {
  const h: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) h[k] = Array.isArray(v) ? v.join(', ') : v;
  return h;
}

/** The upgrade hook plus `closeAll()`, which ends every upgraded connection (call it on shutdown: `server.close()` waits for them). */
export type StreamingUpgradeHandler = UpgradeHandler & { closeAll(): void };

/**
 * The listener's upgrade hook (pass it as `listen(api, opts, createUpgradeHandler(api))`).
 * Every upgrade request is handled (returns true).
 */
export function createUpgradeHandler(api: APIServer): StreamingUpgradeHandler {
  const open = new Set<Duplex>();
  const handler = (req: IncomingMessage, socket: Duplex, head: Buffer, user: UserInfo | undefined): boolean => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    const rw: RawResponseWriter = rawResponseWriter(socket);
    const ar: ApiRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: headersOf(req),
      user,
      remoteAddress: req.socket.remoteAddress,
    };
    pending.set(ar, { req, socket, head, hijack: () => rw.hijack() });
    void api.handle(ar, rw).finally(() => {
      pending.delete(ar);
      // nothing answered and nobody took the connection: do not leave the client hanging
      if (!rw.hijacked && !rw.closed) rw.end();
    });
    return true;
  };
  return Object.assign(handler, {
    closeAll(): void {
      for (const s of open) s.destroy();
      open.clear();
    },
  });
}

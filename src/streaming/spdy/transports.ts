/**
 * Binds a SPDY session to a transport: a raw socket after an HTTP upgrade
 * (`Upgrade: SPDY/3.1`), or a WebSocket whose binary messages carry the SPDY byte
 * stream (the `SPDY/3.1+portforward.k8s.io` tunnel kubectl 1.30+ uses), and dials a
 * SPDY upgrade as a client (what the kubelet does towards a CRI streaming server).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/client-go/tools/portforward/tunneling_connection.go
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { SpdySession, type SpdySessionOptions } from './session.js';

/** Runs a SPDY session over a socket (or any Duplex of bytes); `head` = bytes already read past the upgrade. */
export function spdyOverSocket(sock: Duplex, opts: SpdySessionOptions, head?: Buffer): SpdySession {
  const session = new SpdySession(
    {
      write: (b) => {
        if (!sock.destroyed) sock.write(b);
      },
      end: () => sock.end(),
    },
    opts,
  );
  sock.on('data', (c: Buffer) => session.receive(c));
  sock.on('close', () => session.transportClosed());
  sock.on('error', () => session.transportClosed());
  if (head?.length) session.receive(head);
  return session;
}

/** Runs a SPDY session over the binary messages of a WebSocket (no channel byte). */
export function spdyOverWebSocket(ws: WebSocket, opts: SpdySessionOptions): SpdySession {
  const session = new SpdySession(
    {
      write: (b) => {
        if (ws.readyState === ws.OPEN) ws.send(b, { binary: true });
      },
      end: () => {
        if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000);
      },
    },
    opts,
  );
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    if (!isBinary) return;
    session.receive(Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data));
  });
  ws.on('close', () => session.transportClosed());
  ws.on('error', () => session.transportClosed());
  return session;
}

/** Raised when the server refuses the SPDY upgrade (any status but 101). */
export class UpgradeRefusedError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: string,
  ) {
    super(`unable to upgrade connection: ${body || `status ${statusCode}`}`);
    this.name = 'UpgradeRefusedError';
  }
}

/** Options of {@link dialSpdy}. */
export interface DialSpdyOptions {
  /** offered `X-Stream-Protocol-Version`s, preferred first */
  protocols: string[];
  /** HTTP method (upstream clients POST) */
  method?: string;
  /** TLS options for https URLs */
  tls?: https.RequestOptions;
  /** ms to wait for the upgrade response (default 30 000) */
  timeoutMs?: number;
}

/**
 * Upgrades an HTTP connection to SPDY/3.1 as a client.
 * @returns the session (client role) and the protocol the server chose
 * @throws UpgradeRefusedError when the server answers with anything but 101; Error on network failure
 */
export function dialSpdy(url: string, o: DialSpdyOptions): Promise<{ session: SpdySession; protocol: string }> {
  const u = new URL(url);
  const mod = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request({
      ...(o.tls ?? {}),
      method: o.method ?? 'POST',
      host: u.hostname.replace(/^\[|\]$/g, ''),
      port: u.port || (u.protocol === 'https:' ? 443 : 80),
      path: `${u.pathname}${u.search}`,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'SPDY/3.1',
        'X-Stream-Protocol-Version': o.protocols,
        'Content-Length': '0',
      },
      timeout: o.timeoutMs ?? 30_000,
    });
    req.on('upgrade', (res, socket, head) => {
      const chosen = res.headers['x-stream-protocol-version'];
      const protocol = Array.isArray(chosen) ? (chosen[0] ?? '') : (chosen ?? '');
      socket.setNoDelay?.(true);
      resolve({ session: spdyOverSocket(socket, { role: 'client' }, head), protocol });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.length < 64 && chunks.push(c));
      res.on('end', () => reject(new UpgradeRefusedError(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8').trim())));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timed out upgrading ${u.host}${u.pathname} to SPDY`)));
    req.on('error', reject);
    req.end();
  });
}

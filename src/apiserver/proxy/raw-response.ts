/**
 * A ResponseWriter that answers on a raw socket (an upgrade request that is not, or
 * not yet, upgraded): status line and headers, the buffered body with its
 * Content-Length, then the connection closes.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ResponseWriter } from '../http/types.js';

/** A writer whose socket can be handed over to a proxy. */
export interface RawResponseWriter extends ResponseWriter {
  /** From now on the socket belongs to someone else (a proxy): this writer stays silent. */
  hijack(): void;
  readonly hijacked: boolean;
}

/** Body bytes kept for an error answer; more is dropped (answers here are Status objects). */
const MAX_BODY = 1 << 20;

/** Buffers the answer (up to 1 MiB of body) and writes it with Content-Length on `end()`, then closes the socket. */
export function rawResponseWriter(socket: Duplex): RawResponseWriter {
  let status = 200;
  let headers: Record<string, string | string[]> = {};
  const body: Buffer[] = [];
  let size = 0;
  let ended = false;
  let hijacked = false;
  const closers: (() => void)[] = [];
  socket.once('close', () => {
    for (const c of closers.splice(0)) c();
  });
  return {
    writeHead(s, h) {
      status = s;
      headers = h;
    },
    write(chunk) {
      if (ended || hijacked) return;
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (size + b.length <= MAX_BODY) body.push(b);
      size += b.length;
    },
    end(chunk) {
      if (ended || hijacked) return;
      if (chunk !== undefined) this.write(chunk);
      ended = true;
      if (socket.destroyed) return;
      const data = Buffer.concat(body);
      const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}`];
      for (const [k, v] of Object.entries(headers)) {
        const lk = k.toLowerCase();
        if (lk === 'content-length' || lk === 'connection' || lk === 'transfer-encoding') continue;
        for (const one of Array.isArray(v) ? v : [v]) lines.push(`${k}: ${one}`);
      }
      lines.push(`Content-Length: ${data.length}`, 'Connection: close');
      socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), data]));
    },
    onClose(cb) {
      if (socket.destroyed) cb();
      else closers.push(cb);
    },
    get closed() {
      return ended || hijacked || socket.destroyed;
    },
    hijack() {
      hijacked = true;
    },
    get hijacked() {
      return hijacked;
    },
  };
}

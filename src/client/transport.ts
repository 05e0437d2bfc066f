/**
 * How the client reaches an API server: the {@link Transport} contract, and HTTPS
 * (any machine). The in-process loopback transport the all-in-one `k8ts server` hands
 * its components is the API server's own (`src/apiserver/loopback.ts`).
 */
import { Agent, request as httpsRequest } from 'node:https';

export interface TransportResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface StreamHandle {
  abort(): void;
  /** resolves with the HTTP status once headers arrive */
  status: Promise<number>;
}

export interface Transport {
  request(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<TransportResponse>;
  /**
   * Streams a response body (watch, log follow). `onEnd` is called exactly once.
   * A transport in the API server's own process may hand a watch's events over as
   * objects through `onWatchEvent` (the server's shared, deep-frozen copy: never to be
   * changed) instead of as JSON lines through `onData`; other transports ignore it.
   */
  stream(
    method: string,
    path: string,
    headers: Record<string, string>,
    onData: (chunk: Buffer | string) => void,
    onEnd: (err?: Error) => void,
    onStatus?: (status: number) => void,
    onWatchEvent?: WatchObjectCallback,
  ): StreamHandle;
}

/** Receives a watch event whose object arrives already decoded (read-only). */
export type WatchObjectCallback = (type: 'ADDED' | 'MODIFIED' | 'DELETED', object: object) => void;

interface HttpsTransportOptions {
  /** e.g. https://127.0.0.1:6443 */
  server: string;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  insecureSkipTLSVerify?: boolean;
}

/** HTTPS with keep-alive to a remote (or local) API server. */
export class HttpsTransport implements Transport {
  private readonly agent: Agent;
  private readonly url: URL;

  constructor(private readonly o: HttpsTransportOptions) {
    this.url = new URL(o.server);
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: 64,
      ca: o.ca,
      cert: o.cert,
      key: o.key,
      rejectUnauthorized: !o.insecureSkipTLSVerify,
    });
  }

  /** Closes the kept-alive connections (a command-line client that is done). */
  close(): void {
    this.agent.destroy();
  }

  private headers(h: Record<string, string>): Record<string, string> {
    return this.o.token ? { ...h, Authorization: `Bearer ${this.o.token}` } : h;
  }

  request(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<TransportResponse> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        {
          agent: this.agent,
          host: this.url.hostname,
          port: this.url.port || 443,
          method,
          path,
          headers: { ...this.headers(headers), ...(body ? { 'Content-Length': String(body.length) } : {}) },
          servername: isIP(this.url.hostname) ? undefined : this.url.hostname,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  stream(
    method: string,
    path: string,
    headers: Record<string, string>,
    onData: (chunk: Buffer | string) => void,
    onEnd: (err?: Error) => void,
    onStatus?: (status: number) => void,
  ): StreamHandle {
    let done = false;
    let resolveStatus!: (n: number) => void;
    const status = new Promise<number>((r) => (resolveStatus = r));
    const finish = (err?: Error): void => {
      if (done) return;
      done = true;
      resolveStatus(0);
      onEnd(err);
    };
    const req = httpsRequest(
      {
        agent: this.agent,
        host: this.url.hostname,
        port: this.url.port || 443,
        method,
        path,
        headers: this.headers(headers),
      },
      (res) => {
        onStatus?.(res.statusCode ?? 0);
        resolveStatus(res.statusCode ?? 0);
        res.on('data', (c: Buffer) => {
          if (!done) onData(c);
        });
        res.on('end', () => finish());
        res.on('error', (e) => finish(e));
        res.on('close', () => finish());
      },
    );
    req.on('error', (e) => finish(e));
    req.end();
    return {
      abort: () => {
        req.destroy();
        finish();
      },
      status,
    };
  }
}

function isIP(h: string): boolean {
  return /^[\d.]+$/.test(h) || h.includes(':');
}

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
  /** Streams a response body (watch, log follow) to `sink`; see {@link StreamSink}. */
  stream(method: string, path: string, headers: Record<string, string>, sink: StreamSink): StreamHandle;
}

/** Where {@link Transport.stream} delivers a streamed response. */
export interface StreamSink {
  /** a chunk of the body (never after `onEnd`) */
  onData(chunk: Buffer | string): void;
  /** called exactly once: the body ended, failed (`err`) or the stream was aborted */
  onEnd(err?: Error): void;
  /** the HTTP status, once the headers arrive */
  onStatus?(status: number): void;
  /**
   * A transport in the API server's own process may hand a watch's events over as
   * objects here (the server's shared, deep-frozen copy: never to be changed) instead of
   * as JSON lines through `onData`; other transports ignore it.
   */
  onWatchEvent?: WatchObjectCallback;
}

/** Receives a watch event whose object arrives already decoded (read-only). */
export type WatchObjectCallback = (type: 'ADDED' | 'MODIFIED' | 'DELETED', object: object) => void;

/**
 * The bookkeeping every {@link Transport.stream} shares: the handle's `status` promise
 * (the HTTP status, or 0 when the stream ends before headers) and a `sink` that hears of
 * data only until the end, and of the end exactly once.
 */
export class StreamState {
  /** settles with the HTTP status once headers arrive, 0 if the stream ended first */
  readonly status: Promise<number>;
  private settle!: (status: number) => void;
  private ended = false;

  /**
   * @param sink the reader's callbacks
   * @param onClose runs once when the stream ends, before `sink.onEnd` (the transport's own clean-up)
   */
  constructor(
    private readonly sink: StreamSink,
    private readonly onClose?: () => void,
  ) {
    this.status = new Promise((r) => (this.settle = r));
  }

  /** Whether the stream has ended. */
  get done(): boolean {
    return this.ended;
  }

  /** The response's headers arrived with `status`. */
  headers(status: number): void {
    this.sink.onStatus?.(status);
    this.settle(status);
  }

  /** A chunk of the body: passed on unless the stream has ended. */
  data(chunk: Buffer | string): void {
    if (!this.ended) this.sink.onData(chunk);
  }

  /** Ends the stream (a no-op once ended): settles `status`, runs `onClose`, then `sink.onEnd(err)`. */
  end(err?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.settle(0);
    this.onClose?.();
    this.sink.onEnd(err);
  }
}

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

  stream(method: string, path: string, headers: Record<string, string>, sink: StreamSink): StreamHandle {
    const s = new StreamState(sink);
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
        s.headers(res.statusCode ?? 0);
        res.on('data', (c: Buffer) => s.data(c));
        res.on('end', () => s.end());
        res.on('error', (e) => s.end(e));
        res.on('close', () => s.end());
      },
    );
    req.on('error', (e) => s.end(e));
    req.end();
    return {
      abort: () => {
        req.destroy();
        s.end();
      },
      status: s.status,
    };
  }
}

function isIP(h: string): boolean {
  return /^[\d.]+$/.test(h) || h.includes(':');
}

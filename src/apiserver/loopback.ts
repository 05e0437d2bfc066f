/**
 * The loopback transport: a client {@link Transport} that calls this API server's
 * request pipeline in the same process (the all-in-one `k8ts server` hands it to its
 * components) — the authenticated identity is preset, authorization, admission and
 * validation still apply.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/server/config.go (LoopbackClientConfig)
 */
import type { UserInfo } from '../api/resource.js';
import { type StreamHandle, type StreamSink, StreamState, type Transport, type TransportResponse } from '../client/transport.js';
import type { ApiRequest, ResponseWriter } from './http/types.js';

/** The request pipeline of an API server (implemented by APIServer.handle). */
export interface RequestHandler {
  handle(req: ApiRequest, res: ResponseWriter): Promise<void>;
}

/** Calls the API server in the same process as `user`. */
export class InProcessTransport implements Transport {
  constructor(
    private readonly api: RequestHandler,
    private readonly user: UserInfo,
  ) {}

  request(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<TransportResponse> {
    return new Promise((resolve) => {
      let status = 200;
      let hdrs: Record<string, string | string[]> = {};
      const chunks: Buffer[] = [];
      const closers: (() => void)[] = [];
      let closed = false;
      const rw: ResponseWriter = {
        writeHead(s, h) {
          status = s;
          hdrs = h;
        },
        write(c) {
          if (c !== '') chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
        },
        end(c) {
          if (closed) return;
          if (c !== undefined && c !== '') chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
          closed = true;
          for (const f of closers.splice(0)) f();
          resolve({ status, headers: lower(hdrs), body: Buffer.concat(chunks) });
        },
        onClose(cb) {
          if (closed) cb();
          else closers.push(cb);
        },
        get closed() {
          return closed;
        },
      };
      void this.api.handle({ method, url: path, headers: lowerReq(headers), body, user: this.user }, rw).then(() => {
        if (!closed) rw.end();
      });
    });
  }

  stream(method: string, path: string, headers: Record<string, string>, sink: StreamSink): StreamHandle {
    const closers: (() => void)[] = [];
    const s = new StreamState(sink, () => {
      for (const f of closers.splice(0)) f();
    });
    const rw: ResponseWriter = {
      writeHead(status) {
        s.headers(status);
      },
      write(c) {
        if (c !== '') s.data(c);
      },
      end(c) {
        if (c !== undefined && c !== '') s.data(c);
        s.end();
      },
      onClose(cb) {
        if (s.done) cb();
        else closers.push(cb);
      },
      get closed() {
        return s.done;
      },
    };
    // the watch endpoint hands its events over as the cache's shared objects (no JSON on either side)
    const { onWatchEvent } = sink;
    if (onWatchEvent !== undefined) {
      rw.writeWatchEvent = (type, object) => {
        if (!s.done) onWatchEvent(type, object);
      };
    }
    void this.api.handle({ method, url: path, headers: lowerReq(headers), user: this.user }, rw).then(
      () => s.end(),
      (e: unknown) => s.end(e instanceof Error ? e : new Error(String(e))),
    );
    return { abort: () => s.end(), status: s.status };
  }
}

function lower(h: Record<string, string | string[]>): Record<string, string | string[] | undefined> {
  const o: Record<string, string | string[] | undefined> = {};
  for (const [k, v] of Object.entries(h)) o[k.toLowerCase()] = v;
  return o;
}

function lowerReq(h: Record<string, string>): Record<string, string | undefined> {
  const o: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(h)) o[k.toLowerCase()] = v;
  return o;
}

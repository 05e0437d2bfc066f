/**
 * A client transport between worker threads: the thread running the API server answers
 * requests and streams (watches) that another thread's RestClient sends over a
 * MessagePort. Every request goes through the API server's full pipeline
 * (`APIServer.handle` via an InProcessTransport, as `k8ts server` wires its own
 * components); only the wire is a MessagePort instead of a socket. Watch events cross it
 * as the cached JSON lines the watch endpoint writes for HTTPS clients. Used to run a
 * component on the other core, as kube-scheduler runs beside kube-apiserver: the
 * scheduler benchmark's scheduler, `k8ts server --kwok-worker`'s kwok node pool
 * (src/kwok/worker.ts).
 *
 * Messages are batched: each side queues what it sends during one turn of its event loop
 * and posts the queue as one array (one structured clone and one wake-up of the other
 * thread per turn instead of one per request, response and watch event), as a socket
 * carries many HTTP/2 frames per write.
 */
import type { MessagePort } from 'node:worker_threads';
import type { UserInfo } from '../api/resource.js';
import { type StreamHandle, type StreamSink, StreamState, type Transport, type TransportResponse } from '../client/transport.js';
import { InProcessTransport, type RequestHandler } from './loopback.js';

type ToServer =
  | { t: 'req'; id: number; method: string; path: string; headers: Record<string, string>; body?: Uint8Array }
  | { t: 'stream'; id: number; method: string; path: string; headers: Record<string, string> }
  | { t: 'abort'; id: number };

type ToClient =
  | { t: 'res'; id: number; status: number; headers: Record<string, string | string[] | undefined>; body: Uint8Array }
  | { t: 'status'; id: number; status: number }
  | { t: 'data'; id: number; chunk: Uint8Array | string }
  | { t: 'end'; id: number; err?: string };

/**
 * Queues messages for `port` and posts them as one array per event-loop turn
 * (setImmediate), with the union of their transfer lists; order is kept.
 */
class Batcher<M> {
  private queue: M[] = [];
  private transfer: ArrayBuffer[] = [];
  private scheduled = false;

  constructor(private readonly port: MessagePort) {}

  send(m: M, transfer?: ArrayBuffer): void {
    this.queue.push(m);
    if (transfer !== undefined) this.transfer.push(transfer);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const q = this.queue;
    const t = this.transfer;
    this.queue = [];
    this.transfer = [];
    this.port.postMessage(q, t);
  };
}

/** A copy of a Buffer in its own (transferable) ArrayBuffer. */
function copy(b: Uint8Array): Uint8Array {
  const c = new Uint8Array(b.byteLength);
  c.set(b);
  return c;
}

/** What a request is, for counting: `POST binding`, `POST events`, `PATCH pods/status`, … */
export function requestKind(method: string, path: string): string {
  const p = path.split('?')[0]!.split('/').filter(Boolean);
  // /api/v1/namespaces/<ns>/<resource>[/<name>[/<sub>]] or /apis/<g>/<v>/…
  const at = p.indexOf('namespaces') >= 0 && p.length > p.indexOf('namespaces') + 2 ? p.indexOf('namespaces') + 2 : p[0] === 'api' ? 2 : 3;
  const resource = p[at] ?? '';
  const sub = p[at + 2];
  return `${method} ${resource}${sub ? '/' + sub : ''}`;
}

/**
 * Serves `port` with the API server as `user`. Requests are counted by kind in `counts`
 * (when given), so the benchmark can show what the scheduler asked of the API server.
 * When the port closes (the other thread ended), its watches are stopped.
 */
export function servePort(api: RequestHandler, user: UserInfo, port: MessagePort, counts?: Map<string, number>): void {
  const local = new InProcessTransport(api, user);
  const streams = new Map<number, StreamHandle>();
  const out = new Batcher<ToClient>(port);
  const send = (m: ToClient, transfer?: ArrayBuffer) => out.send(m, transfer);
  const onMessage = (m: ToServer): void => {
    if (m.t === 'req') {
      if (counts) {
        const k = requestKind(m.method, m.path);
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
      void local.request(m.method, m.path, m.headers, m.body ? Buffer.from(m.body.buffer, m.body.byteOffset, m.body.byteLength) : undefined).then((r) => {
        const body = copy(r.body);
        send({ t: 'res', id: m.id, status: r.status, headers: r.headers, body }, body.buffer as ArrayBuffer);
      });
    } else if (m.t === 'stream') {
      const h = local.stream(m.method, m.path, m.headers, {
        onData: (chunk) => {
          if (typeof chunk === 'string') return send({ t: 'data', id: m.id, chunk });
          const c = copy(chunk);
          send({ t: 'data', id: m.id, chunk: c }, c.buffer as ArrayBuffer);
        },
        onEnd: (err) => {
          streams.delete(m.id);
          send({ t: 'end', id: m.id, err: err?.message });
        },
        onStatus: (status) => send({ t: 'status', id: m.id, status }),
      });
      streams.set(m.id, h);
    } else streams.get(m.id)?.abort();
  };
  port.on('message', (batch: ToServer[]) => {
    for (const m of batch) onMessage(m);
  });
  port.once('close', () => {
    for (const h of [...streams.values()]) h.abort();
    streams.clear();
  });
}

/** The client side: a Transport over `port`. */
export class PortTransport implements Transport {
  private next = 1;
  private readonly pending = new Map<number, (r: TransportResponse) => void>();
  private readonly streams = new Map<number, StreamState>();

  private readonly out: Batcher<ToServer>;

  constructor(port: MessagePort) {
    this.out = new Batcher<ToServer>(port);
    port.on('message', (batch: ToClient[]) => {
      for (const m of batch) this.receive(m);
    });
  }

  private receive(m: ToClient): void {
    if (m.t === 'res') {
      const f = this.pending.get(m.id);
      this.pending.delete(m.id);
      f?.({ status: m.status, headers: m.headers, body: Buffer.from(m.body.buffer, m.body.byteOffset, m.body.byteLength) });
      return;
    }
    const s = this.streams.get(m.id);
    if (!s) return;
    if (m.t === 'status') s.headers(m.status);
    else if (m.t === 'data') s.data(typeof m.chunk === 'string' ? m.chunk : Buffer.from(m.chunk.buffer, m.chunk.byteOffset, m.chunk.byteLength));
    else {
      this.streams.delete(m.id);
      s.end(m.err ? new Error(m.err) : undefined);
    }
  }

  request(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<TransportResponse> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      const b = body ? new Uint8Array(body) : undefined;
      this.out.send({ t: 'req', id, method, path, headers, body: b }, b ? (b.buffer as ArrayBuffer) : undefined);
    });
  }

  stream(method: string, path: string, headers: Record<string, string>, sink: StreamSink): StreamHandle {
    const id = this.next++;
    const s = new StreamState(sink);
    this.streams.set(id, s);
    this.out.send({ t: 'stream', id, method, path, headers });
    return {
      abort: () => {
        if (!this.streams.has(id)) return;
        this.out.send({ t: 'abort', id });
      },
      status: s.status,
    };
  }
}

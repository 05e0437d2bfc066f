/**
 * The server side of port-forward's SPDY protocol (`portforward.k8s.io`), over a raw
 * SPDY upgrade or tunnelled in WebSocket messages (`SPDY/3.1+portforward.k8s.io`):
 * for every local connection the client opens an `error` stream and a `data` stream
 * sharing headers `port` and `requestID`; once both arrived the data stream is
 * connected with the port in the pod, failures are written to the error stream,
 * and both streams are closed when the connection ends.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/cri/streaming/portforward/httpstream.go
 */
import type { SpdySession, SpdyStream } from '../../streaming/spdy/session.js';
import type { PortForwarder } from './streams.js';

interface Pair {
  error?: SpdyStream;
  data?: SpdyStream;
  timer?: NodeJS.Timeout;
}

/**
 * Serves port-forward streams of `session` through `forwarder` until the session
 * ends. `timeoutMs` bounds the wait for the second stream of a pair (default 30 s).
 */
export function servePortForward(session: SpdySession, forwarder: PortForwarder, timeoutMs = 30_000): void {
  const pairs = new Map<string, Pair>();
  const fail = (p: Pair, msg: string): void => {
    if (p.error && !p.error.writableEnded) p.error.end(msg);
    if (p.data && !p.data.writableEnded) p.data.end();
  };
  session.on('stream', (s: SpdyStream) => {
    const type = s.headers['streamtype'];
    if (type !== 'error' && type !== 'data') {
      s.reset();
      return;
    }
    // clients before request IDs: pair a data stream with the error stream opened just before it
    const rid = s.headers['requestid'] ?? String(type === 'data' ? s.id - 2 : s.id);
    let p = pairs.get(rid);
    if (!p) {
      p = {};
      pairs.set(rid, p);
      const pair = p;
      p.timer = setTimeout(() => {
        pairs.delete(rid);
        fail(pair, `(request=${rid}) timed out waiting for streams`);
      }, timeoutMs);
    }
    if (p[type]) {
      s.reset();
      return;
    }
    p[type] = s;
    if (type === 'error') s.resume(); // the client never writes on it
    if (!p.error || !p.data) return;
    clearTimeout(p.timer);
    pairs.delete(rid);
    const { error, data } = p;
    const portText = data.headers['port'] ?? '';
    const port = /^\d+$/.test(portText) ? Number(portText) : NaN;
    if (!(port > 0 && port < 65536)) {
      fail(p, `error parsing port number: ${portText}`);
      return;
    }
    forwarder.forward(port, rid, data).then(
      () => {
        if (!error.writableEnded) error.end();
        if (!data.writableEnded) data.end();
      },
      (e: unknown) => fail(p!, e instanceof Error ? e.message : String(e)),
    );
  });
  session.once('close', () => {
    for (const p of pairs.values()) clearTimeout(p.timer);
    pairs.clear();
    forwarder.close();
  });
}

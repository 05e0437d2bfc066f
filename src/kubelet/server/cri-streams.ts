/**
 * Exec, attach and port-forward through a CRI streaming server (containerd's, at the
 * URL the runtime's Exec/Attach/PortForward returned), as a SPDY/3.1 client — the
 * kubelet translates the client's WebSocket streams to SPDY, as upstream's
 * ExtendWebSocketsToKubelet translator does, because the runtime's server speaks
 * remotecommand v4 (no stdin half-close over WebSocket before v5).
 *
 * Remote command: streams `error`, `stdin`, `stdout`, `stderr` (not with tty),
 * `resize` (tty) are opened with header `streamType`; stdin EOF is the stream's FIN;
 * the error stream ends with a metav1.Status (v4) or a plain message (v1–v3).
 * Port-forward (`portforward.k8s.io`): per connection an `error` and a `data` stream
 * with headers `port` and `requestID`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/client-go/tools/remotecommand/v4.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/client-go/tools/portforward/portforward.go
 */
import type { Duplex } from 'node:stream';
import { streamExitCode, streamInternalError, streamSuccess, type StreamStatus, type TerminalSize } from '../../streaming/channel.js';
import type { SpdySession, SpdyStream } from '../../streaming/spdy/session.js';
import { dialSpdy } from '../../streaming/spdy/transports.js';
import type { PortForwarder, StreamIO, StreamOptions } from './streams.js';

/** SPDY remote-command protocols, preferred first. */
export const SPDY_REMOTE_COMMAND_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'];

function readToEnd(s: SpdyStream): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('end', () => resolve(Buffer.concat(chunks)));
    s.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

function ended(s: SpdyStream): Promise<void> {
  return new Promise((resolve) => {
    if (s.readableEnded) return resolve();
    s.once('end', () => resolve());
    s.once('close', () => resolve());
  });
}

/** Turns what the runtime wrote on the error stream into a status. */
function statusFromErrorStream(protocol: string, body: Buffer): StreamStatus {
  const text = body.toString('utf8').trim();
  if (!text) return streamSuccess();
  if (protocol === 'v4.channel.k8s.io') {
    try {
      const s = JSON.parse(text) as StreamStatus;
      if (s.status === 'Success' || s.status === 'Failure') return { ...s, metadata: {} };
    } catch {
      // fall through: a plain message
    }
  }
  const m = /exit(?:ed with)? (?:code|status) (\d+)/i.exec(text);
  if (m) return streamExitCode(Number(m[1]), text);
  return { metadata: {}, status: 'Failure', message: text };
}

async function remoteCommand(url: string, what: 'exec' | 'attach', o: StreamOptions, io: StreamIO): Promise<StreamStatus> {
  let session: SpdySession;
  let protocol: string;
  try {
    ({ session, protocol } = await dialSpdy(url, { protocols: SPDY_REMOTE_COMMAND_PROTOCOLS }));
  } catch (e) {
    return streamInternalError(`error ${what === 'exec' ? 'executing command in' : 'attaching to'} container: ${(e as Error).message}`);
  }
  const onAbort = (): void => session.close();
  io.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const errS = session.openStream({ streamType: 'error' });
    const errBody = readToEnd(errS);
    const waits: Promise<void>[] = [];
    if (o.stdin) {
      const s = session.openStream({ streamType: 'stdin' });
      if (io.stdin) {
        io.stdin.pipe(s);
        io.stdin.on('error', () => s.end());
      } else s.end();
      s.resume(); // the runtime never writes on stdin; drain its FIN
    }
    if (o.stdout) {
      const s = session.openStream({ streamType: 'stdout' });
      if (io.stdout) s.pipe(io.stdout, { end: false });
      else s.resume();
      waits.push(ended(s));
    }
    if (o.stderr && !o.tty) {
      const s = session.openStream({ streamType: 'stderr' });
      if (io.stderr) s.pipe(io.stderr, { end: false });
      else s.resume();
      waits.push(ended(s));
    }
    if (o.tty && protocol !== 'channel.k8s.io' && protocol !== 'v2.channel.k8s.io') {
      const s = session.openStream({ streamType: 'resize' });
      s.resume();
      io.resize.on('resize', (t: TerminalSize) => {
        if (!s.writableEnded) s.write(`${JSON.stringify({ Width: t.width, Height: t.height })}\n`);
      });
    }
    const body = await errBody;
    await Promise.all(waits);
    if (io.signal.aborted) return streamSuccess();
    return statusFromErrorStream(protocol, body);
  } finally {
    io.signal.removeEventListener('abort', onAbort);
    session.close();
  }
}

/** Runs an exec session through the runtime's streaming server at `url`. */
export function criExec(url: string, o: StreamOptions, io: StreamIO): Promise<StreamStatus> {
  return remoteCommand(url, 'exec', o, io);
}

/** Attaches through the runtime's streaming server at `url`. */
export function criAttach(url: string, o: StreamOptions, io: StreamIO): Promise<StreamStatus> {
  return remoteCommand(url, 'attach', o, io);
}

/** A forwarder multiplexing every connection of one client session over one SPDY connection to the runtime. */
export function criPortForwarder(url: string): PortForwarder {
  let session: Promise<SpdySession> | undefined;
  let next = 0;
  let closed = false;
  const connect = (): Promise<SpdySession> => {
    session ??= dialSpdy(url, { protocols: ['portforward.k8s.io'] }).then((r) => {
      if (closed) r.session.close();
      return r.session;
    });
    return session;
  };
  return {
    async forward(port: number, _requestId: string, data: Duplex): Promise<void> {
      const s = await connect();
      const rid = String(next++);
      const headers = { port: String(port), requestID: rid };
      const errS = s.openStream({ ...headers, streamType: 'error' });
      const errBody = readToEnd(errS);
      errS.end();
      const dataS = s.openStream({ ...headers, streamType: 'data' });
      const fromPod = ended(dataS);
      data.pipe(dataS);
      dataS.pipe(data);
      const abort = (): void => {
        if (!dataS.destroyed) dataS.reset();
      };
      data.once('close', abort);
      data.once('error', abort);
      const msg = (await errBody).toString('utf8').trim();
      await fromPod;
      data.off('close', abort);
      data.off('error', abort);
      if (msg) throw new Error(msg);
    },
    close(): void {
      closed = true;
      void session?.then((s) => s.close()).catch(() => undefined);
    },
  };
}

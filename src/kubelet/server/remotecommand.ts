/**
 * The client side of exec/attach on the kubelet: a WebSocket speaking one of the
 * channel protocols (v5/v4/v1, binary or base64), or a SPDY/3.1 connection (the
 * fallback kubectl tries when a WebSocket upgrade is refused), bridged to a
 * {@link RemoteCommandRunner}.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/cri/streaming/remotecommand/websocket.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/cri/streaming/remotecommand/httpstream.go
 */
import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import {
  Channel,
  decodeChannelMessage,
  encodeChannelMessage,
  encodeStatus,
  parseTerminalSize,
  streamInternalError,
  type ChannelProtocol,
  type StreamStatus,
} from '../../streaming/channel.js';
import type { SpdySession, SpdyStream } from '../../streaming/spdy/session.js';
import type { RemoteCommandRunner, StreamIO, StreamOptions } from './streams.js';

async function runSafely(run: RemoteCommandRunner, io: StreamIO): Promise<StreamStatus> {
  try {
    return await run(io);
  } catch (e) {
    return streamInternalError(e instanceof Error ? e.message : String(e));
  }
}

/** Ends `w` (unless the runner did) and resolves once every chunk written to it has been handed on. */
function flushed(w: Writable): Promise<void> {
  return new Promise((resolve) => {
    if (w.writableFinished || w.destroyed) return resolve();
    w.once('finish', () => resolve());
    w.once('error', () => resolve());
    w.once('close', () => resolve());
    if (!w.writableEnded) w.end();
  });
}

/**
 * Serves one exec/attach over an accepted WebSocket: client frames feed stdin and
 * resize, runner output goes out as stdout/stderr frames, the final status on the
 * error channel, then a normal close (1000).
 */
export async function serveWebSocketRemoteCommand(ws: WebSocket, p: ChannelProtocol, o: StreamOptions, run: RemoteCommandRunner): Promise<void> {
  const ac = new AbortController();
  const send = (channel: number, data: Uint8Array, cb?: (e?: Error) => void): void => {
    if (ws.readyState !== ws.OPEN) return cb?.();
    ws.send(encodeChannelMessage(p, channel, data), cb);
  };
  const writer = (channel: number): Writable =>
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        send(channel, chunk, () => cb());
      },
    });
  const stdin = o.stdin ? new PassThrough() : undefined;
  const resize = new EventEmitter();
  const io: StreamIO = {
    stdin,
    stdinCanEnd: p.closeSignal,
    stdout: o.stdout ? writer(Channel.stdout) : undefined,
    stderr: o.stderr && !o.tty ? writer(Channel.stderr) : undefined,
    tty: o.tty,
    resize,
    signal: ac.signal,
  };
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    let m;
    try {
      m = decodeChannelMessage(p, isBinary ? buf : buf.toString('latin1'));
    } catch {
      ws.close(1002);
      return;
    }
    if (m.kind === 'close') {
      if (m.channel === Channel.stdin) stdin?.end();
    } else if (m.kind === 'data') {
      if (m.channel === Channel.stdin) {
        if (stdin && !stdin.writableEnded) stdin.write(m.data);
      } else if (m.channel === Channel.resize) {
        const t = parseTerminalSize(m.data);
        if (t) resize.emit('resize', t);
      }
    }
  });
  ws.on('close', () => {
    ac.abort();
    stdin?.end();
  });
  ws.on('error', () => ac.abort());
  // an empty message on the lowest writable channel tells the client the session is up
  send(o.stdout ? Channel.stdout : o.stderr && !o.tty ? Channel.stderr : Channel.error, Buffer.alloc(0));
  const status = await runSafely(run, io);
  // output still queued in the writers (each waits for the previous frame's socket write)
  // goes out before the status: the client ends the session when it reads the status
  await Promise.all([io.stdout, io.stderr].map((w) => (w ? flushed(w) : undefined)));
  if (ws.readyState !== ws.OPEN) return;
  const payload = encodeStatus(p, status);
  await new Promise<void>((resolve) => (payload ? send(Channel.error, payload, () => resolve()) : resolve()));
  ws.close(1000);
}

/** Stream types a SPDY remote-command client opens. */
type SpdyStreamType = 'error' | 'stdin' | 'stdout' | 'stderr' | 'resize';

/**
 * Serves one exec/attach over a SPDY session (server role): waits until the client
 * opened every stream its options imply (within `timeoutMs`), runs, writes the
 * status (JSON for v4/v5, a message on failure for older ones) and closes.
 */
export async function serveSpdyRemoteCommand(session: SpdySession, protocol: string, o: StreamOptions, run: RemoteCommandRunner, timeoutMs = 30_000): Promise<void> {
  const want = new Set<SpdyStreamType>(['error']);
  if (o.stdin) want.add('stdin');
  if (o.stdout) want.add('stdout');
  if (o.stderr && !o.tty) want.add('stderr');
  const v1or2 = protocol === 'channel.k8s.io' || protocol === 'v2.channel.k8s.io';
  if (o.tty && !v1or2) want.add('resize');
  const streams = new Map<SpdyStreamType, SpdyStream>();
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    const onStream = (s: SpdyStream): void => {
      const t = (s.headers['streamtype'] ?? '') as SpdyStreamType;
      if (!want.has(t) || streams.has(t)) {
        s.reset();
        return;
      }
      streams.set(t, s);
      if (streams.size === want.size) {
        clearTimeout(timer);
        session.off('stream', onStream);
        resolve(true);
      }
    };
    session.on('stream', onStream);
    session.once('close', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (!ready) {
    session.close();
    return;
  }
  const ac = new AbortController();
  session.once('close', () => ac.abort());
  const resize = new EventEmitter();
  const rs = streams.get('resize');
  if (rs) {
    let pending = '';
    rs.on('data', (c: Buffer) => {
      pending += c.toString('utf8');
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const t = parseTerminalSize(Buffer.from(pending.slice(0, nl)));
        pending = pending.slice(nl + 1);
        if (t) resize.emit('resize', t);
      }
    });
  }
  const io: StreamIO = {
    stdin: streams.get('stdin'),
    stdinCanEnd: true,
    stdout: streams.get('stdout'),
    stderr: streams.get('stderr'),
    tty: o.tty,
    resize,
    signal: ac.signal,
  };
  const status = await runSafely(run, io);
  const errS = streams.get('error')!;
  const v4 = protocol === 'v4.channel.k8s.io' || protocol === 'v5.channel.k8s.io';
  if (v4) errS.write(JSON.stringify(status));
  else if (status.status !== 'Success') errS.write(status.message ?? 'error');
  for (const s of streams.values()) if (!s.writableEnded) s.end();
  await session.flushed();
  session.close();
}

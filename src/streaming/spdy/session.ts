/**
 * A SPDY/3.1 session over any byte transport (a TCP/TLS socket after an HTTP
 * `Upgrade: SPDY/3.1`, or the binary messages of a WebSocket tunnel): multiplexed
 * streams opened with SYN_STREAM and accepted with SYN_REPLY, DATA with FIN for
 * half-close, RST_STREAM, PING echo, GOAWAY.
 *
 * Kubernetes' peers (moby/spdystream in kubectl, the kubelet and containerd) do not
 * implement SPDY flow control, so this session neither enforces send windows nor
 * sends WINDOW_UPDATE; received WINDOW_UPDATE and SETTINGS frames are accepted and
 * ignored. Frames are written strictly in the order they are produced (header
 * compression is asynchronous, so writes go through one queue).
 *
 * @see https://www.chromium.org/spdy/spdy-protocol/spdy-protocol-draft3-1/
 * @see https://github.com/moby/spdystream/blob/main/connection.go
 */
import { EventEmitter } from 'node:events';
import { Duplex } from 'node:stream';
import {
  encodeData,
  encodeGoAway,
  encodePing,
  encodeRstStream,
  encodeSynReply,
  encodeSynStream,
  FLAG_FIN,
  FrameParser,
  FrameType,
  HeaderCompressor,
  HeaderDecompressor,
  RstStatus,
  SPDY_VERSION,
  type RawFrame,
  type SpdyHeaders,
} from './frames.js';

/** Where the session's bytes go. */
export interface SpdyTransport {
  write(data: Buffer): void;
  /** closes the transport (after GOAWAY) */
  end(): void;
}

/** Largest DATA frame this session writes (bigger writes are split). */
const MAX_DATA_CHUNK = 32 * 1024;

/**
 * One SPDY stream as a Node Duplex: the readable side yields the peer's DATA (ending
 * at its FIN), the writable side sends DATA (`end()` sends FIN).
 */
export class SpdyStream extends Duplex {
  /** replies (headers) received for a stream this side opened */
  readonly replied: Promise<SpdyHeaders>;
  private resolveReply!: (h: SpdyHeaders) => void;
  private rejectReply!: (e: Error) => void;
  private localFin = false;
  private remoteFin = false;
  private wasReset = false;
  private replySent = false;

  constructor(
    private readonly session: SpdySession,
    readonly id: number,
    /** SYN_STREAM headers (names lower-cased) */
    readonly headers: SpdyHeaders,
  ) {
    super({ allowHalfOpen: true });
    this.replied = new Promise((res, rej) => {
      this.resolveReply = res;
      this.rejectReply = rej;
    });
    this.replied.catch(() => undefined);
  }

  /** Accepts a stream the peer opened (SYN_REPLY). Idempotent. */
  reply(headers: SpdyHeaders = {}, fin = false): void {
    if (this.replySent || this.wasReset) return;
    this.replySent = true;
    if (fin) this.localFin = true;
    this.session.sendReply(this, headers, fin);
    if (fin) this.maybeDone();
  }

  /** Aborts the stream (RST_STREAM, default CANCEL). */
  reset(status: number = RstStatus.CANCEL): void {
    if (this.wasReset) return;
    this.wasReset = true;
    this.session.sendReset(this.id, status);
    this.onReset(new Error(`stream ${this.id} reset`));
  }

  /** True once this side sent FIN or reset. */
  get localClosed(): boolean {
    return this.localFin || this.wasReset;
  }

  override _read(): void {
    // data is pushed as frames arrive; SPDY peers here do not do flow control
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    if (this.wasReset) return cb(new Error(`write on reset stream ${this.id}`));
    for (let off = 0; off < chunk.length; off += MAX_DATA_CHUNK) {
      this.session.sendData(this.id, chunk.subarray(off, Math.min(chunk.length, off + MAX_DATA_CHUNK)), false);
    }
    cb();
  }

  override _final(cb: (e?: Error | null) => void): void {
    if (!this.localFin && !this.wasReset) {
      this.localFin = true;
      this.session.sendData(this.id, Buffer.alloc(0), true);
    }
    this.maybeDone();
    cb();
  }

  override _destroy(err: Error | null, cb: (e: Error | null) => void): void {
    if (!this.wasReset && (!this.localFin || !this.remoteFin) && !this.session.isClosed) {
      this.wasReset = true;
      this.session.sendReset(this.id, RstStatus.CANCEL);
    }
    this.session.forget(this.id);
    cb(err);
  }

  // ------------------------------------------------------------ driven by the session

  /** @internal */ onData(data: Buffer, fin: boolean): void {
    if (this.remoteFin) return;
    if (data.length) this.push(data);
    if (fin) this.onRemoteFin();
  }

  /** @internal */ onRemoteFin(): void {
    if (this.remoteFin) return;
    this.remoteFin = true;
    this.push(null);
    this.maybeDone();
  }

  /** @internal */ onReply(h: SpdyHeaders, fin: boolean): void {
    this.resolveReply(h);
    if (fin) this.onRemoteFin();
  }

  /** @internal */ onReset(err: Error): void {
    this.wasReset = true;
    this.rejectReply(err);
    if (!this.remoteFin) {
      this.remoteFin = true;
      this.push(null);
    }
    this.localFin = true;
    this.session.forget(this.id);
    this.emit('reset', err);
  }

  private maybeDone(): void {
    if (this.localFin && this.remoteFin) this.session.forget(this.id);
  }
}

/** Session role and stream acceptance. */
export interface SpdySessionOptions {
  /** 'client' opens odd stream IDs and pings, 'server' even ones */
  role: 'client' | 'server';
  /** accept incoming streams with an empty SYN_REPLY automatically (default true) */
  autoReply?: boolean;
}

/**
 * A SPDY/3.1 session. Events: `stream` (SpdyStream opened by the peer), `close`
 * (transport gone or GOAWAY handled), `error` (protocol error; the session closes).
 */
export class SpdySession extends EventEmitter {
  private readonly parser = new FrameParser();
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor();
  private readonly streams = new Map<number, SpdyStream>();
  private nextId: number;
  private nextPing: number;
  private readonly pings = new Map<number, () => void>();
  private writeChain: Promise<void> = Promise.resolve();
  private readChain: Promise<void> = Promise.resolve();
  private lastRemoteId = 0;
  private closed = false;
  private goneAway = false;

  constructor(
    private readonly transport: SpdyTransport,
    private readonly opts: SpdySessionOptions,
  ) {
    super();
    this.nextId = opts.role === 'client' ? 1 : 2;
    this.nextPing = opts.role === 'client' ? 1 : 2;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Number of open streams. */
  get streamCount(): number {
    return this.streams.size;
  }

  /** Resolves once every frame received so far is handled and every frame produced so far is written. */
  async flushed(): Promise<void> {
    await this.readChain;
    await this.writeChain;
  }

  /** Feeds bytes received from the transport. */
  receive(chunk: Buffer): void {
    if (this.closed) return;
    let frames: RawFrame[];
    try {
      frames = this.parser.push(chunk);
    } catch (e) {
      this.fail(e);
      return;
    }
    for (const f of frames) {
      this.readChain = this.readChain.then(() => this.handle(f)).catch((e: unknown) => this.fail(e));
    }
  }

  /** The transport closed underneath the session (frames already received are handled first). */
  transportClosed(): void {
    void this.readChain.then(() => this.teardown());
  }

  /**
   * Opens a stream (SYN_STREAM). The peer's SYN_REPLY resolves `stream.replied`.
   * @throws Error when the session is closed or went away
   */
  openStream(headers: SpdyHeaders, o: { fin?: boolean; priority?: number } = {}): SpdyStream {
    if (this.closed || this.goneAway) throw new Error('SPDY session is closed');
    const id = this.nextId;
    this.nextId += 2;
    const s = new SpdyStream(this, id, headers);
    this.streams.set(id, s);
    this.enqueue(async () => encodeSynStream(id, await this.compressor.compress(headers), o.fin ? FLAG_FIN : 0, o.priority ?? 0));
    if (o.fin) s.end();
    return s;
  }

  /** Sends a PING and resolves when it comes back. */
  ping(): Promise<void> {
    const id = this.nextPing;
    this.nextPing += 2;
    return new Promise((resolve) => {
      this.pings.set(id, resolve);
      this.enqueue(() => encodePing(id));
    });
  }

  /** Sends GOAWAY and closes the transport once queued frames are written. */
  close(): void {
    if (this.closed) return;
    if (!this.goneAway) {
      this.goneAway = true;
      this.enqueue(() => encodeGoAway(this.lastRemoteId, 0));
    }
    void this.writeChain.then(() => {
      this.transport.end();
      this.teardown();
    });
  }

  // ------------------------------------------------------------ used by SpdyStream

  /** @internal */ sendData(id: number, data: Buffer, fin: boolean): void {
    const copy = Buffer.from(data);
    this.enqueue(() => encodeData(id, copy, fin));
  }

  /** @internal */ sendReply(s: SpdyStream, headers: SpdyHeaders, fin: boolean): void {
    this.enqueue(async () => encodeSynReply(s.id, await this.compressor.compress(headers), fin ? FLAG_FIN : 0));
  }

  /** @internal */ sendReset(id: number, status: number): void {
    this.enqueue(() => encodeRstStream(id, status));
  }

  /** @internal */ forget(id: number): void {
    if (this.streams.delete(id) && this.streams.size === 0) this.emit('idle');
  }

  // ------------------------------------------------------------ internals

  private enqueue(make: () => Buffer | Promise<Buffer>): void {
    if (this.closed) return;
    this.writeChain = this.writeChain
      .then(async () => {
        if (this.closed) return;
        const frame = await make();
        if (!this.closed) this.transport.write(frame);
      })
      .catch((e: unknown) => this.fail(e));
  }

  private async handle(f: RawFrame): Promise<void> {
    if (this.closed) return;
    if (!f.control) {
      const s = this.streams.get(f.streamId);
      if (!s) return; // stream already gone: drop, as spdystream does
      s.onData(f.data, (f.flags & FLAG_FIN) !== 0);
      return;
    }
    if (f.version !== SPDY_VERSION) {
      this.enqueue(() => encodeRstStream(0, RstStatus.UNSUPPORTED_VERSION));
      throw new Error(`unsupported SPDY version ${f.version}`);
    }
    const p = f.payload;
    switch (f.type) {
      case FrameType.SYN_STREAM: {
        const id = p.readUInt32BE(0) & 0x7fffffff;
        const headers = await this.decompressor.decompress(p.subarray(10));
        if (this.goneAway || id <= this.lastRemoteId || (id & 1) === (this.opts.role === 'client' ? 1 : 0)) {
          this.enqueue(() => encodeRstStream(id, RstStatus.PROTOCOL_ERROR));
          return;
        }
        this.lastRemoteId = id;
        const s = new SpdyStream(this, id, headers);
        this.streams.set(id, s);
        if (this.opts.autoReply !== false) s.reply();
        if (f.flags & FLAG_FIN) s.onRemoteFin();
        this.emit('stream', s);
        return;
      }
      case FrameType.SYN_REPLY:
      case FrameType.HEADERS: {
        const id = p.readUInt32BE(0) & 0x7fffffff;
        const headers = await this.decompressor.decompress(p.subarray(4));
        const s = this.streams.get(id);
        if (!s) return;
        if (f.type === FrameType.SYN_REPLY) s.onReply(headers, (f.flags & FLAG_FIN) !== 0);
        else if (f.flags & FLAG_FIN) s.onRemoteFin();
        return;
      }
      case FrameType.RST_STREAM: {
        const id = p.readUInt32BE(0) & 0x7fffffff;
        const status = p.readUInt32BE(4);
        this.streams.get(id)?.onReset(new Error(`stream ${id} reset by peer (status ${status})`));
        return;
      }
      case FrameType.PING: {
        const id = p.readUInt32BE(0);
        const mine = (id & 1) === (this.opts.role === 'client' ? 1 : 0);
        if (mine) {
          const cb = this.pings.get(id);
          this.pings.delete(id);
          cb?.();
        } else this.enqueue(() => encodePing(id));
        return;
      }
      case FrameType.GOAWAY:
        this.goneAway = true;
        if (this.streams.size === 0) this.close();
        else this.once('idle', () => this.close());
        return;
      default:
        return; // SETTINGS and WINDOW_UPDATE: no flow control (see module doc); unknown control frames are ignored per spec
    }
  }

  private fail(e: unknown): void {
    if (this.closed) return;
    if (this.listenerCount('error')) this.emit('error', e instanceof Error ? e : new Error(String(e)));
    this.transport.end();
    this.teardown();
  }

  private teardown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of [...this.streams.values()]) s.onReset(new Error('SPDY session closed'));
    this.streams.clear();
    for (const cb of this.pings.values()) cb();
    this.pings.clear();
    this.compressor.close();
    this.decompressor.close();
    this.emit('close');
  }
}

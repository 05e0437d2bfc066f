/**
 * SPDY/3.1 framing: the binary layout of control frames (SYN_STREAM, SYN_REPLY,
 * RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE) and DATA frames, an
 * incremental parser that cuts frames out of a byte stream, and the name/value
 * header block with its per-direction zlib context (primed with the SPDY/3
 * dictionary, flushed with Z_SYNC_FLUSH after every block).
 *
 * Layout (all integers big-endian):
 * - control: `1 | version(15) | type(16) | flags(8) | length(24) | payload`
 * - data:    `0 | stream-id(31) | flags(8) | length(24) | payload`
 *
 * @see https://www.chromium.org/spdy/spdy-protocol/spdy-protocol-draft3-1/
 */
import * as zlib from 'node:zlib';
import { SPDY3_DICTIONARY } from './dictionary.js';

/** The protocol version in every control frame. */
export const SPDY_VERSION = 3;

/** Control frame types. */
export const FrameType = {
  SYN_STREAM: 1,
  SYN_REPLY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  HEADERS: 8,
  WINDOW_UPDATE: 9,
} as const;

/** FLAG_FIN (data and control frames). */
export const FLAG_FIN = 0x01;
/** FLAG_UNIDIRECTIONAL (SYN_STREAM). */
export const FLAG_UNIDIRECTIONAL = 0x02;

/** RST_STREAM status codes. */
export const RstStatus = {
  PROTOCOL_ERROR: 1,
  INVALID_STREAM: 2,
  REFUSED_STREAM: 3,
  UNSUPPORTED_VERSION: 4,
  CANCEL: 5,
  INTERNAL_ERROR: 6,
  FLOW_CONTROL_ERROR: 7,
  STREAM_IN_USE: 8,
  STREAM_ALREADY_CLOSED: 9,
  FRAME_TOO_LARGE: 11,
} as const;

/** Largest payload of one frame (24-bit length). */
export const MAX_FRAME_PAYLOAD = 0xffffff;

/** Header names and values; multiple values of one name are joined with NUL on the wire. */
export type SpdyHeaders = Record<string, string>;

/** A frame as cut from the byte stream; header blocks are still compressed. */
export type RawFrame = { control: false; streamId: number; flags: number; data: Buffer } | { control: true; version: number; type: number; flags: number; payload: Buffer };

/**
 * Cuts complete frames out of incoming bytes (frames may span chunks, chunks may
 * hold several frames).
 */
export class FrameParser {
  private buf: Buffer = Buffer.alloc(0);

  /** Appends `chunk` and returns every frame now complete. */
  push(chunk: Buffer): RawFrame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: RawFrame[] = [];
    let off = 0;
    while (this.buf.length - off >= 8) {
      const len = this.buf.readUIntBE(off + 5, 3);
      if (this.buf.length - off < 8 + len) break;
      const first = this.buf.readUInt32BE(off);
      const flags = this.buf[off + 4]!;
      const body = this.buf.subarray(off + 8, off + 8 + len);
      if (first & 0x80000000) {
        out.push({ control: true, version: (first >>> 16) & 0x7fff, type: first & 0xffff, flags, payload: body });
      } else {
        out.push({ control: false, streamId: first & 0x7fffffff, flags, data: body });
      }
      off += 8 + len;
    }
    // keep the unconsumed tail (copy so the consumed chunks can be collected)
    this.buf = off === this.buf.length ? Buffer.alloc(0) : Buffer.from(this.buf.subarray(off));
    return out;
  }

  /** Bytes of an incomplete frame waiting for more input. */
  get pending(): number {
    return this.buf.length;
  }
}

function controlHeader(type: number, flags: number, length: number): Buffer {
  if (length > MAX_FRAME_PAYLOAD) throw new RangeError(`SPDY frame payload of ${length} bytes exceeds ${MAX_FRAME_PAYLOAD}`);
  const h = Buffer.allocUnsafe(8);
  h.writeUInt32BE((0x8000 | SPDY_VERSION) * 0x10000 + type, 0);
  h[4] = flags;
  h.writeUIntBE(length, 5, 3);
  return h;
}

/** A DATA frame (`data` ≤ 16 MiB − 1). */
export function encodeData(streamId: number, data: Uint8Array, fin: boolean): Buffer {
  if (data.byteLength > MAX_FRAME_PAYLOAD) throw new RangeError('SPDY data frame too large');
  const out = Buffer.allocUnsafe(8 + data.byteLength);
  out.writeUInt32BE(streamId & 0x7fffffff, 0);
  out[4] = fin ? FLAG_FIN : 0;
  out.writeUIntBE(data.byteLength, 5, 3);
  out.set(data, 8);
  return out;
}

/** SYN_STREAM with an already compressed header block. */
export function encodeSynStream(streamId: number, block: Buffer, flags: number, priority = 0, associatedTo = 0): Buffer {
  const body = Buffer.allocUnsafe(10);
  body.writeUInt32BE(streamId & 0x7fffffff, 0);
  body.writeUInt32BE(associatedTo & 0x7fffffff, 4);
  body[8] = (priority & 0x7) << 5;
  body[9] = 0; // credential slot
  return Buffer.concat([controlHeader(FrameType.SYN_STREAM, flags, 10 + block.length), body, block]);
}

/** SYN_REPLY (or HEADERS, same layout) with an already compressed header block. */
export function encodeSynReply(streamId: number, block: Buffer, flags: number, type: number = FrameType.SYN_REPLY): Buffer {
  const id = Buffer.allocUnsafe(4);
  id.writeUInt32BE(streamId & 0x7fffffff, 0);
  return Buffer.concat([controlHeader(type, flags, 4 + block.length), id, block]);
}

/** RST_STREAM aborting `streamId` with a {@link RstStatus}. */
export function encodeRstStream(streamId: number, status: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32BE(streamId & 0x7fffffff, 0);
  b.writeUInt32BE(status >>> 0, 4);
  return Buffer.concat([controlHeader(FrameType.RST_STREAM, 0, 8), b]);
}

/** PING (odd IDs from clients, even from servers; echoed unchanged). */
export function encodePing(id: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(id >>> 0, 0);
  return Buffer.concat([controlHeader(FrameType.PING, 0, 4), b]);
}

/** GOAWAY: no new streams after `lastGoodStreamId`. */
export function encodeGoAway(lastGoodStreamId: number, status = 0): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32BE(lastGoodStreamId & 0x7fffffff, 0);
  b.writeUInt32BE(status >>> 0, 4);
  return Buffer.concat([controlHeader(FrameType.GOAWAY, 0, 8), b]);
}

/** WINDOW_UPDATE (`streamId` 0 = the session window); `delta` in bytes. */
export function encodeWindowUpdate(streamId: number, delta: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32BE(streamId & 0x7fffffff, 0);
  b.writeUInt32BE(delta & 0x7fffffff, 4);
  return Buffer.concat([controlHeader(FrameType.WINDOW_UPDATE, 0, 8), b]);
}

/** SETTINGS with (id, value) pairs, no flags. */
export function encodeSettings(entries: [id: number, value: number][]): Buffer {
  const b = Buffer.allocUnsafe(4 + entries.length * 8);
  b.writeUInt32BE(entries.length, 0);
  entries.forEach(([id, value], i) => {
    b.writeUInt32BE(id & 0xffffff, 4 + i * 8);
    b.writeUInt32BE(value >>> 0, 8 + i * 8);
  });
  return Buffer.concat([controlHeader(FrameType.SETTINGS, 0, b.length), b]);
}

/** Serialises a name/value block (uncompressed): names lower-cased, as SPDY requires. */
export function serializeHeaders(h: SpdyHeaders): Buffer {
  const entries = Object.entries(h);
  const parts: Buffer[] = [];
  const n = Buffer.allocUnsafe(4);
  n.writeUInt32BE(entries.length, 0);
  parts.push(n);
  for (const [k, v] of entries) {
    const name = Buffer.from(k.toLowerCase(), 'utf8');
    const value = Buffer.from(v, 'utf8');
    const l1 = Buffer.allocUnsafe(4);
    l1.writeUInt32BE(name.length, 0);
    const l2 = Buffer.allocUnsafe(4);
    l2.writeUInt32BE(value.length, 0);
    parts.push(l1, name, l2, value);
  }
  return Buffer.concat(parts);
}

/**
 * Parses an uncompressed name/value block. Names are lower-cased keys; repeated
 * names (not allowed by SPDY/3) keep the last value.
 * @throws Error on a truncated block
 */
export function parseHeaders(b: Buffer): SpdyHeaders {
  const out: SpdyHeaders = {};
  if (b.length < 4) throw new Error('SPDY header block too short');
  const n = b.readUInt32BE(0);
  let off = 4;
  for (let i = 0; i < n; i++) {
    if (off + 4 > b.length) throw new Error('SPDY header block truncated');
    const nl = b.readUInt32BE(off);
    off += 4;
    if (off + nl + 4 > b.length) throw new Error('SPDY header block truncated');
    const name = b.toString('utf8', off, off + nl);
    off += nl;
    const vl = b.readUInt32BE(off);
    off += 4;
    if (off + vl > b.length) throw new Error('SPDY header block truncated');
    out[name.toLowerCase()] = b.toString('utf8', off, off + vl);
    off += vl;
  }
  return out;
}

/** Runs one chunk through a persistent zlib stream and returns what a Z_SYNC_FLUSH yields. */
function flushThrough(z: zlib.Deflate | zlib.Inflate, input: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (c: Buffer): void => {
      chunks.push(c);
    };
    const onError = (e: Error): void => {
      z.off('data', onData);
      reject(e);
    };
    z.on('data', onData);
    z.once('error', onError);
    z.write(input);
    z.flush(zlib.constants.Z_SYNC_FLUSH, () => {
      z.off('data', onData);
      z.off('error', onError);
      resolve(Buffer.concat(chunks));
    });
  });
}

/**
 * The compression context of one direction of a connection: header blocks are
 * compressed as one continuous zlib stream. Calls must be serialised by the caller
 * (they are: the session writes frames in order).
 */
export class HeaderCompressor {
  private readonly z = zlib.createDeflate({ dictionary: SPDY3_DICTIONARY, level: zlib.constants.Z_BEST_COMPRESSION });

  /** The compressed block of `h`. */
  compress(h: SpdyHeaders): Promise<Buffer> {
    return flushThrough(this.z, serializeHeaders(h));
  }

  close(): void {
    this.z.close();
  }
}

/** The decompression context of the other direction. */
export class HeaderDecompressor {
  private readonly z = zlib.createInflate({ dictionary: SPDY3_DICTIONARY });

  /** @throws Error when the block does not inflate or parse */
  async decompress(block: Buffer): Promise<SpdyHeaders> {
    if (block.length === 0) return {};
    return parseHeaders(await flushThrough(this.z, block));
  }

  close(): void {
    this.z.close();
  }
}

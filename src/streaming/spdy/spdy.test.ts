import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as zlib from 'node:zlib';
import { SPDY3_DICTIONARY } from './dictionary.js';
import { encodeData, encodePing, encodeSynStream, FLAG_FIN, FrameParser, FrameType, HeaderCompressor, HeaderDecompressor, parseHeaders, serializeHeaders } from './frames.js';
import { SpdySession, type SpdyStream } from './session.js';

/** Two sessions wired back to back (bytes delivered asynchronously, in order). */
function pair(): { client: SpdySession; server: SpdySession; wire: Buffer[] } {
  const wire: Buffer[] = [];
  let client!: SpdySession;
  let server!: SpdySession;
  client = new SpdySession(
    {
      write: (b) => {
        wire.push(b);
        setImmediate(() => server.receive(b));
      },
      end: () => setImmediate(() => server.transportClosed()),
    },
    { role: 'client' },
  );
  server = new SpdySession({ write: (b) => setImmediate(() => client.receive(b)), end: () => setImmediate(() => client.transportClosed()) }, { role: 'server' });
  return { client, server, wire };
}

function readAll(s: SpdyStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('end', () => resolve(Buffer.concat(chunks).toString()));
    s.on('error', reject);
  });
}

describe('SPDY/3.1', () => {
  it('builds the canonical 1423-byte dictionary', () => {
    assert.equal(SPDY3_DICTIONARY.length, 1423);
    assert.equal(createHash('sha256').update(SPDY3_DICTIONARY).digest('hex'), '51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02');
    assert.deepEqual([...SPDY3_DICTIONARY.subarray(0, 11)], [0, 0, 0, 7, ...Buffer.from('options')]);
    assert.equal(SPDY3_DICTIONARY.subarray(-6).toString(), 'enq=0.');
  });

  it('serialises header blocks with lower-cased names', () => {
    const b = serializeHeaders({ streamType: 'error', port: '80' });
    assert.deepEqual(parseHeaders(b), { streamtype: 'error', port: '80' });
    assert.equal(b.readUInt32BE(0), 2);
    assert.throws(() => parseHeaders(b.subarray(0, 10)), /truncated/);
  });

  it('compresses header blocks as one continuous zlib stream with the dictionary', async () => {
    const c = new HeaderCompressor();
    const d = new HeaderDecompressor();
    const b1 = await c.compress({ streamtype: 'error', requestid: '0' });
    const b2 = await c.compress({ streamtype: 'data', requestid: '0' });
    // the first block carries a zlib header with FDICT set and the dictionary's adler32
    assert.equal(b1[0], 0x78);
    assert.equal(b1[1]! & 0x20, 0x20);
    assert.equal(b1.readUInt32BE(2), adler32(SPDY3_DICTIONARY));
    // Z_SYNC_FLUSH ends each block with 00 00 ff ff
    assert.deepEqual([...b1.subarray(-4)], [0, 0, 0xff, 0xff]);
    assert.deepEqual(await d.decompress(b1), { streamtype: 'error', requestid: '0' });
    assert.deepEqual(await d.decompress(b2), { streamtype: 'data', requestid: '0' });
    // the second block is not decodable on its own: state carries over between blocks
    assert.throws(() => zlib.inflateSync(b2, { dictionary: SPDY3_DICTIONARY }));
    c.close();
    d.close();
  });

  it('cuts frames across chunk boundaries', () => {
    const p = new FrameParser();
    const bytes = Buffer.concat([encodeData(1, Buffer.from('hello'), false), encodePing(7), encodeData(3, Buffer.alloc(0), true)]);
    const frames = [...p.push(bytes.subarray(0, 5)), ...p.push(bytes.subarray(5, 20)), ...p.push(bytes.subarray(20))];
    assert.equal(frames.length, 3);
    assert.deepEqual(frames[0], { control: false, streamId: 1, flags: 0, data: Buffer.from('hello') });
    assert.equal(frames[1]!.control && frames[1]!.type, FrameType.PING);
    assert.deepEqual(frames[2], { control: false, streamId: 3, flags: FLAG_FIN, data: Buffer.alloc(0) });
    assert.equal(p.pending, 0);
  });

  it('opens streams, exchanges data with half-close, and replies automatically', async () => {
    const { client, server, wire } = pair();
    const got = new Promise<{ headers: Record<string, string>; body: string; s: SpdyStream }>((resolve) => {
      server.on('stream', (s: SpdyStream) => void readAll(s).then((body) => resolve({ headers: s.headers, body, s })));
    });
    const cs = client.openStream({ streamType: 'data', port: '80', requestID: '0' });
    cs.end('ping me');
    const { headers, body, s } = await got;
    assert.deepEqual(headers, { streamtype: 'data', port: '80', requestid: '0' });
    assert.equal(body, 'ping me');
    assert.deepEqual(await cs.replied, {});
    const back = readAll(cs);
    s.end('pong');
    assert.equal(await back, 'pong');
    // first frame on the wire is a SYN_STREAM for stream 1 of version 3
    assert.equal(wire[0]!.readUInt16BE(0), 0x8003);
    assert.equal(wire[0]!.readUInt16BE(2), FrameType.SYN_STREAM);
    assert.equal(wire[0]!.readUInt32BE(8), 1);
    assert.equal(client.streamCount, 0);
  });

  it('answers pings and propagates resets', async () => {
    const { client, server } = pair();
    await client.ping();
    const reset = new Promise<void>((resolve) => server.on('stream', (s: SpdyStream) => s.on('reset', () => resolve())));
    const cs = client.openStream({ streamtype: 'error' });
    await cs.replied;
    cs.reset();
    await reset;
  });

  it('closes streams when the transport goes away', async () => {
    const { client, server } = pair();
    const cs = client.openStream({ streamtype: 'stdout' });
    await cs.replied;
    const ended = readAll(cs);
    server.close();
    assert.equal(await ended, '');
    await new Promise((r) => setImmediate(r));
    assert.equal(client.isClosed, true);
  });

  it('rejects SYN_STREAMs with the wrong parity', async () => {
    const frames: Buffer[] = [];
    const s = new SpdySession({ write: (b) => frames.push(b), end: () => undefined }, { role: 'server' });
    let opened = false;
    s.on('stream', () => (opened = true));
    const c = new HeaderCompressor();
    s.receive(encodeSynStream(2, await c.compress({}), 0));
    await s.flushed();
    assert.equal(opened, false);
    assert.equal(frames[0]!.readUInt16BE(2), FrameType.RST_STREAM);
    c.close();
  });
});

function adler32(b: Buffer): number {
  let a = 1;
  let s = 0;
  for (const x of b) {
    a = (a + x) % 65521;
    s = (s + a) % 65521;
  }
  return ((s << 16) | a) >>> 0;
}

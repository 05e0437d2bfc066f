import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  Channel,
  decodeChannelMessage,
  encodeChannelMessage,
  encodeStatus,
  exitCodeOf,
  negotiateChannelProtocol,
  parseSubprotocols,
  parseTerminalSize,
  streamExitCode,
  streamSuccess,
  ProtocolV1,
  ProtocolV4Base64,
  ProtocolV5,
} from './channel.js';

describe('channel protocols', () => {
  it('negotiates in the client preference order and refuses unknown offers', () => {
    assert.equal(negotiateChannelProtocol(['v5.channel.k8s.io', 'v4.channel.k8s.io'])?.name, ProtocolV5);
    assert.equal(negotiateChannelProtocol(['x.k8s.io', 'v4.base64.channel.k8s.io', 'v5.channel.k8s.io'])?.name, ProtocolV4Base64);
    assert.equal(negotiateChannelProtocol(['SPDY/3.1+portforward.k8s.io']), undefined);
    const none = negotiateChannelProtocol([]);
    assert.equal(none?.name, '');
    assert.equal(none?.statusJSON, false);
    assert.deepEqual(parseSubprotocols('v5.channel.k8s.io, v4.channel.k8s.io'), ['v5.channel.k8s.io', 'v4.channel.k8s.io']);
  });

  it('frames binary messages with the channel byte', () => {
    const p = negotiateChannelProtocol([ProtocolV5])!;
    const m = encodeChannelMessage(p, Channel.stdout, Buffer.from('hi\n'));
    assert.deepEqual([...(m as Buffer)], [1, 104, 105, 10]);
    assert.deepEqual(decodeChannelMessage(p, Buffer.from([0, 102, 111, 111])), { kind: 'data', channel: 0, data: Buffer.from('foo') });
    assert.deepEqual(decodeChannelMessage(p, Buffer.alloc(0)), { kind: 'empty' });
  });

  it('decodes the v5 close signal only on v5', () => {
    const v5 = negotiateChannelProtocol([ProtocolV5])!;
    assert.deepEqual(decodeChannelMessage(v5, Buffer.from([255, 0])), { kind: 'close', channel: 0 });
    assert.throws(() => decodeChannelMessage(v5, Buffer.from([255, 0, 1])), /single channel byte/);
    const v1 = negotiateChannelProtocol([ProtocolV1])!;
    assert.deepEqual(decodeChannelMessage(v1, Buffer.from([255, 0])), { kind: 'data', channel: 255, data: Buffer.from([0]) });
  });

  it('base64 variants use an ASCII channel digit and base64 payloads', () => {
    const p = negotiateChannelProtocol([ProtocolV4Base64])!;
    assert.equal(encodeChannelMessage(p, Channel.stdout, Buffer.from('\n')), '1Cg==');
    // upstream's example: "foo\n" on stdin
    assert.deepEqual(decodeChannelMessage(p, '0Zm9vCg=='), { kind: 'data', channel: 0, data: Buffer.from('foo\n') });
    assert.throws(() => decodeChannelMessage(p, '0not base64!'), /base64/);
  });

  it('encodes status per version: JSON for v4/v5, message-only for v1', () => {
    const v5 = negotiateChannelProtocol([ProtocolV5])!;
    const v1 = negotiateChannelProtocol([ProtocolV1])!;
    assert.equal(encodeStatus(v5, streamSuccess())!.toString(), '{"metadata":{},"status":"Success"}');
    const fail = streamExitCode(3);
    const json = JSON.parse(encodeStatus(v5, fail)!.toString());
    assert.equal(json.reason, 'NonZeroExitCode');
    assert.deepEqual(json.details.causes, [{ reason: 'ExitCode', message: '3' }]);
    assert.equal(exitCodeOf(json), 3);
    assert.equal(exitCodeOf(streamSuccess()), 0);
    assert.equal(encodeStatus(v1, streamSuccess()), undefined);
    assert.match(encodeStatus(v1, fail)!.toString(), /non-zero exit code/);
  });

  it('parses resize messages', () => {
    assert.deepEqual(parseTerminalSize(Buffer.from('{"Width":80,"Height":24}')), { width: 80, height: 24 });
    assert.equal(parseTerminalSize(Buffer.from('{"Width":"x"}')), undefined);
    assert.equal(parseTerminalSize(Buffer.from('nope')), undefined);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { Channel, ProtocolV5, decodeChannelMessage, type ChannelProtocol } from '../../streaming/channel.js';
import { serveWebSocketRemoteCommand } from './remotecommand.js';

const V5: ChannelProtocol = { name: ProtocolV5, base64: false, statusJSON: true, closeSignal: true };

/** A WebSocket stand-in whose socket writes complete one at a time, a turn later (a busy or slow socket). */
function slowSocket(): { ws: WebSocket; frames: { channel: number; text: string }[]; closed: Promise<number> } {
  const e = new EventEmitter() as EventEmitter & Record<string, unknown>;
  const frames: { channel: number; text: string }[] = [];
  let close!: (code: number) => void;
  const closed = new Promise<number>((r) => (close = r));
  Object.assign(e, {
    OPEN: 1,
    readyState: 1,
    send(msg: Buffer, cb?: () => void) {
      const m = decodeChannelMessage(V5, msg);
      if (m.kind === 'data') frames.push({ channel: m.channel, text: Buffer.from(m.data).toString() });
      setImmediate(() => cb?.());
    },
    close(code: number) {
      e.readyState = 3;
      close(code);
    },
  });
  return { ws: e as unknown as WebSocket, frames, closed };
}

describe('WebSocket remote command', () => {
  it('sends every output chunk before the status, even when the runner returns while its chunks still wait for the socket', async () => {
    const { ws, frames, closed } = slowSocket();
    await serveWebSocketRemoteCommand(ws, V5, { stdin: false, stdout: true, stderr: true, tty: false }, async (io) => {
      for (const part of ['# Kubernetes-managed hosts file.\n', '127.0.0.1\tlocalhost\n', '10.42.0.7\tbox\n']) io.stdout!.write(part);
      io.stderr!.write('warning\n');
      return { metadata: {}, status: 'Success' };
    });
    assert.equal(await closed, 1000);
    const status = frames.findIndex((f) => f.channel === Channel.error);
    assert.ok(status >= 0, 'a status frame');
    assert.equal(status, frames.length - 1, `the status is the last frame: ${JSON.stringify(frames)}`);
    const out = frames
      .filter((f) => f.channel === Channel.stdout)
      .map((f) => f.text)
      .join('');
    assert.equal(out, '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n10.42.0.7\tbox\n');
    assert.equal(
      frames
        .filter((f) => f.channel === Channel.stderr)
        .map((f) => f.text)
        .join(''),
      'warning\n',
    );
    assert.deepEqual(JSON.parse(frames[status]!.text), { metadata: {}, status: 'Success' });
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Duplex } from 'node:stream';
import { splice } from './splice.js';

/** A socket stand-in: `received` collects what is written to it, each write completing a turn later (a slow peer). */
function slowSocket(): Duplex & { received: Buffer[] } {
  const received: Buffer[] = [];
  const s = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, cb) {
      setImmediate(() => {
        received.push(chunk);
        cb();
      });
    },
  });
  return Object.assign(s, { received });
}

describe('splice', () => {
  it('writes out what is still queued for one side when the other closes right after its last bytes', async () => {
    const kubelet = slowSocket();
    const client = slowSocket();
    splice(kubelet, client);
    const parts = Array.from({ length: 50 }, (_, i) => Buffer.from(`frame ${i}\n`));
    for (const p of parts) kubelet.push(p);
    kubelet.push(null);
    // the kubelet's connection is gone at once, while most frames still wait for the client
    await new Promise((r) => setImmediate(r));
    kubelet.destroy();
    // finished (everything written) or closed (destroyed: what was queued is lost)
    await new Promise((r) => {
      client.once('finish', r);
      client.once('close', r);
    });
    assert.equal(Buffer.concat(client.received).toString(), Buffer.concat(parts).toString());
  });

  it('tears both sides down when one fails', async () => {
    const kubelet = slowSocket();
    const client = slowSocket();
    splice(kubelet, client);
    const closed = new Promise((r) => client.once('close', r));
    kubelet.destroy(new Error('ECONNRESET'));
    await closed;
    assert.ok(client.destroyed);
  });

  it('destroys a side whose peer never closes once the grace period is over', async () => {
    const kubelet = slowSocket();
    const client = slowSocket();
    splice(kubelet, client, 20);
    const alive = setTimeout(() => undefined, 5000); // the grace timer itself keeps no process alive
    kubelet.destroy();
    await new Promise((r) => client.once('close', r));
    clearTimeout(alive);
    assert.ok(client.destroyed);
  });
});

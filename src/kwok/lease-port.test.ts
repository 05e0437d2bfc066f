import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { isNotFound, newNotFound } from '../apimachinery/errors.js';
import { portLeaseRenewer, serveLeaseRenewer } from './lease-port.js';
import type { LeaseRenewer } from './lease-renewer.js';

describe('kwok lease renewals across threads (lease-port)', () => {
  it("one turn's renewals reach the server's renewer as one batch, in one turn; NotFound and failures come back per lease", async () => {
    const { port1, port2 } = new MessageChannel();
    const turns: string[][] = [];
    let current: string[] | undefined;
    const server: LeaseRenewer = {
      renew(name, renewTime, now, duration) {
        if (!current) {
          current = [];
          turns.push(current);
          queueMicrotask(() => (current = undefined));
        }
        current.push(`${name}@${renewTime}/${now.toISOString()}/${duration}`);
        if (name === 'gone') return Promise.reject(newNotFound({ group: 'coordination.k8s.io', resource: 'leases' }, name));
        if (name === 'broken') return Promise.reject(new Error('disk full'));
        return Promise.resolve();
      },
    };
    serveLeaseRenewer(port1, server);
    const pool = portLeaseRenewer(port2);
    const now = new Date('2026-12-01T10:00:00.000Z');
    const t = '2026-12-01T10:00:00.000000Z';
    const rs = await Promise.allSettled([
      pool.renew('kwok-node-0', t, now, 40),
      pool.renew('gone', t, now, 40),
      pool.renew('broken', t, now, 40),
      pool.renew('kwok-node-1', t, now, 40),
    ]);
    assert.deepEqual(turns, [
      [
        `kwok-node-0@${t}/2026-12-01T10:00:00.000Z/40`,
        `gone@${t}/2026-12-01T10:00:00.000Z/40`,
        `broken@${t}/2026-12-01T10:00:00.000Z/40`,
        `kwok-node-1@${t}/2026-12-01T10:00:00.000Z/40`,
      ],
    ]);
    assert.equal(rs[0]!.status, 'fulfilled');
    assert.equal(rs[3]!.status, 'fulfilled');
    assert.ok(rs[1]!.status === 'rejected' && isNotFound(rs[1]!.reason), 'a missing lease is NotFound (the pool creates it again)');
    assert.ok(rs[2]!.status === 'rejected' && !isNotFound(rs[2]!.reason) && /renewal failed/.test(String(rs[2]!.reason)));
    // a later tick (another renewTime) is another batch
    const t2 = '2026-12-01T10:00:01.000000Z';
    await Promise.all([pool.renew('kwok-node-0', t2, now, 40), pool.renew('kwok-node-1', t2, now, 40)]);
    assert.equal(turns.length, 2);
    assert.deepEqual(
      turns[1]!.map((s) => s.split('@')[0]),
      ['kwok-node-0', 'kwok-node-1'],
    );
    port1.close();
    port2.close();
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClient } from '../client/testing/fake-client.js';
import { FakeClock } from '../util/fake-clock.js';
import { NodePool } from './nodes.js';

describe('kwok: node pool registration', () => {
  it("creates each node's Lease right after the node, not after the whole pool is registered", async () => {
    const client = new FakeClient();
    const nodes = [0, 1, 2].map((i) => ({ name: `kwok-node-${i}`, podCIDR: `10.42.${i}.0/24`, ip: `127.1.0.${i + 1}` }));
    const pool = new NodePool({ client, clock: new FakeClock(), nodes, concurrency: 1 });
    await pool.start();
    assert.deepEqual(
      client.writes.map((w) => `${w.verb} ${w.resource} ${w.name}`),
      ['create nodes kwok-node-0', 'create leases kwok-node-0', 'create nodes kwok-node-1', 'create leases kwok-node-1', 'create nodes kwok-node-2', 'create leases kwok-node-2'],
    );
    assert.equal(pool.registered, 3);
    assert.equal(pool.renewals, 3);
    pool.stop();
  });
});

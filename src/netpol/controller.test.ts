/**
 * NetworkPolicyController's sync loop: `flush` settles after a sync that fails or finds
 * nothing to change (both finish without awaiting the applier), and a failed apply is
 * retried with the same filters.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClient } from '../client/testing/fake-client.js';
import { R } from '../client/types.js';
import { NetworkPolicyController, type FilterApplier } from './controller.js';
import type { PodFilter } from './policy.js';

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(new Error(`${what} did not settle in ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(t));
}

describe('NetworkPolicyController', () => {
  it('start settles when the first apply fails synchronously, and the next kick retries it', async () => {
    const client = new FakeClient();
    let calls = 0;
    const applied: PodFilter[][] = [];
    const applier: FilterApplier = {
      apply(filters) {
        calls++;
        if (calls === 1) throw new Error('iptables-restore: not found');
        applied.push(filters);
        return Promise.resolve();
      },
    };
    const errors: string[] = [];
    const c = new NetworkPolicyController({ client, nodeName: 'n1', applier, debounceMs: 5, log: (m) => errors.push(m) });
    try {
      await within(c.start(), 5000, 'start');
      assert.deepEqual(errors, ['network policy: sync failed']);
      // a change retries (the failed sync reset what was applied)
      await client.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
      while (applied.length === 0) await new Promise((r) => setTimeout(r, 5));
      await within(c.flush(), 5000, 'flush');
      assert.deepEqual(applied.at(-1), []);
    } finally {
      c.stop();
    }
  });

  it('flush settles when a sync finds the filters unchanged', async () => {
    const client = new FakeClient();
    let calls = 0;
    const c = new NetworkPolicyController({ client, nodeName: 'n1', applier: { apply: async () => void calls++ }, debounceMs: 5 });
    try {
      await within(c.start(), 5000, 'start');
      assert.equal(calls, 1);
      await client.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'quiet' } });
      await within(c.flush(), 5000, 'flush');
      assert.equal(calls, 1, 'no policy selects anything: nothing new to apply');
    } finally {
      c.stop();
    }
  });
});

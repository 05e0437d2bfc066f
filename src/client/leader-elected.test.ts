import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../api/resource.js';
import { FakeClock } from '../util/fake-clock.js';
import { runLeaderElected } from './leader-elected.js';
import { FakeClient } from './testing/fake-client.js';
import { R, type Client } from './types.js';

/** A client whose Lease reads and writes fail while `down.value` is set (the API server unreachable). */
function flaky(base: FakeClient, down: { value: boolean }): Client {
  const fail = () => Promise.reject(new Error('connection refused'));
  return Object.assign(Object.create(base) as FakeClient, {
    get: (...a: Parameters<FakeClient['get']>) => (down.value ? fail() : base.get(...a)),
    update: (...a: Parameters<FakeClient['update']>) => (down.value ? fail() : base.update(...a)),
    create: (...a: Parameters<FakeClient['create']>) => (down.value ? fail() : base.create(...a)),
  });
}

function candidate(client: Client, identity: string, clock: FakeClock, log: string[]) {
  return runLeaderElected({
    election: { client, namespace: 'kube-system', name: 'kube-controller-manager', identity, clock },
    start: async () => {
      log.push(`${identity} start`);
      return { stop: async () => void log.push(`${identity} stop`) };
    },
    onLost: () => log.push(`${identity} lost`),
  });
}

describe('runLeaderElected', () => {
  it('starts the component at the first attempt on an absent Lease; a second candidate only waits', async () => {
    const client = new FakeClient();
    const clock = new FakeClock();
    const log: string[] = [];
    const a = candidate(client, 'a', clock, log);
    await a.firstAttempt;
    assert.equal(a.isLeader(), true);
    assert.deepEqual(log, ['a start']);
    const b = candidate(client, 'b', clock, log);
    await b.firstAttempt;
    assert.equal(b.isLeader(), false, 'the first attempt settled without the Lease');
    assert.equal(b.holder(), 'a');
    await clock.advance(60_000);
    assert.equal(b.isLeader(), false, 'a renews: b never runs');
    assert.deepEqual(log, ['a start']);
    await a.stop();
    assert.deepEqual(log, ['a start', 'a stop']);
    assert.equal(client.peek<KObject & { spec: { holderIdentity: string } }>(R.leases, 'kube-system', 'kube-controller-manager')?.spec.holderIdentity, '', 'released');
    assert.ok(await clock.advanceUntil(() => b.isLeader(), 3_000), 'a released Lease is taken at the next retry');
    await b.stop();
    assert.deepEqual(log, ['a start', 'a stop', 'b start', 'b stop']);
  });

  it('stops the component when renewals fail for the renew deadline, and starts it again once the Lease is back', async () => {
    const base = new FakeClient();
    const clock = new FakeClock();
    const down = { value: false };
    const log: string[] = [];
    const a = candidate(flaky(base, down), 'a', clock, log);
    await a.firstAttempt;
    assert.equal(a.isLeader(), true);
    down.value = true;
    await clock.advance(9_000);
    assert.equal(a.isLeader(), true, 'still within the renew deadline (10 s)');
    assert.ok(await clock.advanceUntil(() => !a.isLeader(), 2_100));
    assert.deepEqual(log, ['a start', 'a stop', 'a lost'], 'stopped as soon as the deadline passed');
    down.value = false;
    // its own record is not another holder's: it takes it again at the next attempt
    assert.ok(await clock.advanceUntil(() => a.isLeader(), 3_000));
    assert.deepEqual(log, ['a start', 'a stop', 'a lost', 'a start']);
    await a.stop();
  });

  it('a standby takes over from a holder that stopped renewing and starts its component', async () => {
    const client = new FakeClient();
    const clock = new FakeClock();
    const down = { value: false };
    const log: string[] = [];
    const a = candidate(flaky(client, down), 'a', clock, log);
    await a.firstAttempt;
    const b = candidate(client, 'b', clock, log);
    await b.firstAttempt;
    await clock.advance(4_000);
    down.value = true; // a is cut off: it stops after 10 s, b takes over after 15 s
    const cut = clock.now();
    assert.ok(await clock.advanceUntil(() => b.isLeader(), 20_000));
    // client-go counts the lease duration from when b OBSERVED a's last renewal (its next
    // poll, ≤ retryPeriod × 1.2 later), then takes it at its next poll after expiry (≤ 2.4 s more)
    assert.ok(clock.now() - cut <= 15_000 + 2 * 2_400, `b leads ${clock.now() - cut} ms after a's last renewal`);
    assert.deepEqual(log, ['a start', 'a stop', 'a lost', 'b start'], 'a stopped before b started');
    await b.stop();
    await a.stop();
  });

  it('inconsistent timings throw to the caller (client-go), before any campaign', () => {
    const client = new FakeClient();
    assert.throws(
      () =>
        runLeaderElected({
          election: { client, namespace: 'kube-system', name: 'kube-scheduler', identity: 'a', retryPeriodMs: 9000 },
          start: async () => ({ stop: async () => undefined }),
        }),
      /renewDeadline must be greater than retryPeriod\*JitterFactor/,
    );
    assert.equal(client.peek(R.leases, 'kube-system', 'kube-scheduler'), undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../api/resource.js';
import { FakeClient } from './testing/fake-client.js';
import { LeaderElector, type LeaderElectionConfig } from './leaderelection.js';
import { R, type Client } from './types.js';
import { FakeClock } from '../util/fake-clock.js';

type Spec = { holderIdentity?: string; leaseDurationSeconds?: number; leaseTransitions?: number; renewTime?: string; acquireTime?: string };
const lease = (c: FakeClient) => c.peek<KObject & { spec: Spec }>(R.leases, 'kube-system', 'kube-scheduler')?.spec;

function elector(client: Client, identity: string, clock: { t: number }, over: Partial<LeaderElectionConfig> = {}) {
  const log: string[] = [];
  const e = new LeaderElector({
    client,
    namespace: 'kube-system',
    name: 'kube-scheduler',
    identity,
    now: () => clock.t,
    // time passes only when a candidate waits
    sleep: async (ms) => {
      clock.t += ms;
      await new Promise((r) => setImmediate(r));
    },
    onStartedLeading: () => log.push('started'),
    onStoppedLeading: () => log.push('stopped'),
    onNewLeader: (id) => log.push(`leader ${id}`),
    ...over,
  });
  return { e, log };
}

describe('LeaderElector (Lease)', () => {
  it('acquires a missing Lease, renews it, and releases it on stop', async () => {
    const client = new FakeClient();
    const clock = { t: Date.parse('2025-01-01T00:00:00Z') };
    const { e, log } = elector(client, 'a', clock);
    const done = e.run();
    for (let i = 0; i < 50 && !e.isLeader(); i++) await new Promise((r) => setImmediate(r));
    assert.equal(e.isLeader(), true);
    assert.deepEqual(
      { ...lease(client), renewTime: undefined },
      {
        holderIdentity: 'a',
        leaseDurationSeconds: 15,
        acquireTime: '2025-01-01T00:00:00.000000Z',
        renewTime: undefined,
        leaseTransitions: 0,
      },
    );
    await e.stop();
    await done;
    assert.equal(lease(client)?.holderIdentity, '');
    assert.equal(lease(client)?.leaseDurationSeconds, 1);
    assert.deepEqual(log, ['leader a', 'started', 'stopped']);
  });

  it('a second candidate waits until the holder has not renewed for leaseDuration (local observation)', async () => {
    const client = new FakeClient();
    const clock = { t: 0 };
    const a = elector(client, 'a', clock).e;
    const b = elector(client, 'b', clock).e;
    assert.equal(await a.tryAcquireOrRenew(), true);
    assert.equal(await b.tryAcquireOrRenew(), false);
    clock.t = 10_000;
    assert.equal(await b.tryAcquireOrRenew(), false, 'observed 10 s ago');
    assert.equal(await a.tryAcquireOrRenew(), true, 'renewed');
    clock.t = 12_000;
    assert.equal(await b.tryAcquireOrRenew(), false, 'the renewal restarts the observation');
    clock.t = 26_000;
    assert.equal(await b.tryAcquireOrRenew(), false, '14 s since the renewal was seen');
    clock.t = 27_001;
    assert.equal(await b.tryAcquireOrRenew(), true);
    assert.equal(lease(client)?.holderIdentity, 'b');
    assert.equal(lease(client)?.leaseTransitions, 1);
    assert.equal(await a.tryAcquireOrRenew(), false, 'a lost the Lease');
  });

  it('gives up leadership when renewals fail for renewDeadline', async () => {
    const base = new FakeClient();
    let failing = false;
    const client: Client = Object.assign(Object.create(base) as FakeClient, {
      update: (...a: Parameters<FakeClient['update']>) => (failing ? Promise.reject(new Error('apiserver down')) : base.update(...a)),
    });
    const clock = { t: 0 };
    const { e, log } = elector(client, 'a', clock);
    const done = e.run();
    for (let i = 0; i < 50 && !e.isLeader(); i++) await new Promise((r) => setImmediate(r));
    assert.equal(e.isLeader(), true);
    failing = true;
    await done;
    assert.equal(e.isLeader(), false);
    assert.deepEqual(log.slice(-2), ['started', 'stopped']);
    assert.ok(clock.t >= 10_000, 'kept trying for the renew deadline');
  });

  it('rejects inconsistent durations as client-go', () => {
    const client = new FakeClient();
    assert.throws(() => elector(client, 'a', { t: 0 }, { leaseDurationMs: 5000, renewDeadlineMs: 10000 }), /leaseDuration must be greater than renewDeadline/);
  });

  it("a candidate on a fake clock takes a dead holder's Lease once the record has not changed for leaseDuration, counting the transition; events and MicroTimes as upstream", async () => {
    const client = new FakeClient();
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const events: string[] = [];
    const recorder = {
      event: (obj: KObject, type: string, reason: string, msg: string) => events.push(`${obj.kind} ${obj.metadata?.namespace}/${obj.metadata?.name} ${type} ${reason} ${msg}`),
    };
    let aAlive = true;
    const aClient: Client = Object.assign(Object.create(client) as FakeClient, {
      get: (...x: Parameters<FakeClient['get']>) => (aAlive ? client.get(...x) : new Promise(() => undefined)),
      update: (...x: Parameters<FakeClient['update']>) => (aAlive ? client.update(...x) : new Promise(() => undefined)),
    });
    const a = new LeaderElector({
      client: aClient,
      namespace: 'kube-system',
      name: 'kube-scheduler',
      identity: 'host_a',
      clock,
      recorder,
      onStartedLeading() {},
      onStoppedLeading() {},
    });
    const b = new LeaderElector({ client, namespace: 'kube-system', name: 'kube-scheduler', identity: 'host_b', clock, recorder, onStartedLeading() {}, onStoppedLeading() {} });
    void a.run();
    await clock.advance(0);
    assert.equal(a.isLeader(), true, 'an absent Lease is taken at once, without waiting');
    assert.deepEqual(lease(client), {
      holderIdentity: 'host_a',
      leaseDurationSeconds: 15,
      acquireTime: '2026-01-01T00:00:00.000000Z',
      renewTime: '2026-01-01T00:00:00.000000Z',
      leaseTransitions: 0,
    });
    void b.run();
    await clock.advance(5_000);
    assert.equal(b.isLeader(), false);
    assert.equal(lease(client)?.renewTime, '2026-01-01T00:00:04.000000Z', 'renewed every retry period (2 s)');
    // the holder dies (kill -9): its Lease is no longer renewed
    aAlive = false;
    const died = clock.now();
    const lastRenew = Date.parse(lease(client)!.renewTime!);
    assert.ok(await clock.advanceUntil(() => b.isLeader(), 30_000, 100));
    const took = clock.now() - lastRenew;
    assert.ok(took >= 15_000 && took <= 15_000 + 2_400 + 2_100, `taken ${took} ms after the last renewal (lease 15 s + up to one jittered retry period + the observation lag)`);
    assert.ok(clock.now() - died <= 15_000 + 2_400, 'within lease duration and one retry period of the death');
    assert.equal(lease(client)?.holderIdentity, 'host_b');
    assert.equal(lease(client)?.leaseTransitions, 1);
    assert.match(lease(client)?.acquireTime ?? '', /^2026-01-01T00:00:\d\d\.\d{6}Z$/);
    assert.deepEqual(events, [
      'Lease kube-system/kube-scheduler Normal LeaderElection host_a became leader',
      'Lease kube-system/kube-scheduler Normal LeaderElection host_b became leader',
    ]);
    await b.stop();
    assert.deepEqual(events.slice(2), ['Lease kube-system/kube-scheduler Normal LeaderElection host_b stopped leading']);
  });

  it('after a release the next holder counts a transition (client-go), the Lease is free at once', async () => {
    const client = new FakeClient();
    const clock = new FakeClock();
    const mk = (id: string) => new LeaderElector({ client, namespace: 'kube-system', name: 'kube-scheduler', identity: id, clock, onStartedLeading() {}, onStoppedLeading() {} });
    const a = mk('a');
    void a.run();
    await clock.advance(0);
    await a.stop();
    assert.equal(lease(client)?.holderIdentity, '');
    const b = mk('b');
    void b.run();
    await clock.advance(0);
    assert.equal(b.isLeader(), true);
    assert.equal(lease(client)?.leaseTransitions, 1);
    await b.stop();
  });
});

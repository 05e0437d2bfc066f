import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import type { EventRecorder, EventType } from '../client/events.js';
import { R } from '../client/types.js';
import { startScheduler } from './index.js';
import { defaultProfile } from './framework/profile.js';
import { Registry } from './framework/registry.js';
import { Code, Status } from './framework/status.js';
import { Scheduler } from './scheduler.js';
import { FakeClient } from '../client/testing/fake-client.js';
import { makeNode, makePod } from './testing/wrappers.js';

interface Rec {
  name: string;
  type: EventType;
  reason: string;
  message: string;
}

class FakeRecorder implements EventRecorder {
  readonly events: Rec[] = [];
  event(obj: KObject, type: EventType, reason: string, message: string): void {
    this.events.push({ name: obj.metadata?.name ?? '', type, reason, message });
  }
}

/** Resolves once `cond` holds, polling between event-loop turns (no timers). */
async function until(cond: () => boolean, what: string, turns = 20000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (cond()) return;
    await new Promise((r) => setImmediate(r));
  }
  assert.fail(`timed out waiting for ${what}`);
}

let now = Date.parse('2025-01-01T00:00:00Z');
const clock = { now: () => now };
const stops: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

async function setup(client: FakeClient): Promise<{ sched: Scheduler; rec: FakeRecorder }> {
  const rec = new FakeRecorder();
  const h = await startScheduler({ client, recorder: rec, clock });
  stops.push(h.stop);
  return { sched: h.scheduler, rec };
}

function scheduledCondition(client: FakeClient, name: string) {
  const p = client.peek<Pod & KObject>(R.pods, 'default', name);
  return p?.status?.conditions?.find((c) => c.type === 'PodScheduled');
}

describe('scheduler with a fake API', () => {
  it('binds a pod through pods/binding and records Scheduled', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('node-1').obj() as KObject);
    const { rec } = await setup(client);
    await client.create(R.pods, 'default', makePod().name('x').req({ cpu: '100m' }).obj() as KObject);
    await until(() => !!client.peek<Pod & KObject>(R.pods, 'default', 'x')?.spec?.nodeName, 'binding');
    const bind = client.writes.find((w) => w.verb === 'binding');
    const uid = client.peek(R.pods, 'default', 'x')!.metadata!.uid;
    assert.deepEqual(bind?.body, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'x', namespace: 'default', uid },
      target: { apiVersion: 'v1', kind: 'Node', name: 'node-1' },
    });
    await until(() => rec.events.some((e) => e.reason === 'Scheduled'), 'Scheduled event');
    assert.deepEqual(
      rec.events.find((e) => e.reason === 'Scheduled'),
      {
        name: 'x',
        type: 'Normal',
        reason: 'Scheduled',
        message: 'Successfully assigned default/x to node-1',
      },
    );
  });

  it('reports upstream FitError and preemption messages, condition and event', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('node-1').taint({ key: 'k', value: 'v', effect: 'NoSchedule' }).obj() as KObject);
    await client.create(R.nodes, '', makeNode().name('node-2').capacity({ cpu: '1', memory: '1Gi', pods: '110' }).obj() as KObject);
    await client.create(R.nodes, '', makeNode().name('node-3').capacity({ cpu: '1', memory: '1Gi', pods: '110' }).obj() as KObject);
    const { rec } = await setup(client);
    await client.create(R.pods, 'default', makePod().name('big').req({ cpu: '2' }).obj() as KObject);
    await until(() => !!scheduledCondition(client, 'big'), 'PodScheduled condition');
    const want =
      '0/3 nodes are available: 1 node(s) had untolerated taint {k: v}, 2 Insufficient cpu. ' +
      'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.';
    const c = scheduledCondition(client, 'big')!;
    assert.equal(c.status, 'False');
    assert.equal(c.reason, 'Unschedulable');
    assert.equal(c.message, want);
    assert.ok(c.lastTransitionTime);
    const ev = rec.events.find((e) => e.reason === 'FailedScheduling');
    assert.deepEqual(ev, { name: 'big', type: 'Warning', reason: 'FailedScheduling', message: want });
  });

  it('keeps a nodeSelector pod pending until a node gets the label, then schedules it there', async () => {
    const client = new FakeClient();
    for (const n of ['a', 'b', 'c']) await client.create(R.nodes, '', makeNode().name(n).obj() as KObject);
    const { sched } = await setup(client);
    await client.create(R.pods, 'default', makePod().name('ssd').nodeSelector({ disktype: 'ssd' }).obj() as KObject);
    await until(() => !!scheduledCondition(client, 'ssd'), 'failure condition');
    assert.equal(
      scheduledCondition(client, 'ssd')!.message,
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    assert.equal(sched.queue.whereIs('default/ssd'), 'unschedulable');
    const b = client.peek(R.nodes, '', 'b')!;
    b.metadata!.labels = { ...b.metadata!.labels, disktype: 'ssd' };
    await client.update(R.nodes, '', b);
    // the label event moved it out of unschedulablePods; it waits out its backoff
    assert.equal(sched.queue.whereIs('default/ssd'), 'backoff');
    now += 2000;
    sched.queue.flushBackoffQCompleted();
    await until(() => client.peek<Pod & KObject>(R.pods, 'default', 'ssd')?.spec?.nodeName === 'b', 'bound to b');
  });

  it('keeps lastTransitionTime when the failure repeats', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('n').capacity({ cpu: '1', memory: '1Gi', pods: '110' }).obj() as KObject);
    const { sched, rec } = await setup(client);
    await client.create(R.pods, 'default', makePod().name('p').req({ cpu: '2' }).obj() as KObject);
    await until(() => !!scheduledCondition(client, 'p'), 'condition');
    const failures = () => rec.events.filter((e) => e.reason === 'FailedScheduling').length;
    assert.equal(failures(), 1);
    const first = scheduledCondition(client, 'p')!.lastTransitionTime;
    const patches = client.writes.filter((w) => w.verb === 'patch').length;
    now += 60_000;
    // force a retry: an unrelated pod deletion on the node is a registered event
    sched.queue.moveAllToActiveOrBackoffQueue({ resource: '*', actionType: 0, label: 'test' });
    assert.notEqual(sched.queue.whereIs('default/p'), 'unschedulable', 'retried (popped at once by the waiting loop)');
    await until(() => failures() === 2, 'second attempt');
    assert.equal(sched.queue.whereIs('default/p'), 'unschedulable');
    assert.equal(scheduledCondition(client, 'p')!.lastTransitionTime, first);
    // identical condition: no new status patch
    assert.equal(client.writes.filter((w) => w.verb === 'patch').length, patches);
  });

  it('holds gated pods with SchedulingGated and schedules them once the gates are removed', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('n1').obj() as KObject);
    const { sched } = await setup(client);
    await client.create(R.pods, 'default', makePod().name('g').gates('example.com/foo', 'example.com/bar').obj() as KObject);
    await until(() => !!scheduledCondition(client, 'g'), 'gated condition');
    assert.deepEqual(
      { ...scheduledCondition(client, 'g'), lastTransitionTime: undefined },
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
        lastTransitionTime: undefined,
      },
    );
    assert.equal(sched.queue.whereIs('default/g'), 'gated');
    assert.equal(client.writes.filter((w) => w.verb === 'binding').length, 0);
    await client.patch(R.pods, 'default', 'g', 'merge', { spec: { schedulingGates: [{ name: 'example.com/bar' }] } });
    assert.equal(sched.queue.whereIs('default/g'), 'gated');
    await client.patch(R.pods, 'default', 'g', 'merge', { spec: { schedulingGates: null } });
    await until(() => client.peek<Pod & KObject>(R.pods, 'default', 'g')?.spec?.nodeName === 'n1', 'bound after ungating');
  });

  it('forgets the assumed pod when binding fails and retries after backoff', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('n1').capacity({ cpu: '1', memory: '1Gi', pods: '110' }).obj() as KObject);
    client.failBindings = { count: 1, error: new Error('etcd is down') };
    const { sched, rec } = await setup(client);
    await client.create(R.pods, 'default', makePod().name('p').req({ cpu: '800m' }).obj() as KObject);
    await until(() => rec.events.some((e) => e.reason === 'FailedScheduling'), 'bind failure');
    assert.match(rec.events.find((e) => e.reason === 'FailedScheduling')!.message, /etcd is down/);
    assert.equal(scheduledCondition(client, 'p')?.reason, 'SchedulerError');
    assert.equal(sched.cache.nodeInfo('n1')?.requested.milliCPU ?? 0, 0, 'assumed pod forgotten');
    assert.equal(sched.queue.whereIs('default/p'), 'backoff');
    now += 2000;
    sched.queue.flushBackoffQCompleted();
    await until(() => client.peek<Pod & KObject>(R.pods, 'default', 'p')?.spec?.nodeName === 'n1', 'bound on retry');
    await until(() => sched.cache.nodeInfo('n1')?.requested.milliCPU === 800, 'bound pod confirmed in cache');
  });

  it('accounts assumed pods so concurrent cycles do not overcommit a node', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('n1').capacity({ cpu: '1', memory: '1Gi', pods: '110' }).obj() as KObject);
    await client.create(R.nodes, '', makeNode().name('n2').capacity({ cpu: '1', memory: '1Gi', pods: '110' }).obj() as KObject);
    await setup(client);
    for (const n of ['p1', 'p2', 'p3']) await client.create(R.pods, 'default', makePod().name(n).req({ cpu: '600m' }).obj() as KObject);
    await until(() => client.writes.filter((w) => w.verb === 'binding').length === 2 && !!scheduledCondition(client, 'p3'), 'two binds');
    const nodes = ['p1', 'p2', 'p3'].map((n) => client.peek<Pod & KObject>(R.pods, 'default', n)!.spec!.nodeName ?? '');
    assert.deepEqual(nodes.filter(Boolean).sort(), ['n1', 'n2']);
    assert.match(scheduledCondition(client, 'p3')!.message!, /^0\/2 nodes are available: 2 Insufficient cpu\./);
  });

  it('ignores pods of other schedulers', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('n1').obj() as KObject);
    const { sched } = await setup(client);
    await client.create(R.pods, 'default', makePod().name('other').schedulerName('my-scheduler').obj() as KObject);
    await client.create(R.pods, 'default', makePod().name('mine').obj() as KObject);
    await until(() => !!client.peek<Pod & KObject>(R.pods, 'default', 'mine')?.spec?.nodeName, 'mine bound');
    assert.equal(client.peek<Pod & KObject>(R.pods, 'default', 'other')?.spec?.nodeName, undefined);
    assert.equal(sched.queue.whereIs('default/other'), undefined);
  });

  it('a pod parked by a Permit plugin is bound only once allowed', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('node-1').obj() as KObject);
    const rec = new FakeRecorder();
    const profile = defaultProfile();
    profile.plugins = { ...profile.plugins, permit: { enabled: [{ name: 'Gate' }] } };
    const gate = { name: 'Gate', permit: () => [new Status(Code.Wait), 60_000] as [Status, number] };
    const sched = new Scheduler({ client, recorder: rec, clock, profiles: [profile], outOfTreeRegistry: new Registry({ Gate: () => gate }) });
    await sched.start();
    stops.push(() => sched.stop());
    await client.create(R.pods, 'default', makePod().name('w').req({ cpu: '100m' }).obj() as KObject);
    const fwk = sched.frameworks.get('default-scheduler')!;
    const uid = () => client.peek<Pod & KObject>(R.pods, 'default', 'w')?.metadata?.uid ?? '';
    await until(() => !!uid() && !!fwk.getWaitingPod(uid()), 'the pod waiting at Permit');
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    assert.equal(client.peek<Pod & KObject>(R.pods, 'default', 'w')?.spec?.nodeName, undefined, 'not bound while waiting');
    fwk.getWaitingPod(uid())!.allow('Gate');
    await until(() => client.peek<Pod & KObject>(R.pods, 'default', 'w')?.spec?.nodeName === 'node-1', 'bound after allow');
    assert.ok(rec.events.some((e) => e.name === 'w' && e.reason === 'Scheduled'));
  });
});

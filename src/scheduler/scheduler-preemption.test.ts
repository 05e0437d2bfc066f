import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import type { EventRecorder, EventType } from '../client/events.js';
import { R } from '../client/types.js';
import { parseConfig } from './config/config.js';
import { startScheduler, type RunningScheduler } from './index.js';
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

async function until(cond: () => boolean, what: string, turns = 20000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (cond()) return;
    await new Promise((r) => setImmediate(r));
  }
  assert.fail(`timed out waiting for ${what}`);
}

let now = Date.parse('2025-01-01T00:00:00Z');
const clock = { now: () => now };
const running: RunningScheduler[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

const podOf = (c: FakeClient, name: string) => c.peek<Pod & KObject>(R.pods, 'default', name);

describe('scheduler: preemption, profiles, metrics', () => {
  it('preempts a lower-priority pod, nominates the node, then binds there once the victim is gone', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('n1').capacity({ cpu: '1', memory: '1Gi', pods: '110' }).obj() as KObject);
    const rec = new FakeRecorder();
    const r = await startScheduler({ client, recorder: rec, clock });
    running.push(r);
    await client.create(R.pods, 'default', makePod().name('low').priority(0).req({ cpu: '800m' }).obj() as KObject);
    await until(() => podOf(client, 'low')?.spec?.nodeName === 'n1', 'low bound');
    await client.create(R.pods, 'default', makePod().name('high').priority(1000).req({ cpu: '500m' }).obj() as KObject);
    await until(() => !podOf(client, 'low'), 'victim deleted');
    await until(() => podOf(client, 'high')?.status?.nominatedNodeName === 'n1', 'nominated');
    const cond = podOf(client, 'high')!.status!.conditions!.find((c) => c.type === 'PodScheduled')!;
    assert.equal(cond.message, '0/1 nodes are available: 1 Insufficient cpu.', 'no preemption suffix when preemption succeeded');
    assert.ok(rec.events.some((e) => e.name === 'low' && e.reason === 'Preempted' && e.message === 'Preempted by pod high on node n1'));
    assert.equal(r.metrics.preemptionAttempts.total(), 1);
    now += 2000;
    r.scheduler.queue.flushBackoffQCompleted();
    await until(() => podOf(client, 'high')?.spec?.nodeName === 'n1', 'high bound to n1');
  });

  it('does not preempt for preemptionPolicy Never and says so', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('n1').capacity({ cpu: '1', memory: '1Gi', pods: '110' }).obj() as KObject);
    const r = await startScheduler({ client, recorder: new FakeRecorder(), clock });
    running.push(r);
    await client.create(R.pods, 'default', makePod().name('low').priority(0).req({ cpu: '800m' }).obj() as KObject);
    await until(() => podOf(client, 'low')?.spec?.nodeName === 'n1', 'low bound');
    const p = makePod().name('polite').priority(1000).req({ cpu: '500m' }).obj();
    p.spec!.preemptionPolicy = 'Never';
    await client.create(R.pods, 'default', p as KObject);
    await until(() => !!podOf(client, 'polite')?.status?.conditions?.length, 'condition');
    assert.equal(podOf(client, 'polite')!.status!.conditions![0]!.message, '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.');
    assert.ok(podOf(client, 'low'), 'no victim');
  });

  it('runs several profiles from a KubeSchedulerConfiguration', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('small').capacity({ cpu: '2', memory: '4Gi', pods: '110' }).obj() as KObject);
    await client.create(R.nodes, '', makeNode().name('big').capacity({ cpu: '16', memory: '64Gi', pods: '110' }).obj() as KObject);
    const config = parseConfig(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
- schedulerName: default-scheduler
- schedulerName: bin-packing
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
`);
    const r = await startScheduler({ client, recorder: new FakeRecorder(), clock, config });
    running.push(r);
    await client.create(R.pods, 'default', makePod().name('spread').req({ cpu: '1', memory: '1Gi' }).obj() as KObject);
    await client.create(R.pods, 'default', makePod().name('pack').schedulerName('bin-packing').req({ cpu: '1', memory: '1Gi' }).obj() as KObject);
    await until(() => !!podOf(client, 'spread')?.spec?.nodeName && !!podOf(client, 'pack')?.spec?.nodeName, 'both bound');
    assert.equal(podOf(client, 'spread')!.spec!.nodeName, 'big', 'LeastAllocated prefers the emptier node');
    assert.equal(podOf(client, 'pack')!.spec!.nodeName, 'small', 'MostAllocated packs');
  });

  it('exposes upstream metric names', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('n1').obj() as KObject);
    const r = await startScheduler({ client, recorder: new FakeRecorder(), clock });
    running.push(r);
    await client.create(R.pods, 'default', makePod().name('a').obj() as KObject);
    await client.create(R.pods, 'default', makePod().name('b').req({ cpu: '100' }).obj() as KObject);
    await until(() => !!podOf(client, 'a')?.spec?.nodeName && !!podOf(client, 'b')?.status?.conditions?.length, 'attempts');
    const text = await r.metrics.text();
    assert.match(text, /scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"\} 1/);
    assert.match(text, /scheduler_schedule_attempts_total\{result="unschedulable",profile="default-scheduler"\} 1/);
    assert.match(text, /scheduler_pending_pods\{queue="unschedulable"\} 1/);
    assert.match(text, /scheduler_preemption_attempts_total 1/);
    assert.match(text, /scheduler_scheduling_attempt_duration_seconds_bucket\{result="scheduled",profile="default-scheduler",le="\+Inf"\} 1/);
    assert.match(
      text,
      /scheduler_framework_extension_point_duration_seconds_count\{extension_point="Filter"|scheduler_framework_extension_point_duration_seconds_count\{extension_point="PreFilter",status="Success",profile="default-scheduler"\} \d/,
    );
    assert.match(text, /scheduler_queue_incoming_pods_total\{queue="active",event="PodAdd"\} 2/);
    assert.match(text, /scheduler_cache_size\{type="nodes"\} 1/);
  });

  it('leader election: only the Lease holder schedules', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', makeNode().name('n1').obj() as KObject);
    const a = await startScheduler({ client, recorder: new FakeRecorder(), clock, leaderElect: true, identity: 'a' });
    running.push(a);
    await a.leading;
    const b = await startScheduler({ client, recorder: new FakeRecorder(), clock, leaderElect: true, identity: 'b' });
    running.push(b);
    assert.equal(a.isLeader(), true);
    assert.equal(b.isLeader(), false);
    await client.create(R.pods, 'default', makePod().name('x').obj() as KObject);
    await until(() => !!podOf(client, 'x')?.spec?.nodeName, 'bound by the leader');
    assert.equal(client.peek(R.leases, 'kube-system', 'kube-scheduler')?.spec !== undefined, true);
  });
});

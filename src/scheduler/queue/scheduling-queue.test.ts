import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Code, Status } from '../framework/status.js';
import { ActionType, Events, QueueingHint, type ClusterEventWithHint, type QueuedPodInfo } from '../framework/types.js';
import { makePod } from '../testing/wrappers.js';
import { SchedulingQueue } from './scheduling-queue.js';

const less = (a: QueuedPodInfo, b: QueuedPodInfo) => a.podInfo.priority > b.podInfo.priority || (a.podInfo.priority === b.podInfo.priority && a.timestamp < b.timestamp);

function newQueue(events?: Map<string, ClusterEventWithHint[]>) {
  let now = 1_000_000;
  const clock = { now: () => now };
  const q = new SchedulingQueue({
    less,
    clock,
    preEnqueue: (p: Pod) => (p.spec?.schedulingGates?.length ? new Status(Code.UnschedulableAndUnresolvable, ['gated']).withPlugin('SchedulingGates') : null),
    eventsFor: () => events ?? new Map(),
  });
  return { q, advance: (ms: number) => (now += ms) };
}

/** Fails a popped pod as if `plugin` rejected it. */
function fail(q: SchedulingQueue, qpi: QueuedPodInfo, plugin?: string) {
  qpi.unschedulablePlugins = new Set(plugin ? [plugin] : []);
  q.addUnschedulableIfNotPresent(qpi, q.schedulingCycle());
}

describe('SchedulingQueue', () => {
  it('pops by QueueSort order: priority, then arrival', () => {
    const { q, advance } = newQueue();
    q.add(makePod().name('low').priority(1).obj());
    advance(1);
    q.add(makePod().name('high').priority(10).obj());
    advance(1);
    q.add(makePod().name('low2').priority(1).obj());
    const order = [q.popNow(), q.popNow(), q.popNow()].map((x) => x!.podInfo.pod.metadata!.name);
    assert.deepEqual(order, ['high', 'low', 'low2']);
    assert.equal(q.popNow(), undefined);
  });

  it('pop() waits for a pod and resolves null when closed', async () => {
    const { q } = newQueue();
    const p = q.pop();
    q.add(makePod().name('a').obj());
    assert.equal((await p)?.podInfo.key, 'default/a');
    const w = q.pop();
    q.close();
    assert.equal(await w, null);
  });

  it('backoff doubles from 1 s to at most 10 s per attempt', () => {
    const { q } = newQueue();
    const qpi = { attempts: 0 } as QueuedPodInfo;
    const got = [1, 2, 3, 4, 5, 6].map((a) => q.backoffDuration({ ...qpi, attempts: a }));
    assert.deepEqual(got, [1000, 2000, 4000, 8000, 10000, 10000]);
  });

  it('errors (no rejecting plugin) go to backoffQ and return after backoff', () => {
    const { q, advance } = newQueue();
    q.add(makePod().name('a').obj());
    const a = q.popNow()!;
    fail(q, a);
    assert.equal(q.whereIs('default/a'), 'backoff');
    advance(999);
    q.flushBackoffQCompleted();
    assert.equal(q.whereIs('default/a'), 'backoff');
    advance(2);
    q.flushBackoffQCompleted();
    assert.equal(q.whereIs('default/a'), 'active');
  });

  it('rejected pods park until an event their plugin registered (and its hint) says so', () => {
    const events = new Map<string, ClusterEventWithHint[]>([
      [
        'NodeAffinity',
        [
          {
            event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel, label: 'x' },
            queueingHintFn: (_pod, _old, n) => ((n as { ok?: boolean }).ok ? QueueingHint.Queue : QueueingHint.QueueSkip),
          },
        ],
      ],
    ]);
    const { q, advance } = newQueue(events);
    q.add(makePod().name('a').obj());
    fail(q, q.popNow()!, 'NodeAffinity');
    assert.equal(q.whereIs('default/a'), 'unschedulable');
    q.moveAllToActiveOrBackoffQueue(Events.AssignedPodDelete, {}, undefined);
    assert.equal(q.whereIs('default/a'), 'unschedulable', 'event not registered by the plugin');
    q.moveAllToActiveOrBackoffQueue({ resource: 'Node', actionType: ActionType.UpdateNodeTaint, label: 't' }, {}, { ok: true });
    assert.equal(q.whereIs('default/a'), 'unschedulable', 'action not registered');
    q.moveAllToActiveOrBackoffQueue(Events.NodeAdd, undefined, { ok: false });
    assert.equal(q.whereIs('default/a'), 'unschedulable', 'hint said skip');
    q.moveAllToActiveOrBackoffQueue(Events.NodeAdd, undefined, { ok: true });
    assert.equal(q.whereIs('default/a'), 'backoff', 'still backing off');
    advance(5000);
    q.flushBackoffQCompleted();
    assert.equal(q.whereIs('default/a'), 'active');
  });

  it('an event during the attempt requeues the pod instead of parking it', () => {
    const events = new Map<string, ClusterEventWithHint[]>([['NodeResourcesFit', [{ event: Events.NodeAdd }]]]);
    const { q } = newQueue(events);
    q.add(makePod().name('a').obj());
    const a = q.popNow()!;
    q.moveAllToActiveOrBackoffQueue(Events.NodeAdd, undefined, {});
    fail(q, a, 'NodeResourcesFit');
    assert.equal(q.whereIs('default/a'), 'backoff');
  });

  it('flushes pods parked longer than 5 minutes', () => {
    const { q, advance } = newQueue();
    q.add(makePod().name('a').obj());
    fail(q, q.popNow()!, 'Whatever');
    advance(4 * 60 * 1000);
    q.flushUnschedulablePodsLeftover();
    assert.equal(q.whereIs('default/a'), 'unschedulable');
    advance(61 * 1000);
    q.flushUnschedulablePodsLeftover();
    assert.equal(q.whereIs('default/a'), 'active');
  });

  it('gated pods wait until an update removes the gates', () => {
    const { q } = newQueue();
    const gated = makePod().name('g').gates('a').obj();
    q.add(gated);
    assert.equal(q.whereIs('default/g'), 'gated');
    assert.equal(q.popNow(), undefined);
    q.moveAllToActiveOrBackoffQueue(Events.UnschedulableTimeout);
    assert.equal(q.whereIs('default/g'), 'gated', 'events do not release gated pods');
    const open = makePod().name('g').obj();
    (open.metadata as { resourceVersion?: string }).resourceVersion = '2';
    q.update(gated, open);
    assert.equal(q.whereIs('default/g'), 'active');
  });

  it('status-only updates do not requeue a parked pod; spec changes do', () => {
    const { q, advance } = newQueue();
    const p = makePod().name('a').obj();
    q.add(p);
    fail(q, q.popNow()!, 'X');
    const statusOnly = { ...p, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] }, metadata: { ...p.metadata, resourceVersion: '9' } };
    q.update(p, statusOnly);
    assert.equal(q.whereIs('default/a'), 'unschedulable');
    advance(20_000);
    const labelled = { ...statusOnly, metadata: { ...statusOnly.metadata, labels: { a: 'b' } } };
    q.update(statusOnly, labelled);
    assert.equal(q.whereIs('default/a'), 'active');
  });

  it('tracks nominated pods per node', () => {
    const { q } = newQueue();
    const p = { ...makePod().name('n').priority(5).obj(), status: { nominatedNodeName: 'node-1' } };
    q.add(p);
    assert.deepEqual(
      q.nominator.nominatedPodsForNode('node-1').map((x) => x.key),
      ['default/n'],
    );
    q.delete(p);
    assert.deepEqual(q.nominator.nominatedPodsForNode('node-1'), []);
  });
});

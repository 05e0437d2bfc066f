import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { KObject } from '../../api/resource.js';
import { R } from '../../client/types.js';
import { CycleState } from '../framework/cycle-state.js';
import { NodeToStatus } from '../framework/fit-error.js';
import { staticListers } from '../framework/listers.js';
import { defaultProfile } from '../framework/profile.js';
import { Framework } from '../framework/runtime.js';
import { Snapshot } from '../framework/snapshot.js';
import { Code, Status } from '../framework/status.js';
import { FakeClient } from '../../client/testing/fake-client.js';
import { nodeInfoOf } from '../testing/framework-helpers.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import { DefaultPreemption, ErrReasonPolicyNever } from './DefaultPreemption.js';
import { filterPodsWithPDBViolation, pickOneNodeForPreemption } from './helper/preemption.js';
import { PodInfo } from '../framework/types.js';
import { newInTreeRegistry } from './registry.js';

const small = (name: string) => makeNode().name(name).capacity({ cpu: '1', memory: '1Gi', pods: '110' }).obj();
const low = (name: string, prio: number, cpu: string, labels?: Record<string, string>) => {
  const p = makePod().name(name).priority(prio).req({ cpu }).obj();
  if (labels) p.metadata!.labels = labels;
  return p;
};

interface Ev {
  name: string;
  reason: string;
  message: string;
}

/** A framework over fixed nodes, a fake API holding the victims, and a recording event sink. */
async function setup(infos: ReturnType<typeof nodeInfoOf>[], pdbs: PodDisruptionBudget[] = []) {
  const client = new FakeClient();
  for (const ni of infos) for (const pi of ni.pods) await client.create(R.pods, 'default', { ...pi.pod, spec: { ...pi.pod.spec!, nodeName: ni.name } } as KObject);
  const events: Ev[] = [];
  const fwk = new Framework({
    registry: newInTreeRegistry(),
    profile: defaultProfile(),
    client,
    eventRecorder: { event: (o, _t, reason, message) => events.push({ name: o.metadata?.name ?? '', reason, message }) },
    listers: staticListers({ pdbs }),
  });
  fwk.setSnapshot(Snapshot.from(infos));
  const pl = new DefaultPreemption(fwk, { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 }, { random: () => 0, now: () => 0 });
  const run = async (pod: Pod, m: NodeToStatus) => {
    const state = new CycleState();
    fwk.runPreFilterPlugins(state, pod);
    return pl.postFilter(state, pod, m);
  };
  return { client, fwk, pl, events, run };
}

const unsched = (...names: string[]) => {
  const m = new NodeToStatus();
  for (const n of names) m.set(n, new Status(Code.Unschedulable, ['Insufficient cpu']));
  return m;
};

describe('DefaultPreemption', () => {
  it('explains per node why preemption cannot help', async () => {
    const { run } = await setup([
      nodeInfoOf(small('a')),
      nodeInfoOf(small('b'), low('low', 0, '900m')),
      nodeInfoOf(small('c'), low('high', 100, '900m')),
      nodeInfoOf(small('d'), low('low2', 0, '100m')),
    ]);
    const m = unsched('b', 'c', 'd');
    m.set('a', new Status(Code.UnschedulableAndUnresolvable, ['node(s) had untolerated taint {k: v}']));
    const [r, s] = await run(makePod().name('p').priority(10).req({ cpu: '2' }).obj(), m);
    assert.equal(s?.code, Code.Unschedulable);
    assert.equal(
      s?.message(),
      'preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling, 2 Insufficient cpu.',
    );
    assert.deepEqual(r?.nominatingInfo, { mode: 'Override', nominatedNodeName: '' });
  });

  it('evicts the lowest-priority pods needed, nominates the node, records events and conditions', async () => {
    const { run, client, events } = await setup([nodeInfoOf(small('a'), low('a-high', 100, '900m')), nodeInfoOf(small('b'), low('b-0', 0, '400m'), low('b-1', 1, '400m'))]);
    const pod = makePod().name('p').priority(10).req({ cpu: '500m' }).obj();
    const [r, s] = await run(pod, unsched('a', 'b'));
    assert.equal(s, null);
    assert.deepEqual(r?.nominatingInfo, { mode: 'Override', nominatedNodeName: 'b' });
    // b-1 (priority 1) is reprieved first; evicting b-0 alone frees 600m
    assert.equal(client.peek(R.pods, 'default', 'b-0'), undefined);
    assert.ok(client.peek(R.pods, 'default', 'b-1'));
    const patch = client.writes.find((w) => w.verb === 'patch' && w.name === 'b-0');
    const cond = (patch!.body as { status: { conditions: Record<string, string>[] } }).status.conditions[0]!;
    assert.deepEqual(
      { type: cond.type, status: cond.status, reason: cond.reason, message: cond.message },
      { type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler', message: 'default-scheduler: preempting to accommodate a higher priority pod' },
    );
    assert.deepEqual(events, [{ name: 'b-0', reason: 'Preempted', message: 'Preempted by pod p on node b' }]);
  });

  it('prefers the node whose victims violate no PodDisruptionBudget', async () => {
    const pdb: PodDisruptionBudget = {
      metadata: { name: 'pdb', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'guarded' } } },
      status: { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 },
    };
    const { run, client } = await setup(
      [nodeInfoOf(small('a'), low('guarded', 0, '900m', { app: 'guarded' })), nodeInfoOf(small('b'), low('free', 0, '900m', { app: 'free' }))],
      [pdb],
    );
    const [r] = await run(makePod().name('p').priority(10).req({ cpu: '500m' }).obj(), unsched('a', 'b'));
    assert.equal(r?.nominatingInfo?.nominatedNodeName, 'b');
    assert.ok(client.peek(R.pods, 'default', 'guarded'));
    assert.equal(client.peek(R.pods, 'default', 'free'), undefined);
  });

  it('preemptionPolicy Never', async () => {
    const { run, client } = await setup([nodeInfoOf(small('a'), low('x', 0, '900m'))]);
    const pod = makePod().name('p').priority(10).req({ cpu: '500m' }).obj();
    pod.spec!.preemptionPolicy = 'Never';
    const [r, s] = await run(pod, unsched('a'));
    assert.equal(r, null);
    assert.equal(s?.message(), `preemption: ${ErrReasonPolicyNever}`);
    assert.ok(client.peek(R.pods, 'default', 'x'), 'nothing evicted');
  });

  it('does not preempt again while its victims are terminating on the nominated node', async () => {
    const victim: Pod = {
      ...low('v', 0, '900m'),
      status: { conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }] },
    };
    (victim.metadata as { deletionTimestamp?: string }).deletionTimestamp = '2025-01-01T00:00:00Z';
    const { run } = await setup([nodeInfoOf(small('a'), victim)]);
    const pod: Pod = { ...makePod().name('p').priority(10).req({ cpu: '500m' }).obj(), status: { nominatedNodeName: 'a' } };
    const [, s] = await run(pod, unsched('a'));
    assert.equal(s?.message(), 'preemption: not eligible due to a terminating pod on the nominated node.');
  });
});

describe('preemption helpers', () => {
  it('counts PDB budgets per victim (pods in disruptedPods do not count)', () => {
    const pdb: PodDisruptionBudget = {
      metadata: { name: 'x', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'a' } } },
      status: { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptedPods: { p3: '2025-01-01T00:00:00Z' } },
    };
    const pis = ['p1', 'p2', 'p3', 'q'].map((n) => new PodInfo(low(n, 0, '1m', n === 'q' ? { app: 'b' } : { app: 'a' })));
    const [violating, ok] = filterPodsWithPDBViolation(pis, [pdb]);
    assert.deepEqual(
      violating.map((p) => p.pod.metadata!.name),
      ['p2'],
    );
    assert.deepEqual(
      ok.map((p) => p.pod.metadata!.name),
      ['p1', 'p3', 'q'],
    );
  });

  it('picks by PDB violations, highest victim priority, priority sum, count, start time', () => {
    const v = (prio: number, start?: string) => ({ spec: { priority: prio, containers: [] }, status: start ? { startTime: start } : {} }) as Pod;
    const c = (nodeName: string, victims: Pod[], numPDBViolations = 0) => ({ nodeName, victims, numPDBViolations });
    assert.equal(pickOneNodeForPreemption([c('a', [v(1)], 1), c('b', [v(5), v(5)])], 0)?.nodeName, 'b');
    assert.equal(pickOneNodeForPreemption([c('a', [v(5)]), c('b', [v(3), v(1)])], 0)?.nodeName, 'b');
    assert.equal(pickOneNodeForPreemption([c('a', [v(3), v(2)]), c('b', [v(3), v(1)])], 0)?.nodeName, 'b');
    assert.equal(pickOneNodeForPreemption([c('a', [v(3), v(1), v(1)]), c('b', [v(3), v(2)])], 0)?.nodeName, 'b');
    assert.equal(
      pickOneNodeForPreemption([c('a', [v(3, '2025-01-01T00:00:00Z')]), c('b', [v(3, '2025-01-02T00:00:00Z')])], 0)?.nodeName,
      'b',
      'the node whose victims started latest',
    );
  });
});

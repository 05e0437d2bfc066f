import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CycleState } from '../framework/cycle-state.js';
import { NodeToStatus } from '../framework/fit-error.js';
import { Snapshot } from '../framework/snapshot.js';
import { Code, Status } from '../framework/status.js';
import { nodeInfoOf, testHandle } from '../testing/framework-helpers.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import { New } from './DefaultPreemption.js';
import * as Fit from './NodeResourcesFit.js';

describe('DefaultPreemption PostFilter (messages only, no eviction yet)', () => {
  const small = (name: string) => makeNode().name(name).capacity({ cpu: '1', memory: '1Gi', pods: '110' }).obj();
  const infos = [
    nodeInfoOf(small('a')),
    nodeInfoOf(small('b'), makePod().name('low').priority(0).req({ cpu: '900m' }).obj()),
    nodeInfoOf(small('c'), makePod().name('high').priority(100).req({ cpu: '900m' }).obj()),
    nodeInfoOf(small('d'), makePod().name('low2').priority(0).req({ cpu: '100m' }).obj()),
  ];
  const fit = Fit.New(undefined, testHandle());
  const handle = testHandle(Snapshot.from(infos), {
    runFilterPluginsWithNominatedPods: (state, pod, ni) => fit.filter(state, pod, ni),
  });

  it('explains per node why preemption cannot help', async () => {
    const pl = New(undefined, handle);
    const pod = makePod().name('p').priority(10).req({ cpu: '2' }).obj();
    const state = new CycleState();
    fit.preFilter(state, pod, []);
    const m = new NodeToStatus();
    m.set('a', new Status(Code.UnschedulableAndUnresolvable, ['node(s) had untolerated taint {k: v}']));
    for (const n of ['b', 'c', 'd']) m.set(n, new Status(Code.Unschedulable, ['Insufficient cpu']));
    const [r, s] = await pl.postFilter(state, pod, m);
    assert.equal(s?.code, Code.Unschedulable);
    assert.equal(
      s?.message(),
      'preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling, 2 Insufficient cpu.',
    );
    assert.deepEqual(r?.nominatingInfo, { mode: 'Override', nominatedNodeName: '' });
  });

  it('finds a candidate when evicting lower-priority pods frees room (eviction is issue 4)', async () => {
    const pl = New(undefined, handle);
    const pod = makePod().name('p').priority(10).req({ cpu: '500m' }).obj();
    const state = new CycleState();
    fit.preFilter(state, pod, []);
    const m = new NodeToStatus();
    for (const n of ['a', 'b', 'c', 'd']) m.set(n, new Status(Code.UnschedulableAndUnresolvable, ['x']));
    m.set('b', new Status(Code.Unschedulable, ['Insufficient cpu']));
    const out = new NodeToStatus();
    const cands = pl.findCandidates(state, pod, m, infos, out);
    assert.deepEqual(cands.map((c) => [c.nodeName, c.victims.map((v) => v.pod.metadata!.name)]), [['b', ['low']]]);
    const [, s] = await pl.postFilter(state, pod, m);
    assert.equal(s?.message(), '', 'no preemption message while a candidate exists');
  });

  it('preemptionPolicy Never', async () => {
    const pl = New(undefined, handle);
    const pod = makePod().name('p').priority(10).obj();
    pod.spec!.preemptionPolicy = 'Never';
    const [, s] = await pl.postFilter(new CycleState(), pod, new NodeToStatus());
    assert.equal(s?.message(), 'preemption: not eligible due to preemptionPolicy=Never.');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { newInTreeRegistry } from '../plugins/registry.js';
import { numFeasibleNodesToFind, selectHost } from '../schedule-one.js';
import { FakeClient } from '../../client/testing/fake-client.js';
import { nodeInfoOf } from '../testing/framework-helpers.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import { CycleState, type StateData } from './cycle-state.js';
import { Diagnosis, FitError, fitErrorMessage } from './fit-error.js';
import type { FilterPlugin, Plugin, PreFilterPlugin, ScorePlugin } from './interface.js';
import { defaultProfile, type Profile } from './profile.js';
import { Registry } from './registry.js';
import { Framework } from './runtime.js';
import { Snapshot } from './snapshot.js';
import { Code, Status } from './status.js';

const recorder = { event: () => undefined };
const fw = (profile: Profile, registry = newInTreeRegistry()) => new Framework({ registry, profile, client: new FakeClient(), eventRecorder: recorder });

describe('Registry', () => {
  it('throws on duplicates and unknown names', () => {
    const r = new Registry();
    r.register('A', () => ({ name: 'A' }));
    assert.throws(() => r.register('A', () => ({ name: 'A' })), /a plugin named A already exists/);
    assert.throws(() => r.unregister('B'), /no plugin named B exists/);
    assert.throws(() => r.merge(new Registry({ A: () => ({ name: 'A' }) })), /already exists/);
  });
});

describe('profiles', () => {
  it('default profile: upstream order and weights', () => {
    const f = fw(defaultProfile());
    const p = f.plugins;
    assert.deepEqual(
      p.preEnqueue.map((x) => x.name),
      ['SchedulingGates'],
    );
    assert.deepEqual(
      p.queueSort.map((x) => x.name),
      ['PrioritySort'],
    );
    assert.deepEqual(
      p.preFilter.map((x) => x.name),
      ['NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'VolumeRestrictions', 'VolumeBinding', 'PodTopologySpread', 'InterPodAffinity'],
    );
    assert.deepEqual(
      p.filter.map((x) => x.name),
      [
        'NodeUnschedulable',
        'NodeName',
        'TaintToleration',
        'NodeAffinity',
        'NodePorts',
        'NodeResourcesFit',
        'VolumeRestrictions',
        'VolumeBinding',
        'PodTopologySpread',
        'InterPodAffinity',
      ],
    );
    assert.deepEqual(
      p.postFilter.map((x) => x.name),
      ['DefaultPreemption'],
    );
    assert.deepEqual(
      p.score.map((x, i) => `${x.name}:${p.scoreWeights[i]}`),
      ['TaintToleration:3', 'NodeAffinity:2', 'NodeResourcesFit:1', 'PodTopologySpread:2', 'InterPodAffinity:2', 'NodeResourcesBalancedAllocation:1', 'ImageLocality:1'],
    );
    assert.deepEqual(
      p.preBind.map((x) => x.name),
      ['VolumeBinding'],
    );
    assert.deepEqual(
      p.preScore.map((x) => x.name),
      ['TaintToleration', 'NodeAffinity', 'NodeResourcesFit', 'PodTopologySpread', 'InterPodAffinity', 'NodeResourcesBalancedAllocation', 'ImageLocality'],
    );
    assert.deepEqual(
      p.bind.map((x) => x.name),
      ['DefaultBinder'],
    );
  });

  it('custom profile: disable, re-weight, add a plugin', () => {
    const reg = newInTreeRegistry();
    reg.register('Custom', () => ({ name: 'Custom', filter: () => null }) as FilterPlugin);
    const f = fw(
      {
        schedulerName: 'x',
        plugins: {
          score: { disabled: [{ name: 'NodeResourcesBalancedAllocation' }], enabled: [{ name: 'NodeAffinity', weight: 7 }] },
          filter: { enabled: [{ name: 'Custom' }] },
          postFilter: { disabled: [{ name: '*' }] },
        },
      },
      reg,
    );
    const p = f.plugins;
    assert.deepEqual(
      p.score.map((x, i) => `${x.name}:${p.scoreWeights[i]}`),
      ['NodeAffinity:7', 'TaintToleration:3', 'NodeResourcesFit:1', 'PodTopologySpread:2', 'InterPodAffinity:2', 'ImageLocality:1'],
    );
    assert.equal(p.filter.at(-1)!.name, 'Custom');
    assert.equal(p.postFilter.length, 0);
    assert.equal(f.profileName, 'x');
  });

  it('rejects plugins at points they do not implement, and unknown plugins', () => {
    assert.throws(() => fw({ schedulerName: 'x', plugins: { filter: { enabled: [{ name: 'PrioritySort' }] } } }), /does not extend FilterPlugin/);
    assert.throws(() => fw({ schedulerName: 'x', plugins: { filter: { enabled: [{ name: 'Nope' }] } } }), /plugin "Nope" does not exist/);
    assert.throws(() => fw({ schedulerName: 'x', plugins: { bind: { disabled: [{ name: '*' }] } } }), /at least one bind plugin is needed/);
  });
});

/** Builds a framework of fake plugins (queue sort and bind from the in-tree registry). */
function fakeFramework(plugins: Plugin[], weights: Record<string, number> = {}) {
  const reg = newInTreeRegistry();
  for (const p of plugins) reg.register(p.name, () => p);
  const names = plugins.map((p) => ({ name: p.name, weight: weights[p.name] }));
  return fw(
    {
      schedulerName: 'test',
      plugins: { multiPoint: { enabled: [{ name: 'PrioritySort' }, { name: 'DefaultBinder' }, ...names], disabled: [{ name: '*' }] } },
    },
    reg,
  );
}

describe('framework runner', () => {
  const ni = nodeInfoOf(makeNode().name('n').obj());
  const pod = makePod().obj();

  it('Filter stops at the first failure and names the plugin; PreFilter Skip disables Filter', () => {
    const calls: string[] = [];
    const a: PreFilterPlugin & FilterPlugin = {
      name: 'A',
      preFilter: () => [null, new Status(Code.Skip)],
      filter: () => (calls.push('A'), new Status(Code.Unschedulable, ['a'])),
    };
    const b: FilterPlugin = { name: 'B', filter: () => (calls.push('B'), new Status(Code.UnschedulableAndUnresolvable, ['b'])) };
    const c: FilterPlugin = { name: 'C', filter: () => (calls.push('C'), null) };
    const f = fakeFramework([a, b, c]);
    const state = new CycleState();
    f.runPreFilterPlugins(state, pod);
    const s = f.runFilterPlugins(state, pod, ni)!;
    assert.deepEqual(calls, ['B']);
    assert.equal(s.plugin, 'B');
    assert.equal(s.message(), 'b');
  });

  it('PreFilter: Unresolvable stops, Unschedulable lets others run, disjoint results reject', () => {
    const seen: string[] = [];
    const pf = (name: string, r: [Set<string> | null, Status | null]): PreFilterPlugin => ({
      name,
      preFilter: () => {
        seen.push(name);
        return [r[0] ? ({ nodeNames: r[0], allNodes: () => false } as never) : null, r[1]];
      },
    });
    let f = fakeFramework([pf('A', [null, new Status(Code.Unschedulable, ['x'])]), pf('B', [null, null])]);
    let [, s] = f.runPreFilterPlugins(new CycleState(), pod);
    assert.deepEqual(seen.splice(0), ['A', 'B']);
    assert.equal(s?.plugin, 'A');
    f = fakeFramework([pf('A', [new Set(['n1']), null]), pf('B', [new Set(['n2']), null])]);
    [, s] = f.runPreFilterPlugins(new CycleState(), pod);
    assert.equal(s?.code, Code.UnschedulableAndUnresolvable);
    assert.equal(s?.message(), "node(s) didn't satisfy plugin(s) [A B] simultaneously");
  });

  it('Score: weights, normalize, range check', () => {
    const s1: ScorePlugin = { name: 'S1', score: (_s, _p, n) => (n.name === 'a' ? 10 : 20) };
    const s2: ScorePlugin = {
      name: 'S2',
      score: () => 3,
      scoreExtensions: () => ({ normalizeScore: (_s, _p, sc) => (sc.fill(100), null) }),
    };
    const infos = [nodeInfoOf(makeNode().name('a').obj()), nodeInfoOf(makeNode().name('b').obj())];
    const f = fakeFramework([s1, s2], { S1: 2, S2: 1 });
    assert.deepEqual(f.runScorePlugins(new CycleState(), pod, infos), [[120, 140], null]);
    const bad: ScorePlugin = { name: 'Bad', score: () => 101 };
    const [, err] = fakeFramework([bad]).runScorePlugins(new CycleState(), pod, infos);
    assert.equal(err?.code, Code.Error);
    assert.equal(err?.message(), 'plugin "Bad" returns an invalid score 101, it should in the range of [0, 100] after normalizing');
  });

  it('Permit Wait parks the pod until allowed', async () => {
    const p = { name: 'W', permit: () => [new Status(Code.Wait), 60_000] as [Status, number] };
    const f = fakeFramework([p as Plugin]);
    const pod2 = makePod().name('w').obj();
    assert.equal(f.runPermitPlugins(new CycleState(), pod2, 'n')?.code, Code.Wait);
    const wait = f.waitOnPermit(pod2);
    f.getWaitingPod('w')!.allow('W');
    assert.equal(await wait, null);
  });

  it('CycleState.clone clones values', () => {
    class D implements StateData {
      constructor(public v: number) {}
      clone() {
        return new D(this.v);
      }
    }
    const s = new CycleState();
    s.write('k', new D(1));
    const c = s.clone();
    c.read<D>('k').v = 2;
    assert.equal(s.read<D>('k').v, 1);
    assert.throws(() => s.read('missing'), /not found: missing/);
  });
});

describe('FitError and node selection', () => {
  const pod = makePod().obj() as Pod;

  it('counts reasons per node and sorts as strings', () => {
    const d = new Diagnosis();
    const s = (r: string) => new Status(Code.Unschedulable, [r]);
    for (let i = 0; i < 10; i++) d.nodeToStatus.set(`a${i}`, s('Insufficient memory'));
    d.nodeToStatus.set('b0', s('Insufficient cpu'));
    d.nodeToStatus.set('b1', s('Insufficient cpu'));
    assert.equal(new FitError(pod, 12, d).message, '0/12 nodes are available: 10 Insufficient memory, 2 Insufficient cpu.');
  });

  it('PreFilter messages replace per-node counts; PostFilter message is appended', () => {
    const d = new Diagnosis();
    d.preFilterMsg = "node(s) didn't satisfy plugin NodeAffinity";
    d.nodeToStatus.absentNodesStatus = new Status(Code.UnschedulableAndUnresolvable, ['ignored']);
    d.postFilterMsg = 'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
    assert.equal(
      fitErrorMessage(3, d),
      "0/3 nodes are available: node(s) didn't satisfy plugin NodeAffinity. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
  });

  it('absent nodes get the absent status reasons', () => {
    const d = new Diagnosis();
    d.nodeToStatus.absentNodesStatus = new Status(Code.UnschedulableAndUnresolvable, ["node(s) didn't satisfy plugin(s) [NodeAffinity]"]);
    d.nodeToStatus.set('n1', new Status(Code.Unschedulable, ['Insufficient cpu']));
    assert.equal(fitErrorMessage(3, d), "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity].");
  });

  it('numFeasibleNodesToFind follows the adaptive default', () => {
    assert.equal(numFeasibleNodesToFind(undefined, 50), 50);
    assert.equal(numFeasibleNodesToFind(undefined, 1000), 420); // 50 − 8 = 42 %
    assert.equal(numFeasibleNodesToFind(undefined, 5000), 500); // 50 − 40 = 10 %
    assert.equal(numFeasibleNodesToFind(undefined, 6000), 300); // floor 5 %
    assert.equal(numFeasibleNodesToFind(undefined, 150), 100); // 49 % of 150 = 73, raised to the minimum 100
    assert.equal(numFeasibleNodesToFind(10, 500), 100);
  });

  it('selectHost picks among the best uniformly', () => {
    const infos = ['a', 'b', 'c', 'd'].map((n) => nodeInfoOf(makeNode().name(n).obj()));
    const seen = new Set<string>();
    let x = 0;
    const rnd = () => (x = (x * 7 + 3) % 11) / 11;
    for (let i = 0; i < 50; i++) seen.add(selectHost(infos, [5, 9, 1, 9], rnd));
    assert.deepEqual([...seen].sort(), ['b', 'd']);
  });

  it('Snapshot.from keeps order', () => {
    const s = Snapshot.from([nodeInfoOf(makeNode().name('x').obj())]);
    assert.equal(s.numNodes(), 1);
    assert.equal(s.get('x')?.name, 'x');
  });
});

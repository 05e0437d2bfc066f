import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CycleState } from '../framework/cycle-state.js';
import { Code } from '../framework/status.js';
import { newQueuedPodInfo } from '../framework/types.js';
import { nodeInfoOf, scoreNodes, testHandle } from '../testing/framework-helpers.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import * as BalancedAllocation from './NodeResourcesBalancedAllocation.js';
import * as NodeName from './NodeName.js';
import * as NodePorts from './NodePorts.js';
import * as NodeUnschedulable from './NodeUnschedulable.js';
import * as PrioritySort from './PrioritySort.js';
import * as SchedulingGates from './SchedulingGates.js';

describe('PrioritySort', () => {
  it('orders by priority, then by queue time', () => {
    const pl = PrioritySort.New(undefined, testHandle());
    const q = (prio: number, t: number) => newQueuedPodInfo(makePod().name(`p${prio}${t}`).priority(prio).obj(), t);
    assert.equal(pl.less(q(10, 5), q(1, 1)), true);
    assert.equal(pl.less(q(1, 1), q(10, 5)), false);
    assert.equal(pl.less(q(1, 1), q(1, 2)), true);
    assert.equal(pl.less(q(1, 2), q(1, 1)), false);
  });
});

describe('SchedulingGates', () => {
  it('holds gated pods with upstream message', () => {
    const pl = SchedulingGates.New(undefined, testHandle());
    assert.equal(pl.preEnqueue(makePod().obj()), null);
    const s = pl.preEnqueue(makePod().gates('example.com/foo', 'example.com/bar').obj())!;
    assert.equal(s.code, Code.UnschedulableAndUnresolvable);
    assert.equal(s.message(), 'waiting for scheduling gates: [example.com/foo example.com/bar]');
  });
});

describe('NodeUnschedulable', () => {
  const pl = NodeUnschedulable.New(undefined, testHandle());
  it('rejects cordoned nodes unless tolerated', () => {
    const cordoned = nodeInfoOf(makeNode().name('n').unschedulable().obj());
    assert.deepEqual(pl.filter(new CycleState(), makePod().obj(), cordoned)?.reasons, ['node(s) were unschedulable']);
    const tol = makePod().toleration({ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }).obj();
    assert.equal(pl.filter(new CycleState(), tol, cordoned), null);
    assert.equal(pl.filter(new CycleState(), makePod().obj(), nodeInfoOf(makeNode().name('m').obj())), null);
  });
});

describe('NodeName', () => {
  const pl = NodeName.New(undefined, testHandle());
  it('matches only the requested node', () => {
    const ni = nodeInfoOf(makeNode().name('foo').obj());
    assert.equal(pl.filter(new CycleState(), makePod().obj(), ni), null);
    assert.equal(pl.filter(new CycleState(), makePod().node('foo').obj(), ni), null);
    const s = pl.filter(new CycleState(), makePod().node('bar').obj(), ni)!;
    assert.equal(s.code, Code.UnschedulableAndUnresolvable);
    assert.equal(s.reasons[0], "node(s) didn't match the requested node name");
  });
});

describe('NodePorts', () => {
  const run = (pod: ReturnType<typeof makePod>, ...existing: ReturnType<typeof makePod>[]) => {
    const pl = NodePorts.New(undefined, testHandle());
    const state = new CycleState();
    const [, s] = pl.preFilter(state, pod.obj(), []);
    if (s?.code === Code.Skip) return 'skip';
    const f = pl.filter(state, pod.obj(), nodeInfoOf(makeNode().name('n').obj(), ...existing.map((e) => e.obj())));
    return f ? `${Code[f.code]}: ${f.reasons[0]}` : null;
  };
  const conflict = "Unschedulable: node(s) didn't have free ports for the requested pod ports";
  it('skips pods without host ports', () => assert.equal(run(makePod()), 'skip'));
  it('other port', () => assert.equal(run(makePod().hostPort(8080, 'UDP', '127.0.0.1'), makePod().name('e').hostPort(9090, 'UDP', '127.0.0.1')), null));
  it('same udp port', () => assert.equal(run(makePod().hostPort(8080, 'UDP', '127.0.0.1'), makePod().name('e').hostPort(8080, 'UDP', '127.0.0.1')), conflict));
  it('same port, different protocol', () => assert.equal(run(makePod().hostPort(8080, 'TCP', '127.0.0.1'), makePod().name('e').hostPort(8080, 'UDP', '127.0.0.1')), null));
  it('same port, different ip', () => assert.equal(run(makePod().hostPort(8001, 'TCP', '127.0.0.1'), makePod().name('e').hostPort(8001, 'TCP', '127.0.0.2')), null));
  it('0.0.0.0 conflicts with any ip', () => assert.equal(run(makePod().hostPort(8001, 'TCP'), makePod().name('e').hostPort(8001, 'TCP', '127.0.0.1')), conflict));
  it('any ip conflicts with 0.0.0.0', () => assert.equal(run(makePod().hostPort(8001, 'TCP', '10.0.0.1'), makePod().name('e').hostPort(8001, 'TCP')), conflict));
});

describe('NodeResourcesBalancedAllocation', () => {
  it('differently sized nodes (upstream case)', () => {
    const pl = BalancedAllocation.New(undefined, testHandle());
    const pod = makePod().req({ cpu: '3', memory: '5000' }).obj();
    const n1 = makeNode().name('node1').capacity({ cpu: '4', memory: '10000', pods: '110' }).obj();
    const n2 = makeNode().name('node2').capacity({ cpu: '6', memory: '10000', pods: '110' }).obj();
    assert.deepEqual(scoreNodes(pl, pod, [nodeInfoOf(n1), nodeInfoOf(n2)]), [87, 100]);
  });
  it('uses actual requests of scheduled pods, fractions capped at 1', () => {
    const pl = BalancedAllocation.New(undefined, testHandle());
    const n = makeNode().name('n').capacity({ cpu: '4', memory: '10000', pods: '110' }).obj();
    const ni = nodeInfoOf(n, makePod().name('e').req({ cpu: '6', memory: '2000' }).obj());
    // cpu (6+0)/4 → 1, memory 2000/10000 = 0.2 → std 0.4 → 60
    assert.deepEqual(scoreNodes(pl, makePod().obj(), [ni]), [60]);
  });
});

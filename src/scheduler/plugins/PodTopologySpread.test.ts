import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod, TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import { CycleState } from '../framework/cycle-state.js';
import { staticListers, type StaticObjects } from '../framework/listers.js';
import type { NodeInfo } from '../framework/node-info.js';
import { Snapshot } from '../framework/snapshot.js';
import { Code } from '../framework/status.js';
import { nodeInfoOf, scoreNodes, testHandle } from '../testing/framework-helpers.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import { ErrReasonConstraintsNotMatch, ErrReasonNodeLabelNotMatch, New } from './PodTopologySpread.js';

const node = (name: string, labels: Record<string, string>) => {
  const n = makeNode().name(name);
  for (const [k, v] of Object.entries(labels)) n.label(k, v);
  return n.obj();
};
const foo = (name: string) => makePod().name(name).label('foo', 'bar').obj();
const constraint = (maxSkew: number, topologyKey: string, extra: Partial<TopologySpreadConstraint> = {}): TopologySpreadConstraint => ({
  maxSkew,
  topologyKey,
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: { foo: 'bar' } },
  ...extra,
});

function filterAll(pod: Pod, infos: NodeInfo[], args?: unknown, objs: StaticObjects = {}): Record<string, string> {
  const pl = New(args, testHandle(Snapshot.from(infos), { listers: staticListers(objs) }));
  const state = new CycleState();
  const [, ps] = pl.preFilter(state, pod, infos);
  const out: Record<string, string> = {};
  for (const ni of infos) {
    if (ps?.code === Code.Skip) out[ni.name] = 'skip';
    else {
      const s = pl.filter(state, pod, ni);
      out[ni.name] = s ? `${Code[s.code]}: ${s.reasons[0]}` : 'ok';
    }
  }
  return out;
}

describe('PodTopologySpread Filter', () => {
  // the documentation's example: zoneA {node1, node2}, zoneB {node3, node4}, foo=bar pods on node1, node2, node3
  const docNodes = () => [
    nodeInfoOf(node('node1', { zone: 'zoneA', node: 'node1' }), foo('p1')),
    nodeInfoOf(node('node2', { zone: 'zoneA', node: 'node2' }), foo('p2')),
    nodeInfoOf(node('node3', { zone: 'zoneB', node: 'node3' }), foo('p3')),
    nodeInfoOf(node('node4', { zone: 'zoneB', node: 'node4' })),
  ];
  const skew = `Unschedulable: ${ErrReasonConstraintsNotMatch}`;

  it('one constraint (tsc-one-constraint.yaml): the pod must go to zoneB', () => {
    const pod = makePod().name('mypod').label('foo', 'bar').spread(constraint(1, 'zone')).obj();
    assert.deepEqual(filterAll(pod, docNodes()), { node1: skew, node2: skew, node3: 'ok', node4: 'ok' });
  });

  it('two constraints (zone and node): only node4', () => {
    const pod = makePod().name('mypod').label('foo', 'bar').spread(constraint(1, 'zone')).spread(constraint(1, 'node')).obj();
    assert.deepEqual(filterAll(pod, docNodes()), { node1: skew, node2: skew, node3: skew, node4: 'ok' });
  });

  it('nodes without the topology key are unschedulable and unresolvable', () => {
    const pod = makePod().name('mypod').label('foo', 'bar').spread(constraint(1, 'zone')).obj();
    const infos = [nodeInfoOf(node('a', {})), nodeInfoOf(node('b', { zone: 'z1' }))];
    assert.deepEqual(filterAll(pod, infos), { a: `UnschedulableAndUnresolvable: ${ErrReasonNodeLabelNotMatch}`, b: 'ok' });
  });

  it('a pod not matching its own selector does not count itself', () => {
    // zoneA: 2 + 0 − 1 ≤ 1
    const pod = makePod().name('mypod').spread(constraint(1, 'zone')).obj();
    assert.deepEqual(filterAll(pod, docNodes()), { node1: 'ok', node2: 'ok', node3: 'ok', node4: 'ok' });
  });

  it('minDomains: fewer eligible domains than minDomains makes the global minimum 0', () => {
    const pod = makePod()
      .name('mypod')
      .label('foo', 'bar')
      .spread(constraint(1, 'zone', { minDomains: 3 }))
      .obj();
    // zoneB holds 1 matching pod: 1 + 1 − 0 > 1
    assert.deepEqual(filterAll(pod, docNodes()), { node1: skew, node2: skew, node3: skew, node4: skew });
  });

  it('nodeAffinityPolicy Honor (default) ignores domains the pod cannot go to; Ignore counts them', () => {
    const infos = () => [nodeInfoOf(node('n1', { zone: 'A', disk: 'ssd' })), nodeInfoOf(node('n2', { zone: 'B', disk: 'hdd' }), foo('x'), foo('y'))];
    const honor = makePod().name('p').label('foo', 'bar').nodeSelector({ disk: 'ssd' }).spread(constraint(1, 'zone')).obj();
    assert.equal(filterAll(honor, infos()).n1, 'ok', 'zone B is not eligible: the minimum is zone A (0)');
    const ignore = makePod()
      .name('p')
      .label('foo', 'bar')
      .nodeSelector({ disk: 'ssd' })
      .spread(constraint(1, 'zone', { nodeAffinityPolicy: 'Ignore' }))
      .obj();
    assert.equal(filterAll(ignore, infos()).n1, 'ok', '0 + 1 − 0 ≤ 1');
  });

  it('nodeTaintsPolicy Honor leaves out tainted nodes the pod does not tolerate', () => {
    const tainted = makeNode().name('t').label('zone', 'B').taint({ key: 'k', value: 'v', effect: 'NoSchedule' }).obj();
    const infos = [nodeInfoOf(node('n1', { zone: 'A' }), foo('a')), nodeInfoOf(tainted)];
    const ignore = makePod().name('p').label('foo', 'bar').spread(constraint(1, 'zone')).obj();
    assert.equal(filterAll(ignore, infos).n1, skew, 'zone B counts (0 pods): 1 + 1 − 0 > 1');
    const honor = makePod()
      .name('p')
      .label('foo', 'bar')
      .spread(constraint(1, 'zone', { nodeTaintsPolicy: 'Honor' }))
      .obj();
    assert.equal(filterAll(honor, infos).n1, 'ok', 'only zone A counts: 1 + 1 − 1 ≤ 1');
  });

  it('matchLabelKeys narrow the selector to the pod values', () => {
    const infos = [nodeInfoOf(node('n1', { zone: 'A' }), makePod().name('old').label('foo', 'bar').label('rev', '1').obj()), nodeInfoOf(node('n2', { zone: 'B' }))];
    const pod = makePod()
      .name('p')
      .label('foo', 'bar')
      .label('rev', '2')
      .spread(constraint(1, 'zone', { matchLabelKeys: ['rev'] }))
      .obj();
    assert.deepEqual(filterAll(pod, infos), { n1: 'ok', n2: 'ok' }, 'rev=1 pods are not counted');
  });

  it('skips pods without DoNotSchedule constraints', () => {
    assert.deepEqual(filterAll(makePod().name('p').obj(), docNodes()).node1, 'skip');
    const soft = makePod()
      .name('p')
      .spread(constraint(1, 'zone', { whenUnsatisfiable: 'ScheduleAnyway' }))
      .obj();
    assert.equal(filterAll(soft, docNodes()).node1, 'skip');
  });
});

describe('PodTopologySpread Score', () => {
  it('ScheduleAnyway: fewer matching pods in the domain score higher', () => {
    const infos = [nodeInfoOf(node('n1', { zone: 'A' }), foo('a'), foo('b')), nodeInfoOf(node('n2', { zone: 'B' }), foo('c')), nodeInfoOf(node('n3', { zone: 'C' }))];
    const pl = New(undefined, testHandle(Snapshot.from(infos)));
    const pod = makePod()
      .name('p')
      .label('foo', 'bar')
      .spread(constraint(1, 'zone', { whenUnsatisfiable: 'ScheduleAnyway' }))
      .obj();
    const s = scoreNodes(pl, pod, infos);
    assert.ok(s[2]! > s[1]! && s[1]! > s[0]!, `scores ${s}`);
    assert.equal(s[2], 100);
  });

  it('system default constraints spread pods selected by a Service over hostnames', () => {
    const infos = [
      nodeInfoOf(node('n1', { 'kubernetes.io/hostname': 'n1' }), makePod().name('w1').label('app', 'web').obj()),
      nodeInfoOf(node('n2', { 'kubernetes.io/hostname': 'n2' })),
    ];
    const svc = { metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' } } };
    const pl = New(undefined, testHandle(Snapshot.from(infos), { listers: staticListers({ services: [svc] }) }));
    const s = scoreNodes(pl, makePod().name('w2').label('app', 'web').obj(), infos);
    assert.ok(s[1]! > s[0]!, `scores ${s}`);
    const none = New(undefined, testHandle(Snapshot.from(infos)));
    assert.deepEqual(scoreNodes(none, makePod().name('w2').label('app', 'web').obj(), infos), [0, 0], 'no Service or controller: no default constraints');
  });

  it('validates args as upstream', () => {
    assert.throws(
      () => New({ defaultingType: 'List', defaultConstraints: [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }] }, testHandle()),
      /maxSkew: Invalid value: 0/,
    );
    assert.throws(() => New({ defaultingType: 'System', defaultConstraints: [constraint(1, 'zone')] }, testHandle()), /when .defaultingType is "System"/);
  });
});

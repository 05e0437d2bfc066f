import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { CycleState } from '../framework/cycle-state.js';
import { Code } from '../framework/status.js';
import { nodeInfoOf, scoreNodes, testHandle } from '../testing/framework-helpers.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import { ErrReasonPod, errReasonConflict, errReasonEnforced, New } from './NodeAffinity.js';

function run(pod: Pod, labels: Record<string, string>, args?: unknown, nodeName = 'node1') {
  const pl = New(args, testHandle());
  const state = new CycleState();
  const [, ps] = pl.preFilter(state, pod, []);
  if (ps?.code === Code.Skip) return 'skip';
  if (ps) return ps.reasons[0];
  const n = makeNode().name(nodeName);
  for (const [k, v] of Object.entries(labels)) n.label(k, v);
  const s = pl.filter(state, pod, nodeInfoOf(n.obj()));
  return s ? `${Code[s.code]}: ${s.reasons[0]}` : null;
}

const withTerms = (terms: object[]): Pod => {
  const p = makePod().obj();
  p.spec!.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms as never } } };
  return p;
};

describe('NodeAffinity Filter', () => {
  const rejected = `UnschedulableAndUnresolvable: ${ErrReasonPod}`;
  const cases: { name: string; pod: Pod; labels: Record<string, string>; want: string | null }[] = [
    { name: 'no selector or affinity: PreFilter skips', pod: makePod().obj(), labels: {}, want: 'skip' },
    { name: 'missing labels', pod: makePod().nodeSelector({ foo: 'bar' }).obj(), labels: {}, want: rejected },
    { name: 'same labels', pod: makePod().nodeSelector({ foo: 'bar' }).obj(), labels: { foo: 'bar' }, want: null },
    { name: 'node labels are superset', pod: makePod().nodeSelector({ foo: 'bar' }).obj(), labels: { foo: 'bar', baz: 'blah' }, want: null },
    { name: 'node labels are subset', pod: makePod().nodeSelector({ foo: 'bar', baz: 'blah' }).obj(), labels: { foo: 'bar' }, want: rejected },
    { name: 'In matches', pod: makePod().nodeAffinityIn('foo', ['bar', 'value2']).obj(), labels: { foo: 'bar' }, want: null },
    {
      name: 'Gt matches',
      pod: withTerms([{ matchExpressions: [{ key: 'kernel-version', operator: 'Gt', values: ['0204'] }] }]),
      labels: { 'kernel-version': '0206' },
      want: null,
    },
    {
      name: 'NotIn with a value outside the list matches',
      pod: withTerms([{ matchExpressions: [{ key: 'mem-type', operator: 'NotIn', values: ['DDR', 'DDR2'] }] }]),
      labels: { 'mem-type': 'DDR3' },
      want: null,
    },
    {
      name: 'Exists / DoesNotExist',
      pod: withTerms([
        {
          matchExpressions: [
            { key: 'GPU', operator: 'Exists' },
            { key: 'ssd', operator: 'DoesNotExist' },
          ],
        },
      ]),
      labels: { GPU: 'NVIDIA-GRID-K1' },
      want: null,
    },
    {
      name: 'invalid value for Gt never matches',
      pod: withTerms([{ matchExpressions: [{ key: 'kernel-version', operator: 'Gt', values: ['x'] }] }]),
      labels: { 'kernel-version': '3' },
      want: rejected,
    },
    { name: 'empty term matches nothing', pod: withTerms([{}]), labels: { foo: 'bar' }, want: rejected },
    {
      name: 'terms are ORed',
      pod: withTerms([{ matchExpressions: [{ key: 'foo', operator: 'In', values: ['x'] }] }, { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] }]),
      labels: { foo: 'bar' },
      want: null,
    },
    {
      name: 'nodeSelector and affinity are ANDed',
      pod: (() => {
        const p = makePod().nodeSelector({ a: 'b' }).nodeAffinityIn('foo', ['bar']).obj();
        return p;
      })(),
      labels: { foo: 'bar' },
      want: rejected,
    },
    {
      name: 'matchFields metadata.name',
      pod: withTerms([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] }]),
      labels: {},
      want: null,
    },
    {
      name: 'conflicting metadata.name terms',
      pod: withTerms([
        {
          matchFields: [
            { key: 'metadata.name', operator: 'In', values: ['node1'] },
            { key: 'metadata.name', operator: 'In', values: ['node2'] },
          ],
        },
      ]),
      labels: {},
      want: errReasonConflict,
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(run(c.pod, c.labels), c.want));

  it('PreFilter narrows to the pinned node names', () => {
    const pl = New(undefined, testHandle());
    const pod = withTerms([
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1', 'node2'] }] },
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node3'] }] },
    ]);
    const [r] = pl.preFilter(new CycleState(), pod, []);
    assert.deepEqual([...r!.nodeNames!].sort(), ['node1', 'node2', 'node3']);
  });

  it('addedAffinity is enforced with its own reason', () => {
    const args = {
      addedAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['foo'] }] }] },
      },
    };
    assert.equal(run(makePod().obj(), { zone: 'bar' }, args), `UnschedulableAndUnresolvable: ${errReasonEnforced}`);
    assert.equal(run(makePod().obj(), { zone: 'foo' }, args), null);
  });
});

describe('NodeAffinity Score', () => {
  const pod = makePod().preferredNodeAffinity(2, 'foo', ['bar']).preferredNodeAffinity(4, 'key', ['value']).preferredNodeAffinity(5, 'az', ['az1']).obj();
  const n = (name: string, labels: Record<string, string>) => {
    const w = makeNode().name(name);
    for (const [k, v] of Object.entries(labels)) w.label(k, v);
    return nodeInfoOf(w.obj());
  };
  it('sums matching weights and normalizes to 100', () => {
    const pl = New(undefined, testHandle());
    const got = scoreNodes(pl, pod, [n('a', { foo: 'bar' }), n('b', { foo: 'bar', key: 'value', az: 'az1' }), n('c', { az: 'az1' })]);
    // raw 2, 11, 5 → 100·x/11
    assert.deepEqual(got, [18, 100, 45]);
  });
  it('all zero when nothing matches', () => {
    const pl = New(undefined, testHandle());
    assert.deepEqual(scoreNodes(pl, pod, [n('a', {}), n('b', {})]), [0, 0]);
  });
});

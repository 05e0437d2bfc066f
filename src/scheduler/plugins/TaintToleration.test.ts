import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CycleState } from '../framework/cycle-state.js';
import { nodeInfoOf, scoreNodes, testHandle } from '../testing/framework-helpers.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import { toleratesTaint } from './helper/taints.js';
import { New } from './TaintToleration.js';

describe('TaintToleration Filter', () => {
  const taint = { key: 'dedicated', value: 'user1', effect: 'NoSchedule' };
  const cases = [
    { name: 'no tolerations, tainted node', tols: [], taints: [taint], want: 'node(s) had untolerated taint {dedicated: user1}' },
    { name: 'equal toleration', tols: [{ key: 'dedicated', operator: 'Equal', value: 'user1', effect: 'NoSchedule' }], taints: [taint], want: null },
    {
      name: 'value mismatch',
      tols: [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }],
      taints: [taint],
      want: 'node(s) had untolerated taint {dedicated: user1}',
    },
    { name: 'Exists with empty key tolerates all', tols: [{ operator: 'Exists' }], taints: [taint], want: null },
    { name: 'effect mismatch', tols: [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }], taints: [taint], want: 'node(s) had untolerated taint {dedicated: user1}' },
    { name: 'PreferNoSchedule is not filtered', tols: [], taints: [{ key: 'a', value: 'b', effect: 'PreferNoSchedule' }], want: null },
    { name: 'NoExecute is filtered', tols: [], taints: [{ key: 'k', value: 'v', effect: 'NoExecute' }], want: 'node(s) had untolerated taint {k: v}' },
    { name: 'empty value prints empty', tols: [], taints: [{ key: 'k', effect: 'NoSchedule' }], want: 'node(s) had untolerated taint {k: }' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const pl = New(undefined, testHandle());
      const p = makePod();
      for (const t of c.tols) p.toleration(t);
      const n = makeNode().name('n');
      for (const t of c.taints) n.taint(t);
      const s = pl.filter(new CycleState(), p.obj(), nodeInfoOf(n.obj()));
      assert.equal(s ? s.reasons[0] : null, c.want);
      if (s) assert.equal(s.code, 3);
    });
  }
  it('toleratesTaint: empty operator means Equal', () => {
    assert.equal(toleratesTaint({ key: 'a', value: 'b' }, { key: 'a', value: 'b', effect: 'NoSchedule' }), true);
    assert.equal(toleratesTaint({ key: 'a' }, { key: 'a', value: 'b', effect: 'NoSchedule' }), false);
  });
});

describe('TaintToleration Score', () => {
  it('nodes with fewer intolerable PreferNoSchedule taints score higher', () => {
    const pl = New(undefined, testHandle());
    const pod = makePod().toleration({ key: 'cpu-type', operator: 'Equal', value: 'arm64', effect: 'PreferNoSchedule' }).obj();
    const n1 = makeNode().name('n1').taint({ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }).obj();
    const n2 = makeNode().name('n2').taint({ key: 'cpu-type', value: 'amd64', effect: 'PreferNoSchedule' }).obj();
    const n3 = makeNode().name('n3').taint({ key: 'a', value: 'b', effect: 'PreferNoSchedule' }).taint({ key: 'c', value: 'd', effect: 'PreferNoSchedule' }).obj();
    assert.deepEqual(scoreNodes(pl, pod, [nodeInfoOf(n1), nodeInfoOf(n2), nodeInfoOf(n3)]), [100, 50, 0]);
  });
  it('all nodes without such taints score 100', () => {
    const pl = New(undefined, testHandle());
    const n = makeNode().name('n').taint({ key: 'x', value: 'y', effect: 'NoSchedule' }).obj();
    assert.deepEqual(scoreNodes(pl, makePod().obj(), [nodeInfoOf(n), nodeInfoOf(makeNode().name('m').obj())]), [100, 100]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Namespace, Pod } from 'kubernetes-types/core/v1.js';
import { CycleState } from '../framework/cycle-state.js';
import { staticListers } from '../framework/listers.js';
import type { NodeInfo } from '../framework/node-info.js';
import { Snapshot } from '../framework/snapshot.js';
import { Code } from '../framework/status.js';
import { nodeInfoOf, scoreNodes, testHandle } from '../testing/framework-helpers.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import { ErrReasonAffinityRulesNotMatch, ErrReasonAntiAffinityRulesNotMatch, ErrReasonExistingAntiAffinityRulesNotMatch, New } from './InterPodAffinity.js';

const zoneNode = (name: string, zone: string) => makeNode().name(name).label('zone', zone).obj();
const term = (labels: Record<string, string>, topologyKey = 'zone', extra: object = {}) => ({ labelSelector: { matchLabels: labels }, topologyKey, ...extra });

/** Runs PreFilter + Filter over every node; returns node → verdict ('ok', 'skip' or `Code: reason`). */
function filterAll(pod: Pod, infos: NodeInfo[], namespaces: Namespace[] = []): Record<string, string> {
  const pl = New(undefined, testHandle(Snapshot.from(infos), { listers: staticListers({ namespaces }) }));
  const state = new CycleState();
  const [, ps] = pl.preFilter(state, pod, infos);
  const out: Record<string, string> = {};
  for (const ni of infos) {
    if (ps?.code === Code.Skip) out[ni.name] = 'skip';
    else if (ps) out[ni.name] = `${Code[ps.code]}: ${ps.message()}`;
    else {
      const s = pl.filter(state, pod, ni);
      out[ni.name] = s ? `${Code[s.code]}: ${s.reasons[0]}` : 'ok';
    }
  }
  return out;
}

describe('InterPodAffinity Filter', () => {
  const existing = makePod().name('db').label('app', 'db').obj();
  const infos = () => [nodeInfoOf(zoneNode('a1', 'A'), existing), nodeInfoOf(zoneNode('a2', 'A')), nodeInfoOf(zoneNode('b1', 'B'))];

  it('skips pods without terms when no pod has required anti-affinity', () => {
    assert.deepEqual(filterAll(makePod().obj(), infos()), { a1: 'skip', a2: 'skip', b1: 'skip' });
  });

  it('required affinity: only nodes in the topology domain of a matching pod', () => {
    const pod = makePod()
      .name('web')
      .podAffinity('podAffinity', term({ app: 'db' }))
      .obj();
    const no = `UnschedulableAndUnresolvable: ${ErrReasonAffinityRulesNotMatch}`;
    assert.deepEqual(filterAll(pod, infos()), { a1: 'ok', a2: 'ok', b1: no });
  });

  it('required affinity: nodes without the topology key never fit', () => {
    const pod = makePod()
      .name('web')
      .podAffinity('podAffinity', term({ app: 'db' }, 'rack'))
      .obj();
    const no = `UnschedulableAndUnresolvable: ${ErrReasonAffinityRulesNotMatch}`;
    assert.deepEqual(filterAll(pod, infos()), { a1: no, a2: no, b1: no });
  });

  it('the first pod of a group with affinity to itself may go anywhere the key exists', () => {
    const pod = makePod()
      .name('first')
      .label('app', 'cache')
      .podAffinity('podAffinity', term({ app: 'cache' }))
      .obj();
    assert.deepEqual(filterAll(pod, infos()), { a1: 'ok', a2: 'ok', b1: 'ok' });
  });

  it('required anti-affinity: not in the domain of a matching pod', () => {
    const pod = makePod()
      .name('web')
      .podAffinity('podAntiAffinity', term({ app: 'db' }))
      .obj();
    const no = `Unschedulable: ${ErrReasonAntiAffinityRulesNotMatch}`;
    assert.deepEqual(filterAll(pod, infos()), { a1: no, a2: no, b1: 'ok' });
  });

  it("existing pods' required anti-affinity keeps matching pods out of their domain", () => {
    const guard = makePod()
      .name('guard')
      .label('app', 'guard')
      .podAffinity('podAntiAffinity', term({ app: 'web' }))
      .obj();
    const list = [nodeInfoOf(zoneNode('a1', 'A'), guard), nodeInfoOf(zoneNode('a2', 'A')), nodeInfoOf(zoneNode('b1', 'B'))];
    const no = `Unschedulable: ${ErrReasonExistingAntiAffinityRulesNotMatch}`;
    assert.deepEqual(filterAll(makePod().name('web').label('app', 'web').obj(), list), { a1: no, a2: no, b1: 'ok' });
    assert.deepEqual(filterAll(makePod().name('other').label('app', 'other').obj(), list), { a1: 'skip', a2: 'skip', b1: 'skip' }, 'no term matches: PreFilter skips');
  });

  it('terms apply to the pod namespace unless namespaces or namespaceSelector say otherwise', () => {
    const other = makePod().name('db2').namespace('prod').label('app', 'db').obj();
    const list = [nodeInfoOf(zoneNode('a1', 'A')), nodeInfoOf(zoneNode('b1', 'B'), other)];
    const no = `UnschedulableAndUnresolvable: ${ErrReasonAffinityRulesNotMatch}`;
    const own = makePod()
      .name('web')
      .podAffinity('podAffinity', term({ app: 'db' }))
      .obj();
    assert.deepEqual(filterAll(own, list), { a1: no, b1: no }, 'default namespace has no db pod');
    const listed = makePod()
      .name('web')
      .podAffinity('podAffinity', term({ app: 'db' }, 'zone', { namespaces: ['prod'] }))
      .obj();
    assert.deepEqual(filterAll(listed, list), { a1: no, b1: 'ok' });
    const prod: Namespace = { metadata: { name: 'prod', labels: { env: 'prod' } } };
    const bySelector = makePod()
      .name('web')
      .podAffinity('podAffinity', term({ app: 'db' }, 'zone', { namespaceSelector: { matchLabels: { env: 'prod' } } }))
      .obj();
    assert.deepEqual(filterAll(bySelector, list, [prod, { metadata: { name: 'default' } }]), { a1: no, b1: 'ok' });
    const all = makePod()
      .name('web')
      .podAffinity('podAffinity', term({ app: 'db' }, 'zone', { namespaceSelector: {} }))
      .obj();
    assert.deepEqual(filterAll(all, list, [prod]), { a1: no, b1: 'ok' }, 'an empty namespaceSelector selects every namespace');
  });

  it('AddPod/RemovePod keep the counts for preemption', () => {
    const infosL = infos();
    const pl = New(undefined, testHandle(Snapshot.from(infosL)));
    const pod = makePod()
      .name('web')
      .podAffinity('podAntiAffinity', term({ app: 'db' }))
      .obj();
    const state = new CycleState();
    pl.preFilter(state, pod, infosL);
    assert.equal(pl.filter(state, pod, infosL[1]!)?.reasons[0], ErrReasonAntiAffinityRulesNotMatch);
    const copy = state.clone();
    pl.removePod(copy, pod, infosL[0]!.pods[0]!, infosL[0]!);
    assert.equal(pl.filter(copy, pod, infosL[1]!), null, 'the db pod removed: zone A is fine');
    assert.equal(pl.filter(state, pod, infosL[1]!)?.reasons[0], ErrReasonAntiAffinityRulesNotMatch, 'the original state is untouched');
  });
});

describe('InterPodAffinity Score', () => {
  it('preferred affinity favors the domain of matching pods, anti-affinity the others; min–max normalized', () => {
    const db = makePod().name('db').label('app', 'db').obj();
    const infos = [nodeInfoOf(zoneNode('a1', 'A'), db), nodeInfoOf(zoneNode('a2', 'A')), nodeInfoOf(zoneNode('b1', 'B'))];
    const pl = New(undefined, testHandle(Snapshot.from(infos)));
    const near = makePod()
      .name('web')
      .podAffinity('podAffinity', term({ app: 'db' }), 10)
      .obj();
    assert.deepEqual(scoreNodes(pl, near, infos), [100, 100, 0]);
    const far = makePod()
      .name('web')
      .podAffinity('podAntiAffinity', term({ app: 'db' }), 10)
      .obj();
    assert.deepEqual(scoreNodes(pl, far, infos), [0, 0, 100]);
  });

  it("existing pods' required affinity attracts matching pods with hardPodAffinityWeight", () => {
    const fan = makePod()
      .name('fan')
      .podAffinity('podAffinity', term({ app: 'web' }))
      .obj();
    const infos = [nodeInfoOf(zoneNode('a1', 'A'), fan), nodeInfoOf(zoneNode('b1', 'B'))];
    const pl = New({ hardPodAffinityWeight: 5 }, testHandle(Snapshot.from(infos)));
    assert.deepEqual(scoreNodes(pl, makePod().name('web').label('app', 'web').obj(), infos), [100, 0]);
    const off = New({ hardPodAffinityWeight: 0 }, testHandle(Snapshot.from(infos)));
    assert.deepEqual(scoreNodes(off, makePod().name('web').label('app', 'web').obj(), infos), [0, 0], 'PreScore skips');
  });

  it('rejects an out-of-range hardPodAffinityWeight', () => {
    assert.throws(() => New({ hardPodAffinityWeight: 101 }, testHandle()), /hardPodAffinityWeight: Invalid value: 101: not in valid range \[0-100\]/);
  });
});

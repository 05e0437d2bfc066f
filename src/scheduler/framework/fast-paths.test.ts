/**
 * The plugins' `filterAll` / `scoreAll` fast paths (snapshot columns, topology indexes)
 * must give exactly what `filter` / `score` give node by node.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Cache } from '../cache/cache.js';
import { FakeClient } from '../../client/testing/fake-client.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import { newInTreeRegistry } from '../plugins/registry.js';
import { CycleState } from './cycle-state.js';
import { Nominator } from '../queue/nominator.js';
import { defaultProfile } from './profile.js';
import { Framework } from './runtime.js';
import { Snapshot } from './snapshot.js';
import { Code } from './status.js';

function cluster() {
  const cache = new Cache({ now: () => 0 });
  for (let i = 0; i < 40; i++) {
    const n = makeNode()
      .name(`n${i}`)
      .capacity({ cpu: i % 7 === 0 ? '500m' : '4', memory: '8Gi', pods: i % 11 === 0 ? '1' : '110', ...(i % 5 === 0 ? { 'example.com/gpu': '2' } : {}) })
      .label('zone', `z${i % 3}`);
    if (i % 4 === 0) n.taint({ key: 'dedicated', value: 'x', effect: 'NoSchedule' });
    if (i % 9 === 0) n.unschedulable();
    if (i % 13 === 0) n.label('disk', 'ssd');
    const node = n.obj();
    if (i % 17 === 0) delete node.metadata!.labels!.zone;
    cache.addNode(node);
  }
  const placed: Pod[] = [];
  for (let i = 0; i < 60; i++) {
    const p = makePod()
      .name(`e${i}`)
      .label('app', i % 2 ? 'web' : 'db')
      .req({ cpu: `${100 + (i % 5) * 300}m`, memory: '256Mi' })
      .node(`n${(i * 7) % 40}`);
    if (i % 6 === 0) p.hostPort(8080);
    placed.push(p.obj());
  }
  for (const p of placed) cache.addPod(p);
  const snap = new Snapshot();
  cache.updateSnapshot(snap);
  return snap;
}

const pods: [string, Pod][] = [
  ['plain', makePod().name('p1').req({ cpu: '200m' }).obj()],
  ['big', makePod().name('p2').req({ cpu: '3', memory: '7Gi' }).obj()],
  ['gpu', makePod().name('p3').req({ cpu: '100m', 'example.com/gpu': '1' }).obj()],
  ['tolerant', makePod().name('p4').toleration({ key: 'dedicated', operator: 'Exists' }).obj()],
  ['port', makePod().name('p5').hostPort(8080).obj()],
  ['selector', makePod().name('p6').nodeSelector({ disk: 'ssd' }).obj()],
  [
    'spread',
    makePod()
      .name('p7')
      .label('app', 'web')
      .spread({ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } })
      .obj(),
  ],
  [
    'spread-soft',
    makePod()
      .name('p8')
      .label('app', 'web')
      .spread({ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'web' } } })
      .obj(),
  ],
  [
    'anti',
    makePod()
      .name('p9')
      .label('app', 'web')
      .podAffinity('podAntiAffinity', { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' })
      .obj(),
  ],
];

describe('filterAll / scoreAll fast paths', () => {
  for (const [name, pod] of pods) {
    it(`equal the per-node verdicts and scores: ${name}`, () => {
      const snap = cluster();
      const fwk = new Framework({
        registry: newInTreeRegistry(),
        profile: defaultProfile(),
        client: new FakeClient(),
        eventRecorder: { event: () => undefined },
        nominator: new Nominator(),
      });
      fwk.setSnapshot(snap);
      const state = new CycleState();
      const [, ps] = fwk.runPreFilterPlugins(state, pod);
      assert.ok(!ps || ps.code !== Code.Error, ps?.message());
      const nodes = snap.list();
      const idx = Int32Array.from(nodes.map((ni) => ni.index));
      for (const p of fwk.plugins.filter) {
        if (!p.filterAll || state.skipFilterPlugins.has(p.name)) continue;
        const out = new Array(nodes.length).fill(undefined);
        const bad = p.filterAll(state, pod, nodes, idx, snap.cols, nodes.length, out);
        const slow = nodes.map((ni) => p.filter(state, pod, ni));
        if (bad === 0) {
          // "all passed": out may be unwritten, the per-node verdicts must all be success
          assert.deepEqual(
            slow.filter((s) => s !== null && s.code !== Code.Success),
            [],
            `${p.name} on ${name} claims all pass`,
          );
          continue;
        }
        if (typeof bad === 'number') assert.equal(bad, slow.filter((s) => s !== null).length, `${p.name} on ${name}: count`);
        assert.deepEqual(
          out.map((s) => (s ? `${s.code}:${s.reasons.join()}` : null)),
          slow.map((s) => (s ? `${s.code}:${s.reasons.join()}` : null)),
          `${p.name} on ${name}`,
        );
      }
      fwk.runPreScorePlugins(state, pod, nodes);
      for (const p of fwk.plugins.score) {
        if (!p.scoreAll || state.skipScorePlugins.has(p.name)) continue;
        const fast = new Array<number>(nodes.length);
        assert.equal(p.scoreAll(state, pod, nodes, idx, snap.cols, fast), null);
        const slow = nodes.map((ni) => p.score(state, pod, ni));
        assert.deepEqual(fast, slow, `${p.name} on ${name}`);
      }
    });
  }

  for (const type of ['LeastAllocated', 'MostAllocated'] as const) {
    it(`NodeResourcesFit ${type} with unequal weights scores as node by node`, () => {
      const snap = cluster();
      const profile = defaultProfile();
      profile.pluginConfig = [
        {
          name: 'NodeResourcesFit',
          args: {
            scoringStrategy: {
              type,
              resources: [
                { name: 'cpu', weight: 3 },
                { name: 'memory', weight: 1 },
              ],
            },
          },
        },
      ];
      const fwk = new Framework({ registry: newInTreeRegistry(), profile, client: new FakeClient(), eventRecorder: { event: () => undefined }, nominator: new Nominator() });
      fwk.setSnapshot(snap);
      const pod = makePod().name('w').req({ cpu: '700m', memory: '1Gi' }).obj();
      const state = new CycleState();
      const nodes = snap.list();
      fwk.runPreScorePlugins(state, pod, nodes);
      const p = fwk.plugins.score.find((x) => x.name === 'NodeResourcesFit')!;
      const idx = Int32Array.from(nodes.map((ni) => ni.index));
      const fast = new Array<number>(nodes.length);
      assert.equal(p.scoreAll!(state, pod, nodes, idx, snap.cols, fast), null);
      assert.deepEqual(
        fast,
        nodes.map((ni) => p.score(state, pod, ni)),
      );
      // the weights matter: some node scores differ from the equal-weight mean
      assert.ok(new Set(fast).size > 1);
    });
  }
});

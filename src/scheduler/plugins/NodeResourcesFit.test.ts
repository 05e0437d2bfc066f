import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CycleState } from '../framework/cycle-state.js';
import { computePodRequests } from '../framework/resource.js';
import { nodeInfoOf, scoreNodes, testHandle } from '../testing/framework-helpers.js';
import { makeNode, makePod } from '../testing/wrappers.js';
import { New } from './NodeResourcesFit.js';

// Allocatable as in upstream's fit_test.go: 10m cpu, 20 bytes memory, 32 pods, 5 example.com/aaa, 20 ephemeral-storage.
const node = makeNode().name('n').capacity({ cpu: '10m', memory: '20', pods: '32', 'example.com/aaa': '5', 'ephemeral-storage': '20', 'hugepages-2Mi': '5' }).obj();
const used = (cpu: string, mem: string) => makePod().name('used').req({ cpu, memory: mem }).obj();

describe('NodeResourcesFit Filter', () => {
  const cases: { name: string; pod: ReturnType<typeof makePod>; existing: ReturnType<typeof used>[]; want: string[] | null }[] = [
    { name: 'no resources requested always fits', pod: makePod(), existing: [used('10m', '20')], want: null },
    { name: 'too many resources fails', pod: makePod().req({ cpu: '1m', memory: '1' }), existing: [used('10m', '20')], want: ['Insufficient cpu', 'Insufficient memory'] },
    {
      name: 'too many resources fails due to init container cpu',
      pod: makePod().req({ cpu: '1m', memory: '1' }).initReq({ cpu: '3m', memory: '1' }),
      existing: [used('8m', '19')],
      want: ['Insufficient cpu'],
    },
    {
      name: 'too many resources fails due to highest init container cpu',
      pod: makePod().req({ cpu: '1m', memory: '1' }).initReq({ cpu: '3m', memory: '1' }).initReq({ cpu: '2m', memory: '1' }),
      existing: [used('8m', '19')],
      want: ['Insufficient cpu'],
    },
    { name: 'both resources fit', pod: makePod().req({ cpu: '1m', memory: '1' }), existing: [used('5m', '5')], want: null },
    { name: 'one resource memory fits', pod: makePod().req({ cpu: '2m', memory: '1' }), existing: [used('9m', '5')], want: ['Insufficient cpu'] },
    { name: 'one resource cpu fits', pod: makePod().req({ cpu: '1m', memory: '2' }), existing: [used('5m', '19')], want: ['Insufficient memory'] },
    { name: 'equal edge case', pod: makePod().req({ cpu: '5m', memory: '1' }), existing: [used('5m', '19')], want: null },
    {
      name: 'equal edge case for init container',
      pod: makePod().req({ cpu: '4m', memory: '1' }).initReq({ cpu: '5m', memory: '1' }),
      existing: [used('5m', '19')],
      want: null,
    },
    { name: 'extended resource fits', pod: makePod().req({ 'example.com/aaa': '1' }), existing: [], want: null },
    { name: 'extended resource capacity enforced', pod: makePod().req({ 'example.com/aaa': '10' }), existing: [], want: ['Insufficient example.com/aaa'] },
    { name: 'unknown extended resource', pod: makePod().req({ 'example.com/bbb': '1' }), existing: [], want: ['Insufficient example.com/bbb'] },
    { name: 'hugepages capacity enforced', pod: makePod().req({ 'hugepages-2Mi': '10' }), existing: [], want: ['Insufficient hugepages-2Mi'] },
    { name: 'ephemeral storage', pod: makePod().req({ 'ephemeral-storage': '25' }), existing: [], want: ['Insufficient ephemeral-storage'] },
    {
      name: 'resources + pod overhead fits',
      pod: makePod().req({ cpu: '1m', memory: '1' }).overhead({ cpu: '3m', memory: '13' }),
      existing: [used('5m', '5')],
      want: null,
    },
    {
      name: 'requests + overhead does not fit for memory',
      pod: makePod().req({ cpu: '1m', memory: '1' }).overhead({ cpu: '1m', memory: '15' }),
      existing: [used('5m', '5')],
      want: ['Insufficient memory'],
    },
    {
      name: 'sidecar requests count with the app containers',
      pod: makePod().req({ cpu: '3m' }).initReq({ cpu: '3m' }, true),
      existing: [used('5m', '5')],
      want: ['Insufficient cpu'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const pl = New(undefined, testHandle());
      const state = new CycleState();
      const pod = c.pod.obj();
      pl.preFilter(state, pod, []);
      const s = pl.filter(state, pod, nodeInfoOf(node, ...c.existing));
      assert.deepEqual(s ? [...s.reasons] : null, c.want);
      if (s) assert.equal(s.code, 2 /* Unschedulable */);
    });
  }

  it('reports Too many pods', () => {
    const full = makeNode().name('f').capacity({ cpu: '10', memory: '10Gi', pods: '1' }).obj();
    const pl = New(undefined, testHandle());
    const state = new CycleState();
    const pod = makePod().name('p').obj();
    pl.preFilter(state, pod, []);
    assert.deepEqual(pl.filter(state, pod, nodeInfoOf(full, makePod().name('a').obj()))?.reasons, ['Too many pods']);
  });

  it('ignores configured extended resources and groups', () => {
    const pl = New({ ignoredResources: ['example.com/bbb'], ignoredResourceGroups: ['example.org'] }, testHandle());
    const state = new CycleState();
    const pod = makePod().req({ 'example.com/bbb': '1', 'example.org/x': '2' }).obj();
    pl.preFilter(state, pod, []);
    assert.equal(pl.filter(state, pod, nodeInfoOf(node)), null);
  });
});

describe('pod requests (init containers, sidecars, overhead)', () => {
  it('max(sum of app + sidecars, each init + earlier sidecars) + overhead', () => {
    const pod = makePod().req({ cpu: '1m' }).initReq({ cpu: '2m' }, true).initReq({ cpu: '5m' }).initReq({ cpu: '1m' }, true).overhead({ cpu: '10m' }).obj();
    // app 1 + sidecars 2+1 = 4; regular init 5 + earlier sidecar 2 = 7 → 7, + overhead 10
    assert.equal(computePodRequests(pod).milliCPU, 17);
  });

  it('non-zero defaults apply only to containers missing the request', () => {
    const pod = makePod().containers({ cpu: '0' }, undefined).obj();
    const r = computePodRequests(pod, true);
    assert.equal(r.milliCPU, 100);
    assert.equal(r.memory, 2 * 200 * 1024 * 1024);
  });
});

describe('NodeResourcesFit Score', () => {
  const n1 = makeNode().name('node1').capacity({ cpu: '4', memory: '10000', pods: '110' }).obj();
  const n2 = makeNode().name('node2').capacity({ cpu: '6', memory: '10000', pods: '110' }).obj();
  const pod = makePod().req({ cpu: '3', memory: '5000' }).obj();
  const strategy = (type: string, extra: object = {}) => ({
    scoringStrategy: {
      type,
      resources: [
        { name: 'cpu', weight: 1 },
        { name: 'memory', weight: 1 },
      ],
      ...extra,
    },
  });

  it('LeastAllocated: differently sized nodes', () => {
    const pl = New(strategy('LeastAllocated'), testHandle());
    assert.deepEqual(scoreNodes(pl, pod, [nodeInfoOf(n1), nodeInfoOf(n2)]), [37, 50]);
  });

  it('LeastAllocated: counts non-zero requests for pods without requests', () => {
    const pl = New(strategy('LeastAllocated'), testHandle());
    const big = makeNode()
      .name('b')
      .capacity({ cpu: '1', memory: `${400 * 1024 * 1024}`, pods: '110' })
      .obj();
    // 100m of 1000m → 90; 200Mi of 400Mi → 50
    assert.deepEqual(scoreNodes(pl, makePod().obj(), [nodeInfoOf(big)]), [70]);
  });

  it('MostAllocated: differently sized nodes', () => {
    const pl = New(strategy('MostAllocated'), testHandle());
    assert.deepEqual(scoreNodes(pl, pod, [nodeInfoOf(n1), nodeInfoOf(n2)]), [62, 50]);
  });

  it('RequestedToCapacityRatio: shape rounds the weighted mean', () => {
    const pl = New(
      strategy('RequestedToCapacityRatio', {
        requestedToCapacityRatio: {
          shape: [
            { utilization: 0, score: 10 },
            { utilization: 100, score: 0 },
          ],
        },
      }),
      testHandle(),
    );
    assert.deepEqual(scoreNodes(pl, pod, [nodeInfoOf(n1), nodeInfoOf(n2)]), [38, 50]);
  });

  it('rejects unknown strategies', () => {
    assert.throws(() => New({ scoringStrategy: { type: 'Nope' } }, testHandle()), /scoring strategy Nope is not supported/);
  });
});

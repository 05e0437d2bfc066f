import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { normalizeDesiredReplicas } from './normalize.js';
import { type PodMetric, resourceReplicas } from './replica-calculator.js';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const pod = (name: string, o: { phase?: string; ready?: boolean; request?: string; startedAgoMs?: number } = {}): Pod => ({
  metadata: { name },
  spec: { containers: [{ name: 'c', ...(o.request === '' ? {} : { resources: { requests: { cpu: o.request ?? '100m' } } }) }] },
  status: {
    phase: o.phase ?? 'Running',
    startTime: new Date(NOW - (o.startedAgoMs ?? 3_600_000)).toISOString(),
    conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: new Date(NOW - (o.startedAgoMs ?? 3_600_000) + 1000).toISOString() }],
  },
});
const m = (entries: [string, number][]): Map<string, PodMetric> => new Map(entries.map(([k, v]) => [k, { value: v, timestamp: NOW, window: 15_000 }]));

test('utilization: ratio of usage to requests against the target, tolerance 0.1', () => {
  assert.deepEqual(
    resourceReplicas(
      2,
      { utilization: 50 },
      'cpu',
      [pod('a'), pod('b')],
      m([
        ['a', 100],
        ['b', 100],
      ]),
      NOW,
    ),
    { replicas: 4, utilization: 100, rawAverage: 100 },
  );
  // 54 % against 50 %: within the tolerance
  assert.equal(
    resourceReplicas(
      2,
      { utilization: 50 },
      'cpu',
      [pod('a'), pod('b')],
      m([
        ['a', 54],
        ['b', 54],
      ]),
      NOW,
    ).replicas,
    2,
  );
  assert.equal(
    resourceReplicas(
      4,
      { utilization: 50 },
      'cpu',
      [pod('a'), pod('b'), pod('c'), pod('d')],
      m([
        ['a', 10],
        ['b', 10],
        ['c', 10],
        ['d', 10],
      ]),
      NOW,
    ).replicas,
    1,
  );
});

test('missing and unready pods are counted conservatively; errors as upstream', () => {
  // scale up with a missing pod: it counts as 0 → (200+200+0)/300 = 133 % of 50 % → ceil(2.66 × 3) = 8
  assert.equal(
    resourceReplicas(
      3,
      { utilization: 50 },
      'cpu',
      [pod('a'), pod('b'), pod('c')],
      m([
        ['a', 200],
        ['b', 200],
      ]),
      NOW,
    ).replicas,
    8,
  );
  // an unready pod (Ready=False within its CPU initialization period) counts as 0 when scaling up:
  // (100 + 0) / 200 = 50 % = the target, so nothing changes; (300 + 0) / 200 = 150 % → ceil(3 × 2) = 6
  const unready = pod('b', { ready: false, startedAgoMs: 60_000 });
  assert.equal(
    resourceReplicas(
      2,
      { utilization: 50 },
      'cpu',
      [pod('a'), unready],
      m([
        ['a', 100],
        ['b', 500],
      ]),
      NOW,
    ).replicas,
    2,
  );
  assert.equal(
    resourceReplicas(
      2,
      { utilization: 50 },
      'cpu',
      [pod('a'), unready],
      m([
        ['a', 300],
        ['b', 500],
      ]),
      NOW,
    ).replicas,
    6,
  );
  assert.throws(() => resourceReplicas(1, { utilization: 50 }, 'cpu', [], m([]), NOW), /^Error: no pods returned by selector while calculating replica count$/);
  assert.throws(() => resourceReplicas(1, { utilization: 50 }, 'cpu', [pod('a', { request: '' })], m([['a', 5]]), NOW), /^Error: missing request for cpu in container c of Pod a$/);
  assert.throws(
    () => resourceReplicas(1, { utilization: 50 }, 'cpu', [pod('a', { phase: 'Pending' })], m([['a', 5]]), NOW),
    /^Error: did not receive metrics for targeted pods \(pods might be unready\)$/,
  );
  // average value targets: 300m per pod against 100m
  assert.equal(
    resourceReplicas(
      2,
      { averageMilli: 100 },
      'cpu',
      [pod('a'), pod('b')],
      m([
        ['a', 300],
        ['b', 300],
      ]),
      NOW,
    ).replicas,
    6,
  );
});

test('normalization: 5-minute scale-down stabilization, scale-up limit, min/max', () => {
  const t = NOW;
  const up = normalizeDesiredReplicas([], 12, 2, 1, 10, t);
  assert.equal(up.replicas, 4);
  assert.deepEqual(up.conditions.at(-1), {
    type: 'ScalingLimited',
    status: 'True',
    reason: 'ScaleUpLimit',
    message: 'the desired replica count is increasing faster than the maximum scale rate',
  });
  const down = normalizeDesiredReplicas([{ at: t - 60_000, replicas: 6 }], 2, 6, 1, 10, t);
  assert.equal(down.replicas, 6);
  assert.equal(down.conditions[0]!.reason, 'ScaleDownStabilized');
  const later = normalizeDesiredReplicas([{ at: t - 6 * 60_000, replicas: 6 }], 2, 6, 1, 10, t);
  assert.equal(later.replicas, 2);
  assert.deepEqual(later.conditions.at(-1), { type: 'ScalingLimited', status: 'False', reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' });
  assert.equal(normalizeDesiredReplicas([], 0, 3, 2, 10, t).replicas, 2);
});

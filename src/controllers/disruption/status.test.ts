import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../util/pods.js';
import {
  buildDisruptedPodMap,
  conditionsAreUpToDate,
  countHealthyPods,
  DELETION_TIMEOUT_MS,
  expectedPodCount,
  failSafeStatus,
  nextStatus,
  type PDB,
  scaledIntOrPercent,
  staleDisruptionCondition,
} from './status.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function pod(name: string, ready: boolean, extra: { deleting?: boolean } = {}): Pod {
  return {
    metadata: { name, namespace: 'default', ...(extra.deleting ? { deletionTimestamp: iso(T0) } : {}) },
    spec: { containers: [] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

const pdb = (spec: PDB['spec'], status?: PDB['status'], generation = 1): PDB => ({ metadata: { name: 'b', namespace: 'default', generation }, spec, status });

describe('disruption status arithmetic', () => {
  it('scales int-or-percent like intstr (rounding up) and rejects what upstream rejects', () => {
    assert.equal(scaledIntOrPercent(2, 10, true), 2);
    assert.equal(scaledIntOrPercent('50%', 3, true), 2);
    assert.equal(scaledIntOrPercent('34%', 3, true), 2);
    assert.equal(scaledIntOrPercent('0%', 3, true), 0);
    assert.throws(() => scaledIntOrPercent('5', 3, true), /^Error: invalid value for IntOrString: invalid type: string is not a percentage$/);
    assert.throws(() => scaledIntOrPercent('x%', 3, true), /invalid value "x%"/);
  });

  it('expected and desired counts: minAvailable int needs no controllers; percents and maxUnavailable use the scale', async () => {
    const noScale = async (): Promise<number> => assert.fail('scale asked');
    assert.deepEqual(await expectedPodCount(pdb({ minAvailable: 2 }), 3, noScale), { expectedCount: 3, desiredHealthy: 2 });
    assert.deepEqual(await expectedPodCount(pdb({ minAvailable: '50%' }), 3, async () => 4), { expectedCount: 4, desiredHealthy: 2 });
    assert.deepEqual(await expectedPodCount(pdb({ maxUnavailable: '34%' }), 3, async () => 3), { expectedCount: 3, desiredHealthy: 1 });
    assert.deepEqual(await expectedPodCount(pdb({ maxUnavailable: 5 }), 3, async () => 3), { expectedCount: 3, desiredHealthy: 0 });
    await assert.rejects(
      expectedPodCount(pdb({ maxUnavailable: 1 }), 1, async () => Promise.reject(new Error('found no controllers for pod "a"'))),
      /found no controllers/,
    );
  });

  it('keeps disrupted pods within DeletionTimeout, drops expired, deleted and vanished ones', () => {
    const b = pdb(
      { minAvailable: 1 },
      {
        disruptedPods: { a: iso(T0), b: iso(T0 - DELETION_TIMEOUT_MS - 1000), c: iso(T0), gone: iso(T0) },
        currentHealthy: 0,
        desiredHealthy: 0,
        expectedPods: 0,
        disruptionsAllowed: 0,
      },
    );
    const pods = [pod('a', true), pod('b', true), pod('c', true, { deleting: true })];
    const r = buildDisruptedPodMap(pods, b, T0 + 1000);
    assert.deepEqual(r.disrupted, { a: iso(T0) });
    assert.deepEqual(
      r.expired.map((p) => p.metadata?.name),
      ['b'],
    );
    assert.equal(r.recheckAt, T0 + DELETION_TIMEOUT_MS);
    // a is disrupted, c is being deleted, d is not Ready: only b counts
    assert.equal(countHealthyPods([...pods, pod('d', false)], r.disrupted, T0 + 1000), 1);
    // past the timeout a disrupted pod counts again
    assert.equal(countHealthyPods(pods, r.disrupted, T0 + DELETION_TIMEOUT_MS + 1), 2);
  });

  it('builds the status with DisruptionAllowed and writes nothing when it is current', () => {
    const b = pdb({ minAvailable: 2 });
    const next = nextStatus(b, { currentHealthy: 3, desiredHealthy: 2, expectedCount: 3, disrupted: {} }, T0)!;
    assert.deepEqual(next.status, {
      observedGeneration: 1,
      disruptionsAllowed: 1,
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
      conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: 1, lastTransitionTime: iso(T0) }],
    });
    assert.ok(conditionsAreUpToDate(next));
    assert.equal(nextStatus(next, { currentHealthy: 3, desiredHealthy: 2, expectedCount: 3, disrupted: {} }, T0 + 5000), undefined);
    // one evicted: no disruption left, the condition flips with a new transition time
    const after = nextStatus(next, { currentHealthy: 2, desiredHealthy: 2, expectedCount: 3, disrupted: { x: iso(T0) } }, T0 + 5000)!;
    assert.equal(after.status?.disruptionsAllowed, 0);
    assert.deepEqual(after.status?.disruptedPods, { x: iso(T0) });
    assert.deepEqual(after.status?.conditions?.[0], {
      type: 'DisruptionAllowed',
      status: 'False',
      reason: 'InsufficientPods',
      message: '',
      observedGeneration: 1,
      lastTransitionTime: iso(T0 + 5000),
    });
    // no expected pods: no disruption even with healthy pods over the bar
    assert.equal(nextStatus(b, { currentHealthy: 2, desiredHealthy: 0, expectedCount: 0, disrupted: {} }, T0)?.status?.disruptionsAllowed, 0);
    // a new generation is written even with the same counts
    const bumped = { ...next, metadata: { ...next.metadata, generation: 2 } };
    assert.equal(nextStatus(bumped, { currentHealthy: 3, desiredHealthy: 2, expectedCount: 3, disrupted: {} }, T0)?.status?.observedGeneration, 2);
  });

  it('failSafe: no disruptions, SyncFailed with the error, observedGeneration kept', () => {
    const b = pdb({ maxUnavailable: 1 }, { observedGeneration: 1, disruptionsAllowed: 2, currentHealthy: 3, desiredHealthy: 1, expectedPods: 3 }, 2);
    const f = failSafeStatus(b, new Error('found no controllers for pod "a"'), T0);
    assert.equal(f.status?.disruptionsAllowed, 0);
    assert.equal(f.status?.observedGeneration, 1);
    assert.deepEqual(f.status?.conditions, [
      { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: 'found no controllers for pod "a"', observedGeneration: 1, lastTransitionTime: iso(T0) },
    ]);
  });

  it('stale DisruptionTarget: only True, not by the kubelet, on live non-terminal pods, after 2 min', () => {
    const p = pod('a', true);
    p.status!.conditions!.push({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', lastTransitionTime: iso(T0) });
    assert.deepEqual(staleDisruptionCondition(p, T0 + 60_000), { has: true, waitMs: 60_000 });
    assert.deepEqual(staleDisruptionCondition(p, T0 + 180_000), { has: true, waitMs: 0 });
    const kubelet = structuredClone(p);
    kubelet.status!.conditions![1]!.reason = 'TerminationByKubelet';
    assert.equal(staleDisruptionCondition(kubelet, T0).has, false);
    const done = structuredClone(p);
    done.status!.phase = 'Succeeded';
    assert.equal(staleDisruptionCondition(done, T0).has, false);
    assert.equal(staleDisruptionCondition(pod('b', true), T0).has, false);
  });
});

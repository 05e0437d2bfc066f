import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscalerBehavior, HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';
import { type BehaviorHistory, normalizeWithBehaviors, recordScaleEvent, scaleDownLimit, scaleUpLimit } from './behavior.js';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const empty = (): BehaviorHistory => ({ recommendations: [], scaleUpEvents: [], scaleDownEvents: [] });
const FLAG_WINDOW_MS = 300_000;

/** upstream's defaults as API defaulting fills them */
const defaults = (): HorizontalPodAutoscalerBehavior => ({
  scaleUp: {
    stabilizationWindowSeconds: 0,
    selectPolicy: 'Max',
    policies: [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ],
  },
  scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
});

const limited = (r: ReturnType<typeof normalizeWithBehaviors>) => r.conditions.find((c) => c.type === 'ScalingLimited')!;
const able = (r: ReturnType<typeof normalizeWithBehaviors>) => r.conditions.find((c) => c.type === 'AbleToScale')!;

test('upstream TestCalculateScaleUpLimitWithScalingRules: Min of 2 Pods and 50 Percent from 1 replica is 2 (the percent rounds up)', () => {
  const rules: HPAScalingRules = {
    stabilizationWindowSeconds: 300,
    selectPolicy: 'Min',
    policies: [
      { type: 'Pods', value: 2, periodSeconds: 60 },
      { type: 'Percent', value: 50, periodSeconds: 60 },
    ],
  };
  assert.equal(scaleUpLimit(1, empty(), rules, NOW), 2);
  assert.equal(scaleUpLimit(1, empty(), { ...rules, selectPolicy: 'Max' }, NOW), 3);
  assert.equal(scaleUpLimit(1, empty(), { ...rules, selectPolicy: 'Disabled' }, NOW), 1);
});

test('upstream TestCalculateScaleDownLimitWithBehaviors: Min of 2 Pods and 50 Percent from 5 replicas keeps 3 (the percent truncates)', () => {
  const rules: HPAScalingRules = {
    stabilizationWindowSeconds: 300,
    selectPolicy: 'Min',
    policies: [
      { type: 'Pods', value: 2, periodSeconds: 60 },
      { type: 'Percent', value: 50, periodSeconds: 60 },
    ],
  };
  assert.equal(scaleDownLimit(5, empty(), rules, NOW), 3);
  assert.equal(scaleDownLimit(5, empty(), { ...rules, selectPolicy: 'Max' }, NOW), 2);
  assert.equal(scaleDownLimit(5, empty(), { ...rules, selectPolicy: 'Disabled' }, NOW), 5);
});

test('default scale-up rules: from 1 replica at most 5 (4 Pods beats 100 Percent), ScaleUpLimit', () => {
  const r = normalizeWithBehaviors(empty(), defaults(), 10, 1, 1, 20, NOW, FLAG_WINDOW_MS);
  assert.equal(r.replicas, 5);
  assert.deepEqual(limited(r), {
    type: 'ScalingLimited',
    status: 'True',
    reason: 'ScaleUpLimit',
    message: 'the desired replica count is increasing faster than the maximum scale rate',
  });
  assert.deepEqual(able(r), { type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' });
  // from 10 replicas doubling wins: 20, then maxReplicas limits to 15 (TooManyReplicas)
  const m = normalizeWithBehaviors(empty(), defaults(), 40, 10, 1, 15, NOW, FLAG_WINDOW_MS);
  assert.equal(m.replicas, 15);
  assert.equal(limited(m).reason, 'TooManyReplicas');
  assert.equal(limited(m).message, 'the desired replica count is more than the maximum replica count');
});

test('scale events within a policy period count against it: after 1 → 5 the next 15 s allow no more', () => {
  const h = empty();
  recordScaleEvent(h, defaults(), 1, 5, NOW - 5_000);
  const held = normalizeWithBehaviors(h, defaults(), 12, 5, 1, 20, NOW, FLAG_WINDOW_MS);
  assert.equal(held.replicas, 5);
  assert.equal(limited(held).reason, 'ScaleUpLimit');
  // once the period has passed: 5 + 4 or 2 × 5
  const later = normalizeWithBehaviors(h, defaults(), 12, 5, 1, 20, NOW + 11_000, FLAG_WINDOW_MS);
  assert.equal(later.replicas, 10);
  // a scale-down within the period gives room back (upstream counts both directions)
  const h2 = empty();
  recordScaleEvent(h2, defaults(), 8, 4, NOW - 5_000);
  assert.equal(scaleUpLimit(4, h2, defaults().scaleUp!, NOW), 16);
});

test('the documentation’s scale-down policies: 4 Pods or 10 Percent per 60 s from 80 replicas — Max change 72, Min change 76', () => {
  const scaleDown: HPAScalingRules = {
    stabilizationWindowSeconds: 0,
    policies: [
      { type: 'Pods', value: 4, periodSeconds: 60 },
      { type: 'Percent', value: 10, periodSeconds: 60 },
    ],
  };
  const max = normalizeWithBehaviors(empty(), { ...defaults(), scaleDown: { ...scaleDown, selectPolicy: 'Max' } }, 10, 80, 1, 100, NOW, FLAG_WINDOW_MS);
  assert.equal(max.replicas, 72);
  assert.deepEqual(limited(max), {
    type: 'ScalingLimited',
    status: 'True',
    reason: 'ScaleDownLimit',
    message: 'the desired replica count is decreasing faster than the maximum scale rate',
  });
  const min = normalizeWithBehaviors(empty(), { ...defaults(), scaleDown: { ...scaleDown, selectPolicy: 'Min' } }, 10, 80, 1, 100, NOW, FLAG_WINDOW_MS);
  assert.equal(min.replicas, 76);
  // minReplicas above the rate limit: TooFewReplicas
  const floor = normalizeWithBehaviors(empty(), { ...defaults(), scaleDown: { ...scaleDown, selectPolicy: 'Max' } }, 10, 80, 75, 100, NOW, FLAG_WINDOW_MS);
  assert.equal(floor.replicas, 75);
  assert.equal(limited(floor).reason, 'TooFewReplicas');
  assert.equal(limited(floor).message, 'the desired replica count is less than the minimum replica count');
});

test('selectPolicy Disabled: no scaling in that direction (ScaleDownLimit at the current count)', () => {
  const r = normalizeWithBehaviors(
    empty(),
    { ...defaults(), scaleDown: { selectPolicy: 'Disabled', stabilizationWindowSeconds: 0, policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } },
    1,
    5,
    1,
    10,
    NOW,
    FLAG_WINDOW_MS,
  );
  assert.equal(r.replicas, 5);
  assert.equal(limited(r).reason, 'ScaleDownLimit');
  const up = normalizeWithBehaviors(
    empty(),
    { ...defaults(), scaleUp: { selectPolicy: 'Disabled', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] } },
    9,
    5,
    1,
    10,
    NOW,
    FLAG_WINDOW_MS,
  );
  assert.equal(up.replicas, 5);
  assert.equal(limited(up).reason, 'ScaleUpLimit');
});

test('stabilization windows: scale-up holds the lowest recent recommendation, scale-down the highest', () => {
  const b: HorizontalPodAutoscalerBehavior = { ...defaults(), scaleUp: { ...defaults().scaleUp, stabilizationWindowSeconds: 60 } };
  const h: BehaviorHistory = { ...empty(), recommendations: [{ at: NOW - 30_000, replicas: 3 }] };
  const up = normalizeWithBehaviors(h, b, 6, 2, 1, 10, NOW, FLAG_WINDOW_MS);
  assert.equal(up.replicas, 3);
  assert.deepEqual(able(up), {
    type: 'AbleToScale',
    status: 'True',
    reason: 'ScaleUpStabilized',
    message: 'recent recommendations were lower than current one, applying the lowest recent recommendation',
  });
  assert.deepEqual(
    h.recommendations.map((r) => r.replicas),
    [3, 6],
  );

  const h2: BehaviorHistory = { ...empty(), recommendations: [{ at: NOW - 200_000, replicas: 8 }] };
  const down = normalizeWithBehaviors(h2, defaults(), 2, 8, 1, 10, NOW, FLAG_WINDOW_MS);
  assert.equal(down.replicas, 8);
  assert.equal(able(down).reason, 'ScaleDownStabilized');
  assert.equal(able(down).message, 'recent recommendations were higher than current one, applying the highest recent recommendation');
  // past the 300 s window the recommendation goes through
  const after = normalizeWithBehaviors({ ...empty(), recommendations: [{ at: NOW - 301_000, replicas: 8 }] }, defaults(), 2, 8, 1, 10, NOW, FLAG_WINDOW_MS);
  assert.equal(after.replicas, 2);
  assert.equal(able(after).reason, 'ReadyForNewScale');
});

test('a scale-down rule without stabilizationWindowSeconds takes --horizontal-pod-autoscaler-downscale-stabilization', () => {
  const b: HorizontalPodAutoscalerBehavior = { scaleUp: defaults().scaleUp, scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } };
  const rec = [{ at: NOW - 20_000, replicas: 6 }];
  assert.equal(normalizeWithBehaviors({ ...empty(), recommendations: [...rec] }, b, 1, 6, 1, 10, NOW, 30_000).replicas, 6);
  assert.equal(normalizeWithBehaviors({ ...empty(), recommendations: [...rec] }, b, 1, 6, 1, 10, NOW, 10_000).replicas, 1);
});

test('recordScaleEvent keeps only the events of the longest policy period', () => {
  const h = empty();
  recordScaleEvent(h, defaults(), 1, 3, NOW - 20_000);
  recordScaleEvent(h, defaults(), 3, 6, NOW);
  assert.deepEqual(h.scaleUpEvents, [{ at: NOW, change: 3 }]);
  recordScaleEvent(h, defaults(), 6, 2, NOW);
  assert.deepEqual(h.scaleDownEvents, [{ at: NOW, change: 4 }]);
});

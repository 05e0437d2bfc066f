import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hpaConfigFrom } from './hpa-flags.js';

test('hpaConfigFrom: upstream defaults, Go durations, pflag-style errors', () => {
  assert.deepEqual(hpaConfigFrom({}), {
    syncPeriodMs: 15_000,
    downscaleStabilizationMs: 300_000,
    tolerance: 0.1,
    cpuInitializationPeriodMs: 300_000,
    initialReadinessDelayMs: 30_000,
  });
  assert.deepEqual(hpaConfigFrom({ horizontalPodAutoscalerSyncPeriod: '2s', horizontalPodAutoscalerDownscaleStabilization: '1m30s', horizontalPodAutoscalerTolerance: '0.05' }), {
    syncPeriodMs: 2_000,
    downscaleStabilizationMs: 90_000,
    tolerance: 0.05,
    cpuInitializationPeriodMs: 300_000,
    initialReadinessDelayMs: 30_000,
  });
  assert.equal(
    hpaConfigFrom({ horizontalPodAutoscalerSyncPeriod: 'soon' }),
    'invalid argument "soon" for "--horizontal-pod-autoscaler-sync-period" flag: time: invalid duration "soon"',
  );
  assert.equal(hpaConfigFrom({ horizontalPodAutoscalerSyncPeriod: '0' }), 'invalid argument "0s" for "--horizontal-pod-autoscaler-sync-period" flag: must be positive');
  assert.equal(
    hpaConfigFrom({ horizontalPodAutoscalerTolerance: 'x' }),
    'invalid argument "x" for "--horizontal-pod-autoscaler-tolerance" flag: strconv.ParseFloat: parsing "x": invalid syntax',
  );
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Obj } from '../../../resource.js';
import { BEHAVIOR_ANNOTATION, CONDITIONS_ANNOTATION, hpaV1ToV2, hpaV2ToV1, METRICS_ANNOTATION } from './conversion.js';
import { horizontalPodAutoscalerV1Definition as def } from './strategy.js';
import { fieldErrorString } from '../../../../apimachinery/field-errors.js';

const REF = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

test('v1 targetCPUUtilizationPercentage ↔ v2 metrics[0] resource cpu Utilization', () => {
  const v1 = {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web' },
    spec: { scaleTargetRef: REF, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 80 },
  } as Obj;
  const v2 = hpaV1ToV2(v1 as never);
  assert.equal(v2.apiVersion, 'autoscaling/v2');
  assert.deepEqual(v2.spec, {
    scaleTargetRef: REF,
    minReplicas: 2,
    maxReplicas: 5,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
  });
  const back = hpaV2ToV1(v2);
  assert.equal(back.apiVersion, 'autoscaling/v1');
  assert.deepEqual(back.spec, v1.spec);
  assert.equal(back.metadata.annotations, undefined);
});

test('what v1 cannot hold travels in annotations and comes back', () => {
  const v2 = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', annotations: { keep: 'me' } },
    spec: {
      scaleTargetRef: REF,
      minReplicas: 1,
      maxReplicas: 4,
      metrics: [
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } },
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } },
    },
    status: {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 55 } } }],
      conditions: [{ type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: 'm' }],
    },
  } as Obj;
  const v1 = hpaV2ToV1(v2 as never);
  assert.equal(v1.spec?.targetCPUUtilizationPercentage, 70);
  assert.equal(v1.status?.currentCPUUtilizationPercentage, 55);
  assert.equal(v1.status?.desiredReplicas, 3);
  const a = v1.metadata.annotations!;
  assert.equal(a.keep, 'me');
  assert.match(a[METRICS_ANNOTATION]!, /memory/);
  assert.match(a[BEHAVIOR_ANNOTATION]!, /stabilizationWindowSeconds/);
  assert.match(a[CONDITIONS_ANNOTATION]!, /SucceededGetScale/);
  const again = hpaV1ToV2(v1);
  assert.deepEqual(again.metadata.annotations, { keep: 'me' });
  assert.deepEqual(
    again.spec?.metrics?.map((m) => m.resource?.name),
    ['cpu', 'memory'],
  );
  // v2 defaults fill the scaleUp rules of a behavior
  assert.equal(again.spec?.behavior?.scaleUp?.selectPolicy, 'Max');
  assert.equal(again.spec?.behavior?.scaleDown?.stabilizationWindowSeconds, 60);
  assert.deepEqual(again.status?.conditions, v2.status && (v2.status as { conditions: unknown }).conditions);
  assert.equal(again.status?.currentMetrics?.[0]?.resource?.current.averageUtilization, 55);
});

test('v1 validation reports the v2 rules; v1 defaults minReplicas to 1', () => {
  const bad = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { scaleTargetRef: REF, minReplicas: 3, maxReplicas: 2 } } as Obj;
  assert.deepEqual(def.validate!(bad as never, {} as never).map(fieldErrorString), ['spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`']);
  const plain = { metadata: { name: 'x' }, spec: { scaleTargetRef: REF, maxReplicas: 2 } } as Obj;
  def.defaults!(plain as never);
  assert.equal((plain.spec as { minReplicas: number }).minReplicas, 1);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import { fieldErrorString } from '../../../../apimachinery/field-errors.js';
import type { O } from '../../../core/v1/shared/types.js';
import { defaultHorizontalPodAutoscaler } from './defaults.js';
import { formatHPAMetrics, hpaTable } from './printing.js';
import { horizontalPodAutoscalerDefinition as def } from './strategy.js';
import { validateHorizontalPodAutoscaler } from './validation.js';

const hpa = (spec: Record<string, unknown>): O<HorizontalPodAutoscaler> =>
  ({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default' }, spec }) as unknown as O<HorizontalPodAutoscaler>;
const REF = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const errs = (h: O<HorizontalPodAutoscaler>): string[] => validateHorizontalPodAutoscaler(h).map(fieldErrorString);

test('defaults: minReplicas 1, cpu 80 % Utilization, behavior rules filled as upstream', () => {
  const h = hpa({ scaleTargetRef: REF, maxReplicas: 3, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } });
  defaultHorizontalPodAutoscaler(h);
  assert.equal(h.spec?.minReplicas, 1);
  assert.deepEqual(h.spec?.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
  assert.deepEqual(h.spec?.behavior, {
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    },
    scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
  });
  // scaleDown's window stays unset (the controller's --horizontal-pod-autoscaler-downscale-stabilization applies)
  const upOnly = hpa({ scaleTargetRef: REF, maxReplicas: 3, behavior: { scaleUp: { stabilizationWindowSeconds: 30 } } });
  defaultHorizontalPodAutoscaler(upOnly);
  assert.deepEqual(upOnly.spec?.behavior?.scaleDown, { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });
  const plain = hpa({ scaleTargetRef: REF, maxReplicas: 3, minReplicas: 2 });
  defaultHorizontalPodAutoscaler(plain);
  assert.equal(plain.spec?.minReplicas, 2);
  assert.equal(plain.spec?.behavior, undefined);
});

test('validation: replica bounds, scaleTargetRef, metrics and behavior with upstream messages', () => {
  assert.deepEqual(errs(hpa({ scaleTargetRef: REF, minReplicas: 1, maxReplicas: 3 })), []);
  assert.deepEqual(errs(hpa({ scaleTargetRef: REF, minReplicas: 3, maxReplicas: 2 })), ['spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`']);
  assert.deepEqual(errs(hpa({ scaleTargetRef: REF, minReplicas: 0, maxReplicas: 0 })), [
    'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
    'spec.maxReplicas: Invalid value: 0: must be greater than 0',
  ]);
  assert.deepEqual(errs(hpa({ scaleTargetRef: { name: 'a/b' }, maxReplicas: 1 })), [
    'spec.scaleTargetRef.kind: Required value',
    `spec.scaleTargetRef.name: Invalid value: "a/b": may not contain '/'`,
  ]);
  assert.deepEqual(
    errs(hpa({ scaleTargetRef: REF, maxReplicas: 1, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } } }] })),
    ['spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0'],
  );
  const cpu50 = { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } };
  assert.deepEqual(errs(hpa({ scaleTargetRef: REF, maxReplicas: 1, metrics: [{ type: 'Pods', resource: cpu50 }] })), [
    'spec.metrics[0].pods: Required value: must populate information for the given metric source',
  ]);
  assert.deepEqual(errs(hpa({ scaleTargetRef: REF, maxReplicas: 1, metrics: [{ type: 'Resource', resource: cpu50, containerResource: { ...cpu50, container: 'c' } }] })), [
    'spec.metrics[0].containerResource: Forbidden: must populate the given metric source only',
  ]);
  assert.deepEqual(errs(hpa({ scaleTargetRef: REF, maxReplicas: 1, metrics: [{ type: 'Bogus' }] })), [
    'spec.metrics[0].type: Unsupported value: "Bogus": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
    'spec.metrics[0].bogus: Required value: must populate information for the given metric source',
  ]);
  assert.deepEqual(
    errs(
      hpa({
        scaleTargetRef: REF,
        maxReplicas: 1,
        behavior: { scaleUp: { stabilizationWindowSeconds: 4000, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 0, periodSeconds: 2000 }] } },
      }),
    ),
    [
      'spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600',
      'spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero',
      'spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800',
    ],
  );
});

test('printer: upstream columns and TARGETS formats', () => {
  assert.deepEqual(
    hpaTable.columns.map((c) => c.name),
    ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age'],
  );
  const h = hpa({
    scaleTargetRef: REF,
    minReplicas: 2,
    maxReplicas: 5,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
  });
  (h as { status?: unknown }).status = { currentReplicas: 2, desiredReplicas: 2, currentMetrics: [{ type: '' }] };
  (h.metadata as { creationTimestamp?: string }).creationTimestamp = '2026-01-01T00:00:00Z';
  assert.deepEqual(hpaTable.cells(h as never, new Date('2026-01-01T00:05:00Z')), ['web', 'Deployment/web', 'cpu: <unknown>/80%', '2', 5, 2, '5m']);
  const cpu = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } } as const;
  const mem = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } } as const;
  assert.equal(
    formatHPAMetrics([cpu, mem, cpu], [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 12 } } }]),
    'cpu: 12%/50%, memory: <unknown>/1Gi + 1 more...',
  );
  assert.equal(formatHPAMetrics([], []), '<none>');
});

test('strategy: status reset on create, kept on spec updates, generation bumped on spec changes', () => {
  const h = hpa({ scaleTargetRef: REF, maxReplicas: 3 });
  (h as { status?: unknown }).status = { desiredReplicas: 9 };
  const ctx = {} as never;
  def.prepareForCreate!(h as never, ctx);
  assert.deepEqual(h.status, { desiredReplicas: 0 });
  assert.equal(h.metadata.generation, 1);
  const old = structuredClone(h);
  (old as { status?: unknown }).status = { desiredReplicas: 2, currentReplicas: 2 };
  const upd = structuredClone(h);
  (upd.spec as { maxReplicas: number }).maxReplicas = 4;
  def.prepareForUpdate!(upd as never, old as never, ctx);
  assert.deepEqual(upd.status, { desiredReplicas: 2, currentReplicas: 2 });
  assert.equal(upd.metadata.generation, 2);
});

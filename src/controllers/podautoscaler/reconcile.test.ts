import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceRef } from '../../client/types.js';
import { MemoryRecorder } from '../util/test-cluster.js';
import { type HPA, reconcileAutoscaler, type ReconcileDeps, type Scale, setCondition } from './reconcile.js';

const DEPLOY: ResourceRef = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
const T0 = Date.parse('2026-01-01T00:00:00Z');

function deps(scale: Scale | Error, opts: { updateFails?: string } = {}): ReconcileDeps & { recorder: MemoryRecorder; updates: number[] } {
  const updates: number[] = [];
  return {
    updates,
    recorder: new MemoryRecorder(),
    now: () => T0,
    async getScale() {
      if (scale instanceof Error) throw scale;
      return { scale: structuredClone(scale), resource: DEPLOY };
    },
    async updateScale(_r, _ns, s) {
      if (opts.updateFails) throw new Error(opts.updateFails);
      updates.push(s.spec?.replicas ?? -1);
    },
    metrics: {
      async getResourceMetric() {
        throw new Error('unable to fetch metrics from resource metrics API: boom');
      },
    },
  };
}

const hpa = (min: number | undefined, max: number): HPA => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default', uid: 'u1' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    ...(min === undefined ? {} : { minReplicas: min }),
    maxReplicas: max,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
  },
});
const scaleOf = (replicas: number, selector = 'app=web'): Scale => ({
  kind: 'Scale',
  apiVersion: 'autoscaling/v1',
  metadata: { name: 'web' },
  spec: { replicas },
  status: { replicas, selector },
});

test('a target with zero replicas: scaling disabled, no rescale', async () => {
  const d = deps(scaleOf(0));
  const r = await reconcileAutoscaler(hpa(2, 5), d);
  assert.equal(r.error, undefined);
  assert.deepEqual(d.updates, []);
  assert.equal(r.status.currentReplicas, 0);
  assert.equal(r.status.desiredReplicas, 0);
  assert.deepEqual(
    r.status.conditions?.map((c) => [c.type, c.status, c.reason]),
    [
      ['AbleToScale', 'True', 'SucceededGetScale'],
      ['ScalingActive', 'False', 'ScalingDisabled'],
    ],
  );
});

test('minReplicas unset counts as 1; inside the bounds the metrics are read', async () => {
  const d = deps(scaleOf(1));
  const r = await reconcileAutoscaler(hpa(undefined, 5), d);
  assert.deepEqual(d.updates, []);
  assert.match(r.error?.message ?? '', /^failed to compute desired number of replicas based on listed metrics for Deployment\/web: invalid metrics \(1 invalid out of 1\)/);
  assert.deepEqual(
    d.recorder.lines()[0],
    'FailedGetResourceMetric: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: boom',
  );
});

test('a scale without selector: SelectorRequired / InvalidSelector', async () => {
  const d = deps(scaleOf(2, ''));
  const r = await reconcileAutoscaler(hpa(1, 5), d);
  assert.deepEqual(d.recorder.lines(), ['SelectorRequired: selector is required', 'FailedComputeMetricsReplicas: selector is required']);
  assert.deepEqual(r.status.conditions?.[1], {
    type: 'ScalingActive',
    status: 'False',
    reason: 'InvalidSelector',
    message: "the HPA target's scale is missing a selector",
    lastTransitionTime: '2026-01-01T00:00:00Z',
  });
});

test('a failed rescale: FailedRescale event and AbleToScale False/FailedUpdateScale', async () => {
  const d = deps(scaleOf(9), { updateFails: 'conflict' });
  const r = await reconcileAutoscaler(hpa(1, 5), d);
  assert.deepEqual(d.recorder.lines(), ['FailedRescale: New size: 5; reason: Current number of replicas above Spec.MaxReplicas; error: conflict']);
  assert.deepEqual(
    r.status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
    [['AbleToScale', 'False', 'FailedUpdateScale', 'the HPA controller was unable to update the target scale: conflict']],
  );
  assert.equal(r.error?.message, 'failed to rescale Deployment/web: conflict');
  assert.equal(r.status.lastScaleTime, undefined);
});

test('setCondition keeps lastTransitionTime while the status is unchanged', () => {
  const st: Parameters<typeof setCondition>[0] = { desiredReplicas: 0 };
  setCondition(st, 'AbleToScale', 'True', 'A', 'a', T0);
  setCondition(st, 'AbleToScale', 'True', 'B', 'b', T0 + 60_000);
  assert.deepEqual(st.conditions, [{ type: 'AbleToScale', status: 'True', reason: 'B', message: 'b', lastTransitionTime: '2026-01-01T00:00:00Z' }]);
  setCondition(st, 'AbleToScale', 'False', 'C', 'c', T0 + 60_000);
  assert.equal(st.conditions?.[0]?.lastTransitionTime, '2026-01-01T00:01:00Z');
});

test('spec.behavior: a Pods metric scales 2 → 3 under a 1-Pod-per-minute scale-up policy, then holds until the period passes', async () => {
  let now = T0;
  const pod = (name: string) => ({ metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c' }] }, status: { phase: 'Running' as const } });
  const h: HPA = {
    ...hpa(1, 10),
    spec: {
      ...hpa(1, 10).spec!,
      metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } }],
      behavior: { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } },
    },
  };
  let replicas = 2;
  const d: ReconcileDeps & { recorder: MemoryRecorder; updates: number[] } = {
    ...deps(scaleOf(2)),
    now: () => now,
    async getScale() {
      return { scale: scaleOf(replicas), resource: DEPLOY };
    },
    async updateScale(_r, _ns, s) {
      replicas = s.spec?.replicas ?? -1;
      d.updates.push(replicas);
    },
    metrics: {
      async getResourceMetric() {
        throw new Error('unused');
      },
      // 40 per pod against 10: 4× the pods
      async getRawMetric() {
        return new Map(Array.from({ length: replicas }, (_, i) => [`p${i}`, { value: 40_000, timestamp: now, window: 60_000 }]));
      },
    },
    async listPods() {
      return Array.from({ length: replicas }, (_, i) => pod(`p${i}`));
    },
  };
  const first = await reconcileAutoscaler(h, d);
  assert.deepEqual(d.updates, [3]);
  assert.deepEqual(d.recorder.lines(), ['SuccessfulRescale: New size: 3; reason: pods metric qps above target']);
  const limited = first.status.conditions?.find((c) => c.type === 'ScalingLimited');
  assert.deepEqual([limited?.status, limited?.reason], ['True', 'ScaleUpLimit']);
  now += 30_000;
  await reconcileAutoscaler(h, d);
  assert.deepEqual(d.updates, [3], 'the scale-up of 30 s ago uses up the period');
  now += 31_000;
  await reconcileAutoscaler(h, d);
  assert.deepEqual(d.updates, [3, 4]);
});

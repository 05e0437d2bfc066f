/**
 * Metric types of the HPA on upstream's replica calculator cases
 * (pkg/controller/podautoscaler/replica_calculator_test.go: TestReplicaCalcScaleUpCM,
 * …CMObject, …CMPerPodObject, …CMExternal, …PerPodCMExternal, ScaleDownCMExternal,
 * ToleranceCMExternal, and the ContainerResource variant of TestReplicaCalcScaleUp).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MetricSpec } from 'kubernetes-types/autoscaling/v2.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { MemoryRecorder } from '../util/test-cluster.js';
import { computeForMetric, goLabelSelector, selectorString } from './compute-metric.js';
import type { HPA, MetricsClient, ReconcileDeps } from './reconcile.js';
import type { PodMetric } from './replica-calculator.js';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const HPA_OBJ: HPA = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default', uid: 'u1' },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 10 },
};

/** a Running, Ready pod started an hour ago with containers `app` (1 CPU) and `sidecar` (500m) */
const pod = (name: string): Pod => ({
  metadata: { name, namespace: 'default' },
  spec: {
    containers: [
      { name: 'app', resources: { requests: { cpu: '1' } } },
      { name: 'sidecar', resources: { requests: { cpu: '500m' } } },
    ],
  },
  status: {
    phase: 'Running',
    startTime: new Date(NOW - 3_600_000).toISOString(),
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(NOW - 3_500_000).toISOString() }],
  },
});
const pods = (n: number): Pod[] => Array.from({ length: n }, (_, i) => pod(`p${i}`));
const sample = (v: number): PodMetric => ({ value: v, timestamp: NOW - 10_000, window: 15_000 });

function deps(n: number, metrics: Partial<MetricsClient>): ReconcileDeps & { recorder: MemoryRecorder } {
  return {
    recorder: new MemoryRecorder(),
    now: () => NOW,
    async getScale() {
      throw new Error('unused');
    },
    async updateScale() {},
    metrics: {
      async getResourceMetric() {
        throw new Error('unused');
      },
      ...metrics,
    },
    async listPods() {
      return pods(n);
    },
  };
}

const ok = (r: Awaited<ReturnType<typeof computeForMetric>>) => {
  assert.ok(!('error' in r), 'error' in r ? r.error.message : '');
  return r as unknown as { replicas: number; status: Record<string, unknown>; name: string };
};

test('Pods metric (TestReplicaCalcScaleUpCM): 3 pods at 20, 10, 30 against an average of 15 → 4', async () => {
  const calls: unknown[][] = [];
  const d = deps(3, {
    async getRawMetric(...args) {
      calls.push(args);
      return new Map([
        ['p0', sample(20_000)],
        ['p1', sample(10_000)],
        ['p2', sample(30_000)],
      ]);
    },
  });
  const spec: MetricSpec = { type: 'Pods', pods: { metric: { name: 'qps', selector: { matchLabels: { verb: 'GET' } } }, target: { type: 'AverageValue', averageValue: '15' } } };
  const r = ok(await computeForMetric(HPA_OBJ, spec, 'app=web', 3, 3, d));
  assert.equal(r.replicas, 4);
  assert.equal(r.name, 'pods metric qps');
  assert.deepEqual(r.status, { type: 'Pods', pods: { metric: { name: 'qps', selector: { matchLabels: { verb: 'GET' } } }, current: { averageValue: '20' } } });
  assert.deepEqual(calls, [['qps', 'default', 'app=web', 'verb=GET']]);
});

test('Object metric, Value (TestReplicaCalcScaleUpCMObject): 20 against 15 with 3 ready pods → 4', async () => {
  const d = deps(3, { getObjectMetric: async () => ({ value: 20_000, timestamp: NOW }) });
  const describedObject = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main-route' };
  const spec: MetricSpec = { type: 'Object', object: { describedObject, metric: { name: 'requests-per-second' }, target: { type: 'Value', value: '15' } } };
  const r = ok(await computeForMetric(HPA_OBJ, spec, 'app=web', 3, 3, d));
  assert.equal(r.replicas, 4);
  assert.equal(r.name, 'Ingress metric requests-per-second');
  assert.deepEqual(r.status, { type: 'Object', object: { describedObject, metric: { name: 'requests-per-second' }, current: { value: '20' } } });
});

test('Object metric, AverageValue (TestReplicaCalcScaleUpCMPerPodObject): 20 shared by 3 replicas against 5 each → 4, average 6667m', async () => {
  const d = deps(3, { getObjectMetric: async () => ({ value: 20_000, timestamp: NOW }) });
  const spec: MetricSpec = {
    type: 'Object',
    object: { describedObject: { apiVersion: 'v1', kind: 'Service', name: 'front' }, metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '5' } },
  };
  const r = ok(await computeForMetric(HPA_OBJ, spec, 'app=web', 3, 3, d));
  assert.equal(r.replicas, 4);
  assert.deepEqual((r.status as { object: { current: unknown } }).object.current, { averageValue: '6667m' });
});

test('External metric, Value: 8.6 against 4.4 with 1 ready pod → 2; 8.6 against 14.334 from 5 → 3; within the tolerance → unchanged', async () => {
  const ext = (values: number[]) => deps(5, { getExternalMetric: async () => ({ values, timestamp: NOW }) });
  const spec = (value: string): MetricSpec => ({
    type: 'External',
    external: { metric: { name: 'queue_messages_ready', selector: { matchLabels: { queue: 'worker_tasks' } } }, target: { type: 'Value', value } },
  });
  const up = ok(await computeForMetric(HPA_OBJ, spec('4400m'), 'app=web', 1, 1, deps(1, { getExternalMetric: async () => ({ values: [8_600], timestamp: NOW }) })));
  assert.equal(up.replicas, 2);
  assert.equal(up.name, 'external metric queue_messages_ready(&LabelSelector{MatchLabels:map[string]string{queue: worker_tasks,},MatchExpressions:[]LabelSelectorRequirement{},})');
  assert.deepEqual(up.status, {
    type: 'External',
    external: { metric: { name: 'queue_messages_ready', selector: { matchLabels: { queue: 'worker_tasks' } } }, current: { value: '8600m' } },
  });
  assert.equal(ok(await computeForMetric(HPA_OBJ, spec('14334m'), 'app=web', 5, 5, ext([8_600]))).replicas, 3);
  // the values are summed: 4.45 + 4.45 against 8.888
  assert.equal(ok(await computeForMetric(HPA_OBJ, spec('8888m'), 'app=web', 3, 3, ext([4_450, 4_450]))).replicas, 3);
});

test('External metric, AverageValue (TestReplicaCalcScaleUpPerPodCMExternal): 8.6 over 3 replicas against 2.15 each → 4', async () => {
  const d = deps(3, { getExternalMetric: async () => ({ values: [8_600], timestamp: NOW }) });
  const spec: MetricSpec = { type: 'External', external: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '2150m' } } };
  const r = ok(await computeForMetric(HPA_OBJ, spec, 'app=web', 3, 3, d));
  assert.equal(r.replicas, 4);
  assert.deepEqual((r.status as { external: { current: unknown } }).external.current, { averageValue: '2867m' });
  assert.equal(r.name, 'external metric qps(nil)');
});

test('ContainerResource: utilization of one container against its own request (300m/500m/700m of 1 CPU at 30 % → 5)', async () => {
  const seen: unknown[][] = [];
  const d = deps(3, {
    async getResourceMetric(...args) {
      seen.push(args);
      return new Map([
        ['p0', sample(300)],
        ['p1', sample(500)],
        ['p2', sample(700)],
      ]);
    },
  });
  const spec: MetricSpec = { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 30 } } };
  const r = ok(await computeForMetric(HPA_OBJ, spec, 'app=web', 3, 3, d));
  assert.equal(r.replicas, 5);
  assert.equal(r.name, 'cpu container resource utilization (percentage of request)');
  assert.deepEqual(r.status, { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', current: { averageValue: '500m', averageUtilization: 50 } } });
  assert.deepEqual(seen, [['cpu', 'default', 'app=web', 'app']]);
  // against the sidecar's 500m request the same usage is 100 %: 30 % → 10
  const side: MetricSpec = { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'sidecar', target: { type: 'Utilization', averageUtilization: 30 } } };
  assert.equal(ok(await computeForMetric(HPA_OBJ, side, 'app=web', 3, 3, d)).replicas, 10);
});

test('failures: upstream’s events, condition and wrapped errors per metric type', async () => {
  const boom = async (): Promise<never> => {
    throw new Error('unable to fetch metrics from custom metrics API: the server could not find the requested resource (get pods.custom.metrics.k8s.io *)');
  };
  const d = deps(3, { getRawMetric: boom });
  const r = await computeForMetric(HPA_OBJ, { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1' } } }, 'app=web', 3, 3, d);
  assert.ok('error' in r);
  const inner = 'unable to get metric qps: unable to fetch metrics from custom metrics API: the server could not find the requested resource (get pods.custom.metrics.k8s.io *)';
  assert.equal(r.error.message, `failed to get pods metric value: ${inner}`);
  assert.deepEqual(r.condition, { type: 'ScalingActive', status: 'False', reason: 'FailedGetPodsMetric', message: `the HPA was unable to compute the replica count: ${inner}` });
  assert.deepEqual(
    d.recorder.events.map((e) => [e.type, e.reason, e.message]),
    [['Warning', 'FailedGetPodsMetric', inner]],
  );

  const o = await computeForMetric(
    HPA_OBJ,
    {
      type: 'Object',
      object: { describedObject: { apiVersion: 'v1', kind: 'Service', name: 'front' }, metric: { name: 'qps' }, target: { type: 'Utilization', averageUtilization: 5 } },
    },
    'app=web',
    3,
    3,
    deps(3, {}),
  );
  assert.ok('error' in o);
  assert.equal(o.error.message, 'failed to get object metric value: invalid object metric source: neither a value target nor an average value target was set');
  assert.equal(o.condition.reason, 'FailedGetObjectMetric');

  const e = await computeForMetric(
    HPA_OBJ,
    { type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '1' } } },
    'app=web',
    3,
    3,
    deps(3, { getExternalMetric: boom }),
  );
  assert.ok('error' in e);
  assert.match(e.error.message, /^failed to get q external metric value: unable to get external metric default\/q\/nil: unable to fetch metrics from custom metrics API/);
  assert.equal(e.condition.reason, 'FailedGetExternalMetric');
});

test('selectors: matchLabels and matchExpressions as a selector string and as Go prints them', () => {
  const s = {
    matchLabels: { b: '2', a: '1' },
    matchExpressions: [
      { key: 'env', operator: 'In', values: ['prod', 'dev'] },
      { key: 'x', operator: 'Exists' },
    ],
  };
  assert.equal(selectorString(s), 'a=1,b=2,env in (dev,prod),x');
  assert.equal(
    goLabelSelector(s),
    '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:env,Operator:In,Values:[prod dev],},LabelSelectorRequirement{Key:x,Operator:Exists,Values:[],},},}',
  );
  assert.equal(goLabelSelector(undefined), 'nil');
});

test('usage quantities become whole milli-units rounded up, as upstream’s MilliValue', async () => {
  const { milli } = await import('./metrics.js');
  assert.equal(milli('199999999n'), 200);
  assert.equal(milli('200000000n'), 200);
  assert.equal(milli('200000001n'), 201);
  assert.equal(milli('0.2'), 200);
  assert.equal(milli('250m'), 250);
  assert.equal(milli('64Mi'), 64 * 1024 * 1024 * 1000);
});

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { HorizontalPodAutoscaler as V1HPA } from 'kubernetes-types/autoscaling/v1.js';
import type { KObject } from '../../api/resource.js';
import type { RunningController } from '../util/context.js';
import { W } from '../util/resources.js';
import { startTestCluster, type TestCluster, waitFor } from '../util/test-cluster.js';
import type { Clock } from '../../util/clock.js';
import { HPA_RESOURCE, startHorizontalPodAutoscalerController } from './horizontal.js';
import type { HPA } from './reconcile.js';

/** A clock whose timers run only when the test advances it. */
class ManualClock implements Clock {
  t = Date.parse('2026-01-01T00:00:00Z');
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private next = 0;
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.next;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== h);
  }
  advance(ms: number): void {
    this.t += ms;
    const due = this.timers.filter((x) => x.at <= this.t);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const d of due) d.fn();
  }
}

const METRICS_ERR =
  'failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)';

describe('horizontal-pod-autoscaler controller', () => {
  let c: TestCluster;
  let ctl: RunningController;
  const clock = new ManualClock();
  before(async () => {
    c = await startTestCluster();
    ctl = await startHorizontalPodAutoscalerController({ client: c.client, recorder: c.recorder, informers: c.informers, clock });
  });
  after(async () => {
    await ctl?.stop();
    await c?.stop();
  });

  it('raises the target to minReplicas, then reports the missing resource metrics API as upstream', async () => {
    await c.client.create<Deployment & KObject>(W.deployments, 'default', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    await c.client.create<HPA>(HPA_RESOURCE, 'default', {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 5,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
      },
    });
    await waitFor(async () => (await c.client.get<Deployment & KObject>(W.deployments, 'default', 'web')).spec?.replicas === 2, 5000, 'deployment scaled to 2');
    const first = await waitFor(
      async () => {
        const h = await c.client.get<HPA>(HPA_RESOURCE, 'default', 'web');
        return h.status?.desiredReplicas === 2 ? h : undefined;
      },
      5000,
      'status after rescale',
    );
    assert.equal(first.status?.currentReplicas, 1);
    assert.equal(first.status?.lastScaleTime, '2026-01-01T00:00:00Z');
    assert.deepEqual(
      first.status?.conditions?.map((x) => [x.type, x.status, x.reason, x.message]),
      [['AbleToScale', 'True', 'SucceededRescale', 'the HPA controller was able to update the target scale to 2']],
    );
    assert.deepEqual(c.recorder.lines(), ['SuccessfulRescale: New size: 2; reason: Current number of replicas below Spec.MinReplicas']);

    clock.advance(15_000);
    const second = await waitFor(
      async () => {
        const h = await c.client.get<HPA>(HPA_RESOURCE, 'default', 'web');
        return h.status?.conditions?.some((x) => x.type === 'ScalingActive') ? h : undefined;
      },
      5000,
      'ScalingActive condition',
    );
    assert.equal(second.status?.currentReplicas, 2);
    assert.equal(second.status?.desiredReplicas, 2);
    assert.deepEqual(second.status?.currentMetrics, [{ type: '' }]);
    assert.deepEqual(
      second.status?.conditions?.map((x) => [x.type, x.status, x.reason, x.message]),
      [
        ['AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale"],
        ['ScalingActive', 'False', 'FailedGetResourceMetric', `the HPA was unable to compute the replica count: ${METRICS_ERR}`],
      ],
    );
    // AbleToScale stayed True: its transition time is the first reconcile's
    assert.equal(second.status?.conditions?.[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.deepEqual(c.recorder.lines().slice(1), [
      `FailedGetResourceMetric: ${METRICS_ERR}`,
      `FailedComputeMetricsReplicas: invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ${METRICS_ERR}`,
    ]);
    assert.equal((await c.client.get<Deployment & KObject>(W.deployments, 'default', 'web')).spec?.replicas, 2);

    // the autoscaling/v1 view of the same object
    const v1 = await c.client.get<V1HPA & KObject>({ ...HPA_RESOURCE, version: 'v1' }, 'default', 'web');
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.equal(v1.spec?.targetCPUUtilizationPercentage, 80);
    assert.equal(v1.status?.currentReplicas, 2);
    assert.match(v1.metadata?.annotations?.['autoscaling.alpha.kubernetes.io/conditions'] ?? '', /FailedGetResourceMetric/);
  });

  it('lowers a target above maxReplicas and reports a missing target', async () => {
    await c.client.create<Deployment & KObject>(W.deployments, 'default', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'big' },
      spec: { replicas: 9, selector: { matchLabels: { app: 'big' } }, template: { metadata: { labels: { app: 'big' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    const mk = (name: string, target: string) =>
      c.client.create<HPA>(HPA_RESOURCE, 'default', {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name },
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, maxReplicas: 3 },
      });
    await mk('big', 'big');
    await mk('ghost', 'ghost');
    await waitFor(async () => (await c.client.get<Deployment & KObject>(W.deployments, 'default', 'big')).spec?.replicas === 3, 5000, 'deployment scaled to 3');
    const ghost = await waitFor(
      async () => {
        const h = await c.client.get<HPA>(HPA_RESOURCE, 'default', 'ghost');
        return h.status?.conditions?.length ? h : undefined;
      },
      5000,
      'ghost status',
    );
    assert.deepEqual(
      ghost.status?.conditions?.map((x) => [x.type, x.status, x.reason, x.message]),
      [['AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: deployments.apps "ghost" not found`]],
    );
    await waitFor(() => c.recorder.lines().includes('SuccessfulRescale: New size: 3; reason: Current number of replicas above Spec.MaxReplicas'), 5000, 'rescale event');
    assert.ok(c.recorder.lines().includes('FailedGetScale: deployments.apps "ghost" not found'));
  });
});

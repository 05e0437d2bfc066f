/**
 * HorizontalPodAutoscalers through the real kubectl on the simulated runtime:
 * `kubectl autoscale` creates an autoscaling/v2 HPA (upstream's `… autoscaled` line), the
 * horizontal-pod-autoscaler controller raises the deployment to minReplicas, `kubectl get
 * hpa` prints upstream's columns with `cpu: <unknown>/80%` (no metrics API, as upstream
 * without metrics-server), `kubectl describe hpa` shows upstream's conditions and events,
 * and the autoscaling/v1 view carries targetCPUUtilizationPercentage.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';

const WEB = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx
        resources:
          requests: {cpu: 100m}
`;

const METRICS_ERR =
  'failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)';

describe('e2e: kubectl autoscale and the horizontal-pod-autoscaler controller', () => {
  let c: Cluster;
  before(async () => {
    // a cluster without aggregated APIs: k3s' switch for its packaged metrics-server
    c = await startCluster({ args: ['--disable', 'metrics-server'] });
  });
  after(async () => {
    await c?.stop();
  });

  it('autoscale creates an HPA that enforces minReplicas and reports the missing metrics API', async () => {
    const ap = c.kubectl(['apply', '-f', '-'], { input: WEB });
    assert.equal(ap.code, 0, ap.stderr);

    const as = c.kubectl(['autoscale', 'deploy/web', '--min=2', '--max=5', '--cpu-percent=80', '-v=6']);
    assert.equal(as.code, 0, as.stderr);
    assert.equal(as.stdout.trim(), 'horizontalpodautoscaler.autoscaling/web autoscaled');
    // kubectl 1.32 creates it through autoscaling/v1 (as protobuf)
    assert.match(as.stderr, /POST https:\/\/[^ ]+\/apis\/autoscaling\/v1\/namespaces\/default\/horizontalpodautoscalers/);

    await eventually(() => c.kubectl(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}']).stdout === '2' || undefined, 15_000);

    // the second reconcile (one sync period, 15 s, later) tries the metrics
    const desc = await eventually(
      () => {
        const r = c.kubectl(['describe', 'hpa', 'web']);
        return r.stdout.includes('FailedComputeMetricsReplicas') ? r.stdout : undefined;
      },
      40_000,
      500,
    );
    assert.match(desc, /Reference:\s+Deployment\/web/);
    assert.match(desc, /Min replicas:\s+2/);
    assert.match(desc, /Max replicas:\s+5/);
    assert.match(desc, /resource cpu on pods\s+\(as a percentage of request\):\s+<unknown> \/ 80%/);
    assert.match(desc, /AbleToScale\s+True\s+SucceededGetScale\s+the HPA controller was able to get the target's current scale/);
    assert.match(desc, new RegExp(`ScalingActive\\s+False\\s+FailedGetResourceMetric\\s+the HPA was unable to compute the replica count: ${escape(METRICS_ERR)}`));
    assert.match(desc, /Normal\s+SuccessfulRescale\s+.*horizontal-pod-autoscaler\s+New size: 2; reason: Current number of replicas below Spec.MinReplicas/);
    assert.match(desc, new RegExp(`Warning\\s+FailedGetResourceMetric\\s+.*horizontal-pod-autoscaler\\s+${escape(METRICS_ERR)}`));
    assert.match(desc, /Warning\s+FailedComputeMetricsReplicas\s+.*invalid metrics \(1 invalid out of 1\), first error is: failed to get cpu resource metric value: /);

    const get = c.kubectl(['get', 'hpa']);
    assert.equal(get.code, 0, get.stderr);
    const [head, row] = get.stdout.trim().split('\n');
    assert.deepEqual(head!.split(/\s{2,}/), ['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    const cells = row!.split(/\s{2,}/);
    assert.deepEqual(cells.slice(0, 6), ['web', 'Deployment/web', 'cpu: <unknown>/80%', '2', '5', '2']);

    // (kubectl expands the short name `hpa.v1.autoscaling` to the preferred version: name the resource)
    const v1 = c.kubectl(['get', 'horizontalpodautoscalers.v1.autoscaling', 'web', '-o', 'json']);
    assert.equal(v1.code, 0, v1.stderr);
    const o = JSON.parse(v1.stdout) as { apiVersion: string; spec: { targetCPUUtilizationPercentage?: number; minReplicas?: number; maxReplicas?: number } };
    assert.equal(o.apiVersion, 'autoscaling/v1');
    assert.equal(o.spec.targetCPUUtilizationPercentage, 80);
    assert.equal(o.spec.minReplicas, 2);
    assert.equal(o.spec.maxReplicas, 5);

    // server-side validation with upstream's message (kubectl autoscale checks min/max itself)
    const bad = c.kubectl(['create', '-f', '-'], {
      input:
        'apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: bad}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 3\n  maxReplicas: 2\n',
    });
    assert.notEqual(bad.code, 0);
    assert.equal(bad.stderr.trim(), 'The HorizontalPodAutoscaler "bad" is invalid: spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`');

    const exp = c.kubectl(['explain', 'hpa.spec.maxReplicas']);
    assert.equal(exp.code, 0, exp.stderr);
    assert.match(exp.stdout, /FIELD: maxReplicas <integer>/);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

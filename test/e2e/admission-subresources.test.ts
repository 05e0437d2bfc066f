/**
 * Subresource requests reach admission webhooks as upstream's (simulated runtime, the
 * real kubectl, a webhook server written here on 127.0.0.1):
 * - `kubectl scale` → UPDATE of `deployments/scale` with autoscaling/v1 Scale objects;
 * - an eviction → CREATE of `pods/eviction` with the policy/v1 Eviction;
 * - `kubectl exec` → CONNECT of `pods/exec` with the v1 PodExecOptions;
 * each denied with upstream's `admission webhook "…" denied the request: …`.
 *
 * kubectl runs asynchronously here: the webhook server answers on this process's event loop.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, manifestFile, type Cluster } from './harness.js';
import { startWebhookServer, type ReceivedReview, type ReviewResponse, type TestWebhookServer } from '../support/webhook-server.js';

function answer(r: ReceivedReview): ReviewResponse {
  const o = r.request.object as { kind?: string; spec?: { replicas?: number } } | null;
  if (r.path === '/scale' && (o?.spec?.replicas ?? 0) > 5) return { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'at most 5 replicas' } };
  if (r.path === '/evict') return { allowed: false, status: { code: 429, reason: 'TooManyRequests', message: 'evictions are paused' } };
  if (r.path === '/connect') return { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'exec is disabled here' } };
  return { allowed: true };
}

const hooks = (port: number, caBundle: string): string => {
  const hook = (name: string, path: string, operation: string, group: string, resource: string): string => `  - name: ${name}
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    clientConfig:
      url: https://127.0.0.1:${port}${path}
      caBundle: ${caBundle}
    rules:
      - operations: ["${operation}"]
        apiGroups: ["${group}"]
        apiVersions: ["v1"]
        resources: ["${resource}"]
`;
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: subresources
webhooks:
${hook('scale.k8ts.test', '/scale', 'UPDATE', 'apps', 'deployments/scale')}${hook('evict.k8ts.test', '/evict', 'CREATE', '', 'pods/eviction')}${hook('connect.k8ts.test', '/connect', 'CONNECT', '', 'pods/exec')}`;
};

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
      - {name: nginx, image: nginx}
`;

describe('admission of subresources (e2e, kubectl)', { timeout: 180_000 }, () => {
  let c: Cluster;
  let hook: TestWebhookServer;
  let pod = '';
  const k = (args: string[]) => c.kubectlAsync(args, { timeoutMs: 60_000 });

  before(async () => {
    // one after the other: a cluster that fails to start must not leave the webhook server open
    hook = await startWebhookServer(answer);
    c = await startCluster();
    const f = manifestFile(c.dir, 'setup.yaml', `${hooks(hook.port, hook.caBundle)}---\n${WEB}`);
    const r = await k(['apply', '-f', f]);
    assert.equal(r.code, 0, r.stderr);
    pod = await eventually(async () => {
      const g = await k(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[?(@.status.phase=="Running")].metadata.name}']);
      return g.stdout.trim();
    }, 30_000);
    // the configuration reaches the API server's watch cache
    await eventually(async () => (await k(['scale', 'deploy/web', '--replicas=9', '--dry-run=server'])).code !== 0, 15_000);
  });
  after(async () => {
    await hook?.close();
    await c?.stop();
  });

  it('kubectl scale: UPDATE deployments/scale with autoscaling/v1 Scale objects; denied above 5', async () => {
    const r = await k(['scale', 'deploy/web', '--replicas=9']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), 'Error from server (Forbidden): admission webhook "scale.k8ts.test" denied the request: at most 5 replicas');
    const review = hook.reviews.filter((x) => x.path === '/scale' && !x.request.dryRun).at(-1)!;
    assert.equal(review.request.operation, 'UPDATE');
    assert.deepEqual(review.request.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.deepEqual(review.request.resource, { group: 'apps', version: 'v1', resource: 'deployments' });
    assert.equal((review.request as { subResource?: string }).subResource, 'scale');
    assert.equal((review.request as { requestSubResource?: string }).requestSubResource, 'scale');
    const obj = review.request.object as { apiVersion: string; kind: string; metadata: { name: string }; spec: { replicas: number }; status: { selector: string } };
    assert.equal(obj.apiVersion, 'autoscaling/v1');
    assert.equal(obj.kind, 'Scale');
    assert.equal(obj.metadata.name, 'web');
    assert.deepEqual(obj.spec, { replicas: 9 });
    assert.equal(obj.status.selector, 'app=web');
    assert.deepEqual((review.request.oldObject as { spec: unknown }).spec, { replicas: 1 });
    // within the limit the webhook admits
    const ok = await k(['scale', 'deploy/web', '--replicas=2']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout.trim(), 'deployment.apps/web scaled');
  });

  it('eviction: CREATE pods/eviction with the policy/v1 Eviction; the webhook’s code and reason reach kubectl', async () => {
    const body = manifestFile(c.dir, 'eviction.json', JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: 'default' } }));
    const r = await k(['create', '--raw', `/api/v1/namespaces/default/pods/${pod}/eviction`, '-f', body]);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), 'Error from server (TooManyRequests): admission webhook "evict.k8ts.test" denied the request: evictions are paused');
    const review = hook.reviews.filter((x) => x.path === '/evict').at(-1)!;
    assert.equal(review.request.operation, 'CREATE');
    assert.deepEqual(review.request.kind, { group: 'policy', version: 'v1', kind: 'Eviction' });
    assert.deepEqual(review.request.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal(review.request.name, pod);
    assert.deepEqual(review.request.object, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: 'default' } });
    assert.equal((review.request.options as { kind?: string } | null)?.kind, 'CreateOptions');
    assert.equal((await k(['get', 'pod', pod])).code, 0, 'the pod stays');
  });

  it('kubectl exec: CONNECT pods/exec with the PodExecOptions; denied with the webhook’s message', async () => {
    const r = await k(['exec', pod, '--', 'ls', '/']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /admission webhook "connect\.k8ts\.test" denied the request: exec is disabled here/);
    const review = hook.reviews.filter((x) => x.path === '/connect').at(-1)!;
    assert.equal(review.request.operation, 'CONNECT');
    assert.deepEqual(review.request.kind, { group: '', version: 'v1', kind: 'PodExecOptions' });
    assert.deepEqual(review.request.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal((review.request as { subResource?: string }).subResource, 'exec');
    assert.equal(review.request.name, pod);
    assert.deepEqual(review.request.object, { kind: 'PodExecOptions', apiVersion: 'v1', stdout: true, stderr: true, container: 'nginx', command: ['ls', '/'] });
    assert.equal(review.request.oldObject, null);
    assert.equal(review.request.options, null);
  });
});

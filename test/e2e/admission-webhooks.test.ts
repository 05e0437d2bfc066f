/**
 * Admission webhooks through the real kubectl: a webhook server written here (HTTPS on
 * 127.0.0.1, certificate from a CA made for the test, registered by `url` with that
 * `caBundle`) denies a labelled pod with upstream's text, mutates another (a label added
 * by a JSONPatch, visible in `kubectl get`), returns a warning kubectl prints, is skipped
 * by objectSelector, namespaceSelector and matchConditions, times out after `timeoutSeconds`; with the
 * webhook down, `failurePolicy: Fail` gives upstream's `failed calling webhook` error
 * and `Ignore` admits.
 *
 * kubectl runs asynchronously here: the webhook server answers on this process's event loop.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, manifestFile, type Cluster } from './harness.js';
import { startWebhookServer, type ReceivedReview, type ReviewResponse, type TestWebhookServer } from '../support/webhook-server.js';

function answer(r: ReceivedReview): ReviewResponse | 'hang' {
  if (r.path.startsWith('/hang')) return 'hang';
  const labels = r.request.object?.metadata?.labels ?? {};
  if (r.path.startsWith('/mutate')) {
    return { allowed: true, patch: [{ op: 'add', path: '/metadata/labels/mutated-by', value: 'webhook' }], auditAnnotations: { mutated: 'yes' } };
  }
  if (labels.deny === 'true') return { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'pods labelled deny=true are not allowed' } };
  if (labels.warn === 'true') return { allowed: true, warnings: ['this pod is labelled warn=true'] };
  return { allowed: true };
}

const validating = (port: number, caBundle: string, failurePolicy: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: deny-labelled
webhooks:
  - name: deny.k8ts.test
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: ${failurePolicy}
    clientConfig:
      url: https://127.0.0.1:${port}/validate
      caBundle: ${caBundle}
    rules:
      - operations: ["CREATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["pods"]
    objectSelector:
      matchExpressions:
        - { key: skip-webhook, operator: DoesNotExist }
    namespaceSelector:
      matchExpressions:
        - { key: webhooks, operator: NotIn, values: ["off"] }
    matchConditions:
      - name: not-cel-exempt
        expression: "!has(object.metadata.labels) || !('cel-exempt' in object.metadata.labels)"
`;

const mutating = (port: number, caBundle: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: add-label
webhooks:
  - name: mutate.k8ts.test
    admissionReviewVersions: ["v1"]
    sideEffects: None
    clientConfig:
      url: https://127.0.0.1:${port}/mutate
      caBundle: ${caBundle}
    rules:
      - operations: ["CREATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["pods"]
    objectSelector:
      matchLabels: { mutate: "true" }
  - name: hang.k8ts.test
    admissionReviewVersions: ["v1"]
    sideEffects: None
    timeoutSeconds: 1
    clientConfig:
      url: https://127.0.0.1:${port}/hang
      caBundle: ${caBundle}
    rules:
      - operations: ["CREATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["pods"]
    objectSelector:
      matchLabels: { hang: "true" }
`;

describe('admission webhooks (e2e, kubectl)', { timeout: 180_000 }, () => {
  let c: Cluster;
  let hook: TestWebhookServer;
  const k = (args: string[]) => c.kubectlAsync(args, { timeoutMs: 60_000 });

  before(async () => {
    [c, hook] = await Promise.all([startCluster(), startWebhookServer(answer)]);
    const f = manifestFile(c.dir, 'webhooks.yaml', `${validating(hook.port, hook.caBundle, 'Fail')}---\n${mutating(hook.port, hook.caBundle)}`);
    const r = await k(['apply', '-f', f]);
    assert.equal(r.code, 0, r.stderr);
    // the configurations reach the API server's watch cache: a dry-run marker is denied
    await eventually(async () => (await k(['run', 'marker', '--image=nginx', '--labels=deny=true', '--dry-run=server'])).code !== 0, 15_000);
  });
  after(async () => {
    await hook?.close();
    await c?.stop();
  });

  it('denies a labelled pod with upstream text, the webhook Status code and reason', async () => {
    const r = await k(['run', 'denied', '--image=nginx', '--labels=deny=true']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), 'Error from server (Forbidden): admission webhook "deny.k8ts.test" denied the request: pods labelled deny=true are not allowed');
    const review = hook.reviews.find((x) => x.request.name === 'denied' && x.path === '/validate')!;
    assert.equal(review.apiVersion, 'admission.k8s.io/v1');
    assert.equal(review.query, 'timeout=10s');
    assert.deepEqual(review.request.kind, { group: '', version: 'v1', kind: 'Pod' });
    assert.deepEqual(review.request.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.deepEqual(review.request.requestKind, { group: '', version: 'v1', kind: 'Pod' });
    assert.equal(review.request.namespace, 'default');
    assert.equal(review.request.operation, 'CREATE');
    assert.equal(review.request.dryRun, false);
    assert.equal(review.request.oldObject, null);
    assert.equal(review.request.options?.kind, 'CreateOptions');
    assert.equal(review.request.options?.fieldManager, 'kubectl-run');
    assert.ok(review.request.userInfo.groups?.includes('system:masters'), JSON.stringify(review.request.userInfo));
    assert.equal((await k(['get', 'pod', 'denied'])).code, 1);
  });

  it('a dry run reaches the webhook with dryRun: true (sideEffects: None)', async () => {
    const r = await k(['run', 'dry', '--image=nginx', '--dry-run=server', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(hook.reviews.find((x) => x.request.name === 'dry' && x.path === '/validate')?.request.dryRun, true);
  });

  it('mutates a pod: the label added by the JSONPatch is stored, and validated webhooks see it', async () => {
    const r = await k(['run', 'mutated', '--image=nginx', '--labels=mutate=true']);
    assert.equal(r.code, 0, r.stderr);
    const got = await k(['get', 'pod', 'mutated', '-L', 'mutated-by', '--no-headers']);
    assert.match(got.stdout, /^mutated\s.*\swebhook\s*$/m);
    const v = hook.reviews.find((x) => x.request.name === 'mutated' && x.path === '/validate')!;
    assert.equal(v.request.object?.metadata?.labels?.['mutated-by'], 'webhook', 'the validating webhook sees the mutated object');
    // the pod creation trace has a step for each webhook called, inside its admission plugin's
    const pt = JSON.parse((await k(['get', 'podtrace', 'mutated', '-o', 'json'])).stdout) as { status: { steps: { name: string; target?: string }[] } };
    const admission = pt.status.steps.filter((s) => s.name.endsWith('Admission')).map((s) => `${s.name} ${s.target}`);
    const at = (x: string): number => admission.indexOf(x);
    assert.ok(at('MutatingAdmission webhook mutate.k8ts.test') >= 0, admission.join('\n'));
    assert.ok(at('MutatingAdmission webhook mutate.k8ts.test') < at('MutatingAdmission MutatingAdmissionWebhook'), admission.join('\n'));
    assert.ok(at('ValidatingAdmission webhook deny.k8ts.test') >= 0, admission.join('\n'));
    assert.ok(at('ValidatingAdmission webhook deny.k8ts.test') < at('ValidatingAdmission ValidatingAdmissionWebhook'), admission.join('\n'));
    assert.equal(at('MutatingAdmission webhook hang.k8ts.test'), -1, 'a webhook its objectSelector skips is no step');
  });

  it("prints the webhook's warnings", async () => {
    const r = await k(['run', 'warned', '--image=nginx', '--labels=warn=true']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^Warning: this pod is labelled warn=true$/m);
  });

  it('objectSelector, namespaceSelector and matchConditions (CEL) skip the webhook', async () => {
    const before = hook.reviews.length;
    const cel = await k(['run', 'cel-exempted', '--image=nginx', '--labels=deny=true,cel-exempt=yes']);
    assert.equal(cel.code, 0, cel.stderr);
    const r = await k(['run', 'skipped', '--image=nginx', '--labels=deny=true,skip-webhook=yes']);
    assert.equal(r.code, 0, r.stderr);
    const ns = manifestFile(c.dir, 'ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: quiet\n  labels:\n    webhooks: "off"\n');
    assert.equal((await k(['apply', '-f', ns])).code, 0);
    const q = await k(['run', 'in-quiet', '-n', 'quiet', '--image=nginx', '--labels=deny=true']);
    assert.equal(q.code, 0, q.stderr);
    assert.deepEqual(
      hook.reviews.slice(before).filter((x) => x.path === '/validate' && x.request.kind.kind === 'Pod'),
      [],
      'no pod review reached the validating webhook',
    );
  });

  it('a webhook that does not answer within timeoutSeconds fails the request (failurePolicy Fail)', async () => {
    const r = await k(['run', 'slow', '--image=nginx', '--labels=hang=true']);
    assert.notEqual(r.code, 0);
    assert.equal(
      r.stderr.trim(),
      `Error from server (InternalError): Internal error occurred: failed calling webhook "hang.k8ts.test": failed to call webhook: Post "https://127.0.0.1:${hook.port}/hang?timeout=1s": context deadline exceeded`,
    );
  });

  it('with the webhook down: failurePolicy Fail rejects with upstream text, Ignore admits', async () => {
    await hook.close();
    const r = await k(['run', 'down', '--image=nginx']);
    assert.notEqual(r.code, 0);
    assert.equal(
      r.stderr.trim(),
      `Error from server (InternalError): Internal error occurred: failed calling webhook "deny.k8ts.test": failed to call webhook: Post "https://127.0.0.1:${hook.port}/validate?timeout=10s": dial tcp 127.0.0.1:${hook.port}: connect: connection refused`,
    );
    const f = manifestFile(c.dir, 'ignore.yaml', validating(hook.port, hook.caBundle, 'Ignore'));
    const applied = await k(['apply', '-f', f]);
    assert.equal(applied.code, 0, applied.stderr);
    const ok = await eventually(async () => {
      const x = await k(['run', 'down-ignored', '--image=nginx']);
      return x.code === 0 ? x : undefined;
    }, 15_000);
    assert.match(ok.stdout, /pod\/down-ignored created/);
    const metrics = await k(['get', '--raw', '/metrics']);
    assert.match(
      metrics.stdout,
      /apiserver_admission_webhook_rejection_count\{name="deny.k8ts.test",type="validating",operation="CREATE",error_type="no_error",rejection_code="403"\} [1-9]/,
    );
    assert.match(
      metrics.stdout,
      /apiserver_admission_webhook_rejection_count\{name="deny.k8ts.test",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="400"\} 1/,
    );
    assert.match(metrics.stdout, /apiserver_admission_webhook_fail_open_count\{name="deny.k8ts.test",type="validating"\} [1-9]/);
    assert.match(metrics.stdout, /apiserver_admission_webhook_request_total\{name="mutate.k8ts.test",type="admit",operation="CREATE",code="200",rejected="false"\} 1/);
    assert.match(
      metrics.stdout,
      /apiserver_admission_webhook_admission_duration_seconds_bucket\{name="deny.k8ts.test",type="validating",operation="CREATE",rejected="true",le="25"\} [1-9]/,
    );
  });
});

/**
 * The dispatchers against a real HTTPS webhook server on 127.0.0.1 (test/support): reinvocation,
 * matchPolicy Equivalent with conversion, dryRun against sideEffects, failurePolicy,
 * concurrent validating webhooks, service references.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { MutatingWebhook, ValidatingWebhook } from 'kubernetes-types/admissionregistration/v1.js';
import type { KObject, Obj, ObjectLookup } from '../../../api/resource.js';
import { horizontalPodAutoscalerV1Definition } from '../../../api/autoscaling/v1/horizontalpodautoscaler/strategy.js';
import { horizontalPodAutoscalerDefinition } from '../../../api/autoscaling/v2/horizontalpodautoscaler/strategy.js';
import { StatusError } from '../../../apimachinery/errors.js';
import { createCA } from '../../../pki/pki.js';
import { startWebhookServer, type ReceivedReview, type ReviewResponse, type TestWebhookServer } from '../../../../test/support/webhook-server.js';
import { AdmissionChain, type AdmissionAttributes, type AdmissionPlugin } from '../types.js';
import type { DispatchContext } from './dispatcher.js';
import { EquivalentResources } from './equivalence.js';
import { WebhookMetrics } from './metrics.js';
import { dispatchMutating } from './mutating.js';
import { resolveServiceEndpoint, storeServiceLookup } from '../../util/service-resolver.js';
import { accessorsOf, type WebhookAccessor } from './source.js';
import { dispatchValidating } from './validating.js';

const objects = new Map<string, KObject>();
const lookup: ObjectLookup = {
  get: async (r, ns, name) => objects.get(`${r.resource}/${ns}/${name}`),
  list: async (r, ns) => [...objects.entries()].filter(([k]) => k.startsWith(`${r.resource}/${ns}/`)).map(([, v]) => v),
};

let server: TestWebhookServer;
let answer: (r: ReceivedReview) => ReviewResponse | 'hang' = () => ({ allowed: true });

const ctx = (): DispatchContext => ({
  lookup,
  metrics: new WebhookMetrics(),
  equivalents: new EquivalentResources(() => [horizontalPodAutoscalerDefinition, horizontalPodAutoscalerV1Definition] as never),
});

const base = (path: string, extra: Partial<MutatingWebhook> = {}): MutatingWebhook => ({
  name: `${path}.example.com`,
  admissionReviewVersions: ['v1'],
  sideEffects: 'None',
  failurePolicy: 'Fail',
  matchPolicy: 'Equivalent',
  timeoutSeconds: 5,
  clientConfig: { url: `https://127.0.0.1:${server.port}/${path}`, caBundle: server.caBundle },
  rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] } as never],
  ...extra,
});

const podAttrs = (labels: Record<string, string> = {}, dryRun = false): AdmissionAttributes => ({
  operation: 'CREATE',
  resource: { group: '', version: 'v1', resource: 'pods' },
  kind: { group: '', version: 'v1', kind: 'Pod' },
  subresource: '',
  namespace: 'default',
  name: 'p',
  object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } as Obj,
  user: { username: 'alice', groups: ['system:authenticated'] },
  dryRun,
  warnings: [],
});

const hooks = (list: MutatingWebhook[] | ValidatingWebhook[], mutating: boolean): WebhookAccessor[] => accessorsOf('cfg', list, mutating);

describe('webhook dispatch', () => {
  before(async () => {
    server = await startWebhookServer((r) => answer(r));
  });
  after(async () => {
    await server.close();
  });

  it('reinvocationPolicy IfNeeded: an earlier webhook is called again after a later one changed the object', async () => {
    server.reviews.length = 0;
    answer = (r) => {
      const labels = r.request.object?.metadata?.labels ?? {};
      if (r.path === '/first') return { allowed: true, patch: labels.first ? [] : [{ op: 'add', path: '/metadata/labels/first', value: 'x' }] };
      return { allowed: true, patch: labels.second ? [] : [{ op: 'add', path: '/metadata/labels/second', value: 'y' }] };
    };
    const hs = hooks([base('first', { reinvocationPolicy: 'IfNeeded' }), base('second', { reinvocationPolicy: 'Never' })], true);
    const c = ctx();
    const plugin: AdmissionPlugin = { name: 'MutatingAdmissionWebhook', admit: (a, l) => dispatchMutating(hs, a, c, l) };
    const a = podAttrs();
    const meta = a.object!.metadata;
    await new AdmissionChain([plugin], lookup).admit(a);
    assert.deepEqual(
      server.reviews.map((r) => r.path),
      ['/first', '/second', '/first'],
    );
    assert.deepEqual(a.object!.metadata.labels, { first: 'x', second: 'y' });
    assert.equal(a.object!.metadata, meta, 'the object and its metadata are changed in place');
    assert.equal(server.reviews[2]!.request.object?.metadata?.labels?.second, 'y', 'the reinvoked webhook sees the later change');
  });

  it('matchPolicy Equivalent: a rule for autoscaling/v2 gets an autoscaling/v1 request converted, the patch converted back', async () => {
    server.reviews.length = 0;
    answer = () => ({ allowed: true, patch: [{ op: 'replace', path: '/spec/maxReplicas', value: 7 }] });
    const rule = { operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v2'], resources: ['horizontalpodautoscalers'] } as never;
    const a: AdmissionAttributes = {
      operation: 'CREATE',
      resource: { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' },
      kind: { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
      subresource: '',
      namespace: 'default',
      name: 'web',
      object: {
        apiVersion: 'autoscaling/v1',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'web', namespace: 'default' },
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
      } as Obj,
      user: { username: 'alice', groups: [] },
      dryRun: false,
      warnings: [],
    };
    await dispatchMutating(hooks([base('hpa', { rules: [rule] })], true), a, ctx(), lookup);
    const req = server.reviews[0]!.request;
    assert.deepEqual(req.kind, { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' });
    assert.deepEqual(req.requestKind, { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
    assert.equal((req.object as { apiVersion?: string }).apiVersion, 'autoscaling/v2');
    assert.equal((a.object as { apiVersion?: string }).apiVersion, 'autoscaling/v1');
    assert.equal((a.object as unknown as { spec: { maxReplicas: number } }).spec.maxReplicas, 7);

    server.reviews.length = 0;
    await dispatchMutating(hooks([base('hpa', { rules: [rule], matchPolicy: 'Exact' })], true), a, ctx(), lookup);
    assert.equal(server.reviews.length, 0, 'Exact: not called for the other version');
  });

  it('a dry run is refused by a webhook with side effects; NoneOnDryRun webhooks get dryRun: true', async () => {
    server.reviews.length = 0;
    answer = () => ({ allowed: true });
    await assert.rejects(
      dispatchValidating(hooks([base('fx', { sideEffects: 'Unknown' })], false), podAttrs({}, true), ctx(), lookup),
      (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'admission webhook "fx.example.com" does not support dry run',
    );
    await dispatchValidating(hooks([base('ok', { sideEffects: 'NoneOnDryRun' })], false), podAttrs({}, true), ctx(), lookup);
    assert.deepEqual(
      server.reviews.map((r) => [r.path, r.request.dryRun]),
      [['/ok', true]],
    );
  });

  it('validating webhooks: a denial wins; a webhook that cannot be called is ignored with failurePolicy Ignore', async () => {
    answer = (r) => (r.path === '/no' ? { allowed: false, status: { code: 422, reason: 'Invalid', message: 'bad pod' } } : { allowed: true, warnings: ['careful'] });
    const a = podAttrs();
    const down = base('down', { failurePolicy: 'Ignore', clientConfig: { url: 'https://127.0.0.1:1/down', caBundle: server.caBundle } });
    await assert.rejects(dispatchValidating(hooks([base('yes'), down, base('no')], false), a, ctx(), lookup), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 422);
      assert.equal(e.reason, 'Invalid');
      assert.equal(e.message, 'admission webhook "no.example.com" denied the request: bad pod');
      return true;
    });
    assert.deepEqual(a.warnings, ['careful']);
    const strict = base('down', { clientConfig: { url: 'https://127.0.0.1:1/down', caBundle: server.caBundle } });
    await assert.rejects(dispatchValidating(hooks([strict], false), podAttrs(), ctx(), lookup), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 500);
      assert.equal(
        e.message,
        'Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:1/down?timeout=5s": dial tcp 127.0.0.1:1: connect: connection refused',
      );
      return true;
    });
  });

  it('a caBundle that did not sign the server certificate fails TLS verification with Go text', async () => {
    const other = await createCA('other');
    const wrongCA = base('x', { clientConfig: { url: `https://127.0.0.1:${server.port}/x`, caBundle: Buffer.from(other.cert).toString('base64') } });
    await assert.rejects(
      dispatchValidating(hooks([wrongCA], false), podAttrs(), ctx(), lookup),
      (e: unknown) => e instanceof StatusError && e.message.endsWith('/x?timeout=5s": tls: failed to verify certificate: x509: certificate signed by unknown authority'),
    );
  });

  it('namespaceSelector reads the namespace; a missing namespace is NotFound when the rules match', async () => {
    server.reviews.length = 0;
    answer = () => ({ allowed: true });
    objects.set('namespaces//default', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { team: 'a' } } });
    const h = hooks([base('ns', { namespaceSelector: { matchLabels: { team: 'b' } } })], false);
    await dispatchValidating(h, podAttrs(), ctx(), lookup);
    assert.equal(server.reviews.length, 0);
    await assert.rejects(
      dispatchValidating(h, { ...podAttrs(), namespace: 'nowhere' }, ctx(), lookup),
      (e: unknown) => e instanceof StatusError && e.code === 404 && e.message === 'namespaces "nowhere" not found',
    );
  });

  it('a service reference resolves to a ready EndpointSlice endpoint; TLS verifies <svc>.<ns>.svc', async () => {
    objects.set('services/hooks/webhook', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'webhook', namespace: 'hooks' },
      spec: { ports: [{ name: 'https', port: 443 }] },
    } as KObject);
    objects.set('endpointslices/hooks/webhook-abc', {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'webhook-abc', namespace: 'hooks', labels: { 'kubernetes.io/service-name': 'webhook' } },
      ports: [{ name: 'https', port: server.port }],
      endpoints: [
        { addresses: ['127.0.0.9'], conditions: { ready: false } },
        { addresses: ['127.0.0.1'], conditions: { ready: true } },
      ],
    } as KObject);
    assert.deepEqual(await resolveServiceEndpoint(storeServiceLookup(lookup), 'hooks', 'webhook', 443), { host: '127.0.0.1', port: server.port });
    await assert.rejects(resolveServiceEndpoint(storeServiceLookup(lookup), 'hooks', 'webhook', 8443), /^ResolveError: no service port 8443 found for service "webhook"$/);
    await assert.rejects(resolveServiceEndpoint(storeServiceLookup(lookup), 'hooks', 'nope', 443), /^ResolveError: service "nope" not found$/);
    // the test server's certificate names 127.0.0.1 only: the service name does not verify
    const svc = base('svc', { clientConfig: { service: { namespace: 'hooks', name: 'webhook', path: '/svc', port: 443 }, caBundle: server.caBundle } });
    await assert.rejects(
      dispatchValidating(hooks([svc], false), podAttrs(), ctx(), lookup),
      (e: unknown) =>
        e instanceof StatusError &&
        e.message ===
          'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://webhook.hooks.svc:443/svc?timeout=5s": tls: failed to verify certificate: x509: certificate is not valid for any names, but wanted to match webhook.hooks.svc',
    );
    // a server whose certificate names the service answers through the endpoint
    const named = await startWebhookServer(() => ({ allowed: false, status: { message: 'via service' } }), { dnsNames: ['webhook.hooks.svc'] });
    try {
      (objects.get('endpointslices/hooks/webhook-abc') as unknown as { ports: { port: number }[] }).ports[0]!.port = named.port;
      const viaService = base('svc', { clientConfig: { service: { namespace: 'hooks', name: 'webhook', path: '/svc' }, caBundle: named.caBundle } });
      await assert.rejects(
        dispatchValidating(hooks([viaService], false), podAttrs(), ctx(), lookup),
        (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'admission webhook "svc.example.com" denied the request: via service',
      );
      assert.equal(named.reviews[0]?.path, '/svc');
    } finally {
      await named.close();
    }
  });
});

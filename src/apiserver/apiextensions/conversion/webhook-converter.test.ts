import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CustomResourceDefinition } from '../../../api/apiextensions/v1/customresourcedefinition/types.js';
import type { Obj } from '../../../api/resource.js';
import { StatusError } from '../../../apimachinery/errors.js';
import {
  hostPortConversion,
  startConversionServer,
  type ConversionAnswer,
  type ReceivedConversion,
  type TestConversionServer,
} from '../../../../test/support/conversion-server.js';
import { WebhookConverter } from './webhook-converter.js';

const crd = (url: string, caBundle: string, reviewVersions = ['v1']): CustomResourceDefinition =>
  ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'e2e-test-crds.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'e2e-test-crds', kind: 'E2eTestCrd' },
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v2', served: true, storage: false },
      ],
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: reviewVersions } },
    },
  }) as unknown as CustomResourceDefinition;

const obj = (name: string, spec: Record<string, unknown>, apiVersion = 'stable.example.com/v1'): Obj =>
  ({ apiVersion, kind: 'E2eTestCrd', metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', labels: { a: 'b' } }, spec }) as Obj;

async function failure(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    return e;
  }
  assert.fail('expected a failure');
}

describe('CRD conversion webhook converter', () => {
  let server: TestConversionServer;
  let reply: ((r: ReceivedConversion) => ConversionAnswer) | undefined;
  const conv = (versions?: string[]) =>
    new WebhookConverter(crd(`https://127.0.0.1:${server.port}/convert`, server.caBundle, versions), { resolve: undefined, newUID: () => 'uid-1' });

  before(async () => {
    server = await startConversionServer((r) => reply?.(r) ?? { objects: r.request.objects.map((o) => hostPortConversion(o, r.request.desiredAPIVersion)) });
  });
  after(() => server.close());

  it('sends a v1 ConversionReview with the objects not in the desired version, in one call', async () => {
    reply = undefined;
    server.reviews.length = 0;
    const a = obj('a', { hostPort: 'localhost:8080' });
    const b = obj('b', { host: 'x', port: '1' }, 'stable.example.com/v2');
    const out = await conv().convert([a, b], 'stable.example.com/v2', 'E2eTestCrdList');
    assert.equal(server.reviews.length, 1);
    const r = server.reviews[0]!;
    assert.equal(r.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(r.query, 'timeout=30s');
    assert.equal(r.request.uid, 'uid-1');
    assert.equal(r.request.desiredAPIVersion, 'stable.example.com/v2');
    assert.deepEqual(
      r.request.objects.map((o) => o.metadata?.name),
      ['a'],
    );
    assert.deepEqual(out[0]!.spec, { host: 'localhost', port: '8080' });
    assert.equal(out[0]!.apiVersion, 'stable.example.com/v2');
    assert.equal(out[1], b);
    assert.equal(a.apiVersion, 'stable.example.com/v1', 'the input is not mutated');
  });

  it('speaks v1beta1 when it comes first in conversionReviewVersions', async () => {
    server.reviews.length = 0;
    await conv(['v1beta1', 'v1']).convert([obj('a', { hostPort: 'h:1' })], 'stable.example.com/v2');
    assert.equal(server.reviews[0]!.apiVersion, 'apiextensions.k8s.io/v1beta1');
  });

  it('keeps the original metadata except labels and annotations', async () => {
    reply = (r) => ({
      objects: r.request.objects.map((o) => {
        const c = hostPortConversion(o, r.request.desiredAPIVersion);
        c.metadata = { ...c.metadata, labels: { converted: 'yes' }, generation: 99, finalizers: ['x'] };
        return c;
      }),
    });
    const [out] = await conv().convert([obj('a', { hostPort: 'h:1' })], 'stable.example.com/v2');
    assert.deepEqual(out!.metadata, { name: 'a', namespace: 'default', uid: 'uid-a', resourceVersion: '7', labels: { converted: 'yes' } });
  });

  it('refuses answers upstream refuses, with its texts', async () => {
    const cases: [ConversionAnswer | ((r: ReceivedConversion) => ConversionAnswer), string][] = [
      [{ failed: 'cannot convert' }, 'conversion webhook for stable.example.com/v1, Kind=E2eTestCrd failed: cannot convert'],
      [
        () => ({ raw: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: 'other', result: { status: 'Success' } } } }),
        'conversion webhook for stable.example.com/v1, Kind=E2eTestCrd failed: expected response.uid="uid-1", got "other"',
      ],
      [
        { raw: { apiVersion: 'v1', kind: 'ConversionReview', response: {} } },
        'conversion webhook for stable.example.com/v1, Kind=E2eTestCrd failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /v1, Kind=ConversionReview',
      ],
      [{ objects: [] }, 'conversion webhook for stable.example.com/v1, Kind=E2eTestCrd returned 0 objects, expected 1'],
      [
        (r) => ({ objects: r.request.objects.map((o) => ({ ...o })) }),
        'conversion webhook for stable.example.com/v1, Kind=E2eTestCrd returned invalid object at index 0: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v1)',
      ],
      [
        (r) => ({ objects: r.request.objects.map((o) => ({ ...hostPortConversion(o, r.request.desiredAPIVersion), metadata: { ...o.metadata, name: 'renamed' } })) }),
        'conversion webhook for stable.example.com/v1, Kind=E2eTestCrd returned invalid object: must have the same name: a != renamed',
      ],
      [
        (r) => ({ objects: r.request.objects.map((o) => ({ ...hostPortConversion(o, r.request.desiredAPIVersion), metadata: { ...o.metadata, labels: { 'bad key': 'x' } } })) }),
        "conversion webhook for stable.example.com/v1, Kind=E2eTestCrd returned invalid metadata: metadata.labels: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ];
    for (const [a, text] of cases) {
      reply = typeof a === 'function' ? a : () => a;
      const e = await failure(conv().convert([obj('a', { hostPort: 'h:1' })], 'stable.example.com/v2'));
      assert.equal(e.status.message, text);
      assert.equal(e.status.code, 500);
      assert.equal(e.status.reason, '');
    }
  });

  it('reports a webhook that cannot be reached as upstream', async () => {
    const down = new WebhookConverter(crd('https://127.0.0.1:1/convert', server.caBundle), { resolve: undefined });
    const e = await failure(down.convert([obj('a', { hostPort: 'h:1' })], 'stable.example.com/v2', 'E2eTestCrdList'));
    assert.equal(
      e.status.message,
      'conversion webhook for stable.example.com/v2, Kind=E2eTestCrdList failed: Post "https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused',
    );
  });
});

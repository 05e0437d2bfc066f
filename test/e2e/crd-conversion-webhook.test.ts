/**
 * CRD conversion webhooks through the real kubectl, after upstream's e2e test
 * (test/e2e/apimachinery/crd_conversion_webhook.go): a conversion webhook server written
 * for the test (HTTPS on 127.0.0.1, certificate from its own CA, registered by `url` with
 * that `caBundle`) converts between v1 (`spec.hostPort`) and v2 (`spec.host`,
 * `spec.port`) of a CRD stored in v1. Reads (get, list, watch) and writes (`kubectl
 * apply` create and patch) of v2 show the converted object while v1 is what is stored;
 * switching the storage version to v2 migrates objects on their next write; a webhook that
 * cannot be reached gives upstream's error.
 *
 * kubectl runs asynchronously: the webhook answers on this process's event loop.
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#webhook-conversion
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Cluster, eventually, freePort, manifestFile, startCluster } from './harness.js';
import { startConversionServer, type TestConversionServer } from '../support/conversion-server.js';

const crd = (plural: string, kind: string, url: string, caBundle: string, storage = 'v1') => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: { plural: ${plural}, singular: ${plural.slice(0, -1)}, kind: ${kind}, listKind: ${kind}List }
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: ["v1", "v1beta1"]
      clientConfig:
        url: ${url}
        caBundle: ${caBundle}
  versions:
    - name: v1
      served: true
      storage: ${storage === 'v1'}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { hostPort: { type: string } } }
    - name: v2
      served: true
      storage: ${storage === 'v2'}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { host: { type: string }, port: { type: string } } }
`;

const cr = (version: string, name: string, spec: string, kind = 'E2eTestCrd') => `apiVersion: stable.example.com/${version}
kind: ${kind}
metadata:
  name: ${name}
spec: ${spec}
`;

type Got = { apiVersion: string; spec: Record<string, string>; metadata: { resourceVersion: string } };

describe('CRD conversion webhooks (e2e, kubectl)', { timeout: 240_000 }, () => {
  let c: Cluster;
  let hook: TestConversionServer;
  const k = (args: string[]) => c.kubectlAsync(args, { timeoutMs: 60_000 });
  const getJSON = async (resource: string, name: string): Promise<Got> => {
    const r = await k(['get', resource, name, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Got;
  };
  const V1 = 'e2e-test-crds.v1.stable.example.com';
  const V2 = 'e2e-test-crds.v2.stable.example.com';

  before(async () => {
    [c, hook] = await Promise.all([startCluster({ args: ['--disable-scheduler'] }), startConversionServer()]);
    const f = manifestFile(c.dir, 'crd.yaml', crd('e2e-test-crds', 'E2eTestCrd', `https://127.0.0.1:${hook.port}/crdconvert`, hook.caBundle));
    const r = await k(['apply', '-f', f]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await k(['wait', '--for', 'condition=established', 'crd/e2e-test-crds.stable.example.com', '--timeout=30s'])).code, 0);
    const obj = manifestFile(c.dir, 'a.yaml', cr('v1', 'a', '{ hostPort: "localhost:8080" }'));
    await eventually(async () => (await k(['apply', '-f', obj])).code === 0, 30_000);
  });
  after(async () => {
    await hook?.close();
    await c?.stop();
  });

  it('a v1 object read as v2 is converted by the webhook (ConversionReview v1, timeout=30s)', async () => {
    const asV1 = await getJSON(V1, 'a');
    assert.deepEqual(asV1.spec, { hostPort: 'localhost:8080' });
    const before = hook.reviews.length;
    const asV2 = await getJSON(V2, 'a');
    assert.equal(asV2.apiVersion, 'stable.example.com/v2');
    assert.deepEqual(asV2.spec, { host: 'localhost', port: '8080' });
    assert.equal(asV2.metadata.resourceVersion, asV1.metadata.resourceVersion);
    const review = hook.reviews.slice(before).find((r) => r.request.desiredAPIVersion === 'stable.example.com/v2')!;
    assert.ok(review, 'the webhook got a review for v2');
    assert.equal(review.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(review.path, '/crdconvert');
    assert.equal(review.query, 'timeout=30s');
    assert.equal(review.request.objects[0]!.apiVersion, 'stable.example.com/v1');
  });

  it('kubectl apply of v2 stores v1 and shows v2, on create and on patch', async () => {
    const f = manifestFile(c.dir, 'b.yaml', cr('v2', 'b', '{ host: example.com, port: "80" }'));
    const created = await k(['apply', '-f', f]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout.trim(), 'e2etestcrd.stable.example.com/b created');
    assert.deepEqual((await getJSON(V1, 'b')).spec, { hostPort: 'example.com:80' });
    const g = manifestFile(c.dir, 'b2.yaml', cr('v2', 'b', '{ host: example.com, port: "81" }'));
    const changed = await k(['apply', '-f', g, '-o', 'json']);
    assert.equal(changed.code, 0, changed.stderr);
    const shown = JSON.parse(changed.stdout) as Got;
    assert.equal(shown.apiVersion, 'stable.example.com/v2');
    assert.deepEqual(shown.spec, { host: 'example.com', port: '81' });
    assert.deepEqual((await getJSON(V1, 'b')).spec, { hostPort: 'example.com:81' });
  });

  it('lists and watches of v2 carry converted objects', async () => {
    const list = await k(['get', '--raw', '/apis/stable.example.com/v2/namespaces/default/e2e-test-crds']);
    assert.equal(list.code, 0, list.stderr);
    const l = JSON.parse(list.stdout) as { apiVersion: string; items: Got[]; metadata: { resourceVersion: string } };
    assert.equal(l.apiVersion, 'stable.example.com/v2');
    assert.ok(l.items.length >= 2);
    for (const o of l.items) {
      assert.equal(o.apiVersion, 'stable.example.com/v2');
      assert.equal(o.spec.hostPort, undefined);
      assert.ok(o.spec.host, JSON.stringify(o));
    }
    const table = await k(['get', V2]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^a\s/m);
    // a change after the list's resourceVersion reaches a v2 watch converted
    const patched = await k(['patch', V1, 'a', '--type=merge', '-p', '{"spec":{"hostPort":"localhost:9090"}}']);
    assert.equal(patched.code, 0, patched.stderr);
    const w = await k(['get', '--raw', `/apis/stable.example.com/v2/namespaces/default/e2e-test-crds?watch=true&resourceVersion=${l.metadata.resourceVersion}&timeoutSeconds=2`]);
    assert.equal(w.code, 0, w.stderr);
    const events = w.stdout
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x) as { type: string; object: Got & { metadata: { name: string } } });
    const ev = events.find((e) => e.object.metadata.name === 'a');
    assert.equal(ev?.type, 'MODIFIED');
    assert.equal(ev.object.apiVersion, 'stable.example.com/v2');
    assert.deepEqual(ev.object.spec, { host: 'localhost', port: '9090' });
  });

  it('after the storage version moves to v2, a write migrates an object stored in v1', async () => {
    const f = manifestFile(c.dir, 'crd-v2.yaml', crd('e2e-test-crds', 'E2eTestCrd', `https://127.0.0.1:${hook.port}/crdconvert`, hook.caBundle, 'v2'));
    assert.equal((await k(['apply', '-f', f])).code, 0);
    const stored = await eventually(async () => {
      const r = await k(['get', 'crd', 'e2e-test-crds.stable.example.com', '-o', 'jsonpath={.status.storedVersions}']);
      return r.stdout.includes('v2') ? r.stdout : undefined;
    });
    assert.equal(stored, '["v1","v2"]');
    // a no-op update (what the storage version migrator does) rewrites the object in v2
    const current = await eventually(async () => {
      const r = await k(['get', V2, 'b', '-o', 'json']);
      return r.code === 0 ? r.stdout : undefined;
    });
    const f2 = manifestFile(c.dir, 'b-current.json', current);
    const replaced = await k(['replace', '-f', f2]);
    assert.equal(replaced.code, 0, replaced.stderr);
    const before = hook.reviews.length;
    assert.deepEqual((await getJSON(V2, 'b')).spec, { host: 'example.com', port: '81' });
    assert.equal(hook.reviews.length, before, 'b is stored in v2 now: reading v2 needs no conversion');
    assert.deepEqual((await getJSON(V1, 'b')).spec, { hostPort: 'example.com:81' });
    assert.equal(hook.reviews.length, before + 1);
  });

  it('a webhook that cannot be reached gives upstream error', async () => {
    const port = await freePort();
    const f = manifestFile(c.dir, 'broken.yaml', crd('brokens', 'Broken', `https://127.0.0.1:${port}/convert`, hook.caBundle));
    assert.equal((await k(['apply', '-f', f])).code, 0);
    assert.equal((await k(['wait', '--for', 'condition=established', 'crd/brokens.stable.example.com', '--timeout=30s'])).code, 0);
    // written in the storage version: no conversion needed
    const y = manifestFile(c.dir, 'y.yaml', cr('v1', 'yy', '{ hostPort: "h:1" }', 'Broken'));
    let last = '';
    await eventually(async () => {
      const r = await k(['apply', '-f', y]);
      last = r.stderr;
      return r.code === 0 || undefined;
    }, 30_000).catch((e: Error) => assert.fail(`${e.message}: ${last}`));
    const r = await k(['get', 'brokens.v2.stable.example.com', 'yy']);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr.trim(),
      `Error from server: conversion webhook for stable.example.com/v1, Kind=Broken failed: Post "https://127.0.0.1:${port}/convert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    // a write in v2 cannot be stored in v1 either, and nothing is stored
    const z = manifestFile(c.dir, 'z.yaml', cr('v2', 'zz', '{ host: h, port: "2" }', 'Broken'));
    const w = await k(['create', '-f', z]);
    assert.equal(w.code, 1);
    assert.match(w.stderr, /conversion webhook for stable\.example\.com\/v2, Kind=Broken failed: Post "https:\/\/127\.0\.0\.1:\d+\/convert\?timeout=30s": dial tcp/);
    assert.equal((await k(['get', 'brokens.v1.stable.example.com', 'zz'])).code, 1);
  });
});

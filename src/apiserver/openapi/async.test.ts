/**
 * The API server builds the /openapi/v3 documents without holding the event loop, and
 * merges the extension servers' documents into /openapi/v2 in slices: requests that
 * come meanwhile are answered first; the documents are those of the synchronous build.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildOpenAPIDocuments, openAPIDocuments, openAPIDocumentsAsync } from './document.js';
import type { ExtensionOpenAPI } from './extensions.js';
import { handleOpenAPI, handleOpenAPIAsync } from './handler.js';
import { testDefs } from './testdata/defs.js';
import { inProcessServer } from './testdata/server.js';
import { swaggerDocument, withExtensionsV2, withExtensionsV2Async } from './v2/document.js';

describe('/openapi/v3 built without blocking', () => {
  const server = inProcessServer();

  it('answers /healthz while the first GET /openapi/v3 builds the documents, then the index and documents of the synchronous build', async () => {
    const t = server.transport;
    const defs = server.defs;
    const order: string[] = [];
    const index = t.request('GET', '/openapi/v3', {}).then((r) => (order.push('openapi'), r));
    // the next request comes once the event loop turns after the first one started
    const health = await new Promise<Awaited<ReturnType<typeof t.request>>>((resolve) => setImmediate(() => void t.request('GET', '/healthz', {}).then(resolve)));
    order.push('healthz');
    assert.equal(health.body.toString(), 'ok');
    const r = await index;
    assert.deepEqual(order, ['healthz', 'openapi'], '/healthz was answered before the documents were done');

    const built = buildOpenAPIDocuments(defs);
    assert.equal(r.status, 200);
    assert.ok(r.body.equals(built.index), 'the index of the synchronous build');
    assert.equal(r.headers.etag, `"${built.indexHash}"`);
    assert.equal(openAPIDocuments(defs).index, (await openAPIDocumentsAsync([...defs])).index, 'one cached build');
    for (const [path, doc] of built.groupVersions) {
      const got = await t.request('GET', `/openapi/v3/${path}?hash=${doc.hash}`, {});
      assert.equal(got.status, 200, path);
      assert.ok(got.body.equals(doc.body), `${path}: the JSON of the synchronous build`);
    }
  });
});

/** An extension server's documents (one group-version, one path and definition). */
function extension(): ExtensionOpenAPI {
  const schema = { type: 'object', properties: { usage: { type: 'object' } } };
  const v3 = Buffer.from(JSON.stringify({ openapi: '3.0.0', paths: { '/apis/metrics.k8s.io/v1beta1/nodes': {} }, components: { schemas: { NodeMetrics: schema } } }));
  const v2 = { swagger: '2.0', paths: { '/apis/metrics.k8s.io/v1beta1/nodes': { get: { responses: { '200': { description: 'OK' } } } } }, definitions: { NodeMetrics: schema } };
  return { revision: 1, v3: () => new Map([['apis/metrics.k8s.io/v1beta1', v3]]), v2: () => [v2] };
}

describe('the extension servers merged in slices', () => {
  it('withExtensionsV2Async is the document of withExtensionsV2, one merge shared by concurrent callers', async () => {
    const now = new Date('2025-01-02T03:04:05Z');
    const own = swaggerDocument(testDefs(), now);
    const ext = extension();
    const a = withExtensionsV2Async(own, ext, now);
    assert.equal(withExtensionsV2Async(own, ext, now), a, 'a second caller waits for the same merge');
    const merged = await a;
    assert.equal(withExtensionsV2(own, ext, now), merged, 'the synchronous call finds the merged document');
    const value = JSON.parse(merged.json.toString()) as { paths: Record<string, unknown>; definitions: Record<string, unknown> };
    assert.ok(value.paths['/apis/metrics.k8s.io/v1beta1/nodes']);
    assert.ok(value.definitions.NodeMetrics);
    assert.equal(merged.json.toString(), JSON.stringify(value), 'the sliced JSON text is JSON.stringify of the merged document');
    // a new revision of the extension documents is merged again
    const next = { ...ext, revision: 2 };
    assert.notEqual(await withExtensionsV2Async(own, next, now), merged);
  });

  it('handleOpenAPIAsync answers as handleOpenAPI, with and without extension servers', async () => {
    const defs = testDefs();
    const now = new Date('2025-01-02T03:04:05Z');
    const ext = extension();
    const gv = openAPIDocuments(defs).groupVersions.get('apis/apps/v1')!;
    for (const path of [
      '/openapi/v3',
      '/openapi/v3/',
      '/openapi/v3/apis/apps/v1',
      '/openapi/v3/apis/metrics.k8s.io/v1beta1',
      '/openapi/v3/apis/none/v1',
      '/openapi/v4',
      '/openapi/v2',
    ]) {
      for (const query of ['', `hash=${gv.hash}`, 'hash=0BAD']) {
        for (const e of [undefined, ext]) {
          const q = new URLSearchParams(query);
          assert.deepEqual(await handleOpenAPIAsync(path, q, defs, now, {}, e), handleOpenAPI(path, q, defs, now, {}, e), `${path}?${query} ext=${!!e}`);
        }
      }
    }
  });
});

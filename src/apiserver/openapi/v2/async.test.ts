/**
 * The API server builds /openapi/v2 without holding the event loop: requests that come
 * while the first build runs are answered before it ends; the answers (JSON, protobuf,
 * gzip, ETag, 304) are those of the synchronous build.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { testDefs } from '../testdata/defs.js';
import { inProcessServer } from '../testdata/server.js';
import { buildSwaggerDocument, swaggerDocument, swaggerDocumentAsync } from './document.js';
import { encodeOpenAPIv2 } from './protobuf.js';
import { sha512Hex } from '../document.js';
import { handleOpenAPIV2, handleOpenAPIV2Async, OPENAPI_V2_PROTOBUF } from './handler.js';

describe('/openapi/v2 built without blocking', () => {
  const server = inProcessServer();

  it('answers /healthz while the first GET /openapi/v2 builds the document, then the same bytes and ETag as the synchronous build', async () => {
    const t = server.transport;
    const defs = server.defs;
    const order: string[] = [];
    const openapi = t.request('GET', '/openapi/v2', { Accept: OPENAPI_V2_PROTOBUF, 'Accept-Encoding': 'gzip' }).then((r) => (order.push('openapi'), r));
    // the next request comes once the event loop turns after the first one started
    const health = new Promise<Awaited<ReturnType<typeof t.request>>>((resolve) => setImmediate(() => void t.request('GET', '/healthz', {}).then(resolve)));
    const h = await health;
    order.push('healthz');
    assert.equal(h.status, 200);
    assert.equal(h.body.toString(), 'ok');
    const r = await openapi;
    assert.deepEqual(order, ['healthz', 'openapi'], '/healthz was answered before the document was done');

    // what the synchronous build makes of the same definitions
    const value = buildSwaggerDocument(defs);
    const json = JSON.stringify(value);
    const doc = swaggerDocument(defs);
    assert.equal(doc.json.toString(), json);
    assert.equal(doc.etag, sha512Hex(Buffer.from(json)));
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.equal(r.headers.etag, `"${doc.etag}"`);
    assert.ok(gunzipSync(r.body).equals(encodeOpenAPIv2(value)));
    // the synchronous build of the same definitions is the cached document
    const again = new Date(Date.now() + 3_600_000);
    assert.equal(await swaggerDocumentAsync([...defs], again), doc);
    const plain = await t.request('GET', '/openapi/v2', {});
    assert.equal(plain.headers['content-type'], 'application/json');
    assert.equal(plain.body.toString(), json);
    const cached = await t.request('GET', '/openapi/v2', { 'If-None-Match': `"${doc.etag}"` });
    assert.equal(cached.status, 304);
  });
});

describe('swaggerDocumentAsync', () => {
  it('is the JSON, ETag and protobuf of the synchronous build, one build shared by concurrent callers', async () => {
    const defs = testDefs();
    const now = new Date('2025-01-02T03:04:05Z');
    const a = swaggerDocumentAsync(defs, now);
    const b = swaggerDocumentAsync([...defs], now);
    assert.equal(a, b, 'a second caller with the same definitions waits for the same build');
    const doc = await a;
    assert.equal(swaggerDocument(defs, now), doc, 'the synchronous call finds the built document');
    assert.equal(doc.json.toString(), JSON.stringify(buildSwaggerDocument(defs)), 'the sliced JSON text is JSON.stringify of the document');
    const [pb1, pb2] = [doc.protobufAsync(), doc.protobufAsync()];
    assert.equal(pb1, pb2);
    assert.ok((await pb1).equals(doc.protobuf()));
    assert.ok(gunzipSync(await doc.gzipAsync('json')).equals(doc.json));
  });

  it('handleOpenAPIV2Async answers as handleOpenAPIV2', async () => {
    const defs = testDefs();
    const now = new Date('2025-01-02T03:04:05Z');
    const etag = `"${swaggerDocument(defs, now).etag}"`;
    for (const headers of [
      {},
      { accept: OPENAPI_V2_PROTOBUF, 'accept-encoding': 'gzip' },
      { accept: 'application/json', 'accept-encoding': 'gzip' },
      { accept: 'text/html' },
      { 'if-none-match': etag },
      { 'if-modified-since': new Date(now.getTime() + 1000).toUTCString() },
    ]) {
      assert.deepEqual(await handleOpenAPIV2Async(headers, defs, now), handleOpenAPIV2(headers, defs, now), JSON.stringify(headers));
    }
  });
});

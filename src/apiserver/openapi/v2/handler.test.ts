import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { testDefs } from '../testdata/defs.js';
import { handleOpenAPI } from '../handler.js';
import { swaggerDocument } from './document.js';
import { handleOpenAPIV2, OPENAPI_V2_PROTOBUF, parseAccept } from './handler.js';

const defs = testDefs();
const now = new Date('2025-01-02T03:04:05Z');

test('GET /openapi/v2: JSON for no Accept, */* and application/json, with the SHA-512 ETag', () => {
  const doc = swaggerDocument(defs, now);
  for (const accept of [undefined, '*/*', 'application/json', 'application/json, */*']) {
    const r = handleOpenAPIV2(accept === undefined ? {} : { accept }, defs, now);
    assert.equal(r.status, 200, String(accept));
    assert.equal(r.headers['Content-Type'], 'application/json');
    assert.equal(r.headers.Etag, `"${doc.etag}"`);
    assert.equal(r.headers['Last-Modified'], doc.lastModified.toUTCString());
    assert.equal(r.body, doc.json);
    assert.equal(r.headers['Content-Length'], String(doc.json.length));
  }
  const viaRouter = handleOpenAPI('/openapi/v2', new URLSearchParams('timeout=32s'), defs, now, {});
  assert.equal(viaRouter.status, 200);
  assert.equal(JSON.parse(viaRouter.body.toString()).swagger, '2.0');
});

test("kubectl's protobuf Accept gets gnostic protobuf under the same ETag", () => {
  const doc = swaggerDocument(defs, now);
  for (const accept of [OPENAPI_V2_PROTOBUF, 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', `${OPENAPI_V2_PROTOBUF}, application/json;q=0.9`]) {
    const r = handleOpenAPIV2({ accept }, defs, now);
    assert.equal(r.status, 200);
    assert.equal(r.headers['Content-Type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    assert.equal(r.headers.Etag, `"${doc.etag}"`);
    assert.equal(r.body, doc.protobuf());
  }
  const pref = handleOpenAPIV2({ accept: `${OPENAPI_V2_PROTOBUF};q=0.5, application/json` }, defs, now);
  assert.equal(pref.headers['Content-Type'], 'application/json', 'q-values decide');
});

test('If-None-Match with the current ETag (or *) is a 304 without a body; a stale one gets the document', () => {
  const etag = `"${swaggerDocument(defs, now).etag}"`;
  for (const inm of [etag, `W/${etag}`, `"0BAD", ${etag}`, '*']) {
    const r = handleOpenAPIV2({ accept: OPENAPI_V2_PROTOBUF, 'if-none-match': inm }, defs, now);
    assert.equal(r.status, 304, inm);
    assert.equal(r.body.length, 0);
    assert.equal(r.headers.Etag, etag);
    assert.equal(r.headers['Content-Type'], undefined);
  }
  assert.equal(handleOpenAPIV2({ 'if-none-match': '"0BAD"' }, defs, now).status, 200);
  const lm = swaggerDocument(defs, now).lastModified;
  assert.equal(handleOpenAPIV2({ 'if-modified-since': new Date(lm.getTime() + 1000).toUTCString() }, defs, now).status, 304);
  assert.equal(handleOpenAPIV2({ 'if-modified-since': new Date(lm.getTime() - 1000).toUTCString() }, defs, now).status, 200);
});

test('gzip when accepted; 406 when neither JSON nor protobuf is', () => {
  const doc = swaggerDocument(defs, now);
  const r = handleOpenAPIV2({ 'accept-encoding': 'gzip, deflate' }, defs, now);
  assert.equal(r.headers['Content-Encoding'], 'gzip');
  assert.deepEqual(gunzipSync(r.body), doc.json);
  assert.equal(r.headers['Content-Length'], String(r.body.length));
  const pb = handleOpenAPIV2({ accept: OPENAPI_V2_PROTOBUF, 'accept-encoding': 'gzip' }, defs, now);
  assert.deepEqual(gunzipSync(pb.body), doc.protobuf());
  const bad = handleOpenAPIV2({ accept: 'text/html' }, defs, now);
  assert.equal(bad.status, 406);
  assert.equal(bad.body.length, 0);
});

test('Accept clauses: by q, then specific before wildcard, then as written', () => {
  assert.deepEqual(
    parseAccept('*/*;q=0.8, application/*, text/html;q=0.9, application/json').map((c) => `${c.type}/${c.subtype};${c.q}`),
    ['application/json;1', 'application/*;1', 'text/html;0.9', '*/*;0.8'],
  );
});

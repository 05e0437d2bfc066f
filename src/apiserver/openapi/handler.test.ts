import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openAPIDocuments } from './document.js';
import { handleOpenAPI } from './handler.js';
import { testDefs } from './testdata/defs.js';

const defs = testDefs();
const now = new Date('2025-01-02T03:04:05Z');

test('GET /openapi/v3: the index, not cached by clients', () => {
  const r = handleOpenAPI('/openapi/v3', new URLSearchParams('timeout=32s'), defs, now);
  assert.equal(r.status, 200);
  assert.equal(r.headers['Content-Type'], 'application/json');
  assert.equal(r.headers['Cache-Control'], 'no-cache, private');
  assert.match(r.headers.ETag!, /^"[0-9A-F]{128}"$/);
  const index = JSON.parse(r.body.toString()) as { paths: Record<string, { serverRelativeURL: string }> };
  assert.ok(index.paths['api/v1']);
  assert.deepEqual(handleOpenAPI('/openapi/v3/', new URLSearchParams(), defs, now).body, r.body);
});

test('GET a hashed group-version URL: immutable, ETag = hash, one-year Expires', () => {
  const index = JSON.parse(handleOpenAPI('/openapi/v3', new URLSearchParams(), defs).body.toString()) as { paths: Record<string, { serverRelativeURL: string }> };
  const url = new URL(index.paths['apis/apps/v1']!.serverRelativeURL, 'http://x');
  const r = handleOpenAPI(url.pathname, url.searchParams, defs, now);
  assert.equal(r.status, 200);
  assert.equal(r.headers['Cache-Control'], 'public, immutable');
  assert.equal(r.headers.ETag, `"${url.searchParams.get('hash')}"`);
  assert.equal(r.headers.Expires, 'Fri, 02 Jan 2026 03:04:05 GMT');
  const doc = JSON.parse(r.body.toString()) as { paths: Record<string, unknown> };
  assert.ok(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']);
  assert.equal(r.body, openAPIDocuments(defs).groupVersions.get('apis/apps/v1')!.body, 'served from the cache');

  const plain = handleOpenAPI('/openapi/v3/apis/apps/v1', new URLSearchParams(), defs, now);
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['Cache-Control'], undefined);
});

test('a stale hash redirects to the current URL', () => {
  const r = handleOpenAPI('/openapi/v3/api/v1', new URLSearchParams('hash=0BAD'), defs, now);
  assert.equal(r.status, 301);
  assert.equal(r.headers.Location, `/openapi/v3/api/v1?hash=${openAPIDocuments(defs).groupVersions.get('api/v1')!.hash}`);
});

test('unknown group-versions and paths are 404 with a metav1.Status', () => {
  for (const p of ['/openapi/v3/apis/nope/v1', '/openapi/v3/api', '/openapi/v2/nope', '/openapi']) {
    const r = handleOpenAPI(p, new URLSearchParams(), defs, now);
    assert.equal(r.status, 404, p);
    assert.equal(r.headers['Content-Type'], 'application/json');
    const s = JSON.parse(r.body.toString());
    assert.deepEqual(
      { kind: s.kind, apiVersion: s.apiVersion, status: s.status, reason: s.reason, code: s.code },
      { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 },
    );
  }
});

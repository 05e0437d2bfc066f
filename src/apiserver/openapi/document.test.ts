import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResourceDefinition } from '../../api/resource.js';
import { buildGroupVersionDocument, buildOpenAPIIndex, openAPIDocuments, sha512Hex } from './document.js';
import { refsOf, type Schema } from './schemas.js';
import { testDefs } from './testdata/defs.js';

type Op = {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, unknown> };
  'x-kubernetes-action': string;
  'x-kubernetes-group-version-kind': unknown;
  operationId: string;
};
type Doc = { openapi: string; paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, Schema> } };

const gvDefs = (defs: ResourceDefinition[], group: string, version = 'v1') => defs.filter((d) => d.group === group && d.version === version);

test('index lists every group-version with the SHA-512 (upper-case hex) of its document', () => {
  const defs = testDefs();
  const index = buildOpenAPIIndex(defs);
  assert.deepEqual(Object.keys(index.paths), ['api/v1', 'apis/apps/v1', 'apis/authorization.k8s.io/v1', 'apis/example.com/v1']);
  const docs = openAPIDocuments(defs);
  for (const [p, { serverRelativeURL }] of Object.entries(index.paths)) {
    const m = /^\/openapi\/v3\/(.+)\?hash=([0-9A-F]{128})$/.exec(serverRelativeURL);
    assert.ok(m, serverRelativeURL);
    assert.equal(m[1], p);
    const doc = docs.groupVersions.get(p)!;
    assert.equal(m[2], sha512Hex(doc.body));
    assert.equal(m[2], doc.hash);
  }
});

test('the index hash of a group-version changes when its document changes, and only then', () => {
  const a = buildOpenAPIIndex(testDefs()).paths;
  const changed = testDefs().map((d) => (d.resource === 'deployments' ? { ...d, status: undefined } : d));
  const b = buildOpenAPIIndex(changed).paths;
  assert.notEqual(a['apis/apps/v1']!.serverRelativeURL, b['apis/apps/v1']!.serverRelativeURL);
  assert.equal(a['api/v1']!.serverRelativeURL, b['api/v1']!.serverRelativeURL);
  const added = [
    ...testDefs(),
    { group: 'apps', version: 'v1', kind: 'ReplicaSet', listKind: 'ReplicaSetList', resource: 'replicasets', singular: 'replicaset', namespaced: true },
  ];
  assert.notEqual(buildOpenAPIIndex(added).paths['apis/apps/v1']!.serverRelativeURL, a['apis/apps/v1']!.serverRelativeURL);
});

test('documents are computed once per definition set', () => {
  const defs = testDefs();
  const first = openAPIDocuments(defs);
  assert.equal(openAPIDocuments(defs), first);
  assert.equal(openAPIDocuments([...defs]), first, 'same definitions in a new array');
  assert.notEqual(openAPIDocuments(defs.slice(1)), first);
});

test('api/v1 document: paths per verb, PATCH with fieldValidation and the kind', () => {
  const doc = buildGroupVersionDocument(gvDefs(testDefs(), '')) as unknown as Doc;
  assert.equal(doc.openapi, '3.0.0');
  const item = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}']!;
  assert.deepEqual(Object.keys(item).sort(), ['delete', 'get', 'parameters', 'patch', 'put']);
  const patch = item.patch!;
  assert.equal(patch.operationId, 'patchCoreV1NamespacedPod');
  assert.equal(patch['x-kubernetes-action'], 'patch');
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', kind: 'Pod', version: 'v1' });
  const q = patch.parameters!.filter((p) => p.in === 'query').map((p) => p.name);
  assert.deepEqual(q, ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
  assert.deepEqual(Object.keys(patch.requestBody!.content), [
    'application/apply-patch+yaml',
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
  ]);
  const coll = doc.paths['/api/v1/namespaces/{namespace}/pods']!;
  assert.equal(coll.post!['x-kubernetes-action'], 'post');
  assert.deepEqual(
    coll.post!.parameters!.map((p) => p.name),
    ['dryRun', 'fieldManager', 'fieldValidation'],
  );
  assert.equal(coll.get!['x-kubernetes-action'], 'list');
  assert.equal(coll.delete!['x-kubernetes-action'], 'deletecollection');
  assert.ok(doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/status']!.patch);
  assert.equal(doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}/status'], undefined, 'no status subresource');
  assert.ok(doc.paths['/api/v1/pods']!.get, 'list across namespaces');
  assert.ok(doc.paths['/api/v1/watch/namespaces/{namespace}/pods']!.get);
  // cluster-scoped: no namespace segment or parameter
  const ns = doc.paths['/api/v1/namespaces/{name}']!;
  assert.equal(ns.get!.operationId, 'readCoreV1Namespace');
  assert.ok(!JSON.stringify(ns.parameters).includes('"namespace"'));
});

test('group documents: create-only kinds, SMP only for built-in kinds, closed components.schemas', () => {
  const defs = testDefs();
  const ssar = buildGroupVersionDocument(gvDefs(defs, 'authorization.k8s.io')) as unknown as Doc;
  assert.deepEqual(Object.keys(ssar.paths), ['/apis/authorization.k8s.io/v1/', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews']);
  assert.deepEqual(Object.keys(ssar.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews']!), ['post', 'parameters']);

  const widgets = buildGroupVersionDocument(gvDefs(defs, 'example.com')) as unknown as Doc;
  const wpatch = widgets.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}']!.patch!;
  assert.ok(!('application/strategic-merge-patch+json' in wpatch.requestBody!.content));
  assert.ok('application/merge-patch+json' in wpatch.requestBody!.content);
  const w = widgets.components.schemas['com.example.v1.Widget']!;
  assert.deepEqual(w['x-kubernetes-group-version-kind'], [{ group: 'example.com', kind: 'Widget', version: 'v1' }]);
  assert.equal(w['x-kubernetes-preserve-unknown-fields'], true);

  for (const doc of [ssar, widgets, buildGroupVersionDocument(gvDefs(defs, 'apps')) as unknown as Doc, buildGroupVersionDocument(gvDefs(defs, '')) as unknown as Doc]) {
    const schemas = doc.components.schemas;
    for (const r of refsOf(doc)) assert.ok(schemas[r], `unresolved ${r}`);
  }
  const apps = buildGroupVersionDocument(gvDefs(defs, 'apps')) as unknown as Doc;
  assert.ok(apps.components.schemas['io.k8s.api.core.v1.PodSpec'], 'Deployment pulls in PodSpec');
  assert.ok(apps.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.Patch']);
  assert.equal(apps.components.schemas['io.k8s.api.core.v1.Pod'], undefined, 'only referenced schemas');
  assert.equal((apps.components.schemas['io.k8s.api.core.v1.PodSpec']!.properties as Record<string, Schema>).containers!['x-kubernetes-patch-merge-key'], 'name');
});

test('a set mixing group-versions is rejected by buildGroupVersionDocument', () => {
  assert.throws(() => buildGroupVersionDocument(testDefs()), /is not in \/v1/);
});

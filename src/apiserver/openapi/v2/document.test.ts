import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse as parseYAML } from 'yaml';
import type { ResourceDefinition } from '../../../api/resource.js';
import { setCustomResourceSchema } from '../custom.js';
import { testDefs } from '../testdata/defs.js';
import { buildSwaggerDocument, swaggerDocument } from './document.js';
import { openAPIv2DocumentType } from './protobuf.js';

type Param = { in: string; name: string; type?: string; required?: boolean; schema?: { $ref: string } };
type Op = {
  consumes: string[];
  produces: string[];
  schemes: string[];
  operationId: string;
  parameters?: Param[];
  responses: Record<string, { description: string; schema?: { $ref: string } }>;
  'x-kubernetes-action': string;
  'x-kubernetes-group-version-kind': unknown;
};
type Def = { properties?: Record<string, Record<string, unknown>>; type?: string; required?: string[]; [k: string]: unknown };
type Doc = { swagger: string; info: { title: string; version: string }; paths: Record<string, Record<string, Op>>; definitions: Record<string, Def> };

const build = (defs: ResourceDefinition[]): Doc => buildSwaggerDocument(defs) as unknown as Doc;

/** Every `$ref` string anywhere in a JSON value. */
function refs(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) refs(x, out);
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) k === '$ref' ? out.push(x as string) : refs(x, out);
  return out;
}

test("one Swagger 2.0 document: every group-version's paths, sorted, with the upstream info and security", () => {
  const doc = build(testDefs());
  assert.equal(doc.swagger, '2.0');
  assert.deepEqual(doc.info, { title: 'Kubernetes', version: 'v1.32.0' });
  assert.deepEqual(Object.keys(doc).slice(0, 4), ['swagger', 'info', 'paths', 'definitions']);
  const paths = Object.keys(doc.paths);
  assert.deepEqual(paths, [...paths].sort());
  for (const p of [
    '/api/v1/',
    '/api/v1/namespaces/{namespace}/pods/{name}',
    '/api/v1/namespaces/{namespace}/pods/{name}/status',
    '/apis/apps/v1/namespaces/{namespace}/deployments',
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}',
  ]) {
    assert.ok(doc.paths[p], p);
  }
  assert.deepEqual((buildSwaggerDocument(testDefs()) as { securityDefinitions: unknown }).securityDefinitions, {
    BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' },
  });
});

test('operations in v2 form: body parameter, consumes/produces, response schemas, the kind extensions', () => {
  const doc = build(testDefs());
  const pod = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}']!;
  const patch = pod.patch!;
  assert.equal(patch.operationId, 'patchCoreV1NamespacedPod');
  assert.equal(patch['x-kubernetes-action'], 'patch');
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', kind: 'Pod', version: 'v1' });
  assert.deepEqual(patch.schemes, ['https']);
  assert.ok(patch.consumes.includes('application/strategic-merge-patch+json'));
  assert.deepEqual(patch.parameters![0], { in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
  const fv = patch.parameters!.find((p) => p.name === 'fieldValidation');
  assert.deepEqual({ in: fv?.in, type: fv?.type }, { in: 'query', type: 'string' }, 'kubectl checks PATCH takes fieldValidation');
  assert.deepEqual(patch.responses['200'], { description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.core.v1.Pod' } });
  assert.deepEqual(patch.responses['401'], { description: 'Unauthorized' });
  assert.deepEqual(pod.get!.consumes, ['*/*']);
  assert.deepEqual(pod.get!.produces, ['application/json', 'application/yaml']);
  const pathParams = (pod as unknown as { parameters: Param[] }).parameters;
  assert.deepEqual(
    pathParams.map((p) => [p.name, p.in, p.required ?? false]),
    [
      ['name', 'path', true],
      ['namespace', 'path', true],
      ['pretty', 'query', false],
    ],
  );
  const list = doc.paths['/api/v1/namespaces/{namespace}/pods']!.get!;
  assert.ok(list.produces.includes('application/json;stream=watch'));
  const create = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments']!.post!;
  assert.deepEqual(create.parameters![0], { in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.apps.v1.Deployment' } });
  const wpatch = doc.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}']!.patch!;
  assert.ok(!wpatch.consumes.includes('application/strategic-merge-patch+json'), 'no SMP for custom kinds');
  assert.deepEqual(wpatch['x-kubernetes-group-version-kind'], { group: 'example.com', kind: 'Widget', version: 'v1' });
});

test('definitions: closed under $ref, #/definitions/ references, v2 schema forms', () => {
  const doc = build(testDefs());
  const text = JSON.stringify(doc);
  assert.ok(!text.includes('#/components/'), 'no v3 references left');
  for (const r of refs(doc)) {
    assert.match(r, /^#\/definitions\//);
    assert.ok(doc.definitions[r.slice('#/definitions/'.length)], `unresolved ${r}`);
  }
  const pod = doc.definitions['io.k8s.api.core.v1.Pod']!;
  assert.deepEqual(pod['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Pod', version: 'v1' }]);
  assert.equal(pod.properties!.metadata!.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.equal(pod.properties!.metadata!.allOf, undefined);
  assert.equal(typeof pod.properties!.metadata!.description, 'string');
  assert.deepEqual(doc.definitions['io.k8s.api.core.v1.PodList']!['x-kubernetes-group-version-kind'], [{ group: '', kind: 'PodList', version: 'v1' }]);
  const ios = doc.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString']!;
  assert.deepEqual([ios.type, ios.format, ios.oneOf], ['string', 'int-or-string', undefined]);
  assert.equal(doc.definitions['io.k8s.apimachinery.pkg.api.resource.Quantity']!.type, 'string');
  const containers = doc.definitions['io.k8s.api.core.v1.PodSpec']!.properties!.containers as { items: unknown; 'x-kubernetes-patch-merge-key': string };
  assert.deepEqual(containers.items, { $ref: '#/definitions/io.k8s.api.core.v1.Container' });
  assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
  // a custom kind without a schema: a bare object (kubectl would reject every other field)
  assert.deepEqual(doc.definitions['com.example.v1.Widget'], { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'example.com', kind: 'Widget', version: 'v1' }] });
  assert.ok(doc.definitions['com.example.v1.WidgetList']);
});

test('a CRD schema is published as apiextensions does for v2: nullable and preserve-unknown-fields nodes reduced', () => {
  const crd: ResourceDefinition = {
    group: 'stable.example.com',
    version: 'v1',
    kind: 'CronTab',
    listKind: 'CronTabList',
    resource: 'crontabs',
    singular: 'crontab',
    namespaced: true,
  };
  setCustomResourceSchema(crd, {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }], description: 'meta' },
      spec: {
        type: 'object',
        required: ['cronSpec', 'note'],
        properties: {
          cronSpec: { type: 'string' },
          note: { type: 'string', nullable: true },
          replicas: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } },
          tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
    'x-kubernetes-group-version-kind': [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }],
  });
  const doc = build([...testDefs(), crd]);
  const s = doc.definitions['com.example.stable.v1.CronTab']!;
  assert.equal(s.properties!.metadata!.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  const spec = s.properties!.spec as Def;
  assert.deepEqual(spec.required, ['cronSpec'], 'nullable fields are not required');
  assert.deepEqual(spec.properties!.note, {}, 'nullable: no type');
  assert.deepEqual(spec.properties!.replicas, { 'x-kubernetes-int-or-string': true }, 'junctors dropped');
  assert.deepEqual(spec.properties!.raw, { 'x-kubernetes-preserve-unknown-fields': true });
  assert.deepEqual(spec.properties!.tags, { 'x-kubernetes-preserve-unknown-fields': true }, 'array without items loses its type');
  assert.deepEqual(s['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }]);
});

test('the document is kept per definition set and rebuilt when resources come and go', () => {
  const defs = testDefs();
  const first = swaggerDocument(defs);
  assert.equal(swaggerDocument(defs), first);
  assert.equal(swaggerDocument([...defs]), first, 'same definitions in a new array');
  assert.match(first.etag, /^[0-9A-F]{128}$/);
  const gadget: ResourceDefinition = { group: 'example.com', version: 'v1', kind: 'Gadget', listKind: 'GadgetList', resource: 'gadgets', singular: 'gadget', namespaced: false };
  const added = swaggerDocument([...defs, gadget]);
  assert.notEqual(added.etag, first.etag);
  const withGadget = JSON.parse(added.json.toString()) as Doc;
  assert.ok(withGadget.paths['/apis/example.com/v1/gadgets/{name}']);
  assert.ok(withGadget.definitions['com.example.v1.Gadget']);
  const removed = swaggerDocument(defs.filter((d) => d.kind !== 'Widget'));
  const without = JSON.parse(removed.json.toString()) as Doc;
  assert.equal(without.paths['/apis/example.com/v1/namespaces/{namespace}/widgets'], undefined);
  assert.equal(without.definitions['com.example.v1.Widget'], undefined);
});

test('protobuf: gnostic Document with the same paths, definitions and YAML vendor extensions', () => {
  const d = swaggerDocument(testDefs());
  const json = JSON.parse(d.json.toString()) as Doc;
  const T = openAPIv2DocumentType();
  const pb = T.toObject(T.decode(d.protobuf()), { defaults: false }) as {
    swagger: string;
    info: { title: string; version: string };
    paths: {
      path: { name: string; value: { patch?: { operation_id: string; vendor_extension: { name: string; value: { yaml: string } }[]; parameters: Record<string, any>[] } } }[];
    };
    definitions: {
      additional_properties: {
        name: string;
        value: {
          _ref?: string;
          type?: { value: string[] };
          properties?: { additional_properties: { name: string; value: Record<string, any> }[] };
          vendor_extension?: { name: string; value: { yaml: string } }[];
        };
      }[];
    };
    security_definitions: { additional_properties: { name: string; value: { api_key_security: Record<string, string> } }[] };
  };
  assert.equal(pb.swagger, '2.0');
  assert.deepEqual(pb.info, { title: 'Kubernetes', version: 'v1.32.0' });
  assert.deepEqual(
    pb.paths.path.map((p) => p.name),
    Object.keys(json.paths),
  );
  assert.deepEqual(
    pb.definitions.additional_properties.map((p) => p.name),
    Object.keys(json.definitions),
  );
  assert.deepEqual(pb.security_definitions.additional_properties[0]!.value.api_key_security, {
    type: 'apiKey',
    name: 'authorization',
    in: 'header',
    description: 'Bearer Token authentication',
  });

  const patch = pb.paths.path.find((p) => p.name === '/api/v1/namespaces/{namespace}/pods/{name}')!.value.patch!;
  assert.equal(patch.operation_id, 'patchCoreV1NamespacedPod');
  const gvk = patch.vendor_extension.find((e) => e.name === 'x-kubernetes-group-version-kind')!;
  assert.deepEqual(parseYAML(gvk.value.yaml), { group: '', kind: 'Pod', version: 'v1' });
  assert.equal(patch.parameters[0]!.parameter.body_parameter.schema._ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
  const fv = patch.parameters.find((p) => p.parameter?.non_body_parameter?.query_parameter_sub_schema?.name === 'fieldValidation');
  assert.ok(fv, 'fieldValidation as a query parameter');

  const pod = pb.definitions.additional_properties.find((p) => p.name === 'io.k8s.api.core.v1.Pod')!.value;
  assert.deepEqual(pod.type, { value: ['object'] });
  assert.deepEqual(parseYAML(pod.vendor_extension!.find((e) => e.name === 'x-kubernetes-group-version-kind')!.value.yaml), [{ group: '', kind: 'Pod', version: 'v1' }]);
  const meta = pod.properties!.additional_properties.find((p) => p.name === 'metadata')!.value;
  assert.equal(meta._ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.equal(d.protobuf(), d.protobuf(), 'encoded once');
});

test("every built-in definition is one kubectl's v2 models can read: one type at most, arrays with items, references resolved", async () => {
  const { allDefinitions } = await import('../../../api/all.js');
  const doc = build(allDefinitions({ serviceCIDR: '10.96.0.0/12' }));
  const problems: string[] = [];
  const visit = (s: unknown, path: string): void => {
    if (s === null || typeof s !== 'object') return;
    const o = s as Record<string, unknown>;
    if (typeof o.$ref === 'string') {
      if (!doc.definitions[o.$ref.slice('#/definitions/'.length)]) problems.push(`${path}: unresolved ${o.$ref}`);
      return;
    }
    if (Array.isArray(o.type)) problems.push(`${path}: several types`);
    if (o.type === 'array' && (o.items === null || typeof o.items !== 'object')) problems.push(`${path}: array without items`);
    if (o.type !== undefined && !['object', 'array', 'string', 'integer', 'number', 'boolean'].includes(o.type as string)) problems.push(`${path}: type ${String(o.type)}`);
    for (const k of ['oneOf', 'anyOf', 'not', 'nullable']) if (k in o) problems.push(`${path}: ${k}`);
    for (const [name, p] of Object.entries((o.properties ?? {}) as Record<string, unknown>)) visit(p, `${path}.${name}`);
    if (o.items) visit(o.items, `${path}[]`);
    if (o.additionalProperties && typeof o.additionalProperties === 'object') visit(o.additionalProperties, `${path}{}`);
  };
  for (const [name, s] of Object.entries(doc.definitions)) visit(s, name);
  assert.deepEqual(problems, []);
  assert.ok(Object.keys(doc.definitions).length > 300);
});

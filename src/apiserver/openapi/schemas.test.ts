import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { GENERATED_FILE, renderSchemasFile } from './generator/generate.js';
import { applyPatchMeta, builtinSchemaName, builtinSchemas, closure, refsOf, type Schema } from './schemas.js';
import { schemaNameFromRef } from './names.js';

const S = (name: string): Schema => {
  const s = builtinSchemas().schemas[name];
  assert.ok(s, `schema ${name} missing`);
  return s;
};
const prop = (name: string, field: string): Schema => {
  const p = (S(name).properties as Record<string, Schema> | undefined)?.[field];
  assert.ok(p, `${name}.${field} missing`);
  return p;
};

test('generated/schemas.json is up to date with the generator (run node --import tsx scripts/gen-openapi-schemas.mjs)', () => {
  assert.ok(readFileSync(GENERATED_FILE, 'utf8') === renderSchemasFile(), 'generated/schemas.json is stale');
});

test('Pod carries its group-version-kind; kinds are indexed by it', () => {
  assert.deepEqual(S('io.k8s.api.core.v1.Pod')['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Pod', version: 'v1' }]);
  assert.deepEqual(S('io.k8s.api.apps.v1.Deployment')['x-kubernetes-group-version-kind'], [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
  assert.deepEqual(S('io.k8s.api.rbac.v1.Role')['x-kubernetes-group-version-kind'], [{ group: 'rbac.authorization.k8s.io', kind: 'Role', version: 'v1' }]);
  assert.equal(S('io.k8s.api.core.v1.PodSpec')['x-kubernetes-group-version-kind'], undefined);
  assert.equal(builtinSchemaName({ group: 'apps', version: 'v1', kind: 'Deployment' }), 'io.k8s.api.apps.v1.Deployment');
  assert.equal(builtinSchemaName({ group: '', version: 'v1', kind: 'Pod', schemaRef: 'core/v1#Pod' }), 'io.k8s.api.core.v1.Pod');
  assert.equal(builtinSchemaName({ group: 'example.com', version: 'v1', kind: 'Widget' }), undefined);
  assert.equal(schemaNameFromRef('meta/v1#ObjectMeta'), 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.equal(schemaNameFromRef('api/resource#Quantity'), 'io.k8s.apimachinery.pkg.api.resource.Quantity');
});

test('PodSpec.containers: merge key name, strategy merge, list-map keyed by name', () => {
  const c = prop('io.k8s.api.core.v1.PodSpec', 'containers');
  assert.equal(c['x-kubernetes-patch-merge-key'], 'name');
  assert.equal(c['x-kubernetes-patch-strategy'], 'merge');
  assert.equal(c['x-kubernetes-list-type'], 'map');
  assert.deepEqual(c['x-kubernetes-list-map-keys'], ['name']);
  assert.equal(c.type, 'array');
  assert.deepEqual(c.items, { allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.Container' }], default: {} });
  const ports = prop('io.k8s.api.core.v1.Container', 'ports');
  assert.equal(ports['x-kubernetes-patch-merge-key'], 'containerPort');
  assert.deepEqual(ports['x-kubernetes-list-map-keys'], ['containerPort', 'protocol']);
  assert.equal(prop('io.k8s.api.apps.v1.DeploymentSpec', 'strategy')['x-kubernetes-patch-strategy'], 'retainKeys');
  assert.equal(prop('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'finalizers')['x-kubernetes-list-type'], 'set');
  assert.equal(S('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector')['x-kubernetes-map-type'], 'atomic');
});

test('integer formats, bytes, required fields and descriptions', () => {
  assert.deepEqual(
    { ...prop('io.k8s.api.core.v1.PodSpec', 'terminationGracePeriodSeconds'), description: undefined },
    { description: undefined, format: 'int64', type: 'integer' },
  );
  assert.equal(prop('io.k8s.api.apps.v1.DeploymentSpec', 'replicas').format, 'int32');
  assert.equal(prop('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'generation').format, 'int64');
  assert.equal(prop('io.k8s.api.certificates.v1.CertificateSigningRequestSpec', 'expirationSeconds').format, 'int32');
  assert.equal(prop('io.k8s.api.authentication.v1.TokenRequestSpec', 'expirationSeconds').format, 'int64');
  assert.deepEqual((prop('io.k8s.api.core.v1.PodSecurityContext', 'supplementalGroups').items as Schema).format, 'int64');
  assert.deepEqual(prop('io.k8s.api.core.v1.Secret', 'data').additionalProperties, { format: 'byte', type: 'string' });
  assert.deepEqual(prop('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps', 'maximum'), { format: 'double', type: 'number' });
  assert.deepEqual(S('io.k8s.api.core.v1.Container').required, ['name']);
  assert.ok((S('io.k8s.api.core.v1.PodSpec').required as string[]).includes('containers'));
  assert.match(S('io.k8s.api.core.v1.Pod').description as string, /^Pod is a collection of containers/);
  assert.match(prop('io.k8s.api.core.v1.Container', 'image').description as string, /Container image name/);
});

test('custom-JSON types: Quantity, IntOrString, Time, RawExtension; $ref with siblings wrapped in allOf', () => {
  const q = S('io.k8s.apimachinery.pkg.api.resource.Quantity');
  assert.deepEqual(q.oneOf, [{ type: 'string' }, { type: 'number' }]);
  const ios = S('io.k8s.apimachinery.pkg.util.intstr.IntOrString');
  assert.equal(ios['x-kubernetes-int-or-string'], true);
  assert.equal(ios.format, 'int-or-string');
  assert.deepEqual(S('io.k8s.apimachinery.pkg.apis.meta.v1.Time').format, 'date-time');
  assert.equal(S('io.k8s.apimachinery.pkg.apis.meta.v1.Time').type, 'string');
  assert.equal(S('io.k8s.apimachinery.pkg.runtime.RawExtension').type, 'object');
  assert.deepEqual(prop('io.k8s.api.core.v1.ServicePort', 'targetPort').allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString' }]);
  assert.deepEqual(prop('io.k8s.api.core.v1.ResourceRequirements', 'limits').additionalProperties, { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity' });
  const meta = prop('io.k8s.api.core.v1.Pod', 'metadata');
  assert.deepEqual(meta.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
  assert.deepEqual(meta.default, {});
  assert.equal(prop('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'creationTimestamp').default, undefined);
});

test('every $ref resolves; closure collects exactly the referenced schemas', () => {
  const { schemas } = builtinSchemas();
  for (const [name, s] of Object.entries(schemas)) for (const r of refsOf(s)) assert.ok(schemas[r], `${name} → ${r}`);
  const c = closure(['io.k8s.api.core.v1.ConfigMap'], schemas);
  assert.deepEqual(Object.keys(c), [
    'io.k8s.api.core.v1.ConfigMap',
    'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
    'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry',
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  ]);
});

test('applyPatchMeta sets strategy and merge key on existing fields only', () => {
  const schemas: Record<string, Schema> = { 'x.A': { properties: { items: { type: 'array' }, plain: { type: 'string' } }, type: 'object' } };
  applyPatchMeta(schemas, { 'x.A': { items: { strategy: 'merge', mergeKey: 'id' }, missing: { strategy: 'replace' } }, 'x.B': { f: { strategy: 'merge' } } });
  assert.deepEqual(schemas['x.A']!.properties, {
    items: { type: 'array', 'x-kubernetes-patch-merge-key': 'id', 'x-kubernetes-patch-strategy': 'merge' },
    plain: { type: 'string' },
  });
  assert.equal(schemas['x.B'], undefined);
});

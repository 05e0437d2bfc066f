import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unknownFields } from './unknown-fields.js';
import { setCustomResourceSchema } from './custom.js';
import type { KObject } from '../../api/resource.js';

const pod = { group: '', version: 'v1', kind: 'Pod' };

test('a well-formed Pod has no unknown fields', () => {
  const obj = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'x',
      labels: { 'app.kubernetes.io/name': 'x' },
      annotations: { a: 'b' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'n', uid: 'u' }],
      managedFields: [{ manager: 'm', fieldsV1: { 'f:metadata': { 'f:labels': {} } } }],
    },
    spec: {
      containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } }, livenessProbe: { httpGet: { port: 'http' } } }],
      volumes: [{ name: 'v', emptyDir: {} }],
    },
    status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
  };
  assert.deepEqual(unknownFields(pod, obj), []);
});

test('unknown fields are reported with their paths, as upstream strict decoding spells them', () => {
  const obj = {
    apiVersion: 'v1',
    kind: 'Pod',
    bogusTop: 1,
    metadata: { name: 'x', nam: 'typo' },
    spec: {
      bogusField: 1,
      containers: [
        { name: 'c', image: 'nginx' },
        { name: 'd', imagePullPolice: 'Always', ports: [{ containerPort: 1, hostPorts: 2 }] },
      ],
    },
  };
  assert.deepEqual(unknownFields(pod, obj), ['bogusTop', 'metadata.nam', 'spec.bogusField', 'spec.containers[1].imagePullPolice', 'spec.containers[1].ports[0].hostPorts']);
  assert.deepEqual(unknownFields({ group: 'apps', version: 'v1', kind: 'Deployment' }, { spec: { template: { spec: { containers: [{ name: 'c', imagee: 'x' }] } } } }), [
    'spec.template.spec.containers[0].imagee',
  ]);
});

test('kinds without a built-in schema report nothing', () => {
  assert.deepEqual(unknownFields({ group: 'example.com', version: 'v1', kind: 'Widget' }, { spec: { anything: 1 } }), []);
});

test('CRDs may use the x-kubernetes-* schema extensions', () => {
  const crd = { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' };
  const schema = {
    type: 'object',
    'x-kubernetes-validations': [{ rule: 'self.a > 0' }],
    properties: {
      a: { 'x-kubernetes-int-or-string': true },
      b: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-embedded-resource': true, 'x-kubernetes-map-type': 'atomic' },
      c: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], 'x-kubernets-typo': true },
    },
  };
  const obj = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'x' },
    spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: schema } }] },
  };
  assert.deepEqual(unknownFields(crd, obj), ['spec.versions[0].schema.openAPIV3Schema.properties.c.x-kubernets-typo']);
});

test('custom resources are checked against the schema registered for their definition', () => {
  const def = { group: 'example.com', version: 'v1', kind: 'Widget', listKind: 'WidgetList', resource: 'widgets', singular: 'widget', namespaced: true };
  setCustomResourceSchema(def, {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] },
      spec: { type: 'object', properties: { size: { type: 'integer' }, free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    },
  });
  assert.deepEqual(unknownFields(def, <KObject>{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', nam: 1 }, spec: { size: 1, sise: 2, free: { any: 1 } } }), [
    'metadata.nam',
    'spec.sise',
  ]);
});

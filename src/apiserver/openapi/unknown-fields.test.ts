import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unknownFields } from './unknown-fields.js';

const pod = { group: '', version: 'v1', kind: 'Pod' };

test('a well-formed Pod has no unknown fields', () => {
  const obj = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'x', labels: { 'app.kubernetes.io/name': 'x' }, annotations: { a: 'b' }, ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'n', uid: 'u' }], managedFields: [{ manager: 'm', fieldsV1: { 'f:metadata': { 'f:labels': {} } } }] },
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
    spec: { bogusField: 1, containers: [{ name: 'c', image: 'nginx' }, { name: 'd', imagePullPolice: 'Always', ports: [{ containerPort: 1, hostPorts: 2 }] }] },
  };
  assert.deepEqual(unknownFields(pod, obj), ['bogusTop', 'metadata.nam', 'spec.bogusField', 'spec.containers[1].imagePullPolice', 'spec.containers[1].ports[0].hostPorts']);
  assert.deepEqual(unknownFields({ group: 'apps', version: 'v1', kind: 'Deployment' }, { spec: { template: { spec: { containers: [{ name: 'c', imagee: 'x' }] } } } }), ['spec.template.spec.containers[0].imagee']);
});

test('kinds without a built-in schema report nothing', () => {
  assert.deepEqual(unknownFields({ group: 'example.com', version: 'v1', kind: 'Widget' }, { spec: { anything: 1 } }), []);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldOrder, inFieldOrder, objectMetaInOrder } from './wire-order.js';

test('inFieldOrder: known fields in order, unknown ones after them as they came; no copy when already ordered', () => {
  const order = fieldOrder(['kind', 'apiVersion', 'metadata', 'spec', 'status']);
  const o = { apiVersion: 'v1', x: 1, status: {}, kind: 'Pod', spec: {}, metadata: {}, y: 2 };
  const r = inFieldOrder(o, order);
  assert.deepEqual(Object.keys(r), ['kind', 'apiVersion', 'metadata', 'spec', 'status', 'x', 'y']);
  assert.equal(r.status, o.status, 'values shared');
  const ordered = { kind: 'Pod', apiVersion: 'v1', metadata: {}, extra: true };
  assert.equal(inFieldOrder(ordered, order), ordered);
});

test('ObjectMeta in Go order, with its owner references and managed fields entries', () => {
  const meta = {
    managedFields: [{ time: 't', manager: 'kubectl', operation: 'Apply', fieldsV1: {}, fieldsType: 'FieldsV1', apiVersion: 'v1' }],
    labels: { a: 'b' },
    uid: 'u',
    name: 'n',
    ownerReferences: [{ uid: 'o', name: 'rs', kind: 'ReplicaSet', apiVersion: 'apps/v1', controller: true }],
    creationTimestamp: 'c',
    namespace: 'default',
    resourceVersion: '5',
    generateName: 'n-',
  };
  const m = objectMetaInOrder(meta);
  assert.equal(
    JSON.stringify(m),
    '{"name":"n","generateName":"n-","namespace":"default","uid":"u","resourceVersion":"5","creationTimestamp":"c","labels":{"a":"b"},' +
      '"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"o","controller":true}],' +
      '"managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"t","fieldsType":"FieldsV1","fieldsV1":{}}]}',
  );
  assert.deepEqual(Object.keys(meta)[0], 'managedFields', 'the input is left as it was');
  const already = { name: 'n', namespace: 'd', ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'x', uid: 'y' }] };
  assert.equal(objectMetaInOrder(already), already);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KObject } from '../api/resource.js';
import { dropManagedFields } from './informers.js';

const pod = (): KObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }] },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

test('the pod informer transform drops metadata.managedFields (upstream newPodInformer trim)', () => {
  const p = pod();
  assert.equal(dropManagedFields(p), p);
  assert.equal(p.metadata?.managedFields, undefined);
  assert.equal(p.metadata?.name, 'p');
});

test('dropManagedFields keeps a frozen (shared) object as it is', () => {
  const p = pod();
  Object.freeze(p.metadata);
  Object.freeze(p);
  assert.equal(dropManagedFields(p), p);
  assert.equal(p.metadata?.managedFields?.length, 1);
});

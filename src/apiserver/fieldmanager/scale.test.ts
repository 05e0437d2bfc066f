import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Obj } from '../../api/resource.js';
import { recordScaleUpdate } from './scale.js';
import type { ManagedFieldsEntry } from './managed.js';

const def = { group: 'apps', version: 'v1', kind: 'Deployment' };
const now = new Date('2026-01-01T00:00:05Z');

function withApplier(): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      uid: 'u',
      managedFields: [
        {
          manager: 'kubectl',
          operation: 'Apply',
          apiVersion: 'apps/v1',
          time: '2026-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:paused': {} } },
        },
        {
          manager: 'hpa',
          operation: 'Update',
          apiVersion: 'apps/v1',
          time: '2026-01-01T00:00:01Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:replicas': {} } },
          subresource: 'scale',
        },
      ],
    },
    spec: { replicas: 3, paused: false },
  } as Obj;
}

test('a Scale write moves spec.replicas to the scaler with subresource scale', () => {
  const o = withApplier();
  recordScaleUpdate(o, 1, 'kubectl', { def, now });
  const mf = o.metadata.managedFields as ManagedFieldsEntry[];
  assert.deepEqual(mf, [
    { manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:paused': {} } } },
    {
      manager: 'kubectl',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: '2026-01-01T00:00:05Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      subresource: 'scale',
    },
  ]);
});

test('an unchanged replica count or an object without managedFields is left alone', () => {
  const o = withApplier();
  const before = structuredClone(o.metadata.managedFields);
  recordScaleUpdate(o, 3, 'kubectl', { def, now });
  assert.deepEqual(o.metadata.managedFields, before);
  const bare = withApplier();
  delete bare.metadata.managedFields;
  recordScaleUpdate(bare, 1, 'kubectl', { def, now });
  assert.equal(bare.metadata.managedFields, undefined);
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { equalIgnoringManagedFieldsTimestamps, jsonEqual } from './equal.js';

describe('jsonEqual', () => {
  it('ignores member order and undefined members, not array order', () => {
    assert.equal(jsonEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }), true);
    assert.equal(jsonEqual({ a: 1, u: undefined }, { a: 1 }), true);
    assert.equal(jsonEqual({ a: [1, 2] }, { a: [2, 1] }), false);
    assert.equal(jsonEqual({ a: 1 }, { a: 1, b: null }), false);
    assert.equal(jsonEqual({ a: '1' }, { a: 1 }), false);
  });
});

describe('equalIgnoringManagedFieldsTimestamps', () => {
  const mf = (time: string, f = 'f:x') => [{ manager: 'm', operation: 'Update', time, fieldsType: 'FieldsV1', fieldsV1: { [f]: {} } }];
  it('treats objects differing only in managedFields times as equal', () => {
    const a = { metadata: { name: 'a', managedFields: mf('2024-01-01T00:00:00Z') }, data: { x: '1' } };
    const b = { metadata: { name: 'a', managedFields: mf('2024-01-02T00:00:00Z') }, data: { x: '1' } };
    assert.equal(equalIgnoringManagedFieldsTimestamps(a, b), true);
  });
  it('sees other changes', () => {
    const a = { metadata: { name: 'a', managedFields: mf('2024-01-01T00:00:00Z') }, data: { x: '1' } };
    assert.equal(equalIgnoringManagedFieldsTimestamps(a, { ...a, data: { x: '2' } }), false);
    assert.equal(equalIgnoringManagedFieldsTimestamps(a, { ...a, metadata: { name: 'a', managedFields: mf('2024-01-01T00:00:00Z', 'f:y') } }), false);
  });
});

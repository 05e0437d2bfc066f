import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject, Obj } from '../../api/resource.js';
import { customResourcePrinter, parseColumnPath, parseSimpleJSONPath } from './printer.js';

const obj = {
  apiVersion: 'cert.example.com/v1',
  kind: 'Certificate',
  metadata: { name: 'c', creationTimestamp: '2026-01-01T00:00:00Z', labels: { 'app.kubernetes.io/name': 'x' } },
  spec: { dnsNames: ['a.example', 'b.example'], replicas: 2.7, ratio: 3, enabled: true, nested: { k: 'v' } },
  status: {
    conditions: [
      { type: 'Issuing', status: 'False' },
      { type: 'Ready', status: 'True', message: 'ok' },
    ],
  },
} as Obj<KObject>;

describe('custom resource printer columns', () => {
  it('parses simple paths and rejects others', () => {
    assert.deepEqual(parseSimpleJSONPath('.spec.dnsNames[1]'), ['spec', 'dnsNames', 1]);
    assert.deepEqual(parseSimpleJSONPath("{.metadata.labels['app.kubernetes.io/name']}"), ['metadata', 'labels', 'app.kubernetes.io/name']);
    assert.equal(parseSimpleJSONPath('spec.x'), undefined);
    assert.equal(parseSimpleJSONPath('.status.conditions[?(@.type=="Ready")].status'), undefined);
    assert.ok(parseColumnPath('.status.conditions[?(@.type=="Ready")].status'));
    assert.equal(parseColumnPath('..spec'), undefined);
  });

  it('renders cells by column type, with Name first and dates as ages', () => {
    const p = customResourcePrinter([
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'First', type: 'string', jsonPath: '.spec.dnsNames[*]' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
      { name: 'On', type: 'boolean', jsonPath: '.spec.enabled' },
      { name: 'Nested', type: 'string', jsonPath: '.spec.nested' },
      { name: 'Missing', type: 'string', jsonPath: '.spec.nope' },
      { name: 'WrongType', type: 'integer', jsonPath: '.spec.enabled' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'Wide', type: 'string', jsonPath: ".metadata.labels['app.kubernetes.io/name']", priority: 1 },
    ]);
    assert.deepEqual(
      p.columns.map((c) => [c.name, c.type, c.priority]),
      [
        ['Name', 'string', 0],
        ['Ready', 'string', 0],
        ['First', 'string', 0],
        ['Replicas', 'integer', 0],
        ['Ratio', 'number', 0],
        ['On', 'boolean', 0],
        ['Nested', 'string', 0],
        ['Missing', 'string', 0],
        ['WrongType', 'integer', 0],
        ['Age', 'date', 0],
        ['Wide', 'string', 1],
      ],
    );
    assert.deepEqual(p.cells(obj, new Date('2026-01-01T00:05:00Z')), ['c', 'True', 'a.example', 2, 3, true, '{"k":"v"}', null, null, '5m', 'x']);
  });

  it('defaults to NAME and AGE', () => {
    const p = customResourcePrinter(undefined);
    assert.deepEqual(
      p.columns.map((c) => c.name),
      ['Name', 'Age'],
    );
    assert.deepEqual(p.cells(obj, new Date('2026-01-01T02:00:00Z')), ['c', '120m']);
  });
});

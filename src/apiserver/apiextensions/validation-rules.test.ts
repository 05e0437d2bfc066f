/**
 * CRD validation rules (x-kubernetes-validations) and list-type uniqueness, with
 * upstream's field errors (cases after apiextensions-apiserver's schema/cel tests).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CRSchema } from '../../api/apiextensions/v1/customresourcedefinition/types.js';
import { fieldErrorString } from '../../apimachinery/field-errors.js';
import { escapeProperty, RuleValidator } from './validation-rules.js';

const schema: CRSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.minReplicas <= self.replicas', message: 'replicas should be greater than or equal to minReplicas' },
        {
          rule: 'self.replicas <= self.maxReplicas',
          messageExpression: "'replicas ' + string(self.replicas) + ' over ' + string(self.maxReplicas)",
          reason: 'FieldValueForbidden',
        },
        { rule: 'self.ratio < 1.0' },
        {
          rule: "!has(self.image) || self.image.startsWith('registry.example/')",
          fieldPath: '.image',
          reason: 'FieldValueRequired',
          message: 'image must come from registry.example',
        },
      ],
      properties: {
        replicas: { type: 'integer' },
        minReplicas: { type: 'integer' },
        maxReplicas: { type: 'integer' },
        ratio: { type: 'number' },
        image: { type: 'string' },
        'x-name': { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != "bad"' }] },
        immutable: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] },
        grown: { type: 'integer', 'x-kubernetes-validations': [{ rule: '!oldSelf.hasValue() || self >= oldSelf.value()', optionalOldSelf: true, message: 'may only grow' }] },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0 && self < 65536' }] } } },
        },
      },
    },
  },
};

function errs(obj: Record<string, unknown>, old?: Record<string, unknown>): string[] {
  return new RuleValidator(schema).validate(obj, old).errors.map(fieldErrorString);
}

const ok = { replicas: 2, minReplicas: 1, maxReplicas: 3, ratio: 0.5 };

describe('CRD validation rules', () => {
  it('passes a valid object', () => {
    assert.deepEqual(errs({ spec: ok }), []);
  });
  it('reports message, messageExpression with reason, default message and fieldPath as upstream', () => {
    assert.deepEqual(errs({ spec: { ...ok, minReplicas: 5, replicas: 4, maxReplicas: 3, ratio: 1, image: 'docker.io/x' } }), [
      'spec: Invalid value: "object": replicas should be greater than or equal to minReplicas',
      'spec: Forbidden: replicas 4 over 3',
      'spec: Invalid value: "object": failed rule: self.ratio < 1.0',
      'spec.image: Required value: image must come from registry.example',
    ]);
  });
  it('types number fields as double even when integral', () => {
    assert.deepEqual(errs({ spec: { ...ok, ratio: 0 } }), []);
  });
  it('escapes property names', () => {
    assert.equal(escapeProperty('x-name'), 'x__dash__name');
    assert.equal(escapeProperty('namespace'), '__namespace__');
    assert.equal(escapeProperty('a.b/c__d'), 'a__dot__b__slash__c__underscores__d');
    assert.deepEqual(errs({ spec: { ...ok, 'x-name': 'bad' } }), ['spec.x-name: Invalid value: "string": failed rule: self != "bad"']);
  });
  it('runs transition rules only with an old value, optionalOldSelf always', () => {
    assert.deepEqual(errs({ spec: { ...ok, immutable: 'a', grown: 5 } }), []);
    assert.deepEqual(errs({ spec: { ...ok, immutable: 'b', grown: 4 } }, { spec: { ...ok, immutable: 'a', grown: 5 } }), [
      'spec.immutable: Invalid value: "string": Value is immutable',
      'spec.grown: Invalid value: "integer": may only grow',
    ]);
  });
  it('ratchets unchanged invalid values into warnings', () => {
    const bad = { spec: { ...ok, ratio: 2 } };
    const r = new RuleValidator(schema).validate({ spec: { ...bad.spec } }, bad);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.warnings, ['spec: Invalid value: "object": failed rule: self.ratio < 1.0']);
    assert.equal(new RuleValidator(schema).validate({ spec: { ...ok, ratio: 3 } }, bad).errors.length, 1);
  });
  it('checks list-type set and map uniqueness and rules in list items', () => {
    assert.deepEqual(
      errs({
        spec: {
          ...ok,
          tags: ['a', 'b', 'a'],
          ports: [
            { name: 'http', port: 80 },
            { name: 'http', port: 0 },
          ],
        },
      }),
      [
        'spec.tags[2]: Duplicate value: "a"',
        'spec.ports[1]: Duplicate value: {"name":"http"}',
        'spec.ports[1].port: Invalid value: "integer": failed rule: self > 0 && self < 65536',
      ],
    );
  });
  it('reports runtime errors and compile errors in upstream words', () => {
    const s: CRSchema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: 'self.missing > 1' }, { rule: 'self.x +' }],
          properties: { x: { type: 'integer' }, missing: { type: 'integer' } },
        },
      },
    };
    const out = new RuleValidator(s).validate({ spec: { x: 1 } }).errors.map(fieldErrorString);
    assert.equal(out[0], 'spec: Invalid value: "object": no such key: missing evaluating rule: self.missing > 1');
    assert.match(out[1]!, /^spec: Invalid value: "object": rule compile error: compilation failed: ERROR: <input>:1:9: /);
  });
  it('sees apiVersion, kind and metadata.name at the root', () => {
    const s: CRSchema = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('ok-') && self.kind == 'Thing'" }],
      properties: { spec: { type: 'object' } },
    };
    const v = new RuleValidator(s);
    assert.deepEqual(v.validate({ apiVersion: 'x/v1', kind: 'Thing', metadata: { name: 'ok-1', uid: 'u' } }).errors, []);
    assert.deepEqual(v.validate({ apiVersion: 'x/v1', kind: 'Thing', metadata: { name: 'no' } }).errors.map(fieldErrorString), [
      `Invalid value: "object": failed rule: self.metadata.name.startsWith('ok-') && self.kind == 'Thing'`,
    ]);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../apimachinery/field-errors.js';
import { type CRSchema, defaultCustomResource, pruneCustomResource, validateCustomResource } from './schema.js';

const schema: CRSchema = {
  type: 'object',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['cronSpec'],
      properties: {
        cronSpec: { type: 'string', minLength: 3, maxLength: 20, pattern: '^[0-9*/ ]+$' },
        replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
        ratio: { type: 'number', exclusiveMaximum: true, maximum: 1 },
        mode: { type: 'string', enum: ['Fast', 'Slow'] },
        port: { 'x-kubernetes-int-or-string': true },
        tags: { type: 'array', items: { type: 'string', format: 'hostname' }, minItems: 1, maxItems: 2 },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        note: { type: 'string', nullable: true },
        when: { type: 'string', format: 'date-time' },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
        nested: { type: 'object', properties: { a: { type: 'string', default: 'x' }, b: { type: 'boolean' } }, default: {} },
      },
    },
  },
};

const ok = { cronSpec: '* * * * */5' };

/** Validation cases: spec fields → the error strings upstream prints. */
const cases: [string, Record<string, unknown>, string[]][] = [
  ['valid', { ...ok, replicas: 3, mode: 'Fast', port: 'http', tags: ['a.example'], labels: { x: 'y' }, note: null }, []],
  ['type integer', { ...ok, replicas: 'three' }, ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']],
  ['float for integer', { ...ok, replicas: 1.5 }, ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"']],
  ['null not nullable', { ...ok, mode: null }, ['spec.mode: Invalid value: "null": spec.mode in body must be of type string: "null"']],
  ['maximum', { ...ok, replicas: 20 }, ['spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10']],
  ['minimum', { ...ok, replicas: 0 }, ['spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1']],
  ['exclusive maximum', { ...ok, ratio: 1 }, ['spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1']],
  ['enum', { ...ok, mode: 'Medium' }, ['spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow"']],
  ['required', {}, ['spec.cronSpec: Required value']],
  ['minLength', { cronSpec: '1' }, ['spec.cronSpec: Invalid value: "1": spec.cronSpec in body should be at least 3 chars long']],
  ['maxLength', { cronSpec: '1 2 3 4 5 6 7 8 9 10 11' }, ['spec.cronSpec: Too long: may not be more than 20 bytes']],
  ['pattern', { cronSpec: 'abc' }, ['spec.cronSpec: Invalid value: "abc": spec.cronSpec in body should match \'^[0-9*/ ]+$\'']],
  ['int-or-string', { ...ok, port: true }, ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"']],
  ['minItems', { ...ok, tags: [] }, ['spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items']],
  ['maxItems', { ...ok, tags: ['a', 'b', 'c'] }, ['spec.tags: Too many: 3: must have at most 2 items']],
  ['item type', { ...ok, tags: ['a', 1] }, ['spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"']],
  ['format hostname', { ...ok, tags: ['not a host'] }, ['spec.tags[0]: Invalid value: "not a host": spec.tags[0] in body must be of type hostname: "not a host"']],
  ['format date-time', { ...ok, when: 'yesterday' }, ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"']],
  ['map values', { ...ok, labels: { a: 1 } }, ['spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"']],
  [
    'embedded resource',
    { ...ok, template: { metadata: {} } },
    ['spec.template.apiVersion: Required value: must not be empty', 'spec.template.kind: Required value: must not be empty'],
  ],
];

describe('custom resource schema validation', () => {
  for (const [name, spec, want] of cases) {
    it(name, () => {
      const errs = validateCustomResource(schema, { apiVersion: 'x.example.com/v1', kind: 'X', metadata: { name: 'a' }, spec });
      assert.deepEqual(errs.map(fieldErrorString), want);
    });
  }

  it('requires spec at the root', () => {
    assert.deepEqual(validateCustomResource(schema, { apiVersion: 'x.example.com/v1', kind: 'X', metadata: {} }).map(fieldErrorString), ['spec: Required value']);
  });
});

describe('custom resource pruning and defaulting', () => {
  it('drops unknown fields, keeps preserved and embedded ones, cuts metadata to ObjectMeta', () => {
    const o: Record<string, unknown> = {
      apiVersion: 'x.example.com/v1',
      kind: 'X',
      metadata: { name: 'a', bogus: 1, labels: { a: 'b' } },
      spec: {
        ...ok,
        unknown: 1,
        extra: { anything: { goes: true } },
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', junk: 1 }, spec: { x: 1 } },
        nested: { a: 'y', c: 1 },
      },
      top: 1,
    };
    pruneCustomResource(schema, o);
    assert.deepEqual(o, {
      apiVersion: 'x.example.com/v1',
      kind: 'X',
      metadata: { name: 'a', labels: { a: 'b' } },
      spec: { ...ok, extra: { anything: { goes: true } }, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 1 } }, nested: { a: 'y' } },
    });
  });

  it('applies defaults top-down without overriding set values, and copies them', () => {
    const a: Record<string, unknown> = { spec: { ...ok } };
    defaultCustomResource(schema, a);
    assert.deepEqual(a.spec, { ...ok, replicas: 1, nested: { a: 'x' } });
    const b: Record<string, unknown> = { spec: { ...ok, replicas: 4, nested: { a: 'z' } } };
    defaultCustomResource(schema, b);
    assert.deepEqual(b.spec, { ...ok, replicas: 4, nested: { a: 'z' } });
    const c: Record<string, unknown> = { spec: { ...ok } };
    defaultCustomResource(schema, c);
    (c.spec as Record<string, Record<string, string>>).nested!.a = 'changed';
    const d: Record<string, unknown> = { spec: { ...ok } };
    defaultCustomResource(schema, d);
    assert.equal((d.spec as Record<string, Record<string, string>>).nested!.a, 'x');
  });
});

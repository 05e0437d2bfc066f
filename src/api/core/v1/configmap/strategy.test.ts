import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import { StatusError } from '../../../../apimachinery/errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { configMapDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };
const cm = (o: Partial<ConfigMap> = {}): O<ConfigMap> => ({ metadata: { name: 'c', namespace: 'default' }, ...o }) as O<ConfigMap>;
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);

test('valid keys pass; bad keys and data/binaryData duplicates fail with upstream messages', () => {
  assert.deepEqual(msgs(def.validate!(cm({ data: { 'a.b': 'x', A_B: 'y', 'a-b': 'z' } }), ctx)), []);
  const e = msgs(def.validate!(cm({ data: { 'bad key': 'x' } }), ctx));
  assert.equal(e.length, 1);
  assert.match(e[0]!, /^data\[bad key\]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '\.'/);
  assert.deepEqual(msgs(def.validate!(cm({ data: { k: 'x' }, binaryData: { k: 'eA==' } }), ctx)), ['data[k]: Invalid value: "k": duplicate of key present in binaryData']);
});

test('total size above 1 MiB is rejected on the whole object', () => {
  const big = 'x'.repeat(1024 * 1024);
  assert.deepEqual(msgs(def.validate!(cm({ data: { a: big } }), ctx)), []);
  assert.deepEqual(msgs(def.validate!(cm({ data: { a: big, b: 'y' } }), ctx)), ['[]: Too long: may not be more than 1048576 bytes']);
  // binaryData counts decoded bytes: 4 base64 chars = 3 bytes
  assert.deepEqual(msgs(def.validate!(cm({ data: { a: 'x'.repeat(1024 * 1024 - 3) }, binaryData: { b: 'AAAA' } }), ctx)), []);
});

test('binaryData must be base64 (BadRequest like the decoder)', () => {
  assert.throws(
    () => def.prepareForCreate!(cm({ binaryData: { b: 'not base64!' } }), ctx),
    (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 3',
  );
  assert.throws(() => def.prepareForCreate!(cm({ data: { a: 1 as unknown as string } }), ctx), /json: cannot unmarshal number into Go struct field ConfigMap.data of type string/);
});

test('immutable ConfigMaps', () => {
  const old = cm({ immutable: true, data: { a: 'x' } });
  assert.deepEqual(msgs(def.validateUpdate!(cm({ immutable: true, data: { a: 'x' } }), old, ctx)), []);
  assert.deepEqual(msgs(def.validateUpdate!(cm({ data: { a: 'y' }, binaryData: { b: 'AA==' } }), old, ctx)), [
    'immutable: Forbidden: field is immutable when `immutable` is set',
    'data: Forbidden: field is immutable when `immutable` is set',
    'binaryData: Forbidden: field is immutable when `immutable` is set',
  ]);
  assert.deepEqual(msgs(def.validateUpdate!(cm({ immutable: true, data: { a: 'y' } }), cm({ data: { a: 'x' } }), ctx)), []);
});

test('table: NAME DATA AGE counts data and binaryData', () => {
  assert.deepEqual(
    def.table!.columns.map((c) => c.name),
    ['Name', 'Data', 'Age'],
  );
  const o = cm({ metadata: { name: 'c', creationTimestamp: '2024-01-01T00:00:00Z' }, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } });
  assert.deepEqual(def.table!.cells(o, new Date('2024-01-03T00:00:00Z')), ['c', 3, '2d']);
  assert.deepEqual(def.shortNames, ['cm']);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret } from 'kubernetes-types/core/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import { StatusError } from '../../../../apimachinery/errors.js';
import type { StrategyContext } from '../../../resource.js';
import { goBase64Check } from '../shared/decode.js';
import type { O } from '../shared/types.js';
import { goJSONObjectError, secretDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };
const sec = (o: Partial<Secret> = {}): O<Secret> => ({ metadata: { name: 's', namespace: 'default' }, ...o }) as O<Secret>;
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);
const b64 = (s: string): string => Buffer.from(s).toString('base64');

test('type defaults to Opaque', () => {
  const s = sec();
  def.defaults!(s);
  assert.equal(s.type, 'Opaque');
});

test('data must be base64: Go decoder offsets', () => {
  assert.deepEqual(goBase64Check('aGVsbG8='), { length: 5 });
  assert.deepEqual(goBase64Check('aGVs\nbG8='), { length: 5 });
  assert.deepEqual(goBase64Check(''), { length: 0 });
  assert.deepEqual(goBase64Check('abc'), { errorAt: 0 });
  assert.deepEqual(goBase64Check('abcd!'), { errorAt: 4 });
  assert.deepEqual(goBase64Check('ab=='), { length: 1 });
  assert.deepEqual(goBase64Check('ab='), { errorAt: 3 });
  assert.deepEqual(goBase64Check('a==='), { errorAt: 1 });
  assert.deepEqual(goBase64Check('ab==cd'), { errorAt: 4 });
  assert.throws(
    () => def.prepareForCreate!(sec({ data: { password: 'hunter2' } }), ctx),
    (e: unknown) =>
      e instanceof StatusError &&
      e.code === 400 &&
      e.reason === 'BadRequest' &&
      e.message === 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4',
  );
});

test('stringData is merged into data (overriding) and dropped', () => {
  const s = sec({ data: { a: b64('old'), b: b64('keep') }, stringData: { a: 'new', c: 'plain' } });
  def.prepareForCreate!(s, ctx);
  assert.deepEqual(s.data, { a: b64('new'), b: b64('keep'), c: b64('plain') });
  assert.equal(s.stringData, undefined);
});

test('per-type required keys', () => {
  const v = (o: Partial<Secret>): string[] => msgs(def.validate!(sec(o), ctx));
  assert.deepEqual(v({ type: 'Opaque', data: { x: b64('1') } }), []);
  assert.deepEqual(v({ type: 'kubernetes.io/dockerconfigjson', data: {} }), ['data[.dockerconfigjson]: Required value']);
  assert.deepEqual(v({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{}}') } }), []);
  assert.deepEqual(v({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('[1]') } }), [
    'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
  ]);
  assert.deepEqual(v({ type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('') } }), [
    'data[.dockercfg]: Invalid value: "<secret contents redacted>": unexpected end of JSON input',
  ]);
  assert.deepEqual(v({ type: 'kubernetes.io/service-account-token' }), ['metadata.annotations[kubernetes.io/service-account.name]: Required value']);
  assert.deepEqual(v({ type: 'kubernetes.io/service-account-token', metadata: { name: 's', annotations: { 'kubernetes.io/service-account.name': 'default' } } }), []);
  assert.deepEqual(v({ type: 'kubernetes.io/basic-auth', data: {} }), ['data[username]: Required value', 'data[password]: Required value']);
  assert.deepEqual(v({ type: 'kubernetes.io/basic-auth', data: { password: '' } }), []);
  assert.deepEqual(v({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } }), ['data[ssh-privatekey]: Required value']);
  assert.deepEqual(v({ type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c') } }), ['data[tls.key]: Required value']);
});

test('bad keys and size limit', () => {
  const e = msgs(def.validate!(sec({ type: 'Opaque', data: { 'a/b': b64('x') } }), ctx));
  assert.equal(e.length, 1);
  assert.match(e[0]!, /^data\[a\/b\]: Invalid value: "a\/b": a valid config key must consist of/);
  const big = Buffer.alloc(1024 * 1024 + 1).toString('base64');
  assert.deepEqual(msgs(def.validate!(sec({ type: 'Opaque', data: { a: big } }), ctx)), ['data: Too long: may not be more than 1048576 bytes']);
});

test('updates: type and immutable', () => {
  const old = sec({ type: 'Opaque', immutable: true, data: { a: b64('1') } });
  assert.deepEqual(msgs(def.validateUpdate!(sec({ type: 'kubernetes.io/tls', immutable: false, data: { a: b64('2'), 'tls.crt': '', 'tls.key': '' } }), old, ctx)), [
    'type: Invalid value: "kubernetes.io/tls": field is immutable',
    'immutable: Forbidden: field is immutable when `immutable` is set',
    'data: Forbidden: field is immutable when `immutable` is set',
  ]);
});

test('go JSON errors', () => {
  assert.equal(goJSONObjectError('{"a":1}'), undefined);
  assert.equal(goJSONObjectError('null'), undefined);
  assert.equal(goJSONObjectError('x'), "invalid character 'x' looking for beginning of value");
  assert.equal(goJSONObjectError('{"a":'), 'unexpected end of JSON input');
  assert.equal(goJSONObjectError('"s"'), 'json: cannot unmarshal string into Go value of type map[string]interface {}');
});

test('field selector type, table row', () => {
  const s = sec({ metadata: { name: 's', creationTimestamp: '2024-01-01T00:00:00Z' }, type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } });
  assert.deepEqual(def.fieldSelectorAttrs!(s), { type: 'kubernetes.io/tls' });
  assert.deepEqual(
    def.table!.columns.map((c) => c.name),
    ['Name', 'Type', 'Data', 'Age'],
  );
  assert.deepEqual(def.table!.cells(s, new Date('2024-01-01T00:00:42Z')), ['s', 'kubernetes.io/tls', 2, '42s']);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateFieldErrors, fieldErrorString, Path } from './field-errors.js';
import {
  isCIdentifier,
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isQualifiedName,
  isValidCIDR,
  isValidIP,
  isValidLabelValue,
  isValidPortName,
  isValidPortNum,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validateAnnotations,
  validateLabels,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from './validation.js';

const meta = Path.root('metadata');

test('DNS-1123 labels and subdomains (upstream cases)', () => {
  for (const v of ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', 'a'.repeat(63)]) {
    assert.deepEqual(isDNS1123Label(v), [], v);
  }
  for (const v of [
    '',
    'A',
    'ABC',
    'aBc',
    'A1',
    'A-1',
    '1-A',
    '-',
    'a-',
    '-a',
    '1-',
    '-1',
    '_',
    'a_',
    '_a',
    'a_b',
    '1_',
    '_1',
    '1_2',
    '.',
    'a.',
    '.a',
    'a.b',
    '1.',
    '.1',
    '1.2',
    ' ',
    'a ',
    ' a',
    'a b',
    '1 ',
    ' 1',
    '1 2',
    'a'.repeat(64),
  ]) {
    assert.notDeepEqual(isDNS1123Label(v), [], v);
  }
  assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
  assert.deepEqual(isDNS1123Label('My_Name'), [
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
  assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
  for (const v of ['a', 'a.b.c.d.e', 'aaa.bbb.ccc', '11.22.33.44.55', 'a'.repeat(253)]) assert.deepEqual(isDNS1123Subdomain(v), [], v);
  assert.deepEqual(isDNS1123Subdomain('Nginx'), [
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
  assert.deepEqual(isDNS1035Label('1abc').length, 1);
  assert.deepEqual(isDNS1035Label('abc-1'), []);
});

test('qualified names and label values', () => {
  for (const v of [
    'simple',
    'now-with-dashes',
    '1-starts-with-num',
    '1234',
    'simple/simple',
    'now-with-dashes/simple',
    'now-with-dashes/now-with-dashes',
    'now.with.dots/simple',
    'now-with.dashes-and.dots/simple',
    '1-num.2-num/3-num',
    '1234/5678',
    '1.2.3.4/5678',
    'Uppercase_Is_OK_123',
    'example.com/Uppercase_Is_OK_123',
    'requests.storage-foo',
    'a'.repeat(63),
    'a'.repeat(253) + '/' + 'b'.repeat(63),
  ]) {
    assert.deepEqual(isQualifiedName(v), [], v);
  }
  for (const v of [
    'nospecialchars%^=@',
    'cantendwithadash-',
    '-cantstartwithadash-',
    'only/one/slash',
    'Example.com/abc',
    'example_com/abc',
    'example.com/',
    '/simple',
    'a'.repeat(64),
    'a'.repeat(254) + '/abc',
  ]) {
    assert.notDeepEqual(isQualifiedName(v), [], v);
  }
  assert.deepEqual(isQualifiedName('/simple'), ['prefix part must be non-empty']);
  assert.deepEqual(isQualifiedName('example.com/'), [
    'name part must be non-empty',
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
  assert.equal(isQualifiedName('a/b/c')[0]!.startsWith('a qualified name must consist of'), true);
  for (const v of ['simple', 'now-with-dashes', '1-starts-with-num', 'end-with-num-1', '1234', '-'.repeat(0), 'a'.repeat(63)]) assert.deepEqual(isValidLabelValue(v), [], v);
  assert.deepEqual(isValidLabelValue(''), []);
  assert.equal(isValidLabelValue('nospecialchars%^=@').length, 1);
  assert.deepEqual(isValidLabelValue('a'.repeat(64)), ['must be no more than 63 characters']);
});

test('ports, env names, keys, identifiers, IPs', () => {
  assert.deepEqual(isValidPortNum(0), ['must be between 1 and 65535, inclusive']);
  assert.deepEqual(isValidPortNum(65535), []);
  assert.deepEqual(isValidPortNum(65536), ['must be between 1 and 65535, inclusive']);
  assert.deepEqual(isValidPortName('http'), []);
  assert.deepEqual(isValidPortName('a-b-c'), []);
  assert.deepEqual(isValidPortName('1234'), ['must contain at least one letter (a-z)']);
  assert.deepEqual(isValidPortName('a--b'), ['must not contain consecutive hyphens']);
  assert.deepEqual(isValidPortName('-ab'), ['must not begin or end with a hyphen']);
  assert.deepEqual(isValidPortName('abcdefghijklmnop'), ['must be no more than 15 characters']);
  assert.deepEqual(isValidPortName('HTTP'), ['must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)', 'must contain at least one letter (a-z)']);
  for (const v of ['A', 'ABC', 'AbC_123', 'abc', 'a.b', 'a-b', '_', '-a', 'my.env-name']) assert.deepEqual(isEnvVarName(v), [], v);
  assert.equal(isEnvVarName('1ABC').length, 1);
  assert.deepEqual(isEnvVarName('..a'), ["must not start with '..'"]);
  assert.deepEqual(isConfigMapKey('..'), ["must not be '..'"]);
  assert.deepEqual(isConfigMapKey('key.name'), []);
  assert.equal(isConfigMapKey('a/b').length, 1);
  assert.deepEqual(isCIdentifier('_ok1'), []);
  assert.equal(isCIdentifier('1no').length, 1);
  for (const v of ['10.9.8.7', '0.0.0.0', '010.001.1.1', '::1', '2001:db8::ffff', '::ffff:1.2.3.4']) assert.deepEqual(isValidIP(v), [], v);
  for (const v of ['', '1.2.3', '256.1.1.1', 'fe80::1%eth0', 'a.b.c.d', '1.2.3.4/24']) {
    assert.deepEqual(isValidIP(v), ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'], v);
  }
  assert.deepEqual(isValidCIDR('10.0.0.0/8'), []);
  assert.deepEqual(isValidCIDR('2001:db8::/64'), []);
  assert.deepEqual(isValidCIDR('10.0.0.0/33'), ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']);
  assert.deepEqual(isValidCIDR('10.0.0.0'), ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']);
});

test('generateName prefix masks a trailing dash', () => {
  assert.deepEqual(nameIsDNSSubdomain('nginx-', true), []);
  assert.notDeepEqual(nameIsDNSSubdomain('nginx-', false), []);
  assert.deepEqual(nameIsDNSLabel('web-', true), []);
});

test('validateObjectMeta', () => {
  assert.equal(
    aggregateFieldErrors(validateObjectMeta({ namespace: 'default' }, true, nameIsDNSSubdomain, meta)),
    'metadata.name: Required value: name or generateName is required',
  );
  assert.equal(aggregateFieldErrors(validateObjectMeta({ name: 'x' }, true, nameIsDNSSubdomain, meta)), 'metadata.namespace: Required value');
  assert.equal(
    aggregateFieldErrors(validateObjectMeta({ name: 'x', namespace: 'ns' }, false, nameIsDNSSubdomain, meta)),
    'metadata.namespace: Forbidden: not allowed on this type',
  );
  assert.equal(
    fieldErrorString(validateObjectMeta({ name: 'My_Pod', namespace: 'default' }, true, nameIsDNSSubdomain, meta)[0]!),
    `metadata.name: Invalid value: "My_Pod": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  );
  assert.deepEqual(validateObjectMeta({ generateName: 'nginx-deployment-', namespace: 'default' }, true, nameIsDNSSubdomain, meta).map(fieldErrorString), [
    'metadata.name: Required value: name or generateName is required',
  ]);
  // owner references: two controllers
  const refs = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: '1', controller: true },
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: '2', controller: true },
  ];
  const errs = validateObjectMeta({ name: 'x', namespace: 'd', ownerReferences: refs }, true, nameIsDNSSubdomain, meta);
  assert.equal(errs.length, 1);
  assert.equal(errs[0]!.field, 'metadata.ownerReferences');
  assert.equal(errs[0]!.detail, 'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b');
  const bad = validateObjectMeta({ name: 'x', namespace: 'd', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] }, true, nameIsDNSSubdomain, meta);
  assert.deepEqual(
    bad.map((e) => e.detail),
    ['version must not be empty', 'kind must not be empty', 'name must not be empty', 'uid must not be empty'],
  );
  assert.equal(
    aggregateFieldErrors(validateObjectMeta({ name: 'x', namespace: 'd', finalizers: ['orphan', 'foregroundDeletion'] }, true, nameIsDNSSubdomain, meta)),
    'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
  );
});

test('labels and annotations', () => {
  assert.equal(
    aggregateFieldErrors(validateLabels({ app: 'bad value' }, meta.child('labels'))),
    `metadata.labels: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
  );
  assert.deepEqual(validateAnnotations({ 'Example.COM/Key': 'x' }, meta.child('annotations')), []);
  const big = validateAnnotations({ a: 'x'.repeat(262144) }, meta.child('annotations'));
  assert.equal(aggregateFieldErrors(big), 'metadata.annotations: Too long: may not be more than 262144 bytes');
  assert.deepEqual(validateAnnotations({ a: 'x'.repeat(262143) }, meta.child('annotations')), []);
});

test('validateObjectMetaUpdate', () => {
  const old = { name: 'a', namespace: 'd', uid: 'u1', resourceVersion: '5', creationTimestamp: '2024-01-01T00:00:00Z' };
  assert.deepEqual(validateObjectMetaUpdate({ ...old, labels: { x: 'y' } }, old, meta), []);
  const errs = validateObjectMetaUpdate({ ...old, name: 'b', uid: 'u2', namespace: 'e', creationTimestamp: '2025-01-01T00:00:00Z' }, old, meta);
  assert.deepEqual(errs.map(fieldErrorString), [
    'metadata.name: Invalid value: "b": field is immutable',
    'metadata.namespace: Invalid value: "e": field is immutable',
    'metadata.uid: Invalid value: "u2": field is immutable',
    'metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable',
  ]);
  assert.deepEqual(validateObjectMetaUpdate({ ...old, resourceVersion: '' }, old, meta).map(fieldErrorString), [
    'metadata.resourceVersion: Invalid value: "": must be specified for an update',
  ]);
  const deleting = { ...old, deletionTimestamp: '2024-01-02T00:00:00Z', finalizers: ['a/b'] };
  assert.deepEqual(validateObjectMetaUpdate({ ...deleting, finalizers: ['a/b', 'c/d'] }, deleting, meta).map(fieldErrorString), [
    'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"c/d"}',
  ]);
});

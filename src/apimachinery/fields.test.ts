import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from './errors.js';
import { escapeFieldValue, everythingFields, fieldSelectorFromSet, oneTermEqualSelector, parseAndCheckFieldSelector, parseFieldSelector, unescapeFieldValue } from './fields.js';

function badRequest(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    return e.message;
  }
  assert.fail('expected an error');
}

/** The selectable fields kube-apiserver registers for v1 Pods, and its legacy alias. */
const podFields = [
  'metadata.name',
  'metadata.namespace',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.schedulerName',
  'spec.serviceAccountName',
  'spec.hostNetwork',
  'status.phase',
  'status.podIP',
  'status.podIPs',
  'status.nominatedNodeName',
];
const podAliases = { 'spec.host': 'spec.nodeName' };

describe('parseFieldSelector', () => {
  it('parses =, == and != terms, sorted, and prints them back', () => {
    const sel = parseFieldSelector('status.phase!=Failed,spec.nodeName==node-1,,metadata.name=x');
    assert.equal(sel.toString(), 'metadata.name=x,spec.nodeName=node-1,status.phase!=Failed');
    assert.deepEqual(sel.requirements, [
      { field: 'metadata.name', operator: '=', value: 'x' },
      { field: 'spec.nodeName', operator: '=', value: 'node-1' },
      { field: 'status.phase', operator: '!=', value: 'Failed' },
    ]);
  });

  it('the empty string is Everything', () => {
    assert.equal(parseFieldSelector('').empty(), true);
    assert.equal(parseFieldSelector('').matches({ a: 'b' }), true);
    assert.equal(everythingFields().toString(), '');
  });

  it('unescapes \\, \\= and \\\\ in values, and escapes them when printing', () => {
    const sel = parseFieldSelector('metadata.name=a\\,b\\=c\\\\d');
    assert.equal(sel.requirements[0]!.value, 'a,b=c\\d');
    assert.equal(sel.toString(), 'metadata.name=a\\,b\\=c\\\\d');
    assert.equal(escapeFieldValue('a,b=c\\d'), 'a\\,b\\=c\\\\d');
    assert.equal(unescapeFieldValue(escapeFieldValue('x=,\\y')), 'x=,\\y');
    assert.equal(parseFieldSelector('involvedObject.name=a\\,b,involvedObject.namespace=default').requirements.length, 2);
  });

  it('rejects bad terms and escapes with upstream texts', () => {
    assert.equal(
      badRequest(() => parseFieldSelector('foo')),
      "invalid selector: 'foo'; can't understand 'foo'",
    );
    assert.equal(
      badRequest(() => parseFieldSelector('a=b,c')),
      "invalid selector: 'a=b,c'; can't understand 'c'",
    );
    assert.equal(
      badRequest(() => parseFieldSelector('a=b\\x')),
      'invalid field selector: invalid escape sequence: \\x',
    );
    assert.equal(
      badRequest(() => parseFieldSelector('a=b\\')),
      'invalid field selector: invalid escape sequence: \\',
    );
    assert.equal(
      badRequest(() => parseFieldSelector('a=b=c')),
      'invalid field selector: unescaped character in value: 61',
    );
  });
});

describe('FieldSelector.matches', () => {
  const fields = { 'metadata.name': 'x', 'spec.nodeName': 'node-1', 'status.phase': 'Running' };
  it('matches equality and inequality; a missing field reads as ""', () => {
    assert.equal(parseFieldSelector('spec.nodeName=node-1').matches(fields), true);
    assert.equal(parseFieldSelector('spec.nodeName=node-2').matches(fields), false);
    assert.equal(parseFieldSelector('status.phase!=Failed,metadata.name=x').matches(fields), true);
    assert.equal(parseFieldSelector('status.phase!=Running').matches(fields), false);
    assert.equal(parseFieldSelector('spec.nodeName=').matches({ 'metadata.name': 'x' }), true, 'unscheduled pods');
    assert.equal(parseFieldSelector('spec.nodeName!=').matches({ 'metadata.name': 'x' }), false);
    assert.equal(parseFieldSelector('toString=').matches({}), true);
  });

  it('fieldSelectorFromSet and oneTermEqualSelector', () => {
    assert.equal(fieldSelectorFromSet({ 'metadata.name': 'x' }).matches(fields), true);
    assert.equal(oneTermEqualSelector('spec.nodeName', 'n,1').toString(), 'spec.nodeName=n\\,1');
  });

  it('requiresExactMatch extracts an = term for indexing', () => {
    const sel = parseFieldSelector('status.phase!=Failed,spec.nodeName=node-1');
    assert.equal(sel.requiresExactMatch('spec.nodeName'), 'node-1');
    assert.equal(sel.requiresExactMatch('status.phase'), undefined);
    assert.equal(parseFieldSelector('').requiresExactMatch('spec.nodeName'), undefined);
  });
});

describe("parseAndCheckFieldSelector (the API server check of a kind's field labels)", () => {
  it('accepts supported labels and maps aliases', () => {
    const sel = parseAndCheckFieldSelector('spec.host=node-1,status.phase=Running', podFields, podAliases);
    assert.equal(sel.toString(), 'spec.nodeName=node-1,status.phase=Running');
    assert.equal(sel.requiresExactMatch('spec.nodeName'), 'node-1');
  });

  it('rejects unknown labels: 400 `field label not supported: foo`', () => {
    assert.equal(
      badRequest(() => parseAndCheckFieldSelector('foo=bar', podFields, podAliases)),
      'field label not supported: foo',
    );
  });

  it('kinds without their own list allow only metadata.name and metadata.namespace', () => {
    assert.equal(parseAndCheckFieldSelector('metadata.name=x').toString(), 'metadata.name=x');
    assert.equal(
      badRequest(() => parseAndCheckFieldSelector('spec.x=y')),
      '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
  });
});

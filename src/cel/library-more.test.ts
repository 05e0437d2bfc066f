/**
 * The Kubernetes CEL libraries added in 1.2x–1.31 (urls, format, authorizer), the
 * optional library's ofNonZeroValue/optMap, two-variable comprehensions and the
 * `c ? 'x' : null` conditional, with upstream's expectations (cases after upstream's
 * library, filter and docs examples).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/urls.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/format_test.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/filter_test.go
 * @see https://github.com/google/cel-go/blob/master/ext/comprehensions_test.go
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compile, fromCel } from './index.js';
import { type AuthzAttributes, AUTHORIZER_TYPE, CelAuthorizer } from './library/authz.js';

function ev(expr: string, activation: Record<string, unknown> = {}, types: Record<string, string> = {}): unknown {
  const r = compile(expr, { variables: Object.keys(activation).map((name) => ({ name, type: types[name] })) });
  if (!r.program) throw r.error;
  const out = r.program.evaluate(activation, { celValues: true });
  if (out.error) return `error: ${out.error.detail}`;
  return fromCel(out.value);
}

function compileError(expr: string, variables: { name: string; type?: string }[] = []): string {
  const r = compile(expr, { variables });
  assert.ok(r.error, `${expr} should not compile`);
  return r.error.detail.split('\n')[0]!;
}

describe('CEL: urls library', () => {
  it('parses and returns the components (upstream docs examples)', () => {
    assert.equal(ev("url('/path').getScheme()"), '');
    assert.equal(ev("url('https://example.com/').getScheme()"), 'https');
    assert.equal(ev("url('https://example.com:80/').getHost()"), 'example.com:80');
    assert.equal(ev("url('https://example.com/').getHost()"), 'example.com');
    assert.equal(ev("url('https://[::1]:80/').getHost()"), '[::1]:80');
    assert.equal(ev("url('https://[::1]/').getHost()"), '[::1]');
    assert.equal(ev("url('/path').getHost()"), '');
    assert.equal(ev("url('https://example.com:80/').getHostname()"), 'example.com');
    assert.equal(ev("url('https://127.0.0.1:80/').getHostname()"), '127.0.0.1');
    assert.equal(ev("url('https://[::1]:80/').getHostname()"), '::1');
    assert.equal(ev("url('https://example.com:80/').getPort()"), '80');
    assert.equal(ev("url('https://example.com/').getPort()"), '');
    assert.equal(ev("url('https://example.com/path').getEscapedPath()"), '/path');
    assert.equal(ev("url('https://example.com/path with spaces/').getEscapedPath()"), '/path%20with%20spaces/');
    assert.equal(ev("url('https://example.com').getEscapedPath()"), '');
    assert.deepEqual(ev("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()"), { k1: ['a'], k2: ['b', 'c'] });
    assert.deepEqual(ev("url('https://example.com/path?key with spaces=value with spaces').getQuery()"), { 'key with spaces': ['value with spaces'] });
    assert.deepEqual(ev("url('https://example.com/path?').getQuery()"), {});
    assert.equal(ev("url('https://user:pass@example.com:80/path?query=val#fragment').getEscapedPath()"), '/path');
    assert.equal(ev("url('https://example.com/') == url('https://example.com/')"), true);
  });
  it('isURL and the parse errors of Go net/url', () => {
    assert.equal(ev("isURL('https://user:pass@example.com:80/path?query=val#fragment')"), true);
    assert.equal(ev("isURL('/absolute-path')"), true);
    assert.equal(ev("isURL('https://a:b:c/')"), false);
    assert.equal(ev("isURL('../relative-path')"), false);
    assert.equal(ev("url('https://a:b:c/')"), 'error: URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host');
    assert.equal(ev("url('../relative-path')"), 'error: URL parse error during conversion from string: parse "../relative-path": invalid URI for request');
    assert.equal(ev("url('')"), 'error: URL parse error during conversion from string: parse "": empty url');
    assert.equal(ev("url(':foo')"), 'error: URL parse error during conversion from string: parse ":foo": missing protocol scheme');
    assert.equal(ev("url('http://exa mple.com/')"), 'error: URL parse error during conversion from string: parse "http://exa mple.com/": invalid character " " in host name');
    assert.equal(compileError("url('x').getFoo()").startsWith('compilation failed: ERROR: <input>:1:'), true);
  });
});

describe('CEL: format library', () => {
  it('validates the named formats with apimachinery messages (upstream format_test)', () => {
    for (const [f, s] of [
      ['dns1123Label', 'my-label-name'],
      ['dns1123Subdomain', 'apiextensions.k8s.io'],
      ['qualifiedName', 'apiextensions.k8s.io/v1beta1'],
      ['dns1123LabelPrefix', 'my-label-prefix-'],
      ['dns1123SubdomainPrefix', 'mysubdomain.prefix.-'],
      ['dns1035LabelPrefix', 'my-label-prefix-'],
      ['uri', 'http://example.com'],
      ['uuid', '123e4567-e89b-12d3-a456-426614174000'],
      ['byte', 'aGVsbG8='],
      ['date', '2021-01-01'],
      ['datetime', '2021-01-01T00:00:00Z'],
      ['labelValue', 'my-cool-label-Value'],
    ])
      assert.equal(ev(`format.${f}().validate("${s}").hasValue()`), false, `${f} ${s}`);
    assert.deepEqual(ev('format.dns1123Label().validate("contains a space").value()'), [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(ev('format.dns1035LabelPrefix().validate("contains a space-").value()'), [
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(ev('format.qualifiedName().validate("contains a space").value()'), [
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    assert.deepEqual(ev('format.byte().validate("aGVsbG8").value()'), ['invalid base64']);
    assert.deepEqual(ev('format.date().validate("2020-01-32").value()'), ['invalid date']);
    assert.deepEqual(ev('format.datetime().validate("2020-01-32T00:00:00Z").value()'), ['invalid datetime']);
    assert.deepEqual(ev('format.uri().validate("../x").value()'), ['parse "../x": invalid URI for request']);
    assert.equal(ev('format.named("unknown").hasValue()'), false);
  });
  it('looks formats up by name and compares them', () => {
    const names = [
      'dns1123Label',
      'dns1123Subdomain',
      'dns1035Label',
      'qualifiedName',
      'dns1123LabelPrefix',
      'dns1123SubdomainPrefix',
      'dns1035LabelPrefix',
      'labelValue',
      'uri',
      'uuid',
      'byte',
      'date',
      'datetime',
    ];
    for (const a of names) {
      assert.equal(ev(`format.named("${a}").hasValue()`), true);
      assert.equal(ev(`format.named("${a}").value() == format.${a}()`), true);
      for (const b of names) if (a !== b) assert.equal(ev(`format.${a}() == format.${b}()`), false);
    }
  });
});

describe('CEL: authorizer library', () => {
  const calls: AuthzAttributes[] = [];
  const allowOnly = (want: Partial<AuthzAttributes>) => (a: AuthzAttributes) => {
    calls.push(a);
    const ok = Object.entries(want).every(([k, v]) => (k === 'user' ? a.user.username === (v as { username: string }).username : a[k as keyof AuthzAttributes] === v));
    return ok ? { decision: 'Allow' as const, reason: '' } : { decision: 'NoOpinion' as const, reason: 'fake reason' };
  };
  const user = { username: 'alice', groups: ['system:authenticated'] };
  const run = (expr: string, authz: CelAuthorizer) => ev(expr, { authorizer: authz }, { authorizer: AUTHORIZER_TYPE });

  it('resource checks with every field (upstream filter_test)', () => {
    const a = new CelAuthorizer(user, allowOnly({ isResourceRequest: true, resource: 'endpoints', verb: 'create', apiVersion: '*' }));
    assert.equal(run("authorizer.group('').resource('endpoints').check('create').allowed()", a), true);
    assert.equal(run("authorizer.group('').resource('endpoints').check('create').errored()", a), false);
    assert.equal(run("authorizer.group('').resource('endpoints').check('delete').reason()", a), 'fake reason');
    const all = new CelAuthorizer(
      user,
      allowOnly({ apiGroup: 'apps', resource: 'deployments', subresource: 'status', namespace: 'test', name: 'backend', verb: 'create', apiVersion: '*' }),
    );
    assert.equal(run("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()", all), true);
    assert.equal(run("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('other').check('create').allowed()", all), false);
  });
  it('path checks, service accounts, requestResource, errors', () => {
    const p = new CelAuthorizer(user, allowOnly({ isResourceRequest: false, path: '/healthz', verb: 'get' }));
    assert.equal(run("authorizer.path('/healthz').check('get').allowed()", p), true);
    assert.equal(run("authorizer.path('/readyz').check('get').allowed()", p), false);
    assert.equal(run("authorizer.path(' ').check('get').allowed()", p), 'error: path must not be empty');
    assert.equal(run("authorizer.group('').resource('').check('get').allowed()", p), 'error: resource must not be empty');
    const sa = new CelAuthorizer(
      user,
      allowOnly({ user: { username: 'system:serviceaccount:default:test-serviceaccount', groups: [] }, resource: 'endpoints', verb: 'custom-verb' }),
    );
    calls.length = 0;
    assert.equal(
      run("authorizer.serviceAccount('default', 'test-serviceaccount').group('').resource('endpoints').namespace('default').name('endpoints1').check('custom-verb').allowed()", sa),
      true,
    );
    assert.deepEqual(calls[0]!.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:default']);
    assert.equal(
      run("authorizer.serviceAccount('not@a#valid!namespace', 'validname').group('').resource('x').check('get').allowed()", sa),
      'error: Invalid service account namespace',
    );
    assert.equal(run("authorizer.serviceAccount('default', 'invalid@*name').group('').resource('x').check('get').allowed()", sa), 'error: Invalid service account name');
    const rr = new CelAuthorizer(user, allowOnly({ resource: 'endpoints', subresource: 'status', namespace: 'default', name: 'endpoints1', verb: 'custom-verb' }), {
      group: '',
      resource: 'endpoints',
      subresource: 'status',
      namespace: 'default',
      name: 'endpoints1',
    });
    assert.equal(run("authorizer.requestResource.check('custom-verb').allowed()", rr), true);
    const failing = new CelAuthorizer(user, () => ({ decision: 'NoOpinion', reason: '', error: 'fake authz error' }));
    assert.equal(run("authorizer.group('').resource('endpoints').check('create').errored()", failing), true);
    assert.equal(run("authorizer.group('').resource('endpoints').check('create').error() == 'fake authz error'", failing), true);
    assert.equal(run("authorizer.group('').resource('endpoints').check('create').allowed()", failing), false);
  });
  it('is typed: unknown members do not compile; three checks pass the per-call limit', () => {
    assert.match(compileError("authorizer.group('').foo()", [{ name: 'authorizer', type: AUTHORIZER_TYPE }]), /^compilation failed: ERROR: <input>:1:/);
    const a = new CelAuthorizer(user, () => ({ decision: 'Allow', reason: '' }));
    const three = "authorizer.path('/a').check('get').allowed() && authorizer.path('/b').check('get').allowed() && authorizer.path('/c').check('get').allowed()";
    assert.equal(run(three, a), 'error: operation cancelled: actual cost limit exceeded');
  });
});

describe('CEL: optionals and conditionals', () => {
  it('optional.ofNonZeroValue, optMap, optFlatMap and optional equality', () => {
    for (const z of ['0', '0u', '0.0', "''", "b''", 'false', 'null', '[]', '{}']) assert.equal(ev(`optional.ofNonZeroValue(${z}).hasValue()`), false, z);
    assert.equal(ev("optional.ofNonZeroValue('a').value()"), 'a');
    assert.equal(ev('optional.of(2).optMap(y, y + 1).value()'), 3);
    assert.equal(ev('optional.none().optMap(y, y + 1).hasValue()'), false);
    assert.equal(ev("{'k': {'a': 1}}.?k.optFlatMap(m, m.?a).value()"), 1);
    assert.equal(ev('optional.of(1) == optional.of(1)'), true);
    assert.equal(ev('optional.none() != optional.of(1)'), true);
  });
  it("accepts a conditional with a null branch (cel-go's checker does)", () => {
    const r = compile("x > 1 ? 'big' : null", { variables: [{ name: 'x' }], resultTypes: ['string'] });
    assert.ok(r.program, r.error?.detail);
    assert.equal(r.program.evaluate({ x: 2 }).value, 'big');
    assert.equal(r.program.evaluate({ x: 0 }).value, null);
    assert.match(compileError("true ? 'x' : 1"), /Ternary branches must have the same type/);
  });
});

describe('CEL: two-variable comprehensions (cel-go ext)', () => {
  it('quantifiers over lists (index, element) and maps (key, value)', () => {
    assert.equal(ev('[1, 2, 3].all(i, v, i < v)'), true);
    assert.equal(ev('[1, 2, 3].exists(i, v, i == 1 && v == 2)'), true);
    assert.equal(ev("{'a': 1, 'b': 2}.all(k, v, k.size() == 1 && v > 0)"), true);
    assert.equal(ev("{6: 'six', 7: 'seven'}.existsOne(k, v, k % 5 == 1 && v == 'six')"), true);
    assert.equal(ev('[1, 2, 2].exists_one(i, v, v == 2)'), false);
    assert.equal(ev('[0, 1].all(i, v, 1 / v > 0)'), 'error: division by zero');
    assert.equal(ev('[0, 1].all(i, v, 1 / v > 5)'), false);
    assert.equal(ev('[0, 1].exists(i, v, 1 / v > 0)'), true);
  });
  it('transformList, transformMap, transformMapEntry', () => {
    assert.deepEqual(ev('[1, 2, 3].transformList(i, v, i * v)'), [0, 2, 6]);
    assert.deepEqual(ev('[1, 2, 3].transformList(i, v, i > 0, v)'), [2, 3]);
    assert.deepEqual(ev("{'a': 1, 'b': 2}.transformMap(k, v, v * 10)"), { a: 10, b: 20 });
    assert.deepEqual(ev("{'a': 1, 'b': 2}.transformMap(k, v, k == 'a', v * 10)"), { a: 10 });
    assert.deepEqual(ev("{'a': 'x', 'b': 'y'}.transformMapEntry(k, v, {v: k})"), { x: 'a', y: 'b' });
    assert.equal(ev("{'a': 'x', 'b': 'x'}.transformMapEntry(k, v, {v: k})"), 'error: insert failed: key x already exists');
    assert.equal(compileError('[1].all(i, i, true)'), 'compilation failed: ERROR: <input>:1:12: duplicate variable name: i');
  });
});

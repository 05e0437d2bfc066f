import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isExemptAdmissionConfigurationResource, ruleMatches, type RuleAttributes, type RuleWithOperations } from './rules.js';
import { toStatusErr } from './errors.js';
import { accessorsOf } from './source.js';

const pods: RuleAttributes = { operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'pods' }, subresource: '', namespace: 'default' };
const podStatus: RuleAttributes = { ...pods, operation: 'UPDATE', subresource: 'status' };
const deploy: RuleAttributes = { operation: 'UPDATE', resource: { group: 'apps', version: 'v1', resource: 'deployments' }, subresource: '', namespace: 'ns' };
const node: RuleAttributes = { operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'nodes' }, subresource: '', namespace: '' };
const namespace: RuleAttributes = { operation: 'DELETE', resource: { group: '', version: 'v1', resource: 'namespaces' }, subresource: '', namespace: 'gone' };

const rule = (r: Partial<RuleWithOperations>): RuleWithOperations => ({ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], ...r });

test('operations: exact or *', () => {
  assert.ok(ruleMatches(rule({ operations: ['CREATE'] }), pods));
  assert.ok(!ruleMatches(rule({ operations: ['UPDATE', 'DELETE'] }), pods));
  assert.ok(ruleMatches(rule({ operations: ['*'] }), deploy));
  assert.ok(!ruleMatches(rule({ operations: [] }), pods));
});

test('apiGroups and apiVersions: exact or *', () => {
  assert.ok(ruleMatches(rule({ apiGroups: [''] }), pods));
  assert.ok(!ruleMatches(rule({ apiGroups: ['apps'] }), pods));
  assert.ok(ruleMatches(rule({ apiGroups: ['apps'], apiVersions: ['v1'] }), deploy));
  assert.ok(!ruleMatches(rule({ apiGroups: ['apps'], apiVersions: ['v1beta1'] }), deploy));
});

test('resources: name, */sub, res/*, *, */*', () => {
  assert.ok(ruleMatches(rule({ resources: ['pods'] }), pods));
  assert.ok(!ruleMatches(rule({ resources: ['pods'] }), podStatus), 'pods does not match pods/status');
  assert.ok(!ruleMatches(rule({ resources: ['*'] }), podStatus), '* matches main resources only');
  assert.ok(ruleMatches(rule({ resources: ['*/status'] }), podStatus));
  assert.ok(!ruleMatches(rule({ resources: ['*/status'] }), pods));
  assert.ok(ruleMatches(rule({ resources: ['pods/*'] }), podStatus));
  assert.ok(ruleMatches(rule({ resources: ['pods/*'] }), pods), 'pods/* matches the resource too');
  assert.ok(ruleMatches(rule({ resources: ['*/*'] }), podStatus));
  assert.ok(ruleMatches(rule({ resources: ['pods/status'] }), podStatus));
  assert.ok(!ruleMatches(rule({ resources: ['deployments', 'pods/log'] }), podStatus));
});

test('scope: Namespaced, Cluster (namespaces count as cluster-scoped), *', () => {
  assert.ok(ruleMatches(rule({ scope: 'Namespaced' }), pods));
  assert.ok(!ruleMatches(rule({ scope: 'Namespaced' }), node));
  assert.ok(!ruleMatches(rule({ scope: 'Namespaced' }), namespace), 'a namespace request has a namespace but is cluster-scoped');
  assert.ok(ruleMatches(rule({ scope: 'Cluster' }), namespace));
  assert.ok(ruleMatches(rule({ scope: 'Cluster' }), node));
  assert.ok(!ruleMatches(rule({ scope: 'Cluster' }), pods));
  assert.ok(ruleMatches(rule({ scope: '*' }), node) && ruleMatches(rule({}), pods));
  assert.ok(!ruleMatches(rule({ scope: 'Bogus' }), pods));
});

test('the admission configuration kinds are exempt', () => {
  for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']) {
    assert.ok(isExemptAdmissionConfigurationResource({ group: 'admissionregistration.k8s.io', kind }));
  }
  assert.ok(!isExemptAdmissionConfigurationResource({ group: '', kind: 'Pod' }));
  assert.ok(!isExemptAdmissionConfigurationResource({ group: 'example.com', kind: 'ValidatingWebhookConfiguration' }));
});

test('webhook uids count repeated names as upstream: <configuration>/<webhook>/<n>', () => {
  const hooks = [{ name: 'a.x.io' }, { name: 'b.x.io' }, { name: 'a.x.io' }] as never[];
  assert.deepEqual(
    accessorsOf('cfg', hooks, false).map((h) => h.uid),
    ['cfg/a.x.io/0', 'cfg/b.x.io/0', 'cfg/a.x.io/1'],
  );
  const bad = accessorsOf('cfg', [{ name: 'a', objectSelector: { matchExpressions: [{ key: 'k', operator: 'Bogus' }] } }] as never[], true)[0]!;
  assert.deepEqual(bad.objectSelector, { error: '"Bogus" is not a valid label selector operator' });
});

test("a denial is the webhook's Status with upstream's message, code at least 400", () => {
  const withMsg = toStatusErr('deny.example.com', { code: 403, reason: 'Forbidden', message: 'no' });
  assert.equal(withMsg.message, 'admission webhook "deny.example.com" denied the request: no');
  assert.equal(withMsg.code, 403);
  assert.equal(withMsg.reason, 'Forbidden');
  const reasonOnly = toStatusErr('d', { code: 200, reason: 'Invalid' as never });
  assert.equal(reasonOnly.message, 'admission webhook "d" denied the request: Invalid');
  assert.equal(reasonOnly.code, 400);
  const bare = toStatusErr('d', undefined);
  assert.equal(bare.message, 'admission webhook "d" denied the request without explanation');
  assert.equal(bare.status.status, 'Failure');
  assert.equal(bare.code, 400);
});

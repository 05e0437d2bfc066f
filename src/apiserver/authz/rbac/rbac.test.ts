import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { UserInfo } from '../../../api/resource.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles, rule } from '../bootstrap-policy.js';
import { resourceAttributes, UnionAuthorizer } from '../types.js';
import { RBACAuthorizer } from './authorizer.js';
import { compactRules, escalationError, uncoveredRules } from './escalation.js';
import { StaticRBACSource } from './resolver.js';
import { appliesToUser, compactRuleString, ruleAllows } from './rules.js';

const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
const at = (verb: string, group: string, resource: string, ns = '', name = '', sub = '') => resourceAttributes(alice, verb, group, resource, ns, name, sub);

describe('RBAC rule matching', () => {
  it('matches verbs, groups, resources, subresources and names like upstream RuleAllows', () => {
    assert.ok(ruleAllows(at('get', '', 'pods'), rule(['get'], '', ['pods'])));
    assert.ok(!ruleAllows(at('list', '', 'pods'), rule(['get'], '', ['pods'])));
    assert.ok(!ruleAllows(at('get', 'apps', 'pods'), rule(['get'], '', ['pods'])));
    assert.ok(ruleAllows(at('get', '', 'pods', 'ns', 'x', 'log'), rule(['get'], '', ['pods/log'])));
    assert.ok(!ruleAllows(at('get', '', 'pods', 'ns', 'x', 'log'), rule(['get'], '', ['pods'])));
    assert.ok(ruleAllows(at('get', '', 'pods', 'ns', 'x', 'log'), rule(['get'], '', ['pods/*'])));
    assert.ok(ruleAllows(at('get', 'apps', 'deployments', 'ns', 'x', 'scale'), rule(['get'], '*', ['*/scale'])));
    assert.ok(!ruleAllows(at('get', 'apps', 'deployments', 'ns', 'x', 'status'), rule(['get'], '*', ['*/scale'])));
    assert.ok(ruleAllows(at('update', '', 'configmaps', 'ns', 'a'), rule(['update'], '', ['configmaps'], ['a'])));
    assert.ok(!ruleAllows(at('update', '', 'configmaps', 'ns', 'b'), rule(['update'], '', ['configmaps'], ['a'])));
    assert.ok(!ruleAllows(at('list', '', 'configmaps', 'ns'), rule(['list'], '', ['configmaps'], ['a'])));
    const nr = { ...at('get', '', ''), isResourceRequest: false, path: '/healthz/etcd' };
    assert.ok(ruleAllows(nr, { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }));
    assert.ok(!ruleAllows(nr, { verbs: ['get'], nonResourceURLs: ['/healthz'] }));
  });

  it('applies subjects: users, groups, service accounts (namespace defaulted from the binding)', () => {
    const sa: UserInfo = { username: 'system:serviceaccount:team:builder', groups: [] };
    assert.ok(appliesToUser(alice, { kind: 'User', name: 'alice' }, ''));
    assert.ok(appliesToUser(alice, { kind: 'Group', name: 'system:authenticated' }, ''));
    assert.ok(appliesToUser(sa, { kind: 'ServiceAccount', name: 'builder' }, 'team'));
    assert.ok(!appliesToUser(sa, { kind: 'ServiceAccount', name: 'builder' }, 'other'));
    assert.ok(appliesToUser(sa, { kind: 'ServiceAccount', name: 'builder', namespace: 'team' }, ''));
  });

  it('prints rules as upstream CompactString', () => {
    assert.equal(compactRuleString(rule(['get', 'list'], '', ['pods'])), '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}');
    assert.equal(compactRuleString({ verbs: ['get'], nonResourceURLs: ['/x'] }), '{NonResourceURLs:["/x"], Verbs:["get"]}');
  });
});

describe('RBAC authorizer over the bootstrap policy', () => {
  const src = new StaticRBACSource({ clusterRoles: bootstrapClusterRoles(), clusterRoleBindings: bootstrapClusterRoleBindings() });
  const rbac = new RBACAuthorizer(src);
  const authz = new UnionAuthorizer([rbac]);
  const bind = (name: string, ns: string, role: string, user: string) => {
    src.roleBindings.push({
      metadata: { name, namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'User', name: user, apiGroup: 'rbac.authorization.k8s.io' }],
    });
    src.touch();
  };
  const can = (u: UserInfo, verb: string, group: string, res: string, ns = '', sub = '') => authz.decide(resourceAttributes(u, verb, group, res, ns, '', sub)).decision === 'Allow';

  it('aggregates admin ⊇ edit ⊇ view', () => {
    const roles = Object.fromEntries(bootstrapClusterRoles().map((r) => [r.metadata!.name!, r.rules ?? []]));
    assert.deepEqual(uncoveredRules(roles['edit']!, roles['view']!), []);
    assert.deepEqual(uncoveredRules(roles['admin']!, roles['edit']!), []);
    assert.ok(uncoveredRules(roles['view']!, roles['edit']!).length > 0);
  });

  it('grants within the RoleBinding namespace only, and sees changes at once', () => {
    const bob: UserInfo = { username: 'bob', groups: ['system:authenticated'] };
    assert.ok(!can(bob, 'list', '', 'pods', 'dev'));
    bind('b', 'dev', 'view', 'bob');
    assert.ok(can(bob, 'list', '', 'pods', 'dev'));
    assert.ok(!can(bob, 'list', '', 'pods', 'prod'));
    assert.ok(!can(bob, 'get', '', 'secrets', 'dev'));
    src.roleBindings = src.roleBindings.filter((b) => b.metadata?.name !== 'b');
    src.touch();
    assert.ok(!can(bob, 'list', '', 'pods', 'dev'));
  });

  it('system:masters is always allowed; authenticated users get discovery and self reviews', () => {
    assert.ok(can({ username: 'root', groups: ['system:masters'] }, 'delete', '', 'nodes'));
    assert.ok(can(alice, 'create', 'authorization.k8s.io', 'selfsubjectaccessreviews'));
    const d = authz.decide({ ...at('get', '', ''), isResourceRequest: false, path: '/apis/apps' });
    assert.equal(d.decision, 'Allow');
  });

  it('the scheduler may bind and read, not create pods', () => {
    const s: UserInfo = { username: 'system:kube-scheduler', groups: ['system:authenticated'] };
    assert.ok(can(s, 'create', '', 'pods', 'x', 'binding'));
    assert.ok(can(s, 'watch', '', 'nodes'));
    assert.ok(!can(s, 'create', '', 'pods', 'x'));
  });
});

describe('escalation', () => {
  it('reports the rules the writer does not hold, compacted and sorted', () => {
    const owner = [rule(['get', 'list'], '', ['pods'])];
    const err = escalationError(alice, owner, [rule(['get', 'list', 'delete'], '', ['pods', 'secrets'])]);
    assert.equal(
      err,
      'user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "delete"]}',
    );
    assert.equal(escalationError(alice, [rule(['*'], '*', ['*'])], [rule(['get'], 'apps', ['deployments/scale'])]), undefined);
    assert.equal(escalationError(alice, [rule(['get'], '', ['pods/*'])], [rule(['get'], '', ['pods/log'])]), undefined);
    assert.ok(escalationError(alice, [rule(['get'], '', ['pods'], ['a'])], [rule(['get'], '', ['pods'])]));
    assert.equal(compactRules([]).length, 0);
  });
});

describe('RBAC allow reasons', () => {
  it('names the binding, role and subject as upstream', () => {
    const src = new StaticRBACSource({
      clusterRoles: bootstrapClusterRoles(),
      roleBindings: [
        {
          metadata: { name: 'sa-view', namespace: 'dev' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
          subjects: [{ kind: 'ServiceAccount', name: 'builder' }],
        },
      ],
      clusterRoleBindings: bootstrapClusterRoleBindings(),
    });
    const rbac = new RBACAuthorizer(src);
    const sa: UserInfo = { username: 'system:serviceaccount:dev:builder', groups: ['system:serviceaccounts', 'system:authenticated'] };
    assert.deepEqual(rbac.decide(resourceAttributes(sa, 'list', '', 'pods', 'dev')), {
      decision: 'Allow',
      reason: 'RBAC: allowed by RoleBinding "sa-view/dev" of ClusterRole "view" to ServiceAccount "dev/builder"',
    });
    assert.equal(
      rbac.decide(resourceAttributes(sa, 'create', 'authorization.k8s.io', 'selfsubjectaccessreviews')).reason,
      'RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"',
    );
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UnionAuthorizer } from '../../authz/types.js';
import { admissionPlugins, ALL_ORDERED_PLUGINS, checkOrder } from './index.js';

test('admission plugins run once each, in upstream AllOrderedPlugins order', () => {
  const { plugins, storeConsumers } = admissionPlugins({ authorizer: new UnionAuthorizer([]) });
  const names = plugins.map((p) => p.name);
  assert.deepEqual(names, [
    'NamespaceLifecycle',
    'LimitRanger',
    'ServiceAccount',
    'NodeRestriction',
    'PodSecurity',
    'Priority',
    'DefaultTolerationSeconds',
    'RuntimeClass',
    'CertificateApproval',
    'CertificateSigning',
    'CertificateSubjectRestriction',
    'ResourceQuota',
  ]);
  for (let i = 1; i < names.length; i++) assert.ok(ALL_ORDERED_PLUGINS.indexOf(names[i]!) > ALL_ORDERED_PLUGINS.indexOf(names[i - 1]!));
  assert.equal(storeConsumers.length, 1, 'ResourceQuota reads the stores');
});

test('checkOrder rejects unknown, repeated and misordered plugins', () => {
  assert.throws(() => checkOrder(['NamespaceLifecycle', 'Nope']), /admission plugin Nope is not one of upstream's plugins/);
  assert.throws(() => checkOrder(['LimitRanger', 'LimitRanger']), /admission plugin LimitRanger is listed twice/);
  assert.throws(() => checkOrder(['ResourceQuota', 'Priority']), /admission plugin Priority runs after ResourceQuota, against upstream's order/);
  checkOrder(['NamespaceLifecycle', 'ResourceQuota']);
});

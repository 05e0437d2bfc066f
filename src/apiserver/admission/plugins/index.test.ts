import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UnionAuthorizer } from '../../authz/types.js';
import { admissionPlugins, ALL_ORDERED_PLUGINS, checkOrder, DEFAULT_ON_PLUGINS, enabledPluginNames, validateAdmissionFlags } from './index.js';

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
    'DefaultStorageClass',
    'StorageObjectInUseProtection',
    'PersistentVolumeClaimResize',
    'RuntimeClass',
    'CertificateApproval',
    'CertificateSigning',
    'CertificateSubjectRestriction',
    'MutatingAdmissionWebhook',
    'ValidatingAdmissionPolicy',
    'ValidatingAdmissionWebhook',
    'ResourceQuota',
  ]);
  for (let i = 1; i < names.length; i++) assert.ok(ALL_ORDERED_PLUGINS.indexOf(names[i]!) > ALL_ORDERED_PLUGINS.indexOf(names[i - 1]!));
  assert.equal(storeConsumers.length, 3, 'the webhook plugins, ValidatingAdmissionPolicy and ResourceQuota read the stores');
});

test('checkOrder rejects unknown, repeated and misordered plugins', () => {
  assert.throws(() => checkOrder(['NamespaceLifecycle', 'Nope']), /admission plugin Nope is not one of upstream's plugins/);
  assert.throws(() => checkOrder(['LimitRanger', 'LimitRanger']), /admission plugin LimitRanger is listed twice/);
  assert.throws(() => checkOrder(['ResourceQuota', 'Priority']), /admission plugin Priority runs after ResourceQuota, against upstream's order/);
  checkOrder(['NamespaceLifecycle', 'ResourceQuota']);
});

test('--enable/--disable-admission-plugins: defaults, enable adds, disable removes, upstream order', () => {
  const names = (enable?: string[], disable?: string[]) => admissionPlugins({ authorizer: new UnionAuthorizer([]), enable, disable }).plugins.map((p) => p.name);
  assert.deepEqual(
    enabledPluginNames().filter((n) => DEFAULT_ON_PLUGINS.includes(n) || n === 'NodeRestriction'),
    enabledPluginNames(),
  );
  const off = names([], ['NodeRestriction', 'ResourceQuota', 'LimitRanger', 'DefaultStorageClass']);
  assert.ok(!off.includes('NodeRestriction') && !off.includes('ResourceQuota') && !off.includes('LimitRanger'));
  assert.equal(
    admissionPlugins({ authorizer: new UnionAuthorizer([]), disable: ['ResourceQuota', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ValidatingAdmissionPolicy'] })
      .storeConsumers.length,
    0,
  );
  // enabling a default-on plugin again changes nothing; the order stays upstream's
  assert.deepEqual(names(['ResourceQuota', 'NamespaceLifecycle']), names());
});

test("admission flag errors are kube-apiserver's", () => {
  assert.deepEqual(validateAdmissionFlags(['Nope'], ['AlsoNope']), ['enable-admission-plugins plugin "Nope" is unknown', 'disable-admission-plugins plugin "AlsoNope" is unknown']);
  assert.deepEqual(validateAdmissionFlags(['LimitRanger', 'PodSecurity'], ['PodSecurity', 'LimitRanger']), [
    '[LimitRanger PodSecurity] in enable-admission-plugins and disable-admission-plugins overlapped',
  ]);
  assert.match(validateAdmissionFlags(['AlwaysPullImages'])[0]!, /^enable-admission-plugins plugin "AlwaysPullImages" is not implemented by k8ts/);
  assert.throws(() => admissionPlugins({ authorizer: new UnionAuthorizer([]), enable: ['Nope'] }), /^Error: enable-admission-plugins plugin "Nope" is unknown$/);
});

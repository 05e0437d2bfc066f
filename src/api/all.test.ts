import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allDefinitions } from './all.js';

test('all definitions: unique resources and kinds per group/version, discovery data', () => {
  const defs = allDefinitions({ serviceCIDR: '10.96.0.0/12' });
  const gvr = defs.map((d) => `${d.group}/${d.version}/${d.resource}`);
  assert.equal(new Set(gvr).size, gvr.length, 'unique group/version/resource');
  const gvk = defs.map((d) => `${d.group}/${d.version}/${d.kind}`);
  assert.equal(new Set(gvk).size, gvk.length, 'unique group/version/kind');
  const short = (r: string, g = ''): string[] | undefined => defs.find((d) => d.resource === r && d.group === g)?.shortNames;
  assert.deepEqual(short('pods'), ['po']);
  assert.deepEqual(short('nodes'), ['no']);
  assert.deepEqual(short('namespaces'), ['ns']);
  assert.deepEqual(short('events'), ['ev']);
  assert.deepEqual(short('events', 'events.k8s.io'), ['ev']);
  assert.deepEqual(short('configmaps'), ['cm']);
  assert.deepEqual(short('serviceaccounts'), ['sa']);
  assert.deepEqual(short('services'), ['svc']);
  assert.deepEqual(short('endpoints'), ['ep']);
  assert.deepEqual(short('persistentvolumeclaims'), ['pvc']);
  assert.deepEqual(short('persistentvolumes'), ['pv']);
  assert.deepEqual(short('priorityclasses', 'scheduling.k8s.io'), ['pc']);
  assert.ok(defs.find((d) => d.resource === 'services')?.categories?.includes('all'));
  for (const d of defs) {
    assert.ok(d.table && d.table.columns.length > 0, `${d.resource} has a printer`);
    assert.equal(d.listKind, `${d.kind}List`);
  }
  const scoped = Object.fromEntries(defs.map((d) => [`${d.group}/${d.resource}`, d.namespaced]));
  assert.equal(scoped['/nodes'], false);
  assert.equal(scoped['/namespaces'], false);
  assert.equal(scoped['/persistentvolumes'], false);
  assert.equal(scoped['scheduling.k8s.io/priorityclasses'], false);
  assert.equal(scoped['coordination.k8s.io/leases'], true);
});

test('each call gets its own Service allocator; bad CIDRs are rejected', () => {
  assert.throws(() => allDefinitions({ serviceCIDR: '10.96.0.0/99' }), /invalid CIDR address/);
  assert.throws(() => allDefinitions({ serviceCIDR: '10.96.0.0/12', nodePortRange: 'x' }), /unable to parse port range/);
});

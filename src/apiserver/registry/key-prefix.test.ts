import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allDefinitions } from '../../api/all.js';
import { storageKeyPrefix } from './key-prefix.js';

describe('storageKeyPrefix', () => {
  it('gives kube-apiserver`s etcd key prefixes', () => {
    const cases: [string, string, string][] = [
      ['', 'pods', '/registry/pods/'],
      ['', 'nodes', '/registry/minions/'],
      ['', 'services', '/registry/services/specs/'],
      ['', 'endpoints', '/registry/services/endpoints/'],
      ['', 'replicationcontrollers', '/registry/controllers/'],
      ['', 'serviceaccounts', '/registry/serviceaccounts/'],
      ['apps', 'deployments', '/registry/deployments/'],
      ['rbac.authorization.k8s.io', 'clusterroles', '/registry/clusterroles/'],
      ['networking.k8s.io', 'ingresses', '/registry/ingress/'],
      ['coordination.k8s.io', 'leases', '/registry/leases/'],
      ['apiextensions.k8s.io', 'customresourcedefinitions', '/registry/apiextensions.k8s.io/customresourcedefinitions/'],
      ['apiregistration.k8s.io', 'apiservices', '/registry/apiregistration.k8s.io/apiservices/'],
      ['stable.example.com', 'crontabs', '/registry/stable.example.com/crontabs/'],
    ];
    for (const [g, r, want] of cases) assert.equal(storageKeyPrefix(g, r), want, `${r}.${g}`);
  });

  it('every built-in resource has its own prefix, except those upstream stores together', () => {
    const owners = new Map<string, string[]>();
    for (const d of allDefinitions({ serviceCIDR: '10.96.0.0/12' })) {
      const p = d.storagePrefix ?? storageKeyPrefix(d.group, d.resource);
      const gvr = `${d.group}/${d.version}/${d.resource}`;
      owners.set(p, [...(owners.get(p) ?? []), gvr]);
    }
    const shared = [...owners].filter(([, v]) => new Set(v.map((x) => x.split('/')[2])).size > 1 || v.length > 1);
    assert.deepEqual(
      shared.map(([p, v]) => [p, [...v].sort()]),
      [
        ['/registry/events/', ['/v1/events', 'events.k8s.io/v1/events']],
        ['/registry/horizontalpodautoscalers/', ['autoscaling/v1/horizontalpodautoscalers', 'autoscaling/v2/horizontalpodautoscalers']],
      ].filter(([p]) => owners.has(p as string)),
    );
  });
});

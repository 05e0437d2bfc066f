import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceDefinition } from '../api/resource.js';
import { compareKubeAwareVersions, Discovery } from './discovery.js';

const def = (group: string, version: string, resource: string, kind: string): ResourceDefinition => ({
  group,
  version,
  resource,
  kind,
  listKind: `${kind}List`,
  singular: kind.toLowerCase(),
  namespaced: true,
});

describe('Discovery at runtime', () => {
  it('orders versions by Kubernetes version priority', () => {
    const vs = ['v1alpha1', 'foo', 'v1beta1', 'v2', 'v1', 'v10beta3', 'v1beta2', 'bar'];
    assert.deepEqual(vs.sort(compareKubeAwareVersions), ['v2', 'v1', 'v10beta3', 'v1beta2', 'v1beta1', 'v1alpha1', 'bar', 'foo']);
  });

  it('adds and removes resources, versions and groups, refreshing cached documents', () => {
    const d = new Discovery([def('apps', 'v1', 'deployments', 'Deployment')], []);
    const before = d.aggregated('apis', 'v2');
    d.add(def('stable.example.com', 'v1beta1', 'crontabs', 'CronTab'), [
      {
        group: 'stable.example.com',
        version: 'v1beta1',
        resource: 'crontabs',
        subresource: 'scale',
        responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
        verbs: ['get'],
      },
    ]);
    d.add(def('stable.example.com', 'v1', 'crontabs', 'CronTab'));
    assert.notEqual(d.aggregated('apis', 'v2'), before);
    const g = d.apiGroupDoc('stable.example.com') as { preferredVersion: { version: string }; versions: { version: string }[] };
    assert.equal(g.preferredVersion.version, 'v1');
    assert.deepEqual(
      g.versions.map((v) => v.version),
      ['v1', 'v1beta1'],
    );
    const rl = d.resourceList('stable.example.com', 'v1beta1') as { resources: { name: string }[] };
    assert.deepEqual(
      rl.resources.map((r) => r.name),
      ['crontabs', 'crontabs/scale'],
    );
    d.remove('stable.example.com', 'v1beta1', 'crontabs');
    assert.equal(d.hasGroupVersion('stable.example.com', 'v1beta1'), false);
    d.remove('stable.example.com', 'v1', 'crontabs');
    assert.equal(d.hasGroup('stable.example.com'), false);
    assert.equal(d.aggregated('apis', 'v2'), before);
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { Discovery } from '../discovery.js';
import { groupVersionOfPath } from './aggregator.js';
import { convertLegacyResources } from './discovery.js';
import { dialErrorText, setAuthProxyHeaders } from './proxy.js';
import { resolveServiceEndpoint } from '../util/service-resolver.js';
import { authenticationConfigMapData } from './authentication-configmap.js';

test('front-proxy headers replace what the client sent; extra keys are escaped', () => {
  const h: OutgoingHttpHeaders = { 'x-remote-user': 'mallory', 'X-Remote-Group': 'system:masters', 'x-remote-extra-foo': 'x', 'impersonate-user': 'y', accept: 'application/json' };
  setAuthProxyHeaders(h, { username: 'jane', groups: ['devs', 'system:authenticated'], extra: { 'scopes.example.com/a b': ['1', '2'] } });
  assert.deepEqual(h, {
    accept: 'application/json',
    'X-Remote-User': 'jane',
    'X-Remote-Group': ['devs', 'system:authenticated'],
    'X-Remote-Extra-scopes.example.com%2Fa%20b': ['1', '2'],
  });
});

test('paths routed by the aggregator: /apis/<group>/<version>[/…] only', () => {
  assert.deepEqual(groupVersionOfPath('/apis/metrics.k8s.io/v1beta1/nodes?limit=1'), ['metrics.k8s.io', 'v1beta1']);
  assert.deepEqual(groupVersionOfPath('/apis/wardle.example.com/v1alpha1'), ['wardle.example.com', 'v1alpha1']);
  assert.equal(groupVersionOfPath('/apis/wardle.example.com'), undefined);
  assert.equal(groupVersionOfPath('/api/v1/pods'), undefined);
  assert.equal(groupVersionOfPath('/apis'), undefined);
});

test('service resolution: ready EndpointSlice endpoints of ClusterIP services by port name, ExternalName as is, upstream errors', async () => {
  const services: Record<string, Service> = {
    svc: { spec: { type: 'ClusterIP', ports: [{ name: 'https', port: 443 }] } },
    ext: { spec: { type: 'ExternalName', externalName: 'backend.example.com' } },
    none: { spec: { ports: [{ port: 443 }] } },
  };
  const slice = (svc: string, endpoints: EndpointSlice['endpoints'], ports: EndpointSlice['ports']): EndpointSlice => ({
    addressType: 'IPv4',
    metadata: { name: `${svc}-x`, namespace: 'ns', labels: { 'kubernetes.io/service-name': svc } },
    endpoints,
    ports,
  });
  const slices = [
    slice('svc', [{ addresses: ['10.42.0.9'], conditions: { ready: false } }, { addresses: ['10.42.0.7'] }], [{ name: 'https', port: 8443 }]),
    slice('none', [{ addresses: ['10.42.0.8'], conditions: { ready: false } }], [{ port: 443 }]),
  ];
  const l = { service: (_: string, n: string) => services[n], endpointSlices: () => slices };
  assert.deepEqual(await resolveServiceEndpoint(l, 'ns', 'svc', 443, () => 0), { host: '10.42.0.7', port: 8443 });
  assert.deepEqual(await resolveServiceEndpoint(l, 'ns', 'ext', 6443), { host: 'backend.example.com', port: 6443 });
  await assert.rejects(resolveServiceEndpoint(l, 'ns', 'svc', 80), /^ResolveError: no service port 80 found for service "svc"$/);
  await assert.rejects(resolveServiceEndpoint(l, 'ns', 'none', 443), /^ResolveError: no endpoints available for service "none"$/);
  await assert.rejects(resolveServiceEndpoint(l, 'ns', 'gone', 443), /^ResolveError: service "gone" not found$/);
});

test('dial errors read as Go writes them', () => {
  const e = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 9 });
  assert.equal(dialErrorText(e, { host: 'x', port: 1 }), 'dial tcp 127.0.0.1:9: connect: connection refused');
});

test('legacy APIResourceList → aggregated resources, subresources under their parent', () => {
  assert.deepEqual(
    convertLegacyResources([
      { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'], shortNames: ['fl'] },
      { name: 'flunders/status', namespaced: true, kind: 'Flunder', verbs: ['get'] },
    ]),
    [
      {
        resource: 'flunders',
        responseKind: { group: '', version: '', kind: 'Flunder' },
        scope: 'Namespaced',
        singularResource: 'flunder',
        verbs: ['get', 'list'],
        shortNames: ['fl'],
        subresources: [{ subresource: 'status', responseKind: { group: '', version: '', kind: 'Flunder' }, verbs: ['get'] }],
      },
    ],
  );
});

test('merged discovery: external group-versions in /apis (aggregated and legacy) with their freshness', () => {
  const d = new Discovery([], []);
  d.setExternal({ group: 'wardle.example.com', version: 'v1alpha1', resources: [{ resource: 'flunders' }], freshness: 'Stale', groupPriority: 1000, versionPriority: 15 });
  d.setExternal({ group: 'wardle.example.com', version: 'v1beta1', resources: [], freshness: 'Current', groupPriority: 1000, versionPriority: 20 });
  const agg = JSON.parse(d.aggregated('apis', 'v2')) as { items: { metadata: { name: string }; versions: { version: string; freshness: string }[] }[] };
  assert.deepEqual(
    agg.items.map((i) => [i.metadata.name, i.versions.map((v) => `${v.version}:${v.freshness}`)]),
    [['wardle.example.com', ['v1beta1:Current', 'v1alpha1:Stale']]],
  );
  assert.deepEqual(d.apiGroupDoc('wardle.example.com'), {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: 'wardle.example.com',
    versions: [
      { groupVersion: 'wardle.example.com/v1beta1', version: 'v1beta1' },
      { groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' },
    ],
    preferredVersion: { groupVersion: 'wardle.example.com/v1beta1', version: 'v1beta1' },
  });
  d.removeExternal('wardle.example.com', 'v1beta1');
  d.removeExternal('wardle.example.com', 'v1alpha1');
  assert.equal(d.hasGroup('wardle.example.com'), false);
});

test('extension-apiserver-authentication data as upstream writes it', () => {
  assert.deepEqual(authenticationConfigMapData({ clientCA: 'CA', requestHeaderCA: 'FP' }), {
    'client-ca-file': 'CA',
    'requestheader-allowed-names': '["front-proxy-client"]',
    'requestheader-client-ca-file': 'FP',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-username-headers': '["X-Remote-User"]',
  });
});

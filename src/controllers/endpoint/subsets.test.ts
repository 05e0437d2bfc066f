import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EndpointSubset } from 'kubernetes-types/core/v1.js';
import { capacityAnnotationSetCorrectly, OVER_CAPACITY_ANNOTATION, podSubsets, repackSubsets, subsetsEqual, truncateSubsets } from './subsets.js';
import { findPort, rfc3339Nano, type Service, ServiceSelectorCache, servicesToUpdateOnPodChange, TriggerTimeTracker } from './util.js';
import { desiredEndpoints } from './controller.js';

import { pod, service, T0 } from './testdata.js';

const ref = (name: string) => ({ kind: 'Pod', namespace: 'default', name, uid: `uid-${name}` });

describe('Endpoints subsets', () => {
  it('ready pods in addresses, unready in notReadyAddresses, one subset per port set, sorted by IP', () => {
    const svc = service('web');
    const pods = [pod('b', '10.42.0.3'), pod('a', '10.42.0.2'), pod('c', '10.42.0.4', { ready: false })];
    const subsets = repackSubsets(podSubsets(svc, pods).subsets);
    assert.deepEqual(subsets, [
      {
        addresses: [
          { ip: '10.42.0.2', nodeName: 'node-1', targetRef: ref('a') },
          { ip: '10.42.0.3', nodeName: 'node-1', targetRef: ref('b') },
        ],
        notReadyAddresses: [{ ip: '10.42.0.4', nodeName: 'node-1', targetRef: ref('c') }],
        ports: [{ port: 80, protocol: 'TCP' }],
      },
    ]);
  });

  it('leaves out pods without IP, terminal and terminating pods (unless publishNotReadyAddresses)', () => {
    const pods = [
      pod('a', '10.42.0.2'),
      pod('noip', ''),
      pod('done', '10.42.0.5', { phase: 'Succeeded' }),
      pod('del', '10.42.0.6', { deleting: true }),
      pod('unready', '10.42.0.7', { ready: false }),
    ];
    const r = podSubsets(service('web'), pods);
    assert.equal(r.ready, 1);
    assert.equal(r.notReady, 1);
    const p = podSubsets(service('web', { publishNotReady: true }), pods);
    assert.equal(p.ready, 3, 'a, terminating and unready pods are all ready with publishNotReadyAddresses');
    assert.equal(p.notReady, 0);
  });

  it('resolves named target ports per pod and groups pods by the ports they offer', () => {
    const svc = service('web', { ports: [{ name: 'http', port: 80, targetPort: 'web' }] });
    const pods = [
      pod('a', '10.42.0.2', { ports: [{ name: 'web', containerPort: 8080 }] }),
      pod('b', '10.42.0.3', { ports: [{ name: 'web', containerPort: 9090 }] }),
      pod('c', '10.42.0.4'),
    ];
    const subsets = repackSubsets(podSubsets(svc, pods).subsets);
    assert.deepEqual(
      subsets.map((s) => [s.addresses?.map((a) => a.ip), s.ports]),
      [
        [['10.42.0.2'], [{ name: 'http', port: 8080, protocol: 'TCP' }]],
        [['10.42.0.3'], [{ name: 'http', port: 9090, protocol: 'TCP' }]],
      ],
    );
    assert.equal(findPort(pods[2]!, svc.spec!.ports![0]!), undefined);
  });

  it('sets hostname for pods whose subdomain names the service; headless service without ports', () => {
    const svc = service('nginx', { clusterIP: 'None', ports: [] });
    const subsets = repackSubsets(
      podSubsets(svc, [pod('web-0', '10.42.0.2', { hostname: 'web-0', subdomain: 'nginx' }), pod('x', '10.42.0.3', { hostname: 'x', subdomain: 'other' })]).subsets,
    );
    assert.deepEqual(subsets, [
      {
        addresses: [
          { ip: '10.42.0.2', nodeName: 'node-1', hostname: 'web-0', targetRef: ref('web-0') },
          { ip: '10.42.0.3', nodeName: 'node-1', targetRef: ref('x') },
        ],
      },
    ]);
  });

  it('truncates to 1000 addresses, dropping not-ready ones first, proportionally when ready alone exceed', () => {
    const addrs = (n: number, p: string) => Array.from({ length: n }, (_, i) => ({ ip: `${p}.${i}` }));
    const a: EndpointSubset[] = [{ addresses: addrs(900, '10.0'), notReadyAddresses: addrs(200, '10.1') }];
    assert.equal(truncateSubsets(a), true);
    assert.equal(a[0]!.addresses!.length, 900);
    assert.equal(a[0]!.notReadyAddresses!.length, 100);
    const b: EndpointSubset[] = [{ addresses: addrs(900, '10.0'), notReadyAddresses: addrs(5, '10.1') }, { addresses: addrs(300, '10.2') }];
    assert.equal(truncateSubsets(b), true);
    assert.equal(b[0]!.addresses!.length, 750);
    assert.equal(b[0]!.notReadyAddresses, undefined);
    assert.equal(b[1]!.addresses!.length, 250);
    assert.equal(truncateSubsets([{ addresses: addrs(1000, '10.0') }]), false);
    assert.equal(capacityAnnotationSetCorrectly({ [OVER_CAPACITY_ANNOTATION]: 'truncated' }, b), false);
    assert.equal(capacityAnnotationSetCorrectly({ [OVER_CAPACITY_ANNOTATION]: 'truncated' }, [{ addresses: addrs(1001, '1') }]), true);
  });

  it('desiredEndpoints: labels (headless label), trigger time, over-capacity annotation; undefined when unchanged', () => {
    const svc = service('web', { clusterIP: 'None', labels: { app: 'web' } });
    const pods = Array.from({ length: 1001 }, (_, i) => pod(`p${i}`, `10.42.${Math.floor(i / 250)}.${i % 250}`));
    const ep = desiredEndpoints(svc, pods, undefined, Date.parse('2025-01-01T00:00:00.5Z'))!;
    assert.deepEqual(ep.metadata?.labels, { app: 'web', 'service.kubernetes.io/headless': '' });
    assert.deepEqual(ep.metadata?.annotations, {
      'endpoints.kubernetes.io/last-change-trigger-time': '2025-01-01T00:00:00.5Z',
      'endpoints.kubernetes.io/over-capacity': 'truncated',
    });
    assert.equal(ep.subsets![0]!.addresses!.length, 1000);
    const stored = { ...ep, metadata: { ...ep.metadata, resourceVersion: '5' } };
    assert.equal(desiredEndpoints(svc, pods, stored, undefined), undefined);
    const fewer = desiredEndpoints(svc, pods.slice(0, 3), stored, undefined)!;
    assert.equal(fewer.metadata?.annotations, undefined, 'both annotations removed');
    assert.equal(fewer.metadata?.resourceVersion, '5');
    assert.equal(subsetsEqual(fewer.subsets, ep.subsets), false);
  });
});

describe('endpoint util', () => {
  it('rfc3339Nano trims the fraction as Go does', () => {
    assert.equal(rfc3339Nano(Date.parse('2025-01-01T00:00:00Z')), '2025-01-01T00:00:00Z');
    assert.equal(rfc3339Nano(Date.parse('2025-01-01T00:00:00.120Z')), '2025-01-01T00:00:00.12Z');
  });

  it('trigger time: earliest changed pod Ready transition or service creation, undefined when nothing changed', () => {
    const t = new TriggerTimeTracker();
    const svc = service('web');
    const a = pod('a', '10.42.0.2');
    assert.equal(t.compute('default/web', svc, [a]), Date.parse(T0));
    assert.equal(t.compute('default/web', svc, [a]), undefined);
    const later = structuredClone(a);
    later.status!.conditions![0]!.lastTransitionTime = '2025-01-01T00:01:00Z';
    assert.equal(t.compute('default/web', svc, [later]), Date.parse('2025-01-01T00:01:00Z'));
  });

  it('services to update on pod change: readiness → its services; labels only → services joined or left', () => {
    const sels = new ServiceSelectorCache();
    const web = service('web');
    const other: Service = { ...service('other'), spec: { ...service('other').spec, selector: { app: 'other' } } };
    const a = pod('a', '10.42.0.2');
    const unready = { ...pod('a', '10.42.0.2', { ready: false }), metadata: { ...a.metadata, resourceVersion: '2' } };
    assert.deepEqual([...servicesToUpdateOnPodChange(a, unready, [web, other], sels)], ['default/web']);
    const relabelled = { ...a, metadata: { ...a.metadata, resourceVersion: '3', labels: { app: 'other' } } };
    assert.deepEqual([...servicesToUpdateOnPodChange(a, relabelled, [web, other], sels)].sort(), ['default/other', 'default/web']);
    const annotated = { ...a, metadata: { ...a.metadata, resourceVersion: '4', annotations: { x: 'y' } } };
    assert.equal(servicesToUpdateOnPodChange(a, annotated, [web, other], sels).size, 0);
  });
});

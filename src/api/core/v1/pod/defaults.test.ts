// Pod defaulting as upstream SetObjectDefaults_Pod.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { imageTag, roundResourceList, setPodDefaults } from './defaults.js';
import type { Pod } from './types.js';

test('imageTag / imagePullPolicy: Always for :latest or no tag, else IfNotPresent', () => {
  const cases: [string, string][] = [
    ['nginx', 'latest'],
    ['nginx:latest', 'latest'],
    ['nginx:1.14.2', '1.14.2'],
    ['docker.io/library/nginx', 'latest'],
    ['localhost:5000/app', 'latest'],
    ['localhost:5000/app:v2', 'v2'],
    ['registry.k8s.io/pause:3.6', '3.6'],
    ['nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', ''],
    ['nginx:1.2@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', '1.2'],
    ['Nginx', ''], // unparsable: uppercase repository
    ['', ''],
  ];
  for (const [img, tag] of cases) assert.equal(imageTag(img), tag, img);
  const p: Pod = {
    spec: {
      containers: [
        { name: 'a', image: 'nginx' },
        { name: 'b', image: 'nginx:1.27' },
        { name: 'c', image: 'busybox:latest' },
        { name: 'd', image: 'x', imagePullPolicy: 'Never' },
      ],
    },
  };
  setPodDefaults(p);
  assert.deepEqual(
    p.spec!.containers.map((c) => c.imagePullPolicy),
    ['Always', 'IfNotPresent', 'Always', 'Never'],
  );
});

test('probe, lifecycle, port, env and volume defaults', () => {
  const p: Pod = {
    spec: {
      hostNetwork: true,
      initContainers: [{ name: 'i', image: 'busybox', ports: [{ containerPort: 53, protocol: 'UDP' }] }],
      containers: [
        {
          name: 'c',
          image: 'nginx:1',
          ports: [{ containerPort: 80 }],
          env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
          livenessProbe: { httpGet: { port: 80 } },
          readinessProbe: { grpc: { port: 2379 }, periodSeconds: 5 },
          startupProbe: { tcpSocket: { port: 80 }, failureThreshold: 30 },
          lifecycle: { preStop: { httpGet: { port: 80, path: '/quit' } } },
        },
      ],
      volumes: [
        { name: 'plain' } as never,
        { name: 'cm', configMap: { name: 'x' } },
        { name: 's', secret: { secretName: 'x', defaultMode: 256 } },
        { name: 'd', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'pr', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
        { name: 'h', hostPath: { path: '/var/log' } },
      ],
    },
  };
  setPodDefaults(p);
  const c = p.spec!.containers[0]!;
  assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP', hostPort: 80 }]);
  assert.deepEqual(p.spec!.initContainers![0]!.ports, [{ containerPort: 53, protocol: 'UDP', hostPort: 53 }]);
  assert.deepEqual(c.env![0]!.valueFrom!.fieldRef, { fieldPath: 'spec.nodeName', apiVersion: 'v1' });
  assert.deepEqual(c.livenessProbe, { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  assert.deepEqual(c.readinessProbe, { grpc: { port: 2379, service: '' }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });
  assert.equal(c.startupProbe!.failureThreshold, 30);
  assert.deepEqual(c.lifecycle!.preStop!.httpGet, { port: 80, path: '/quit', scheme: 'HTTP' });
  const v = p.spec!.volumes!;
  assert.deepEqual(v[0], { name: 'plain', emptyDir: {} });
  assert.equal(v[1]!.configMap!.defaultMode, 420);
  assert.equal(v[2]!.secret!.defaultMode, 256);
  assert.deepEqual(v[3]!.downwardAPI, { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels', apiVersion: 'v1' } }], defaultMode: 420 });
  assert.deepEqual(v[4]!.projected, { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }], defaultMode: 420 });
  assert.deepEqual(v[5]!.hostPath, { path: '/var/log', type: '' });
});

test('requests default from limits (containers and init containers), not for ephemeral containers', () => {
  const p: Pod = {
    spec: {
      initContainers: [{ name: 'i', image: 'x', resources: { limits: { memory: '64Mi' }, requests: { cpu: '10m' } } }],
      containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '500m', memory: '1Gi' }, requests: { memory: '512Mi' } } }],
      ephemeralContainers: [{ name: 'e', image: 'x', resources: { limits: { cpu: '1' } } }],
    },
  };
  setPodDefaults(p);
  assert.deepEqual(p.spec!.containers[0]!.resources!.requests, { memory: '512Mi', cpu: '500m' });
  assert.deepEqual(p.spec!.initContainers![0]!.resources!.requests, { cpu: '10m', memory: '64Mi' });
  assert.equal(p.spec!.ephemeralContainers![0]!.resources!.requests, undefined);
});

test('resource lists: rounded up to milli and canonical; malformed values untouched', () => {
  const list: Record<string, string> = { cpu: '0.1', memory: '1024Mi', 'example.com/x': '0.0001', other: 'abc', exp: '1e3', n: 2 as unknown as string };
  roundResourceList(list);
  assert.deepEqual(list, { cpu: '100m', memory: '1Gi', 'example.com/x': '1m', other: 'abc', exp: '1e3', n: '2' });
});

test('pod-level defaults and idempotence', () => {
  const p: Pod = { spec: { containers: [{ name: 'c', image: 'x' }] } };
  setPodDefaults(p);
  const once = structuredClone(p);
  setPodDefaults(p);
  assert.deepEqual(p, once);
  assert.equal(p.spec!.enableServiceLinks, true);
  assert.equal(p.spec!.terminationGracePeriodSeconds, 30);
  const explicit: Pod = { spec: { containers: [], enableServiceLinks: false, terminationGracePeriodSeconds: 0, restartPolicy: 'Never', dnsPolicy: 'Default' } };
  setPodDefaults(explicit);
  assert.equal(explicit.spec!.enableServiceLinks, false);
  assert.equal(explicit.spec!.terminationGracePeriodSeconds, 0);
  assert.equal(explicit.spec!.restartPolicy, 'Never');
  assert.equal(explicit.spec!.dnsPolicy, 'Default');
});

test('findInvalidPodQuantity: the decode-time check upstream answers with 400', async () => {
  const { findInvalidPodQuantity } = await import('./defaults.js');
  const ok: Pod = { spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '0.1' } } }], overhead: { memory: '1Gi' } } };
  assert.equal(findInvalidPodQuantity(ok), undefined);
  const bad: Pod = { spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { memory: '1mi' } } }] } };
  assert.equal(findInvalidPodQuantity(bad)?.message, "unable to parse quantity's suffix");
  const badVolume: Pod = { spec: { containers: [], volumes: [{ name: 'v', emptyDir: { sizeLimit: 'lots' } }] } };
  assert.equal(findInvalidPodQuantity(badVolume)?.message, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
});

test('conversion aliases: serviceAccount mirrors serviceAccountName; podIP/hostIP mirror the lists', () => {
  const a: Pod = { spec: { containers: [], serviceAccount: 'old' } };
  setPodDefaults(a);
  assert.equal(a.spec!.serviceAccountName, 'old');
  assert.equal(a.spec!.serviceAccount, 'old');
  const b: Pod = { spec: { containers: [], serviceAccountName: 'new', serviceAccount: 'old' } };
  setPodDefaults(b);
  assert.equal(b.spec!.serviceAccount, 'new');
  const c: Pod = { spec: { containers: [] }, status: { podIP: '10.0.0.1', hostIPs: [{ ip: '192.168.0.2' }] } };
  setPodDefaults(c);
  assert.deepEqual(c.status!.podIPs, [{ ip: '10.0.0.1' }]);
  assert.equal(c.status!.hostIP, '192.168.0.2');
  const d: Pod = { spec: { containers: [] }, status: { podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }] } };
  setPodDefaults(d);
  assert.deepEqual(d.status!.podIPs, [{ ip: '10.0.0.9' }]);
});

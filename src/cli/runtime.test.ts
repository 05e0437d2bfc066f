import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, PodSandbox } from '../cri/api.js';
import { ago, formatContainers, formatImages, formatPods, runtimeEndpoint, table } from './runtime.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const ns = (msAgo: number): number => (NOW - msAgo) * 1e6;

describe('k8ts runtime', () => {
  it('resolves the endpoint: flag, then environment, then the managed containerd', () => {
    assert.equal(runtimeEndpoint({ runtimeEndpoint: 'unix:///x.sock' }, { CONTAINER_RUNTIME_ENDPOINT: 'unix:///y.sock' }), 'unix:///x.sock');
    assert.equal(runtimeEndpoint({}, { CONTAINER_RUNTIME_ENDPOINT: 'unix:///y.sock' }), 'unix:///y.sock');
    assert.equal(runtimeEndpoint({ dataDir: '/var/lib/k8ts' }, {}), 'unix:///var/lib/k8ts/containerd/containerd.sock');
  });

  it('prints ages as crictl does', () => {
    assert.equal(ago(ns(200), NOW), 'Less than a second ago');
    assert.equal(ago(ns(5_000), NOW), '5 seconds ago');
    assert.equal(ago(ns(61_000), NOW), 'About a minute ago');
    assert.equal(ago(ns(30 * 60_000), NOW), '30 minutes ago');
    assert.equal(ago(ns(90 * 60_000), NOW), 'About an hour ago');
    assert.equal(ago(ns(3 * 86_400_000), NOW), '3 days ago');
  });

  it('aligns columns', () => {
    assert.equal(table(['A', 'BB'], [['xxxx', 'y']]), 'A      BB\nxxxx   y\n');
  });

  it('formats containers, pods and images', () => {
    const pod: PodSandbox = {
      id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
      metadata: { name: 'web', uid: 'u', namespace: 'default', attempt: 0 },
      state: 'SANDBOX_READY',
      createdAt: ns(120_000),
      labels: {},
      annotations: {},
    };
    const c: Container = {
      id: 'ffeeddccbbaa99887766554433221100',
      podSandboxId: pod.id,
      metadata: { name: 'nginx', attempt: 2 },
      image: { image: 'docker.io/library/nginx:1.14.2' },
      imageRef: 'sha256:0123456789abcdef0123',
      state: 'CONTAINER_RUNNING',
      createdAt: ns(5_000),
      labels: {},
      annotations: {},
    };
    const ps = formatContainers([c], new Map([[pod.id, pod]]), NOW).split('\n');
    assert.match(ps[0]!, /^CONTAINER\s+IMAGE\s+CREATED\s+STATE\s+NAME\s+ATTEMPT\s+POD ID\s+POD$/);
    assert.match(ps[1]!, /^ffeeddccbbaa9\s+0123456789abc\s+5 seconds ago\s+RUNNING\s+nginx\s+2\s+a1b2c3d4e5f60\s+web$/);
    const pods = formatPods([pod], NOW).split('\n');
    assert.match(pods[1]!, /^a1b2c3d4e5f60\s+2 minutes ago\s+READY\s+web\s+default\s+0\s+\(default\)$/);
    const imgs = formatImages([
      { id: 'sha256:abcdef0123456789', repoTags: ['docker.io/library/busybox:1.36'], repoDigests: [], size: 1_234_567 },
      { id: 'sha256:0000aaaa', repoTags: [], repoDigests: ['localhost/pause@sha256:1'], size: 700 },
    ]).split('\n');
    assert.match(imgs[0]!, /^IMAGE\s+TAG\s+IMAGE ID\s+SIZE$/);
    assert.match(imgs[1]!, /^docker\.io\/library\/busybox\s+1\.36\s+abcdef0123456\s+1\.23MB$/);
    assert.match(imgs[2]!, /^localhost\/pause\s+<none>\s+0000aaaa\s+700B$/);
  });
});

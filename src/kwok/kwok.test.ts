import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { nthSubnet24, kwokNodes } from './index.js';
import { PodIPAllocator } from './ipam.js';
import { defaultLeaseRenewMs, poolNodeObject } from './nodes.js';
import { simulatedPodStatus } from './pod-status.js';
import { KeyedWorkQueue } from './work-queue.js';

describe('kwok: pod CIDRs and IPs', () => {
  it('takes the n-th /24 of the cluster CIDR and refuses past its end, naming the flag', () => {
    assert.equal(nthSubnet24('10.42.0.0/16', 0), '10.42.0.0/24');
    assert.equal(nthSubnet24('10.42.0.0/16', 255), '10.42.255.0/24');
    assert.equal(nthSubnet24('10.42.0.0/16', 256), undefined);
    assert.equal(nthSubnet24('10.128.0.0/9', 4999), '10.147.135.0/24');
    assert.throws(() => kwokNodes(300, '10.42.0.0/16', 1), /--kwok-nodes 300: --cluster-cidr 10.42.0.0\/16 has too few \/24 pod CIDRs for 301 nodes/);
    const n = kwokNodes(2, '10.42.0.0/16', 1);
    assert.deepEqual(n, [
      { name: 'kwok-node-0', podCIDR: '10.42.1.0/24', ip: '127.1.0.1' },
      { name: 'kwok-node-1', podCIDR: '10.42.2.0/24', ip: '127.1.0.2' },
    ]);
  });
  it('hands out host addresses from .2, reuses released ones, fails with host-local words when full', () => {
    const a = new PodIPAllocator();
    assert.equal(a.allocate('n', '10.0.0.0/30'), '10.0.0.2');
    assert.throws(() => a.allocate('n', '10.0.0.0/30'), /no IP addresses available in range set: 10.0.0.0\/30/);
    a.release('n', '10.0.0.2');
    assert.equal(a.allocate('n', '10.0.0.0/30'), '10.0.0.2');
    assert.equal(a.claim('m', '10.1.0.0/24', '10.1.0.7'), '10.1.0.7');
    assert.equal(a.allocate('m', '10.1.0.0/24'), '10.1.0.8');
  });
});

describe('kwok: nodes', () => {
  it('registers a node as a kubelet would, labelled simulated', () => {
    const n = poolNodeObject({ name: 'kwok-node-0', podCIDR: '10.42.1.0/24', ip: '127.1.0.1' }, { cpu: '32', memory: '256Gi', pods: 110, now: new Date(0) });
    assert.equal(n.metadata?.labels?.type, 'kwok');
    assert.equal(n.metadata?.annotations?.['kwok.x-k8s.io/node'], 'fake');
    assert.deepEqual(n.spec, { podCIDR: '10.42.1.0/24', podCIDRs: ['10.42.1.0/24'] });
    assert.equal(n.status?.capacity?.cpu, '32');
    assert.equal(n.status?.capacity?.memory, '268435456Ki'); // the kubelet reports memory in Ki, as cAdvisor gives it
    assert.equal(n.status?.allocatable?.pods, '110');
    assert.equal(n.status?.nodeInfo?.containerRuntimeVersion, 'kwok (SIMULATED)');
    const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
    assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['True', 'KubeletReady', 'kubelet is posting ready status']);
    assert.deepEqual(n.status?.addresses, [
      { type: 'InternalIP', address: '127.1.0.1' },
      { type: 'Hostname', address: 'kwok-node-0' },
    ]);
  });
  it('renews leases as the kubelet (10 s) for small pools, stretched to ≤ 50/s for large ones, never past 35 s', () => {
    assert.equal(defaultLeaseRenewMs(100), 10_000);
    assert.equal(defaultLeaseRenewMs(1000), 20_000);
    assert.equal(defaultLeaseRenewMs(5000), 35_000);
  });
});

describe('kwok: pod status', () => {
  const pod: Pod = {
    metadata: { name: 'p', namespace: 'default', uid: 'u1' },
    spec: {
      nodeName: 'kwok-node-0',
      initContainers: [{ name: 'init', image: 'busybox' }],
      containers: [
        { name: 'b', image: 'nginx' },
        { name: 'a', image: 'redis' },
      ],
    },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  };
  it('running: the kubelet conditions, init completed, containers running and sorted, IPs, qosClass', () => {
    const s = simulatedPodStatus(pod, '127.1.0.1', '10.42.1.2', Date.parse('2026-01-01T00:00:05Z'), false);
    assert.equal(s.phase, 'Running');
    assert.deepEqual(
      s.conditions?.map((c) => `${c.type}=${c.status}`),
      ['PodReadyToStartContainers=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True'],
    );
    assert.equal(s.conditions?.find((c) => c.type === 'PodScheduled')?.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.deepEqual(
      s.containerStatuses?.map((c) => [c.name, c.ready, !!c.state?.running, c.containerID?.startsWith('kwok://')]),
      [
        ['a', true, true, true],
        ['b', true, true, true],
      ],
    );
    assert.deepEqual(
      s.initContainerStatuses?.map((c) => [c.name, c.state?.terminated?.reason, c.state?.terminated?.exitCode]),
      [['init', 'Completed', 0]],
    );
    assert.deepEqual([s.hostIP, s.podIP, s.qosClass, s.startTime], ['127.1.0.1', '10.42.1.2', 'BestEffort', '2026-01-01T00:00:05Z']);
  });
  it('complete: Succeeded with reason PodCompleted and containers terminated Completed', () => {
    const s = simulatedPodStatus({ ...pod, spec: { ...pod.spec!, restartPolicy: 'Never' } }, '127.1.0.1', '10.42.1.2', Date.parse('2026-01-01T00:00:09Z'), true);
    assert.equal(s.phase, 'Succeeded');
    assert.deepEqual(
      s.conditions?.filter((c) => c.type !== 'PodScheduled').map((c) => `${c.type}=${c.status}/${c.reason ?? ''}`),
      ['PodReadyToStartContainers=False/', 'Initialized=True/PodCompleted', 'Ready=False/PodCompleted', 'ContainersReady=False/PodCompleted'],
    );
    assert.ok(s.containerStatuses?.every((c) => c.state?.terminated?.reason === 'Completed' && c.state.terminated.exitCode === 0));
  });
});

describe('kwok: keyed work queue', () => {
  it('runs a key once at a time, re-runs a key added while it runs, and bounds concurrency', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const runs: string[] = [];
    const gates = new Map<string, () => void>();
    const q = new KeyedWorkQueue(2, async (k) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      runs.push(k);
      await new Promise<void>((r) => gates.set(`${k}${runs.filter((x) => x === k).length}`, r));
      inFlight--;
    });
    q.add('a');
    q.add('b');
    q.add('c');
    q.add('a'); // while a runs: once more after
    q.add('a'); // deduplicated
    assert.deepEqual(runs, ['a', 'b']);
    gates.get('a1')!();
    await new Promise((r) => setImmediate(r));
    gates.get('b1')!();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(runs, ['a', 'b', 'c', 'a']);
    gates.get('c1')!();
    gates.get('a2')!();
    await q.idle();
    assert.equal(maxInFlight, 2);
    assert.equal(q.length, 0);
  });
});

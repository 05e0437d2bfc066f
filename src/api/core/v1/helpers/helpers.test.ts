// Pod helpers: effective requests/limits (component-helpers cases), QoS, conditions, iteration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuantity } from '../../../../apimachinery/quantity.js';
import type { Container, Pod } from '../pod/types.js';
import { getPodCondition, isPodAvailable, isPodReady, updatePodCondition } from './conditions.js';
import { containerNames, isRestartableInitContainer, visitContainers } from './containers.js';
import { computePodQOS, getPodQOS } from './qos.js';
import { formatResources, milliOf, podLimits, podRequests, valueOf } from './resources.js';

const ctr = (name: string, requests?: Record<string, string>, limits?: Record<string, string>, restartPolicy?: string): Container => ({
  name,
  image: 'x',
  resources: { requests, limits },
  ...(restartPolicy ? { restartPolicy } : {}),
});

test('podRequests: containers summed, init containers as max, overhead added', () => {
  const pod: Pod = {
    spec: {
      containers: [ctr('a', { cpu: '1', memory: '1Gi' }), ctr('b', { cpu: '500m' })],
      initContainers: [ctr('i1', { cpu: '2' }), ctr('i2', { memory: '3Gi' })],
      overhead: { cpu: '250m', memory: '120Mi' },
    },
  };
  assert.deepEqual(formatResources(podRequests(pod)), { cpu: '2250m', memory: '3192Mi' });
  assert.deepEqual(formatResources(podRequests(pod, { excludeOverhead: true })), { cpu: '2', memory: '3Gi' });
});

test('podRequests: restartable init containers (sidecars) add up and count under later init containers', () => {
  // upstream TestPodRequestsAndLimitsWithSidecars-style: sidecar 1 cpu, then init 2 cpu → init phase needs 3.
  const pod: Pod = {
    spec: {
      initContainers: [ctr('side', { cpu: '1' }, undefined, 'Always'), ctr('init', { cpu: '2' })],
      containers: [ctr('app', { cpu: '1' })],
    },
  };
  assert.equal(milliOf(podRequests(pod), 'cpu'), 3000);
  const later: Pod = {
    spec: {
      initContainers: [ctr('init', { cpu: '2' }), ctr('side', { cpu: '1' }, undefined, 'Always')],
      containers: [ctr('app', { cpu: '1' })],
    },
  };
  assert.equal(milliOf(podRequests(later), 'cpu'), 2000);
});

test('podRequests: non-missing defaults for containers without requests', () => {
  const pod: Pod = { spec: { containers: [ctr('a'), ctr('b', { cpu: '300m' })] } };
  const nonZero = { cpu: parseQuantity('100m'), memory: parseQuantity('200Mi') };
  const r = podRequests(pod, { nonMissingContainerRequests: nonZero });
  assert.equal(milliOf(r, 'cpu'), 400);
  assert.equal(valueOf(r, 'memory'), 2 * 200 * 1024 * 1024);
  assert.equal(milliOf(podRequests(pod), 'memory'), 0);
});

test('podLimits: overhead only added to resources with limits', () => {
  const pod: Pod = {
    spec: {
      containers: [ctr('a', undefined, { cpu: '1' })],
      initContainers: [ctr('side', undefined, { cpu: '500m', memory: '1Gi' }, 'Always')],
      overhead: { cpu: '100m', memory: '10Mi' },
    },
  };
  assert.deepEqual(formatResources(podLimits(pod)), { cpu: '1600m', memory: '1034Mi' });
});

test('QoS', () => {
  const q = (containers: Container[], initContainers: Container[] = []) => computePodQOS({ spec: { containers, initContainers } });
  assert.equal(q([ctr('a')]), 'BestEffort');
  assert.equal(q([ctr('a', { cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })]), 'Guaranteed');
  assert.equal(q([ctr('a', { cpu: '1000m', memory: '1024Mi' }, { cpu: '1', memory: '1Gi' })]), 'Guaranteed');
  assert.equal(q([ctr('a', { cpu: '500m', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })]), 'Burstable');
  assert.equal(q([ctr('a', undefined, { memory: '1Gi' })]), 'Burstable');
  assert.equal(q([ctr('a', { cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' }), ctr('b')]), 'Burstable');
  assert.equal(q([ctr('a', { cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })], [ctr('i')]), 'Burstable');
  // zero quantities and non-compute resources do not count
  assert.equal(q([ctr('a', { cpu: '0', 'ephemeral-storage': '1Gi' })]), 'BestEffort');
  assert.equal(getPodQOS({ spec: { containers: [] }, status: { qosClass: 'Guaranteed' } }), 'Guaranteed');
});

test('updatePodCondition keeps lastTransitionTime when status is unchanged', () => {
  const status: NonNullable<Pod['status']> = {};
  const t1 = new Date('2025-01-01T00:00:00.500Z');
  const t2 = new Date('2025-01-01T00:05:00Z');
  assert.equal(updatePodCondition(status, { type: 'Ready', status: 'False', reason: 'ContainersNotReady' }, t1), true);
  assert.equal(status.conditions![0]!.lastTransitionTime, '2025-01-01T00:00:00Z');
  assert.equal(updatePodCondition(status, { type: 'Ready', status: 'False', reason: 'ContainersNotReady' }, t2), false);
  assert.equal(status.conditions![0]!.lastTransitionTime, '2025-01-01T00:00:00Z');
  assert.equal(updatePodCondition(status, { type: 'Ready', status: 'True' }, t2), true);
  assert.equal(status.conditions![0]!.lastTransitionTime, '2025-01-01T00:05:00Z');
  assert.equal(getPodCondition(status, 'Ready')[0], 0);
  const pod: Pod = { spec: { containers: [] }, status };
  assert.equal(isPodReady(pod), true);
  assert.equal(isPodAvailable(pod, 0, t2), true);
  assert.equal(isPodAvailable(pod, 10, new Date('2025-01-01T00:05:10Z')), false);
  assert.equal(isPodAvailable(pod, 10, new Date('2025-01-01T00:05:11Z')), true);
});

test('visitContainers order and restartable init containers', () => {
  const spec = {
    initContainers: [ctr('i1'), ctr('side', undefined, undefined, 'Always')],
    containers: [ctr('c1'), ctr('c2')],
    ephemeralContainers: [{ name: 'dbg', image: 'x' }],
  };
  assert.deepEqual(containerNames(spec), ['i1', 'side', 'c1', 'c2', 'dbg']);
  const seen: string[] = [];
  assert.equal(
    visitContainers(spec, (c) => {
      seen.push(c.name);
      return c.name !== 'c1';
    }),
    false,
  );
  assert.deepEqual(seen, ['i1', 'side', 'c1']);
  assert.equal(isRestartableInitContainer(spec.initContainers[1]), true);
  assert.equal(isRestartableInitContainer(spec.initContainers[0]), false);
});

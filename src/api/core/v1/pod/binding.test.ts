import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyPodBinding, copyForBinding } from './binding.js';
import type { Pod } from './types.js';

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

const stored = (): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', uid: 'u1', labels: { app: 'web' }, annotations: { a: '1' }, resourceVersion: '7' },
  spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }], schedulerName: 'default-scheduler' },
  status: { phase: 'Pending', conditions: [{ type: 'PodReadyToStartContainers', status: 'False' }], qosClass: 'Burstable' },
});

test('binding a copyForBinding copy gives the deep copy result and leaves the stored (frozen) pod unchanged', () => {
  const now = new Date('2025-01-02T03:04:05Z');
  const deep = structuredClone(stored());
  assert.equal(applyPodBinding(deep, 'n1', { b: '2' }, now), undefined);

  const original = deepFreeze(stored());
  const before = JSON.stringify(original);
  const copy = copyForBinding(original);
  assert.equal(applyPodBinding(copy, 'n1', { b: '2' }, now), undefined);
  // same members in the same order as binding a deep copy
  assert.equal(JSON.stringify(copy), JSON.stringify(deep));
  assert.equal(JSON.stringify(original), before);
  // the untouched parts are shared
  assert.equal(copy.spec!.containers, original.spec!.containers);
  assert.equal(copy.metadata!.labels, original.metadata!.labels);
  assert.equal(copy.status!.conditions![0], original.status!.conditions![0]);
});

test('copyForBinding of a pod without status: the binding adds one with PodScheduled', () => {
  const p = deepFreeze({ ...stored(), status: undefined });
  const copy = copyForBinding(p);
  assert.equal(applyPodBinding(copy, 'n1', undefined, new Date('2025-01-02T03:04:05Z')), undefined);
  assert.deepEqual(copy.status, { conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2025-01-02T03:04:05Z' }] });
  assert.equal(p.status, undefined);
});

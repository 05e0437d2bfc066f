import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Obj } from './resource.js';
import { wireShaper, wireShaperFor } from './wire-shape.js';

test('a DaemonSet without status gets the counters Go always writes, in DaemonSetStatus order', () => {
  const ds = { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { namespace: 'default', name: 'ds' }, spec: { selector: {} } } as Obj;
  const out = wireShaper('apps', 'DaemonSet')(ds);
  assert.equal(
    JSON.stringify(out),
    '{"kind":"DaemonSet","apiVersion":"apps/v1","metadata":{"name":"ds","namespace":"default"},"spec":{"selector":{}},' +
      '"status":{"currentNumberScheduled":0,"numberMisscheduled":0,"desiredNumberScheduled":0,"numberReady":0}}',
  );
});

test('status counters already set are kept and ordered; zeros only fill what is missing', () => {
  const rs = { kind: 'ReplicaSet', apiVersion: 'apps/v1', metadata: { name: 'r' }, spec: {}, status: { observedGeneration: 2, readyReplicas: 1, replicas: 3 } } as Obj;
  assert.equal(JSON.stringify(wireShaper('apps', 'ReplicaSet')(rs).status), '{"replicas":3,"readyReplicas":1,"observedGeneration":2}');
  const rc = { kind: 'ReplicationController', apiVersion: 'v1', metadata: { name: 'r' }, spec: { replicas: 0 } } as Obj;
  assert.deepEqual(wireShaper('', 'ReplicationController')(rc).status, { replicas: 0 });
  const pdb = { kind: 'PodDisruptionBudget', apiVersion: 'policy/v1', metadata: { name: 'p' }, spec: {}, status: { observedGeneration: 1 } } as Obj;
  assert.equal(
    JSON.stringify(wireShaper('policy', 'PodDisruptionBudget')(pdb).status),
    '{"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,"expectedPods":0}',
  );
  const sts = { kind: 'StatefulSet', apiVersion: 'apps/v1', metadata: { name: 's' }, spec: {} } as Obj;
  assert.deepEqual(wireShaper('apps', 'StatefulSet')(sts).status, { replicas: 0, availableReplicas: 0 });
});

test('kinds without spec/status keep their own Go field order; Deployments get no status they do not have', () => {
  const cm = { data: { a: 'b' }, metadata: { name: 'c' }, apiVersion: 'v1', kind: 'ConfigMap', immutable: true } as Obj;
  assert.deepEqual(Object.keys(wireShaper('', 'ConfigMap')(cm)), ['kind', 'apiVersion', 'metadata', 'immutable', 'data']);
  const ev = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, message: 'm', reason: 'r', involvedObject: {} } as Obj;
  assert.equal(
    JSON.stringify(wireShaper('', 'Event')(ev)),
    '{"kind":"Event","apiVersion":"v1","metadata":{"name":"e"},"involvedObject":{},"reason":"r","message":"m","reportingComponent":"","reportingInstance":""}',
  );
  const pc = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'low' } } as Obj;
  assert.equal((wireShaper('scheduling.k8s.io', 'PriorityClass')(pc) as { value?: number }).value, 0);
  const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: {} } as Obj;
  assert.deepEqual(Object.keys(wireShaper('apps', 'Deployment')(d)), ['kind', 'apiVersion', 'metadata', 'spec']);
});

test('custom resources are left as they are', () => {
  const cr = { spec: {}, apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } } as Obj;
  assert.equal(wireShaperFor('example.com', 'Widget', true)(cr), cr);
  assert.deepEqual(Object.keys(cr), ['spec', 'apiVersion', 'kind', 'metadata']);
});

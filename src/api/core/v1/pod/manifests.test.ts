// The published example manifests (test/fixtures/manifests, see EXPECTED.md) through the pod create path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateFieldErrors } from '../../../../apimachinery/field-errors.js';
import { createPod, loadManifest, manifestFiles, podFromTemplate } from './test-support.js';
import type { Pod } from './types.js';

const WORKLOADS = new Set(['Deployment', 'ReplicaSet', 'DaemonSet', 'Job', 'StatefulSet', 'CronJob']);

test('every manifest parses with the yaml package (KYAML flow style included)', () => {
  const files = manifestFiles();
  assert.ok(files.length >= 39, `found ${files.length} manifests`);
  for (const f of files) {
    const docs = loadManifest(f);
    assert.ok(docs.length >= 1, `${f}: no document`);
    for (const d of docs) {
      assert.equal(typeof d.apiVersion, 'string', `${f}: apiVersion`);
      assert.equal(typeof d.kind, 'string', `${f}: kind`);
    }
  }
});

test('every pod and pod template in the manifests is accepted by validation', () => {
  let pods = 0;
  for (const f of manifestFiles()) {
    for (const d of loadManifest(f)) {
      let pod: Pod | undefined;
      if (d.kind === 'Pod') pod = d as Pod;
      else if (WORKLOADS.has(d.kind!)) pod = podFromTemplate(d);
      if (!pod) continue;
      pods++;
      const { errors } = createPod(pod);
      assert.deepEqual(errors, [], `${f}: ${aggregateFieldErrors(errors)}`);
    }
  }
  assert.ok(pods >= 35, `validated ${pods} pods`);
});

test('redis-configmap-pod: requests.cpu defaulted from limits.cpu "0.1", both serialised "100m", Burstable', () => {
  const [doc] = loadManifest('redis-configmap-pod.yaml');
  const { pod, errors } = createPod(doc as Pod);
  assert.deepEqual(errors, []);
  assert.deepEqual(pod.spec!.containers[0]!.resources, { limits: { cpu: '100m' }, requests: { cpu: '100m' } });
  assert.equal(JSON.stringify(pod.spec!.containers[0]!.resources), '{"limits":{"cpu":"100m"},"requests":{"cpu":"100m"}}');
  assert.equal(pod.status!.qosClass, 'Burstable');
  assert.equal(pod.spec!.volumes![1]!.configMap!.defaultMode, 420);
  assert.equal(pod.spec!.containers[0]!.ports![0]!.protocol, 'TCP');
});

test('QoS classes of the qos-*.yaml examples and others from EXPECTED.md', () => {
  const cases: [string, string][] = [
    ['qos-guaranteed.yaml', 'Guaranteed'],
    ['qos-burstable.yaml', 'Burstable'],
    ['qos-besteffort.yaml', 'BestEffort'],
    ['simple-pod.yaml', 'BestEffort'],
    ['memory-request-limit.yaml', 'Burstable'],
    ['redis-configmap-pod.yaml', 'Burstable'],
  ];
  for (const [file, qos] of cases) {
    const [doc] = loadManifest(file);
    const { pod, errors } = createPod(doc as Pod, undefined);
    assert.deepEqual(errors, [], file);
    assert.equal(pod.status!.qosClass, qos, file);
    assert.equal(pod.status!.phase, 'Pending', file);
  }
});

test('scheduling-gates.yaml: gated pod gets PodScheduled=False/SchedulingGated, gates kept in order', () => {
  const [doc] = loadManifest('scheduling-gates.yaml');
  const { pod, errors } = createPod(doc as Pod);
  assert.deepEqual(errors, []);
  assert.equal(JSON.stringify(pod.spec!.schedulingGates), '[{"name":"example.com/foo"},{"name":"example.com/bar"}]');
  assert.deepEqual(pod.status!.conditions, [
    {
      type: 'PodScheduled',
      status: 'False',
      reason: 'SchedulingGated',
      message: 'Scheduling is blocked due to non-empty scheduling gates',
      lastProbeTime: null,
      lastTransitionTime: '2025-01-01T00:00:00Z',
    },
  ]);
});

test('simple-pod.yaml: the defaults kubectl get -o yaml shows', () => {
  const [doc] = loadManifest('simple-pod.yaml');
  const { pod } = createPod(doc as Pod);
  const s = pod.spec!;
  assert.equal(s.restartPolicy, 'Always');
  assert.equal(s.dnsPolicy, 'ClusterFirst');
  assert.equal(s.terminationGracePeriodSeconds, 30);
  assert.equal(s.schedulerName, 'default-scheduler');
  assert.deepEqual(s.securityContext, {});
  assert.equal(s.enableServiceLinks, true);
  const c = s.containers[0]!;
  assert.equal(c.imagePullPolicy, 'IfNotPresent'); // nginx:1.14.2
  assert.equal(c.terminationMessagePath, '/dev/termination-log');
  assert.equal(c.terminationMessagePolicy, 'File');
  assert.deepEqual(c.resources, {});
  assert.deepEqual(s.tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ]);
});

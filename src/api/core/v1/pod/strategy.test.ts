// Pod strategy: update rules, status subresource, graceful delete, field selectors, binding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../../apimachinery/field-errors.js';
import type { Obj } from '../../../resource.js';
import { applyPodBinding, validatePodBinding } from './binding.js';
import { addDefaultTolerationSeconds, podDefinition } from './strategy.js';
import { createPod, testContext } from './test-support.js';
import type { Pod } from './types.js';

function stored(mutate?: (p: Pod) => void): Obj<Pod> {
  const p: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
  };
  mutate?.(p);
  const { pod, errors } = createPod(p);
  assert.deepEqual(errors, []);
  (pod.metadata as { resourceVersion?: string }).resourceVersion = '5';
  return pod;
}

/** The update path: defaults → prepareForUpdate → validateUpdate. */
function update(old: Obj<Pod>, mutate: (p: Obj<Pod>) => void): string[] {
  const next = structuredClone(old);
  mutate(next);
  const ctx = testContext();
  podDefinition.defaults!(next);
  podDefinition.prepareForUpdate!(next, old, ctx);
  return podDefinition.validateUpdate!(next, old, ctx).map(fieldErrorString);
}

const FORBIDDEN_PREFIX =
  'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n';

test('update: image, labels, annotations, tolerations additions are allowed', () => {
  const old = stored();
  assert.deepEqual(
    update(old, (p) => {
      p.spec!.containers[0]!.image = 'nginx:1.28';
      p.metadata.labels = { app: 'web', tier: 'front' };
      p.metadata.annotations = { note: 'x' };
      p.spec!.tolerations = [...p.spec!.tolerations!, { key: 'k', operator: 'Exists' }];
    }),
    [],
  );
});

test('update: other spec changes are forbidden with upstream message and a diff', () => {
  const old = stored();
  const errs = update(old, (p) => (p.spec!.containers[0]!.command = ['sleep', '1']));
  assert.equal(errs.length, 1);
  assert.ok(errs[0]!.startsWith(FORBIDDEN_PREFIX), errs[0]);
  assert.match(errs[0]!, /core\.PodSpec\{/);
  assert.match(errs[0]!, /\n- \t\t\tCommand: nil,\n\+ \t\t\tCommand: \[\]string\{"sleep", "1"\},/);
});

test('update: nodeName may not change once set', () => {
  const old = stored((p) => (p.spec!.nodeName = 'node-a'));
  const errs = update(old, (p) => (p.spec!.nodeName = 'node-b'));
  assert.equal(errs.length, 1);
  assert.ok(errs[0]!.startsWith(FORBIDDEN_PREFIX));
  assert.match(errs[0]!, /- \tNodeName: "node-a",\n\+ \tNodeName: "node-b",/);
});

test('update: containers may not be added or removed', () => {
  const old = stored();
  assert.deepEqual(
    update(old, (p) => p.spec!.containers.push({ name: 'b', image: 'b' })),
    ['spec.containers: Forbidden: pod updates may not add or remove containers'],
  );
});

test('update: scheduling gates may only be removed', () => {
  const old = stored((p) => (p.spec!.schedulingGates = [{ name: 'example.com/foo' }, { name: 'example.com/bar' }]));
  assert.deepEqual(
    update(old, (p) => (p.spec!.schedulingGates = [{ name: 'example.com/bar' }])),
    [],
  );
  assert.deepEqual(
    update(old, (p) => void delete p.spec!.schedulingGates),
    [],
  );
  assert.deepEqual(
    update(old, (p) => p.spec!.schedulingGates!.push({ name: 'example.com/baz' })),
    ["spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/baz'"],
  );
});

test('update: a gated pod may gain nodeSelector entries but not change them', () => {
  const old = stored((p) => {
    p.spec!.schedulingGates = [{ name: 'example.com/foo' }];
    p.spec!.nodeSelector = { disktype: 'ssd' };
  });
  assert.deepEqual(
    update(old, (p) => (p.spec!.nodeSelector = { disktype: 'ssd', zone: 'a' })),
    [],
  );
  assert.deepEqual(
    update(old, (p) => (p.spec!.nodeSelector = { disktype: 'hdd' })),
    ['spec.nodeSelector: Invalid value: {"disktype":"hdd"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)'],
  );
});

test('update: activeDeadlineSeconds may only decrease; existing tolerations are immutable', () => {
  const old = stored((p) => (p.spec!.activeDeadlineSeconds = 100));
  assert.deepEqual(
    update(old, (p) => (p.spec!.activeDeadlineSeconds = 50)),
    [],
  );
  assert.deepEqual(
    update(old, (p) => (p.spec!.activeDeadlineSeconds = 200)),
    ['spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value'],
  );
  assert.deepEqual(
    update(old, (p) => (p.spec!.tolerations = [{ key: 'other', operator: 'Exists' }])),
    ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds'],
  );
  // tolerationSeconds may change
  assert.deepEqual(
    update(old, (p) => (p.spec!.tolerations![0]!.tolerationSeconds = 60)),
    [],
  );
});

test('update: metadata name is immutable; status is kept from the old object', () => {
  const old = stored();
  assert.deepEqual(
    update(old, (p) => (p.metadata.name = 'other')),
    ['metadata.name: Invalid value: "other": field is immutable'],
  );
  const next = structuredClone(old);
  next.status = { phase: 'Running' };
  podDefinition.prepareForUpdate!(next, old, testContext());
  assert.deepEqual(next.status, old.status);
});

test('prepareForCreate: status reset to Pending with QoS, user status dropped', () => {
  const { pod } = createPod({
    metadata: { name: 'x' },
    spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '1', memory: '1Gi' } } }] },
    status: { phase: 'Running', podIP: '1.2.3.4' },
  });
  assert.deepEqual(pod.status, { phase: 'Pending', qosClass: 'Guaranteed' });
});

test('addDefaultTolerationSeconds keeps existing tolerations of those taints', () => {
  const p: Pod = {
    spec: {
      containers: [],
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }],
    },
  };
  addDefaultTolerationSeconds(p);
  assert.deepEqual(p.spec!.tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ]);
  const all: Pod = { spec: { containers: [], tolerations: [{ operator: 'Exists' }] } };
  addDefaultTolerationSeconds(all);
  assert.deepEqual(all.spec!.tolerations, [{ operator: 'Exists' }]);
});

test('status subresource keeps spec and validates status changes', () => {
  const old = stored((p) => (p.spec!.nodeName = 'n1'));
  const next = structuredClone(old);
  next.spec!.containers[0]!.image = 'changed';
  next.status = { phase: 'Running', qosClass: 'Guaranteed', podIPs: [{ ip: '10.0.0.5' }], podIP: '10.0.0.5' };
  podDefinition.status!.prepareForUpdate(next, old, testContext());
  assert.equal(next.spec!.containers[0]!.image, 'nginx:1.27');
  assert.deepEqual(podDefinition.status!.validateUpdate!(next, old, testContext()).map(fieldErrorString), ['status.qosClass: Invalid value: "Guaranteed": field is immutable']);
  next.status.qosClass = old.status!.qosClass;
  next.status.podIPs = [{ ip: '10.0.0.5' }, { ip: 'bogus' }];
  assert.deepEqual(podDefinition.status!.validateUpdate!(next, old, testContext()).map(fieldErrorString), [
    'status.podIPs[1]: Invalid value: "bogus": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    'status.podIPs: Internal error: failed to check for dual stack with error:invalid IP',
  ]);
});

test('status update: terminated containers may not run again under restartPolicy Never', () => {
  const old = stored((p) => {
    p.spec!.nodeName = 'n1';
    p.spec!.restartPolicy = 'Never';
  });
  old.status!.containerStatuses = [{ name: 'nginx', image: 'nginx', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0 } } }];
  const next = structuredClone(old);
  next.status!.containerStatuses = [{ name: 'nginx', image: 'nginx', imageID: '', ready: true, restartCount: 0, state: { running: {} } }];
  assert.deepEqual(podDefinition.status!.validateUpdate!(next, old, testContext()).map(fieldErrorString), [
    'status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state',
  ]);
});

test('checkGracefulDelete', () => {
  const scheduled = stored((p) => (p.spec!.nodeName = 'n1'));
  assert.equal(podDefinition.checkGracefulDelete!(scheduled, {}), 30);
  assert.equal(podDefinition.checkGracefulDelete!(scheduled, { gracePeriodSeconds: 5 }), 5);
  assert.equal(podDefinition.checkGracefulDelete!(scheduled, { gracePeriodSeconds: -3 }), 1);
  const unscheduled = stored();
  assert.equal(podDefinition.checkGracefulDelete!(unscheduled, { gracePeriodSeconds: 5 }), 0);
  const done = structuredClone(scheduled);
  done.status!.phase = 'Succeeded';
  assert.equal(podDefinition.checkGracefulDelete!(done, {}), 0);
});

test('fieldSelectorAttrs', () => {
  const p = stored((x) => (x.spec!.nodeName = 'n1'));
  p.status!.podIPs = [{ ip: '10.1.0.7' }];
  assert.deepEqual(podDefinition.fieldSelectorAttrs!(p), {
    'spec.nodeName': 'n1',
    'spec.restartPolicy': 'Always',
    'spec.schedulerName': 'default-scheduler',
    'spec.serviceAccountName': '',
    'spec.hostNetwork': 'false',
    'status.phase': 'Pending',
    'status.podIP': '10.1.0.7',
    'status.nominatedNodeName': '',
  });
});

test('warningsOnCreate: a name that is not a DNS label', () => {
  const p = stored();
  p.metadata.name = 'web.v1';
  assert.deepEqual(podDefinition.warningsOnCreate!(p, testContext()), [
    "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
  ]);
});

test('binding: assigns node, adds PodScheduled=True, refuses bound or gated pods', () => {
  assert.deepEqual(validatePodBinding({ target: { kind: 'Pod', name: '' } }).map(fieldErrorString), [
    'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"',
    'target.name: Required value',
  ]);
  const p = stored();
  const now = new Date('2025-01-01T00:01:00Z');
  assert.equal(applyPodBinding(p, 'n1', undefined, now), undefined);
  assert.equal(p.spec!.nodeName, 'n1');
  assert.deepEqual(p.status!.conditions, [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2025-01-01T00:01:00Z' }]);
  assert.equal(applyPodBinding(p, 'n2', undefined, now), 'pod web is already assigned to node "n1"');
  const gated = stored((x) => (x.spec!.schedulingGates = [{ name: 'a/b' }]));
  assert.equal(applyPodBinding(gated, 'n1', undefined, now), 'pod web has non-empty .spec.schedulingGates');
});

test('matchLabelKeys are merged into pod affinity selectors on create', () => {
  const { pod } = createPod({
    metadata: { name: 'x', labels: { app: 'a', version: 'v1' } },
    spec: {
      containers: [{ name: 'c', image: 'i' }],
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'a' } }, matchLabelKeys: ['version'] }],
        },
      },
    },
  });
  assert.deepEqual(pod.spec!.affinity!.podAntiAffinity!.requiredDuringSchedulingIgnoredDuringExecution![0]!.labelSelector, {
    matchLabels: { app: 'a' },
    matchExpressions: [{ key: 'version', operator: 'In', values: ['v1'] }],
  });
});

test('ephemeralcontainers subresource: add allowed, change or removal forbidden, rest of spec kept', async () => {
  const { podEphemeralContainersStrategy } = await import('./strategy.js');
  const old = stored((p) => (p.spec!.nodeName = 'n1'));
  const next = structuredClone(old);
  next.spec!.containers[0]!.image = 'ignored';
  next.spec!.ephemeralContainers = [{ name: 'debugger', image: 'busybox', targetContainerName: 'nginx', stdin: true, tty: true }];
  podEphemeralContainersStrategy.prepareForUpdate(next, old, testContext());
  assert.equal(next.spec!.containers[0]!.image, 'nginx:1.27');
  assert.equal(next.spec!.ephemeralContainers![0]!.imagePullPolicy, 'Always'); // busybox: no tag → latest
  assert.deepEqual(podEphemeralContainersStrategy.validateUpdate!(next, old, testContext()), []);
  const removed = structuredClone(next);
  removed.spec!.ephemeralContainers = [];
  assert.deepEqual(podEphemeralContainersStrategy.validateUpdate!(removed, next, testContext()).map(fieldErrorString), [
    'spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be removed\n',
  ]);
  const badTarget = structuredClone(old);
  badTarget.spec!.ephemeralContainers = [{ name: 'dbg', image: 'busybox', targetContainerName: 'nope', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' }];
  assert.deepEqual(podEphemeralContainersStrategy.validateUpdate!(badTarget, old, testContext()).map(fieldErrorString), [
    'spec.ephemeralContainers[0].targetContainerName: Not found: "nope"',
  ]);
});

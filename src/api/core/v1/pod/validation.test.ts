// Pod create validation: field paths and messages as upstream v1.32 prints them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../../apimachinery/field-errors.js';
import { createPod } from './test-support.js';
import { StatusError } from '../../../../apimachinery/errors.js';
import { validatePodCreate } from './validation.js';
import { setPodDefaults } from './defaults.js';
import type { Pod } from './types.js';

function basePod(): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }],
    },
  };
}

/** Errors (as upstream prints them) of a modified base pod on create. */
function errorsOf(mutate: (p: Pod) => void): string[] {
  const p = basePod();
  mutate(p);
  return createPod(p).errors.map(fieldErrorString);
}

test('the base pod is valid', () => {
  assert.deepEqual(
    errorsOf(() => {}),
    [],
  );
});

const cases: { name: string; mutate: (p: Pod) => void; want: string[] }[] = [
  {
    name: 'name required',
    mutate: (p) => void delete p.metadata!.name,
    want: ['metadata.name: Required value: name or generateName is required'],
  },
  {
    name: 'invalid name',
    mutate: (p) => (p.metadata!.name = 'Web_1'),
    want: [
      `metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  },
  {
    name: 'invalid label value',
    mutate: (p) => (p.metadata!.labels = { app: 'a b' }),
    want: [
      `metadata.labels: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ],
  },
  {
    name: 'unqualified non-standard finalizer',
    mutate: (p) => (p.metadata!.finalizers = ['custom']),
    want: ['metadata.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified'],
  },
  { name: 'containers required', mutate: (p) => (p.spec!.containers = []), want: ['spec.containers: Required value'] },
  { name: 'image required', mutate: (p) => (p.spec!.containers[0]!.image = ''), want: ['spec.containers[0].image: Required value'] },
  {
    name: 'image whitespace',
    mutate: (p) => (p.spec!.containers[0]!.image = ' nginx'),
    want: ['spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace'],
  },
  {
    name: 'duplicate regular container names',
    mutate: (p) => p.spec!.containers.push({ name: 'nginx', image: 'busybox' }),
    want: ['spec.containers[1].name: Duplicate value: "nginx"'],
  },
  {
    name: 'init container name collides with a regular container',
    mutate: (p) => (p.spec!.initContainers = [{ name: 'nginx', image: 'busybox' }]),
    want: ['spec.initContainers[0].name: Duplicate value: "nginx"'],
  },
  {
    name: 'container name must be a DNS label',
    mutate: (p) => (p.spec!.containers[0]!.name = 'my.app'),
    want: ['spec.containers[0].name: Invalid value: "my.app": must not contain dots'],
  },
  {
    name: 'ephemeral containers cannot be set on create',
    mutate: (p) => (p.spec!.ephemeralContainers = [{ name: 'debug', image: 'busybox' }]),
    want: ['spec.ephemeralContainers: Forbidden: cannot be set on create'],
  },
  {
    name: 'requests above limits',
    mutate: (p) => (p.spec!.containers[0]!.resources = { limits: { cpu: '1' }, requests: { cpu: '2' } }),
    want: ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
  },
  {
    name: 'requests above limits, memory, canonical quantities in the message',
    mutate: (p) => (p.spec!.containers[0]!.resources = { limits: { memory: '1024Mi' }, requests: { memory: '2Gi' } }),
    want: ['spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi'],
  },
  {
    name: 'negative quantity',
    mutate: (p) => (p.spec!.containers[0]!.resources = { requests: { cpu: '-1' } }),
    want: ['spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0'],
  },
  {
    name: 'extended resource needs a limit equal to the request',
    mutate: (p) => (p.spec!.containers[0]!.resources = { limits: { 'example.com/dongle': '2' }, requests: { 'example.com/dongle': '1' } }),
    want: ['spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/dongle limit of 2'],
  },
  {
    name: 'unknown standard resource name',
    mutate: (p) => (p.spec!.containers[0]!.resources = { limits: { gpu: '1' } }),
    want: [
      'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
      'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers',
      'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
      'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers',
    ],
  },
  {
    name: 'hugepages without cpu or memory',
    mutate: (p) => (p.spec!.containers[0]!.resources = { limits: { 'hugepages-2Mi': '4Mi' } }),
    want: ['spec.containers[0].resources: Forbidden: HugePages require cpu or memory'],
  },
  {
    name: 'mount of a missing volume',
    mutate: (p) => (p.spec!.containers[0]!.volumeMounts = [{ name: 'data', mountPath: '/data' }]),
    want: ['spec.containers[0].volumeMounts[0].name: Not found: "data"'],
  },
  {
    name: 'duplicate mount paths',
    mutate: (p) => {
      p.spec!.volumes = [
        { name: 'a', emptyDir: {} },
        { name: 'b', emptyDir: {} },
      ];
      p.spec!.containers[0]!.volumeMounts = [
        { name: 'a', mountPath: '/data' },
        { name: 'b', mountPath: '/data' },
      ];
    },
    want: ['spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique'],
  },
  {
    name: 'volume with two sources',
    mutate: (p) => (p.spec!.volumes = [{ name: 'data', emptyDir: {}, configMap: { name: 'cm' } }]),
    want: ['spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type'],
  },
  {
    name: 'duplicate volume names',
    mutate: (p) =>
      (p.spec!.volumes = [
        { name: 'data', emptyDir: {} },
        { name: 'data', emptyDir: {} },
      ]),
    want: ['spec.volumes[1].name: Duplicate value: "data"'],
  },
  {
    name: 'configMap volume name and mode',
    mutate: (p) => (p.spec!.volumes = [{ name: 'cfg', configMap: { name: '', defaultMode: 0o1000 } }]),
    want: [
      'spec.volumes[0].configMap.name: Required value',
      'spec.volumes[0].configMap.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive',
    ],
  },
  {
    name: 'hostPath with backsteps',
    mutate: (p) => (p.spec!.volumes = [{ name: 'h', hostPath: { path: '/var/../etc' } }]),
    want: [`spec.volumes[0].hostPath.path: Invalid value: "/var/../etc": must not contain '..'`],
  },
  {
    name: 'restartPolicy',
    mutate: (p) => (p.spec!.restartPolicy = 'Sometimes'),
    want: ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'],
  },
  {
    name: 'dnsPolicy',
    mutate: (p) => (p.spec!.dnsPolicy = 'Custom'),
    want: ['spec.dnsPolicy: Unsupported value: "Custom": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"'],
  },
  {
    name: 'dnsPolicy None requires dnsConfig',
    mutate: (p) => (p.spec!.dnsPolicy = 'None'),
    want: ['spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None'],
  },
  {
    name: 'env var name',
    mutate: (p) => (p.spec!.containers[0]!.env = [{ name: '1BAD', value: 'x' }]),
    want: [
      `spec.containers[0].env[0].name: Invalid value: "1BAD": a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')`,
    ],
  },
  {
    name: 'env fieldRef path',
    mutate: (p) => (p.spec!.containers[0]!.env = [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.bogus' } } }]),
    want: ['spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "spec.bogus": error converting fieldPath: field label not supported: spec.bogus'],
  },
  {
    name: 'env value and valueFrom',
    mutate: (p) => (p.spec!.containers[0]!.env = [{ name: 'X', value: 'y', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }]),
    want: ['spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty'],
  },
  {
    name: 'container port out of range and missing',
    mutate: (p) => (p.spec!.containers[0]!.ports = [{ containerPort: 70000 }, { containerPort: 0 }]),
    want: ['spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive', 'spec.containers[0].ports[1].containerPort: Required value'],
  },
  {
    name: 'host port conflict',
    mutate: (p) =>
      p.spec!.containers.push({ name: 'b', image: 'b', ports: [{ containerPort: 81, hostPort: 8080 }] }) &&
      (p.spec!.containers[0]!.ports = [{ containerPort: 80, hostPort: 8080 }]),
    want: ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"'],
  },
  {
    name: 'liveness probe successThreshold',
    mutate: (p) => (p.spec!.containers[0]!.livenessProbe = { exec: { command: ['true'] }, successThreshold: 2 }),
    want: ['spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1'],
  },
  {
    name: 'probe without handler',
    mutate: (p) => (p.spec!.containers[0]!.readinessProbe = { periodSeconds: 5 }),
    want: ['spec.containers[0].readinessProbe: Required value: must specify a handler type'],
  },
  {
    name: 'probe with two handlers',
    mutate: (p) => (p.spec!.containers[0]!.livenessProbe = { exec: { command: ['true'] }, tcpSocket: { port: 80 } }),
    want: ['spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type'],
  },
  {
    name: 'httpGet named port',
    mutate: (p) => (p.spec!.containers[0]!.livenessProbe = { httpGet: { port: 'Web_Port' } }),
    want: ['spec.containers[0].livenessProbe.httpGet.port: Invalid value: "Web_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'],
  },
  {
    name: 'probe on a plain init container',
    mutate: (p) => (p.spec!.initContainers = [{ name: 'init', image: 'busybox', livenessProbe: { exec: { command: ['true'] } } }]),
    want: ['spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always'],
  },
  {
    name: 'sidecar may have probes',
    mutate: (p) => (p.spec!.initContainers = [{ name: 'side', image: 'busybox', restartPolicy: 'Always', readinessProbe: { exec: { command: ['true'] } } }]),
    want: [],
  },
  {
    name: 'init container restartPolicy other than Always',
    mutate: (p) => (p.spec!.initContainers = [{ name: 'init', image: 'busybox', restartPolicy: 'OnFailure' }]),
    want: ['spec.initContainers[0].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"'],
  },
  {
    name: 'regular container restartPolicy',
    mutate: (p) => (p.spec!.containers[0]!.restartPolicy = 'Always'),
    want: ['spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers'],
  },
  {
    name: 'securityContext runAsUser',
    mutate: (p) => (p.spec!.containers[0]!.securityContext = { runAsUser: -1 }),
    want: ['spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive'],
  },
  {
    name: 'pod securityContext fsGroup',
    mutate: (p) => (p.spec!.securityContext = { fsGroup: -5 }),
    want: ['spec.securityContext.fsGroup: Invalid value: -5: must be between 0 and 2147483647, inclusive'],
  },
  {
    name: 'toleration with empty key and Equal',
    mutate: (p) => (p.spec!.tolerations = [{ operator: 'Equal', value: 'x' }]),
    want: ['spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"'],
  },
  {
    name: 'toleration seconds need NoExecute',
    mutate: (p) => (p.spec!.tolerations = [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 10 }]),
    want: ['spec.tolerations[0].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set'],
  },
  {
    name: 'required node affinity without terms',
    mutate: (p) => (p.spec!.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } }),
    want: ['spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term'],
  },
  {
    name: 'node selector requirement without values',
    mutate: (p) =>
      (p.spec!.affinity = {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'disktype', operator: 'In' }] }] } },
      }),
    want: [
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ],
  },
  {
    name: 'preferred weight',
    mutate: (p) => (p.spec!.affinity = { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: {} }] } }),
    want: ['spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100'],
  },
  {
    name: 'duplicate scheduling gates',
    mutate: (p) => (p.spec!.schedulingGates = [{ name: 'example.com/foo' }, { name: 'example.com/foo' }]),
    want: ['spec.schedulingGates[1]: Duplicate value: "example.com/foo"'],
  },
  {
    name: 'nodeName with scheduling gates',
    mutate: (p) => {
      p.spec!.schedulingGates = [{ name: 'example.com/foo' }];
      p.spec!.nodeName = 'node-1';
    },
    want: ['spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared'],
  },
  {
    name: 'hostname and subdomain',
    mutate: (p) => {
      p.spec!.hostname = 'a.b';
      p.spec!.subdomain = 'Sub';
    },
    want: [
      'spec.hostname: Invalid value: "a.b": must not contain dots',
      `spec.subdomain: Invalid value: "Sub": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ],
  },
  {
    name: 'activeDeadlineSeconds',
    mutate: (p) => (p.spec!.activeDeadlineSeconds = 0),
    want: ['spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive'],
  },
  {
    name: 'priorityClassName',
    mutate: (p) => (p.spec!.priorityClassName = 'High'),
    want: [
      `spec.priorityClassName: Invalid value: "High": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  },
  {
    name: 'negative overhead',
    mutate: (p) => (p.spec!.overhead = { cpu: '-100m' }),
    want: ['spec.overhead.limits[cpu]: Invalid value: "-100m": must be greater than or equal to 0'], // upstream validates overhead as limits
  },
  {
    name: 'projected service account token without serviceAccountName',
    mutate: (p) => (p.spec!.volumes = [{ name: 'tok', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }]),
    want: ['spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set'],
  },
  {
    name: 'topology spread maxSkew and whenUnsatisfiable',
    mutate: (p) => (p.spec!.topologySpreadConstraints = [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'Maybe' }]),
    want: [
      'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
      'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"',
    ],
  },
  {
    name: 'hostNetwork pod: hostPort must match containerPort',
    mutate: (p) => {
      p.spec!.hostNetwork = true;
      p.spec!.containers[0]!.ports = [{ containerPort: 80, hostPort: 8080 }];
    },
    want: ['spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true'],
  },
  {
    name: 'mirror pod annotation needs nodeName',
    mutate: (p) => (p.metadata!.annotations = { 'kubernetes.io/config.mirror': 'x' }),
    want: ['metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set'],
  },
  {
    name: 'pod deletion cost annotation',
    mutate: (p) => (p.metadata!.annotations = { 'controller.kubernetes.io/pod-deletion-cost': 'abc' }),
    want: ['metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "abc": must be a 32bit integer'],
  },
];

for (const c of cases) {
  test(`create: ${c.name}`, () => {
    assert.deepEqual(errorsOf(c.mutate), c.want);
  });
}

test('malformed quantity: 400 from the decode check; validation also reports it if reached', () => {
  const p = basePod();
  p.spec!.containers[0]!.resources = { limits: { cpu: 'abc' } };
  const regexMsg = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  assert.throws(
    () => createPod(p),
    (e: unknown) => e instanceof StatusError && e.code === 400 && e.status.message === `Pod in version "v1" cannot be handled as a Pod: ${regexMsg}`,
  );
  setPodDefaults(p);
  p.metadata!.namespace = 'default';
  assert.deepEqual(validatePodCreate(p).map(fieldErrorString), [
    `spec.containers[0].resources.limits[cpu]: Invalid value: "abc": ${regexMsg}`,
    `spec.containers[0].resources.requests[cpu]: Invalid value: "abc": ${regexMsg}`,
  ]);
});

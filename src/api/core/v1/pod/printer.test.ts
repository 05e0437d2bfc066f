// kubectl get pods columns (upstream printPod), table-driven.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { POD_COLUMNS, podRowConditions, printPod } from './printer.js';
import type { ContainerStatus, Pod } from './types.js';

const NOW = new Date('2025-01-01T01:00:00Z');
const created = '2025-01-01T00:55:00Z'; // AGE 5m

function pod(spec: Partial<NonNullable<Pod['spec']>>, status: Pod['status'], meta: Partial<NonNullable<Pod['metadata']>> = {}): Pod {
  return {
    metadata: { name: 'p', creationTimestamp: created, ...meta },
    spec: { containers: [{ name: 'app', image: 'i' }], ...spec },
    status,
  };
}
const cs = (name: string, s: Partial<ContainerStatus>): ContainerStatus => ({ name, image: 'i', imageID: '', ready: false, restartCount: 0, ...s });

const cases: { name: string; pod: Pod; want: [string, string, string, string] }[] = [
  { name: 'pending, no statuses', pod: pod({}, { phase: 'Pending' }), want: ['p', '0/1', 'Pending', '0'] },
  {
    name: 'running and ready',
    pod: pod({}, { phase: 'Running', containerStatuses: [cs('app', { ready: true, started: true, state: { running: { startedAt: created } } })] }),
    want: ['p', '1/1', 'Running', '0'],
  },
  {
    name: 'container creating',
    pod: pod({}, { phase: 'Pending', containerStatuses: [cs('app', { state: { waiting: { reason: 'ContainerCreating' } } })] }),
    want: ['p', '0/1', 'ContainerCreating', '0'],
  },
  {
    name: 'crash loop with restarts "N (Xm ago)"',
    pod: pod(
      {},
      {
        phase: 'Running',
        containerStatuses: [
          cs('app', { restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: '2025-01-01T00:58:00Z' } } }),
        ],
      },
    ),
    want: ['p', '0/1', 'CrashLoopBackOff', '3 (2m ago)'],
  },
  {
    name: 'completed',
    pod: pod({ restartPolicy: 'Never' }, { phase: 'Succeeded', containerStatuses: [cs('app', { state: { terminated: { exitCode: 0, reason: 'Completed' } } })] }),
    want: ['p', '0/1', 'Completed', '0'],
  },
  {
    name: 'error',
    pod: pod({ restartPolicy: 'Never' }, { phase: 'Failed', containerStatuses: [cs('app', { state: { terminated: { exitCode: 1, reason: 'Error' } } })] }),
    want: ['p', '0/1', 'Error', '0'],
  },
  {
    name: 'exit code without reason',
    pod: pod({}, { phase: 'Running', containerStatuses: [cs('app', { state: { terminated: { exitCode: 2 } } })] }),
    want: ['p', '0/1', 'ExitCode:2', '0'],
  },
  {
    name: 'completed + running + not ready → NotReady (two-container-pod.yaml)',
    pod: pod(
      {
        containers: [
          { name: 'nginx', image: 'nginx' },
          { name: 'debian', image: 'debian' },
        ],
        restartPolicy: 'Never',
      },
      {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: [cs('debian', { state: { terminated: { exitCode: 0, reason: 'Completed' } } }), cs('nginx', { ready: true, state: { running: {} } })],
      },
    ),
    want: ['p', '1/2', 'NotReady', '0'],
  },
  {
    name: 'init container running',
    pod: pod(
      { initContainers: [{ name: 'install', image: 'busybox' }] },
      {
        phase: 'Pending',
        initContainerStatuses: [cs('install', { state: { running: {} } })],
        containerStatuses: [cs('app', { state: { waiting: { reason: 'PodInitializing' } } })],
      },
    ),
    want: ['p', '0/1', 'Init:0/1', '0'],
  },
  {
    name: 'init container failed',
    pod: pod(
      { initContainers: [{ name: 'install', image: 'busybox' }] },
      { phase: 'Pending', initContainerStatuses: [cs('install', { state: { terminated: { exitCode: 1, reason: 'Error' } } })] },
    ),
    want: ['p', '0/1', 'Init:Error', '0'],
  },
  {
    name: 'init container crash looping',
    pod: pod(
      { initContainers: [{ name: 'install', image: 'busybox' }] },
      {
        phase: 'Pending',
        initContainerStatuses: [
          cs('install', { restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: '2025-01-01T00:59:30Z' } } }),
        ],
      },
    ),
    want: ['p', '0/1', 'Init:CrashLoopBackOff', '2 (30s ago)'],
  },
  {
    name: 'pod initializing',
    pod: pod(
      { initContainers: [{ name: 'install', image: 'busybox' }] },
      {
        phase: 'Pending',
        conditions: [{ type: 'Initialized', status: 'True' }],
        initContainerStatuses: [cs('install', { state: { terminated: { exitCode: 0, reason: 'Completed' } } })],
        containerStatuses: [cs('app', { state: { waiting: { reason: 'PodInitializing' } } })],
      },
    ),
    want: ['p', '0/1', 'PodInitializing', '0'],
  },
  {
    name: 'sidecar counts toward READY (deployment-sidecar.yaml)',
    pod: pod(
      { initContainers: [{ name: 'logshipper', image: 'alpine', restartPolicy: 'Always' }], containers: [{ name: 'myapp', image: 'alpine' }] },
      {
        phase: 'Running',
        conditions: [
          { type: 'Initialized', status: 'True' },
          { type: 'Ready', status: 'True' },
        ],
        initContainerStatuses: [cs('logshipper', { started: true, ready: true, state: { running: {} } })],
        containerStatuses: [cs('myapp', { ready: true, state: { running: {} } })],
      },
    ),
    want: ['p', '2/2', 'Running', '0'],
  },
  {
    name: 'terminating',
    pod: pod({}, { phase: 'Running', containerStatuses: [cs('app', { ready: true, state: { running: {} } })] }, { deletionTimestamp: '2025-01-01T00:59:00Z' }),
    want: ['p', '1/1', 'Terminating', '0'],
  },
  {
    name: 'terminated pods being deleted keep their status',
    pod: pod(
      {},
      { phase: 'Succeeded', containerStatuses: [cs('app', { state: { terminated: { exitCode: 0, reason: 'Completed' } } })] },
      { deletionTimestamp: '2025-01-01T00:59:00Z' },
    ),
    want: ['p', '0/1', 'Completed', '0'],
  },
  {
    name: 'node lost',
    pod: pod({}, { phase: 'Running', reason: 'NodeLost' }, { deletionTimestamp: '2025-01-01T00:59:00Z' }),
    want: ['p', '0/1', 'Unknown', '0'],
  },
  { name: 'evicted', pod: pod({}, { phase: 'Failed', reason: 'Evicted' }), want: ['p', '0/1', 'Evicted', '0'] },
  {
    name: 'scheduling gated',
    pod: pod({ schedulingGates: [{ name: 'example.com/foo' }] }, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }),
    want: ['p', '0/1', 'SchedulingGated', '0'],
  },
];

for (const c of cases) {
  test(`printPod: ${c.name}`, () => {
    const cells = printPod(c.pod, NOW);
    assert.deepEqual(cells.slice(0, 4), c.want);
    assert.equal(cells[4], '5m');
  });
}

test('printPod: wide columns', () => {
  const p = pod(
    { nodeName: 'n1', readinessGates: [{ conditionType: 'example.com/ready' }, { conditionType: 'example.com/lb' }] },
    { phase: 'Running', podIPs: [{ ip: '10.0.0.9' }], podIP: '10.0.0.9', nominatedNodeName: '', conditions: [{ type: 'example.com/ready', status: 'True' }] },
  );
  assert.deepEqual(printPod(p, NOW).slice(5), ['10.0.0.9', 'n1', '<none>', '1/2']);
  assert.deepEqual(printPod(pod({}, {}), NOW).slice(5), ['<none>', '<none>', '<none>', '<none>']);
});

test('printPod: unknown creation time', () => {
  assert.equal(printPod({ metadata: { name: 'x' }, spec: { containers: [] } }, NOW)[4], '<unknown>');
});

test('columns and row conditions', () => {
  assert.deepEqual(
    POD_COLUMNS.map((c) => [c.name, c.priority]),
    [
      ['Name', 0],
      ['Ready', 0],
      ['Status', 0],
      ['Restarts', 0],
      ['Age', 0],
      ['IP', 1],
      ['Node', 1],
      ['Nominated Node', 1],
      ['Readiness Gates', 1],
    ],
  );
  assert.equal(POD_COLUMNS[0]!.format, 'name');
  assert.deepEqual(podRowConditions(pod({}, { phase: 'Succeeded' })), [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
  assert.equal(podRowConditions(pod({}, { phase: 'Running' })), undefined);
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KObject } from '../api/resource.js';
import { R } from '../client/types.js';
import { parseCRILog } from '../cri/runtime-tests.js';
import { expand } from './env/expand.js';
import { newHarness, type Harness } from './testing/harness.js';

function logOf(h: Harness, pod: string, container: string, restart = 0): string[] {
  const p = h.pod(pod)!;
  const file = join(h.dataDir, 'kubelet', 'logs', `default_${pod}_${p.metadata!.uid}`, container, `${restart}.log`);
  return parseCRILog(readFileSync(file, 'utf8')).map((l) => l.msg);
}

describe('kubelet environment and probes', () => {
  test('$(VAR) expansion follows upstream (defined, undefined, $$ escape)', () => {
    const vars = new Map([['A', 'x']]);
    const look = (n: string) => vars.get(n);
    assert.equal(expand('$(A)-$(B)-$$(A)-$x', look), 'x-$(B)-$(A)-$x');
  });

  test('service links, fieldRef and command-onfailure: printenv HOSTNAME KUBERNETES_PORT → Succeeded', async () => {
    const h = await newHarness();
    try {
      await h.client.create(R.services, 'default', {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'kubernetes', namespace: 'default' },
        spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
      } as KObject);
      await h.clock.advance(100);
      await h.createPod({
        metadata: { name: 'command-demo' },
        spec: { restartPolicy: 'OnFailure', containers: [{ name: 'command-demo-container', image: 'debian', command: ['printenv'], args: ['HOSTNAME', 'KUBERNETES_PORT'] }] },
      });
      await h.createPod({
        metadata: { name: 'dapi' },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'c',
              image: 'busybox',
              command: ['sh', '-c', 'echo $(MY_NODE_NAME) $(MY_POD_IP) $KUBERNETES_SERVICE_HOST $KUBERNETES_PORT_443_TCP_ADDR $MEM'],
              env: [
                { name: 'MY_NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                { name: 'MY_POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
              ],
              resources: { limits: { memory: '64Mi' } },
            },
          ],
        },
      });
      await h.until(() => h.pod('command-demo')?.status?.phase === 'Succeeded' && h.pod('dapi')?.status?.phase === 'Succeeded');
      assert.deepEqual(logOf(h, 'command-demo', 'command-demo-container'), ['command-demo', 'tcp://10.96.0.1:443']);
      assert.deepEqual(logOf(h, 'dapi', 'c'), ['node-1 10.244.1.3 10.96.0.1 10.96.0.1 64']);
    } finally {
      await h.close();
    }
  });

  test('configMapKeyRef: missing ConfigMap and missing key → CreateContainerConfigError with upstream messages', async () => {
    const h = await newHarness();
    try {
      const spec = {
        restartPolicy: 'Never' as const,
        containers: [
          {
            name: 'test-container',
            image: 'busybox',
            command: ['/bin/sh', '-c', 'env'],
            env: [{ name: 'SPECIAL_LEVEL_KEY', valueFrom: { configMapKeyRef: { name: 'special-config', key: 'special.how' } } }],
          },
        ],
      };
      await h.createPod({ metadata: { name: 'dapi-test-pod' }, spec });
      const cs = () => h.pod('dapi-test-pod')?.status?.containerStatuses?.[0];
      await h.until(() => cs()?.state?.waiting?.reason === 'CreateContainerConfigError');
      assert.equal(cs()!.state!.waiting!.message, 'configmap "special-config" not found');
      assert.equal(h.pod('dapi-test-pod')!.status!.phase, 'Pending');
      assert.ok(h.events('dapi-test-pod').some((e) => e.type === 'Warning' && e.reason === 'Failed' && e.message === 'Error: configmap "special-config" not found'));
      await h.client.create(R.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'special-config' }, data: { other: 'x' } } as KObject);
      await h.until(() => cs()?.state?.waiting?.message === "couldn't find key special.how in ConfigMap default/special-config");
      await h.client.patch(R.configmaps, 'default', 'special-config', 'merge', { data: { 'special.how': 'very' } });
      await h.until(() => h.pod('dapi-test-pod')?.status?.phase === 'Succeeded');
      assert.ok(logOf(h, 'dapi-test-pod', 'test-container').includes('SPECIAL_LEVEL_KEY=very'));
    } finally {
      await h.close();
    }
  });

  test('liveness exec probe: Unhealthy events, Killing "failed liveness probe, will be restarted", restart', async () => {
    const h = await newHarness();
    try {
      await h.createPod({
        metadata: { name: 'liveness-exec' },
        spec: {
          containers: [
            {
              name: 'liveness',
              image: 'registry.k8s.io/busybox:1.27.2',
              args: ['/bin/sh', '-c', 'touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600'],
              livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, initialDelaySeconds: 5, periodSeconds: 5 },
            },
          ],
        },
      });
      await h.until(() => h.pod('liveness-exec')?.status?.phase === 'Running');
      await h.clock.advance(29_000);
      assert.equal(h.events('liveness-exec').filter((e) => e.reason === 'Unhealthy').length, 0, 'healthy for the first 30 s');
      await h.until(() => (h.pod('liveness-exec')?.status?.containerStatuses?.[0].restartCount ?? 0) >= 1, 60_000, 500);
      const un = h.events('liveness-exec').find((e) => e.reason === 'Unhealthy')!;
      assert.equal(un.type, 'Warning');
      assert.equal(un.message, "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n");
      assert.ok(un.count >= 3);
      const kill = h.events('liveness-exec').find((e) => e.reason === 'Killing')!;
      assert.equal(kill.message, 'Container liveness failed liveness probe, will be restarted');
      assert.equal(kill.fieldPath, 'spec.containers{liveness}');
    } finally {
      await h.close();
    }
  });

  test('readiness exec probe gates Ready; ContainersReady message lists unready containers', async () => {
    const h = await newHarness();
    try {
      await h.createPod({
        metadata: { name: 'ready' },
        spec: {
          containers: [
            {
              name: 'a',
              image: 'busybox',
              command: ['sh', '-c', 'sleep 10; touch /tmp/ready; sleep 3600'],
              readinessProbe: { exec: { command: ['test', '-e', '/tmp/ready'] }, periodSeconds: 2 },
            },
            { name: 'b', image: 'nginx:1.25' },
          ],
        },
      });
      await h.until(() => h.pod('ready')?.status?.phase === 'Running');
      const cond = (t: string) => h.pod('ready')!.status!.conditions!.find((c) => c.type === t)!;
      assert.deepEqual([cond('Ready').status, cond('Ready').reason, cond('Ready').message], ['False', 'ContainersNotReady', 'containers with unready status: [a]']);
      await h.until(() => cond('Ready').status === 'True', 15_000);
      assert.equal(cond('ContainersReady').status, 'True');
    } finally {
      await h.close();
    }
  });
});

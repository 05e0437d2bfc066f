/**
 * The foundation flow with the official JavaScript client (@kubernetes/client-node):
 * create a pod, watch it to Ready through the library's Watch, read events, delete it,
 * and check that errors arrive as the library expects them (ApiException with a Status body).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startCluster, eventually, type Cluster } from './harness.js';

describe('e2e: @kubernetes/client-node', () => {
  let c: Cluster;
  let core: k8s.CoreV1Api;
  let kc: k8s.KubeConfig;
  before(async () => {
    c = await startCluster();
    kc = new k8s.KubeConfig();
    kc.loadFromFile(c.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
  });
  after(async () => {
    await c?.stop();
  });

  it('creates a pod and sees it Running through a watch', async () => {
    const created = await core.createNamespacedPod({
      namespace: 'default',
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'lib-pod', labels: { via: 'client-node' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } },
    });
    assert.equal(created.metadata?.name, 'lib-pod');
    assert.equal(created.status?.phase, 'Pending');
    assert.equal(created.spec?.containers[0]?.imagePullPolicy, 'IfNotPresent');

    const phases: string[] = [];
    const watch = new k8s.Watch(kc);
    const ready = new Promise<void>((resolve, reject) => {
      void watch
        .watch(
          '/api/v1/namespaces/default/pods',
          { fieldSelector: 'metadata.name=lib-pod', resourceVersion: created.metadata?.resourceVersion },
          (type: string, obj: k8s.V1Pod) => {
            phases.push(`${type}:${obj.status?.phase}:${obj.spec?.nodeName ?? ''}`);
            const r = obj.status?.conditions?.find((x) => x.type === 'Ready');
            if (r?.status === 'True') resolve();
          },
          (err: unknown) => (err ? reject(err) : undefined),
        )
        .then((req) => setTimeout(() => req.abort(), 20_000).unref());
    });
    await ready;
    assert.ok(
      phases.some((p) => p.startsWith('MODIFIED:Pending:e2e-node')),
      phases.join(' '),
    );
    assert.ok(
      phases.some((p) => p.startsWith('MODIFIED:Running:e2e-node')),
      phases.join(' '),
    );
    const pod = await core.readNamespacedPod({ name: 'lib-pod', namespace: 'default' });
    assert.equal(pod.status?.containerStatuses?.[0]?.ready, true);
    assert.match(pod.status?.podIP ?? '', /^10\.42\./);
  });

  it('lists events for the pod with a field selector', async () => {
    const evs = await eventually(async () => {
      const l = await core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'involvedObject.name=lib-pod' });
      return l.items.some((e) => e.reason === 'Started') ? l.items : undefined;
    });
    const reasons = (evs ?? []).map((e) => e.reason);
    for (const r of ['Scheduled', 'Created', 'Started']) assert.ok(reasons.includes(r), reasons.join(','));
  });

  it('gets a NotFound ApiException with the Status body', async () => {
    await assert.rejects(core.readNamespacedPod({ name: 'missing', namespace: 'default' }), (e: unknown) => {
      const ex = e as { code?: number; body?: string };
      assert.equal(ex.code, 404);
      const body = JSON.parse(ex.body ?? '{}');
      assert.equal(body.kind, 'Status');
      assert.equal(body.reason, 'NotFound');
      assert.equal(body.message, 'pods "missing" not found');
      return true;
    });
  });

  it('deletes the pod gracefully and it disappears', async () => {
    const d = await core.deleteNamespacedPod({ name: 'lib-pod', namespace: 'default' });
    assert.ok(d.metadata?.deletionTimestamp, 'graceful delete returns the pod with deletionTimestamp');
    await eventually(async () => {
      try {
        await core.readNamespacedPod({ name: 'lib-pod', namespace: 'default' });
        return false;
      } catch (e) {
        return (e as { code?: number }).code === 404;
      }
    }, 20_000);
  });
});

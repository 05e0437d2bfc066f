import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { R } from '../../client/types.js';
import { runPod, setReady } from '../endpoint/testdata.js';
import type { Service } from '../endpoint/util.js';
import type { RunningController } from '../util/context.js';
import { startTestCluster, type TestCluster, waitFor } from '../util/test-cluster.js';
import { startEndpointSliceController } from './controller.js';
import type { EndpointSlice } from './reconciler.js';

const slicesOf = async (c: TestCluster, svc: string): Promise<EndpointSlice[]> =>
  (await c.client.list<EndpointSlice>(R.endpointslices, 'default', { labelSelector: `kubernetes.io/service-name=${svc}` })).items;

describe('EndpointSlice controller', () => {
  let c: TestCluster;
  let ctl: RunningController;
  before(async () => {
    c = await startTestCluster();
    await c.client.create(R.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } } });
    ctl = await startEndpointSliceController({ client: c.client, recorder: c.recorder, informers: c.informers, maxEndpointsPerSlice: 3 });
  });
  after(async () => {
    await ctl?.stop();
    await c?.stop();
  });

  it('a placeholder slice first, filled in place as pods become ready; readiness in conditions; split past the per-slice maximum', async () => {
    const svc = await c.client.create<Service>(R.services, 'default', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] },
    });
    const [placeholder] = await waitFor(
      async () => {
        const l = await slicesOf(c, 'web');
        return l.length === 1 ? l : undefined;
      },
      5000,
      'placeholder slice',
    );
    assert.match(placeholder!.metadata!.name!, /^web-[a-z0-9]{5}$/);
    assert.equal(placeholder!.endpoints?.length ?? 0, 0);
    assert.deepEqual(placeholder!.metadata?.ownerReferences, [
      { apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata!.uid, controller: true, blockOwnerDeletion: true },
    ]);
    assert.equal(placeholder!.metadata?.labels?.['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');

    await runPod(c, 'a', '10.42.0.2', true);
    await runPod(c, 'b', '10.42.0.3', true);
    const [filled] = await waitFor(
      async () => {
        const l = await slicesOf(c, 'web');
        return l.length === 1 && l[0]!.endpoints?.length === 2 ? l : undefined;
      },
      5000,
      'slice with 2 endpoints',
    );
    assert.equal(filled!.metadata?.name, placeholder!.metadata?.name, 'updated in place');
    assert.equal(filled!.addressType, 'IPv4');
    assert.deepEqual(filled!.ports, [{ name: '', protocol: 'TCP', port: 8080 }]);
    assert.deepEqual(filled!.endpoints[0], {
      addresses: ['10.42.0.2'],
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: (await c.client.get(R.pods, 'default', 'a')).metadata!.uid },
      nodeName: 'node-1',
      zone: 'zone-a',
    });
    assert.ok(filled!.metadata?.annotations?.['endpoints.kubernetes.io/last-change-trigger-time']);

    await setReady(c, 'b', false);
    await waitFor(
      async () => {
        const l = await slicesOf(c, 'web');
        return l[0]?.endpoints?.find((e) => e.targetRef?.name === 'b')?.conditions?.ready === false;
      },
      5000,
      'b not ready',
    );

    await runPod(c, 'c', '10.42.0.4', true);
    await runPod(c, 'd', '10.42.0.5', true);
    const split = await waitFor(
      async () => {
        const l = await slicesOf(c, 'web');
        return l.length === 2 && l.reduce((n, s) => n + (s.endpoints?.length ?? 0), 0) === 4 ? l : undefined;
      },
      5000,
      'two slices',
    );
    assert.deepEqual(split.map((s) => s.endpoints.length).sort(), [1, 3]);
  });

  it('recreates a managed slice deleted behind its back; ignores Services without selector', async () => {
    const [s] = await slicesOf(c, 'web').then((l) => l.filter((x) => x.endpoints?.length === 1));
    await c.client.delete(R.endpointslices, 'default', s!.metadata!.name!);
    await waitFor(
      async () => {
        const l = await slicesOf(c, 'web');
        return l.length === 2 && !l.some((x) => x.metadata?.name === s!.metadata!.name) ? l : undefined;
      },
      5000,
      'a replacement slice',
    );
    await c.client.create(R.services, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'manual' }, spec: { ports: [{ port: 80 }] } });
    await runPod(c, 'e', '10.42.0.6', true);
    await waitFor(async () => (await slicesOf(c, 'web')).reduce((n, x) => n + (x.endpoints?.length ?? 0), 0) === 5, 5000, 'e added');
    assert.equal((await slicesOf(c, 'manual')).length, 0);
  });

  it('a pod on an unknown node is left out with a FailedToUpdateEndpointSlices event, and added once the node appears', async () => {
    await runPod(c, 'f', '10.42.0.7', true, { app: 'web' }, 'node-late');
    await waitFor(
      () =>
        c.recorder.events.some(
          (e) =>
            e.reason === 'FailedToUpdateEndpointSlices' &&
            e.message === 'Error updating Endpoint Slices for Service default/web: skipping Pod f for Service default/web: Node node-late Not Found',
        ),
      5000,
      'event',
    );
    assert.equal(c.recorder.events.find((e) => e.reason === 'FailedToUpdateEndpointSlices')!.type, 'Warning');
    assert.ok(!(await slicesOf(c, 'web')).some((s) => s.endpoints?.some((e) => e.targetRef?.name === 'f')));
    await c.client.create(R.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-late' } });
    await waitFor(
      async () => (await slicesOf(c, 'web')).some((s) => s.endpoints?.some((e) => e.targetRef?.name === 'f' && e.nodeName === 'node-late' && e.zone === undefined)),
      5000,
      'f added',
    );
  });
});

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { isNotFound } from '../../apimachinery/errors.js';
import { R } from '../../client/types.js';
import type { RunningController } from '../util/context.js';
import type { Pod } from '../util/pods.js';
import { runPod, setReady } from './testdata.js';
import { startTestCluster, type TestCluster, waitFor } from '../util/test-cluster.js';
import { type Endpoints, startEndpointsController } from './controller.js';

const getEp = (c: TestCluster, name: string): Promise<Endpoints | undefined> =>
  c.client.get<Endpoints>(R.endpoints, 'default', name).catch((e: unknown) => {
    if (isNotFound(e)) return undefined;
    throw e;
  });

describe('Endpoints controller', () => {
  let c: TestCluster;
  let ctl: RunningController;
  before(async () => {
    c = await startTestCluster();
    // a leftover Endpoints without a Service, from before the controller started
    await c.client.create(R.endpoints, 'default', {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'leftover' },
      subsets: [{ addresses: [{ ip: '10.1.1.1' }], ports: [{ port: 80 }] }],
    });
    ctl = await startEndpointsController({ client: c.client, recorder: c.recorder, informers: c.informers });
  });
  after(async () => {
    await ctl?.stop();
    await c?.stop();
  });

  it('deletes Endpoints without a Service at start-up', async () => {
    await waitFor(async () => (await getEp(c, 'leftover')) === undefined, 5000, 'leftover deleted');
  });

  it('lists ready pods by named target port, moves an unready pod to notReadyAddresses, follows label changes', async () => {
    await runPod(c, 'a', '10.42.0.2', true);
    await runPod(c, 'b', '10.42.0.3', true);
    await c.client.create(R.services, 'default', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    });
    const ep = await waitFor(
      async () => {
        const e = await getEp(c, 'web');
        return e?.subsets?.[0]?.addresses?.length === 2 ? e : undefined;
      },
      5000,
      'endpoints with 2 addresses',
    );
    assert.deepEqual(ep.metadata?.labels, { app: 'web' });
    assert.match(ep.metadata?.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'] ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const a = await c.client.get<Pod>(R.pods, 'default', 'a');
    assert.deepEqual(ep.subsets, [
      {
        addresses: [
          { ip: '10.42.0.2', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: a.metadata!.uid } },
          {
            ip: '10.42.0.3',
            nodeName: 'node-1',
            targetRef: { kind: 'Pod', namespace: 'default', name: 'b', uid: (await c.client.get<Pod>(R.pods, 'default', 'b')).metadata!.uid },
          },
        ],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);

    await setReady(c, 'b', false);
    const moved = await waitFor(
      async () => {
        const e = await getEp(c, 'web');
        return e?.subsets?.[0]?.notReadyAddresses?.length === 1 ? e : undefined;
      },
      5000,
      'b not ready',
    );
    assert.deepEqual(
      moved.subsets?.[0]?.addresses?.map((x) => x.ip),
      ['10.42.0.2'],
    );
    assert.deepEqual(
      moved.subsets?.[0]?.notReadyAddresses?.map((x) => x.ip),
      ['10.42.0.3'],
    );

    await c.client.patch(R.pods, 'default', 'a', 'merge', { metadata: { labels: { app: 'other' } } });
    await waitFor(
      async () => {
        const e = await getEp(c, 'web');
        return e?.subsets?.length === 1 && !e.subsets[0]!.addresses?.length;
      },
      5000,
      'a left the service',
    );
  });

  it('leaves the Endpoints of a Service without selector alone; deletes Endpoints with their Service', async () => {
    await c.client.create(R.services, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'manual' }, spec: { ports: [{ port: 80 }] } });
    await c.client.create(R.endpoints, 'default', {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'manual' },
      subsets: [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ port: 80 }] }],
    });
    await c.client.delete(R.services, 'default', 'web');
    await waitFor(async () => (await getEp(c, 'web')) === undefined, 5000, 'web endpoints deleted');
    const manual = await getEp(c, 'manual');
    assert.deepEqual(manual?.subsets?.[0]?.addresses, [{ ip: '192.0.2.1' }]);
    assert.equal(manual?.metadata?.annotations, undefined);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import { FakeClient } from '../client/testing/fake-client.js';
import { R } from '../client/types.js';
import { FakeClock } from '../util/fake-clock.js';
import { PodLifecycle } from './pods.js';

type PodObj = Pod & KObject;
const nodes = new Map([['kwok-node-0', { ip: '127.1.0.1', podCIDR: '10.42.0.0/24' }]]);
const pod = (name: string, nodeName?: string): PodObj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: { app: 'a' } },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'pause' }] },
  status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] },
});
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('kwok: pod lifecycle (one status write per pod)', () => {
  it('watches bound pods only, and makes a bound pod Running with one pods/status update carrying its resourceVersion and no managedFields', async () => {
    const client = new FakeClient();
    const p = await client.create(R.pods, 'default', {
      ...pod('web-1', 'kwok-node-0'),
      metadata: { ...pod('web-1').metadata, managedFields: [{ manager: 'kubectl', operation: 'Update' }] },
    } as PodObj);
    await client.create(R.pods, 'default', pod('pending-1'));
    const selectors: (string | undefined)[] = [];
    const list = client.list.bind(client);
    const watch = client.watch.bind(client);
    client.list = (r, ns, o) => (selectors.push(o?.fieldSelector), list(r, ns, o));
    client.watch = (r, ns, o, on) => (selectors.push(o.fieldSelector), watch(r, ns, o, on));
    const before = client.writes.length;
    const life = new PodLifecycle({ client, clock: new FakeClock(), nodes });
    life.start();
    await settle();
    await life.idle();
    assert.deepEqual(selectors, ['spec.nodeName!=', 'spec.nodeName!=']);
    const writes = client.writes.slice(before);
    assert.equal(writes.length, 1, JSON.stringify(writes));
    assert.deepEqual([writes[0]!.verb, writes[0]!.name, writes[0]!.subresource], ['update', 'web-1', 'status']);
    const body = writes[0]!.body as PodObj;
    assert.equal(body.metadata?.resourceVersion, p.metadata?.resourceVersion);
    assert.equal(body.metadata?.uid, p.metadata?.uid);
    assert.equal(body.metadata?.managedFields, undefined);
    const got = client.peek<PodObj>(R.pods, 'default', 'web-1')!;
    assert.equal(got.status?.phase, 'Running');
    assert.match(got.status?.podIP ?? '', /^10\.42\.0\.\d+$/);
    assert.equal(got.status?.containerStatuses?.[0]?.ready, true);
    assert.equal(client.peek<PodObj>(R.pods, 'default', 'pending-1')!.status?.phase, 'Pending');
    assert.equal(life.counts.ready, 1);
    life.stop();
  });

  it('a pod changed under its write (Conflict) is written from its newer version, keeping the change', async () => {
    const client = new FakeClient();
    let first = true;
    client.hook = (c) => {
      if (c.verb !== 'update' || c.subresource !== 'status' || !first) return;
      first = false;
      // someone labels the pod between the pool's read and its write
      const cur = client.peek<PodObj>(R.pods, 'default', 'web-2')!;
      void client.update(R.pods, 'default', { ...cur, metadata: { ...cur.metadata, labels: { app: 'a', tier: 'x' } } });
    };
    const life = new PodLifecycle({ client, clock: new FakeClock(), nodes });
    life.start();
    await settle(); // watching
    await client.create(R.pods, 'default', pod('web-2', 'kwok-node-0'));
    for (let i = 0; i < 50 && life.counts.ready === 0; i++) await settle();
    const statusWrites = client.writes.filter((w) => w.subresource === 'status');
    assert.equal(statusWrites.length, 2, 'the conflicting write, then one from the newer pod');
    const got = client.peek<PodObj>(R.pods, 'default', 'web-2')!;
    assert.equal(got.status?.phase, 'Running');
    assert.deepEqual(got.metadata?.labels, { app: 'a', tier: 'x' });
    life.stop();
  });
});

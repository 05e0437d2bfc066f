import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../api/resource.js';
import { ClientEventRecorder } from '../../client/events.js';
import { FakeClient } from '../../client/testing/fake-client.js';
import { R } from '../../client/types.js';
import { SharedInformers } from '../util/informers.js';
import { ingressFor, startServiceLBController } from './controller.js';

const node = (name: string, ip: string, ready = true): KObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name },
  status: { addresses: [{ type: 'InternalIP', address: ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

async function until<T>(fn: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('ServiceLB controller', () => {
  it('ingress: Ready, schedulable nodes, ExternalIP before InternalIP, sorted, ipMode VIP', () => {
    const n3 = {
      ...node('c', '10.0.0.3'),
      status: {
        addresses: [
          { type: 'InternalIP', address: '10.0.0.3' },
          { type: 'ExternalIP', address: '192.0.2.3' },
        ],
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    };
    assert.deepEqual(ingressFor([node('b', '10.0.0.2'), node('a', '10.0.0.9', false), n3] as never[]), [
      { ip: '10.0.0.2', ipMode: 'VIP' },
      { ip: '192.0.2.3', ipMode: 'VIP' },
    ]);
  });

  it('a LoadBalancer Service gets the node IPs; a new node is added; a ClusterIP Service is left alone; type change clears it', async () => {
    const client = new FakeClient();
    await client.create(R.nodes, '', node('n1', '10.0.0.1'));
    await client.create(R.services, 'default', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'lb', namespace: 'default' },
      spec: { type: 'LoadBalancer', clusterIP: '10.96.0.9', ports: [{ port: 80 }] },
    });
    await client.create(R.services, 'default', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'cip', namespace: 'default' },
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.8', ports: [{ port: 80 }] },
    });
    await client.create(R.services, 'default', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'other', namespace: 'default' },
      spec: { type: 'LoadBalancer', loadBalancerClass: 'example.com/lb', clusterIP: '10.96.0.7', ports: [{ port: 80 }] },
    });
    const informers = new SharedInformers(client);
    const ctl = await startServiceLBController({ client, informers, recorder: new ClientEventRecorder(client, { component: 'service-lb-controller' }) });
    try {
      const ips = async () =>
        ((await client.get(R.services, 'default', 'lb')).status as { loadBalancer?: { ingress?: { ip: string }[] } })?.loadBalancer?.ingress?.map((i) => i.ip).join(',');
      assert.equal(await until(async () => (await ips()) || undefined), '10.0.0.1');
      await client.create(R.nodes, '', node('n2', '10.0.0.2'));
      assert.equal(await until(async () => ((await ips()) === '10.0.0.1,10.0.0.2' ? 'ok' : undefined)), 'ok');
      assert.equal((await client.get(R.services, 'default', 'cip')).status, undefined);
      assert.equal((await client.get(R.services, 'default', 'other')).status, undefined);
      const cur = await client.get(R.services, 'default', 'lb');
      await client.update(R.services, 'default', { ...cur, spec: { ...(cur.spec as object), type: 'ClusterIP' } });
      assert.equal(await until(async () => ((await ips()) === undefined ? 'cleared' : undefined)), 'cleared');
    } finally {
      await ctl.stop();
      informers.stop();
    }
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import type { Aggregator } from '../aggregator/aggregator.js';
import type { Discovery } from '../discovery.js';
import type { KubeletClient, KubeletLocation } from '../proxy/kubelet.js';
import { MetricsServer } from './metrics-server.js';

function node(name: string, ip: string, annotations?: Record<string, string>): Node & KObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, creationTimestamp: '2024-01-01T00:00:00Z', ...(annotations ? { annotations } : {}) },
    status: { addresses: [{ type: 'InternalIP', address: ip }] },
  };
}

test('a scrape round dials every node’s kubelet except the nodes kwok fakes', async () => {
  const dialled: string[] = [];
  const kubelets = {
    location: (n: Node): KubeletLocation => ({ host: n.status!.addresses![0]!.address, port: 10250 }),
    getText: async (loc: KubeletLocation) => {
      dialled.push(loc.host);
      return { status: 500, body: '' };
    },
  } as unknown as KubeletClient;
  const ms = new MetricsServer({ kubelets });
  const nodes = [node('real', '10.0.0.1'), node('fake', '127.1.0.1', { 'kwok.x-k8s.io/node': 'fake' }), node('other', '10.0.0.2', { 'kwok.x-k8s.io/node': 'other' })];
  ms.install({ addLocal: () => undefined } as unknown as Aggregator, { add: () => undefined } as unknown as Discovery, {
    get: async () => undefined,
    list: async () => nodes,
  });
  await ms.scrape();
  assert.deepEqual(dialled.sort(), ['10.0.0.1', '10.0.0.2']);
});

/**
 * What one kwok pod's "Running" status write costs the API server (CPU µs per write, in
 * process, SQLite), for the ways a client can write it: merge patch, strategic merge patch,
 * apply, and an update (PUT) of pods/status with and without the pod's managedFields.
 * Usage: node --import tsx bench/kwok-status-cost.ts [--pods N]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APIServer } from '../src/apiserver/apiserver.js';
import { namespaceLifecycle } from '../src/apiserver/admission/plugins/namespace-lifecycle.js';
import { podBinding } from '../src/apiserver/subresources/pod-binding.js';
import { namespaceDefinition } from '../src/api/core/v1/namespace/strategy.js';
import { nodeDefinition } from '../src/api/core/v1/node/strategy.js';
import { podDefinition } from '../src/api/core/v1/pod/strategy.js';
import { RestClient } from '../src/client/rest-client.js';
import { InProcessTransport } from '../src/apiserver/loopback.js';
import { R } from '../src/client/types.js';
import { openStorage } from '../src/storage/index.js';
import type { KObject, ResourceDefinition } from '../src/api/resource.js';
import { simulatedPodStatus } from '../src/kwok/pod-status.js';
import type { Pod } from 'kubernetes-types/core/v1.js';

const args = process.argv.slice(2);
const N = args.includes('--pods') ? Number(args[args.indexOf('--pods') + 1]) : 3000;
const storage = await openStorage({ kind: 'sqlite', dataDir: mkdtempSync(join(tmpdir(), 'k8ts-kwokst-')) });
const api = new APIServer({
  storage,
  definitions: [namespaceDefinition, nodeDefinition, podDefinition] as ResourceDefinition[],
  subresources: [podBinding],
  admission: [namespaceLifecycle],
  serverAddress: '127.0.0.1:6443',
});
await api.start();
const c = new RestClient(new InProcessTransport(api, { username: 'admin', groups: ['system:masters'] }), { userAgent: 'kwok-controller' });
await c.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
c.watch(R.pods, '', {}, () => undefined);

async function par(n: number, f: (i: number) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (i < n) await f(i++);
    }),
  );
}
async function measure(label: string, f: (i: number) => Promise<unknown>): Promise<void> {
  const c0 = process.cpuUsage();
  const t = performance.now();
  await par(N, f);
  const cu = process.cpuUsage(c0);
  console.log(`${label.padEnd(36)} ${(N / ((performance.now() - t) / 1000)).toFixed(0).padStart(6)}/s  ${((cu.user + cu.system) / N).toFixed(0).padStart(5)} µs CPU/op`);
}
const pods: (Pod & KObject)[] = [];
const ways = (process.env.WAYS ?? 'merge,strategic,apply,update').split(',') as ('merge' | 'strategic' | 'apply' | 'update' | 'update-slim')[];
for (const [round, way] of ways.entries()) {
  const ns = 'default';
  const name = (i: number) => `${way}-${round}-${i}`;
  await measure(`create (${way})`, async (i) => {
    pods[i] = (await c.create(R.pods, ns, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: name(i), labels: { app: 'scale' } },
      spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '10Mi' } } }] },
    } as KObject)) as Pod & KObject;
  });
  await measure(`bind (${way})`, async (i) => {
    await c.createSubresource(R.pods, ns, name(i), 'binding', {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: name(i) },
      target: { apiVersion: 'v1', kind: 'Node', name: 'kwok-node-0' },
    } as KObject);
    pods[i] = (await c.get(R.pods, ns, name(i))) as Pod & KObject;
  });
  await measure(`status ${way}`, async (i) => {
    const p = pods[i]!;
    const status = simulatedPodStatus(p, '127.1.0.1', `10.0.${i >> 8}.${i & 255}`, Date.now(), false);
    if (way === 'update-slim') {
      const { managedFields: _mf, ...metadata } = p.metadata ?? {};
      return c.update(R.pods, ns, { ...p, metadata, status } as KObject, { subresource: 'status' });
    }
    if (way === 'update') return c.update(R.pods, ns, { ...p, status } as KObject, { subresource: 'status' });
    if (way === 'apply')
      return c.patch(
        R.pods,
        ns,
        name(i),
        'apply',
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: name(i), namespace: ns }, status },
        { subresource: 'status', fieldManager: 'kwok', force: true },
      );
    return c.patch(R.pods, ns, name(i), way, { metadata: { uid: p.metadata?.uid }, status }, { subresource: 'status' });
  });
}
process.exit(0);

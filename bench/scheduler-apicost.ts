/**
 * What the scheduler's API traffic costs the API server, per request (CPU µs, in
 * process, SQLite): pod create, pods/binding, Event create, pods/status patch, with 0–2
 * pod watchers (the scheduler keeps one). `node --import tsx bench/scheduler-apicost.ts 1`
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
import { eventDefinition } from '../src/api/core/v1/event/strategy.js';
import { RestClient } from '../src/client/rest-client.js';
import { InProcessTransport } from '../src/apiserver/loopback.js';
import { R } from '../src/client/types.js';
import { openStorage } from '../src/storage/index.js';
import type { KObject, ResourceDefinition } from '../src/api/resource.js';
const N = 5000;
const dir = mkdtempSync(join(tmpdir(), 'k8ts-sb-'));
const storage = await openStorage({ kind: 'sqlite', dataDir: dir });
const api = new APIServer({
  storage,
  definitions: [namespaceDefinition, nodeDefinition, podDefinition, eventDefinition] as ResourceDefinition[],
  subresources: [podBinding],
  admission: [namespaceLifecycle],
  serverAddress: '127.0.0.1:6443',
});
await api.start();
const c = new RestClient(new InProcessTransport(api, { username: 'admin', groups: ['system:masters'] }));
await c.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
async function par(n: number, conc: number, f: (i: number) => Promise<unknown>) {
  let i = 0;
  await Promise.all(
    Array.from({ length: conc }, async () => {
      while (i < n) {
        const k = i++;
        await f(k);
      }
    }),
  );
}
const watchers = Number(process.argv[2] ?? 0);
let evs = 0;
if (watchers >= 1) c.watch(R.pods, '', { fieldSelector: 'spec.nodeName=' }, () => evs++);
if (watchers >= 2) c.watch(R.pods, '', { fieldSelector: 'spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed' }, () => evs++);
const pod = (i: number) =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${i}`, namespace: 'default' },
    spec: {
      containers: [
        {
          name: 'pause',
          image: 'registry.k8s.io/pause:3.10',
          ports: [{ containerPort: 80 }],
          resources: { limits: { cpu: '100m', memory: '500Mi' }, requests: { cpu: '100m', memory: '500Mi' } },
        },
      ],
    },
  }) as KObject;
async function measure(label: string, f: (i: number) => Promise<unknown>) {
  const c0 = process.cpuUsage();
  const t = performance.now();
  await par(N, 32, f);
  const cu = process.cpuUsage(c0);
  const el = performance.now() - t;
  console.log(`${label}: ${(N / (el / 1000)).toFixed(0)}/s, cpu ${((cu.user + cu.system) / N).toFixed(0)} µs/op`);
}
await measure('create pod', (i) => c.create(R.pods, 'default', pod(i)));
await measure('bind', (i) =>
  c.createSubresource(R.pods, 'default', `pod-${i}`, 'binding', {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: `pod-${i}` },
    target: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
  } as KObject),
);
await measure('event', (i) =>
  c.create(R.events, 'default', {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `pod-${i}.abc`, namespace: 'default' },
    involvedObject: { kind: 'Pod', name: `pod-${i}`, namespace: 'default', uid: 'x', apiVersion: 'v1' },
    reason: 'Scheduled',
    message: `Successfully assigned default/pod-${i} to n1`,
    type: 'Normal',
    source: { component: 'default-scheduler' },
    firstTimestamp: '2025-01-01T00:00:00Z',
    lastTimestamp: '2025-01-01T00:00:00Z',
    count: 1,
    reportingComponent: 'default-scheduler',
    reportingInstance: '',
  } as KObject),
);
await measure('status patch', (i) =>
  c.patch(
    R.pods,
    'default',
    `pod-${i}`,
    'strategic',
    { status: { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: 'x' }] } },
    { subresource: 'status' },
  ),
);
console.log('watch events', evs);
process.exit(0);

const cpuNow = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
/** Micro-benchmark of the scheduling algorithm alone (no API): N nodes, P pods, assume each. */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Cache } from '../src/scheduler/cache/cache.js';
import { CycleState } from '../src/scheduler/framework/cycle-state.js';
import { defaultProfile } from '../src/scheduler/framework/profile.js';
import { Framework } from '../src/scheduler/framework/runtime.js';
import { Snapshot } from '../src/scheduler/framework/snapshot.js';
import { newInTreeRegistry } from '../src/scheduler/plugins/registry.js';
import { schedulePod } from '../src/scheduler/schedule-one.js';
import { FakeClient } from '../src/scheduler/testing/fake-client.js';
import { realClock } from '../src/scheduler/queue/scheduling-queue.js';

const NODES = Number(process.argv[2] ?? 5000);
const PODS = Number(process.argv[3] ?? 10000);
const cache = new Cache(realClock);
for (let i = 0; i < NODES; i++)
  cache.addNode({ metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}` } }, status: { allocatable: { cpu: '4', memory: '32Gi', pods: '110' } } });
const fwk = new Framework({ registry: newInTreeRegistry(), profile: defaultProfile(), client: new FakeClient(), eventRecorder: { event() {} } });
const snap = new Snapshot();
const sched = { snapshot: snap, nextStartNodeIndex: 0, percentageOfNodesToScore: undefined, random: Math.random } as never;
const pod = (i: number): Pod => ({ metadata: { name: `pod-${i}`, namespace: 'default', uid: `u${i}` }, spec: { containers: [{ name: 'pause', image: 'pause', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '100m', memory: '500Mi' }, requests: { cpu: '100m', memory: '500Mi' } } }] } });
const pods = Array.from({ length: PODS }, (_, i) => pod(i));
const t = cpuNow();
for (let i = 0; i < PODS; i++) {
  cache.updateSnapshot(snap);
  fwk.setSnapshot(snap);
  const p = pods[i]!;
  const r = schedulePod(sched, fwk, new CycleState(), p);
  cache.assumePod({ ...p, spec: { ...p.spec!, nodeName: r.suggestedHost } });
}
const el = cpuNow() - t;
console.log(`${NODES} nodes ${PODS} pods: ${(PODS / (el / 1000)).toFixed(0)} pods/s (${((el * 1000) / PODS).toFixed(0)} µs/pod)`);

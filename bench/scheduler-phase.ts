const cpuNow = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Cache } from '../src/scheduler/cache/cache.js';
import { CycleState } from '../src/scheduler/framework/cycle-state.js';
import { defaultProfile } from '../src/scheduler/framework/profile.js';
import { Framework } from '../src/scheduler/framework/runtime.js';
import { Snapshot } from '../src/scheduler/framework/snapshot.js';
import { Diagnosis } from '../src/scheduler/framework/fit-error.js';
import { filterNodes } from '../src/scheduler/framework/filter-nodes.js';
import { newInTreeRegistry } from '../src/scheduler/plugins/registry.js';
import { FakeClient } from '../src/scheduler/testing/fake-client.js';
import { realClock } from '../src/scheduler/queue/scheduling-queue.js';
import { Nominator } from '../src/scheduler/queue/nominator.js';
const NODES = 5000, PODS = 4000;
const cache = new Cache(realClock);
for (let i = 0; i < NODES; i++) cache.addNode({ metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}` } }, status: { allocatable: { cpu: '4', memory: '32Gi', pods: '110' } } });
const fwk = new Framework({ registry: newInTreeRegistry(), profile: defaultProfile(), client: new FakeClient(), eventRecorder: { event() {} }, nominator: new Nominator() });
const snap = new Snapshot();
cache.updateSnapshot(snap); fwk.setSnapshot(snap);
const pod: Pod = { metadata: { name: `pod`, namespace: 'default', uid: `u` }, spec: { containers: [{ name: 'pause', image: 'pause', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '100m', memory: '500Mi' } } }] } };
const nodes = snap.list();
let t = cpuNow();
for (let k = 0; k < PODS; k++) {
  const st = new CycleState();
  fwk.runPreFilterPlugins(st, pod);
  filterNodes(fwk, st, pod, nodes, (k * 500) % NODES, 500, new Diagnosis());
}
console.log('filterNodes ns/node', ((cpuNow() - t) * 1e6 / (PODS * 500)).toFixed(0));
const st = new CycleState(); fwk.runPreFilterPlugins(st, pod);
const out: any[] = new Array(500);
const sub = nodes.slice(0, 500);
for (const p of fwk.plugins.filter) {
  if (st.skipFilterPlugins.has(p.name)) continue;
  t = cpuNow();
  for (let k = 0; k < 4000; k++) p.filterAll!(st, pod, sub, 500, out);
  console.log(p.name, ((cpuNow() - t) * 1e6 / (4000 * 500)).toFixed(1), 'ns');
}
const sub2 = sub.slice(0, 500);
t = cpuNow();
for (let k = 0; k < PODS; k++) {
  const st = new CycleState();
  fwk.runPreScorePlugins(st, pod, sub2);
  fwk.runScorePlugins(st, pod, sub2);
}
console.log('score ns/node', ((cpuNow() - t) * 1e6 / (PODS * 500)).toFixed(0));
for (const p of fwk.plugins.score) {
  const st = new CycleState(); fwk.runPreScorePlugins(st, pod, sub2);
  if (st.skipScorePlugins.has(p.name)) continue;
  const sc = new Array(500);
  t = cpuNow();
  for (let k = 0; k < 4000; k++) p.scoreAll!(st, pod, sub2, sc);
  console.log(p.name, ((cpuNow() - t) * 1e6 / (4000 * 500)).toFixed(1), 'ns');
}

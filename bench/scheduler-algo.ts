/**
 * The scheduling algorithm alone (no API server): N nodes in a cache, P pods scheduled
 * one after another with their placement assumed, reporting CPU µs per pod. For
 * profiling the plugins: `node --cpu-prof --import tsx bench/scheduler-algo.ts 5000 10000 default`.
 * INIT=n schedules n default pods first (not measured).
 * Templates: default, spread (zones moon-1..3), anti (hostname anti-affinity), affinity (node affinity zone1).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Cache } from '../src/scheduler/cache/cache.js';
import { CycleState } from '../src/scheduler/framework/cycle-state.js';
import { defaultProfile } from '../src/scheduler/framework/profile.js';
import { Framework } from '../src/scheduler/framework/runtime.js';
import { Snapshot } from '../src/scheduler/framework/snapshot.js';
import { staticListers } from '../src/scheduler/framework/listers.js';
import { newInTreeRegistry } from '../src/scheduler/plugins/registry.js';
import { schedulePod } from '../src/scheduler/schedule-one.js';
import { FakeClient } from '../src/client/testing/fake-client.js';
import { realClock } from '../src/scheduler/queue/scheduling-queue.js';
import { Nominator } from '../src/scheduler/queue/nominator.js';
import { nodeDefault, podAntiAffinity, podDefault, podNodeAffinity, podTopologySpreading, type PodTemplate } from './scheduler-workloads.js';

const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const NODES = Number(process.argv[2] ?? 5000);
const PODS = Number(process.argv[3] ?? 10000);
const KIND = process.argv[4] ?? 'default';
const templates: Record<string, { t: PodTemplate; labels?: (i: number) => Record<string, string>; ns: string }> = {
  default: { t: podDefault, ns: 'default' },
  spread: { t: podTopologySpreading, labels: (i) => ({ 'topology.kubernetes.io/zone': `moon-${(i % 3) + 1}` }), ns: 'default' },
  anti: { t: podAntiAffinity, ns: 'sched-1' },
  affinity: { t: podNodeAffinity, labels: () => ({ 'topology.kubernetes.io/zone': 'zone1' }), ns: 'default' },
};
const tpl = templates[KIND]!;
const cache = new Cache(realClock);
for (let i = 0; i < NODES; i++) cache.addNode(nodeDefault(`node-${i}`, tpl.labels?.(i)));
const fwk = new Framework({
  registry: newInTreeRegistry(),
  profile: defaultProfile(),
  client: new FakeClient(),
  eventRecorder: { event() {} },
  nominator: new Nominator(),
  listers: staticListers({ namespaces: [{ metadata: { name: 'default' } }, { metadata: { name: 'sched-0' } }, { metadata: { name: 'sched-1' } }] }),
});
const snap = new Snapshot();
const sched = { snapshot: snap, nextStartNodeIndex: 0, percentageOfNodesToScore: undefined, random: Math.random } as never;
const pods: Pod[] = Array.from({ length: PODS }, (_, i) => {
  const p = tpl.t(`pod-${i}`, tpl.ns);
  (p.metadata as { uid?: string }).uid = `u${i}`;
  return p;
});
const INIT = Number(process.env.INIT ?? 0);
for (let i = 0; i < INIT; i++) {
  cache.updateSnapshot(snap);
  fwk.setSnapshot(snap);
  const p = podDefault(`init-${i}`, 'default');
  (p.metadata as { uid?: string }).uid = `i${i}`;
  const r = schedulePod(sched, fwk, new CycleState(), p);
  cache.assumePod({ ...p, spec: { ...p.spec!, nodeName: r.suggestedHost } });
}
const t = cpuNow();
let failed = 0;
for (let i = 0; i < PODS; i++) {
  cache.updateSnapshot(snap);
  fwk.setSnapshot(snap);
  const p = pods[i]!;
  try {
    const r = schedulePod(sched, fwk, new CycleState(), p);
    cache.assumePod({ ...p, spec: { ...p.spec!, nodeName: r.suggestedHost } });
  } catch {
    failed++;
  }
}
const el = cpuNow() - t;
console.log(`${KIND}: ${NODES} nodes ${PODS} pods (${failed} unschedulable): ${(PODS / (el / 1000)).toFixed(0)} pods per CPU-second (${((el * 1000) / PODS).toFixed(0)} µs/pod)`);

/**
 * Service proxy rule sync time (kube-proxy iptables mode) with many Services: N Services
 * × M endpoints programmed into a network namespace this benchmark creates (root), then
 * one EndpointSlice changes and the time until the new rules are in the kernel is
 * measured (informer event → debounced sync → rule build → iptables-save → one
 * iptables-restore). Every sync is a full sync (see README: Services networking).
 *
 * Run: `npm run bench:proxy` (root). Options: `--services N` (default 1000),
 * `--endpoints M` (default 10), `--changes K` slice changes measured (default 5).
 */
import { performance } from 'node:perf_hooks';
import type { KObject } from '../src/api/resource.js';
import { FakeClient } from '../src/client/testing/fake-client.js';
import { R } from '../src/client/types.js';
import { NetExec } from '../src/proxy/iptables.js';
import { Proxier } from '../src/proxy/proxier.js';
import { createNodeNetns } from '../test/support/netns.js';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : def;
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} wants a positive integer`);
  return v;
}
const SERVICES = arg('services', 1000);
const ENDPOINTS = arg('endpoints', 10);
const CHANGES = arg('changes', 5);

const ip = (n: number): string => `10.${96 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
const slice = (s: number, gen: number): KObject => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: `svc-${s}-abcde`, namespace: 'bench', labels: { 'kubernetes.io/service-name': `svc-${s}` } },
  addressType: 'IPv4',
  ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: Array.from({ length: ENDPOINTS }, (_, e) => ({
    addresses: [`10.244.${((s * ENDPOINTS + e + gen) >> 8) & 255}.${(s * ENDPOINTS + e + gen) & 255}`],
    conditions: { ready: true },
    nodeName: 'bench-node',
  })),
});

const ns = createNodeNetns();
try {
  const client = new FakeClient();
  for (let s = 0; s < SERVICES; s++) {
    await client.create(R.services, 'bench', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `svc-${s}`, namespace: 'bench' },
      spec: { type: 'ClusterIP', clusterIP: ip(s + 10), ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] },
    });
    await client.create(R.endpointslices, 'bench', slice(s, 0));
  }
  const proxier = new Proxier({ client, nodeName: 'bench-node', exec: new NetExec(ns.path), clusterCIDR: '10.244.0.0/16', minSyncPeriodMs: 0 });
  const t0 = performance.now();
  const first = await proxier.start();
  const firstWall = performance.now() - t0;
  const lines = (t: string) => t.split('\n').length;
  console.log(
    `services × endpoints: ${SERVICES} × ${ENDPOINTS} (${first.endpoints} endpoints; nat rules ${first.rules.natRules}, nat chains ${first.rules.natChains}, restore input ${(first.rules.text.length / 1e6).toFixed(1)} MB, ${lines(first.rules.text)} lines)`,
  );
  console.log(`first sync (chains created): ${firstWall.toFixed(0)} ms wall, syncProxyRules ${first.durationMs.toFixed(0)} ms`);
  const changes: number[] = [];
  const syncs: number[] = [];
  for (let k = 1; k <= CHANGES; k++) {
    const s = (k * 7919) % SERVICES;
    const t = performance.now();
    await client.update(R.endpointslices, 'bench', slice(s, k * 1000));
    const r = await proxier.waitForSync();
    changes.push(performance.now() - t);
    syncs.push(r.durationMs);
  }
  proxier.stop();
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`EndpointSlice change → rules in the kernel: median ${med(changes).toFixed(0)} ms, max ${Math.max(...changes).toFixed(0)} ms (${CHANGES} changes)`);
  console.log(`  of which syncProxyRules (build + iptables-save + iptables-restore): median ${med(syncs).toFixed(0)} ms`);
} finally {
  ns.remove();
}

/**
 * The proxier against real iptables in a network namespace this test creates (root):
 * first sync from informers, jump rules, resync after an EndpointSlice change within the
 * min-sync bound, coalescing of a burst of changes into one sync, stale chains deleted,
 * kube-proxy metric names, and cleanup leaving no kube-proxy chain behind.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../api/resource.js';
import { FakeClient } from '../client/testing/fake-client.js';
import { R } from '../client/types.js';
import { createNodeNetns, type NodeNetns } from '../../test/support/netns.js';
import { cleanupLeftovers, NetExec } from './iptables.js';
import { serviceChains } from './names.js';
import { Proxier } from './proxier.js';
import { installContainmentRoutes, removeContainmentRoutes } from './containment.js';

const slice = (ips: string[]): KObject => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'web-x1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true }, nodeName: 'n1' })),
});

describe('Proxier on iptables in a network namespace', { timeout: 60_000 }, () => {
  let ns: NodeNetns;
  let client: FakeClient;
  let proxier: Proxier;
  const chain = serviceChains('default/web:http', 'tcp').svc;
  const save = () => ns.exec('iptables-save', []);
  const seps = () =>
    save()
      .split('\n')
      .filter((l) => l.startsWith(`-A ${chain} `) && / -j KUBE-SEP-/.test(l)).length;
  const syncs = async () => (await proxier.metrics.syncProxyRulesLatency.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0;

  before(async () => {
    ns = createNodeNetns();
    client = new FakeClient();
    await client.create(R.services, 'default', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.50', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] },
    });
    await client.create(R.endpointslices, 'default', slice(['10.250.0.5', '10.250.0.6']));
    proxier = new Proxier({ client, nodeName: 'n1', exec: new NetExec(ns.path), clusterCIDR: '10.250.0.0/16', minSyncPeriodMs: 1000 });
  });
  after(() => {
    proxier?.stop();
    ns?.remove();
  });

  it('programs the Services it lists, with the jump rules into KUBE-SERVICES and KUBE-POSTROUTING', async () => {
    const r = await proxier.start();
    assert.equal(r.services, 1);
    assert.equal(r.endpoints, 2);
    const text = save();
    assert.match(text, /^-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES$/m);
    assert.match(text, /^-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES$/m);
    assert.match(text, /^-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING$/m);
    assert.match(text, new RegExp(`^-A KUBE-SERVICES -d 10\\.96\\.0\\.50/32 -p tcp -m comment --comment "default/web:http cluster IP" -m tcp --dport 80 -j ${chain}$`, 'm'));
    assert.equal(seps(), 2);
  });

  it('an EndpointSlice change is programmed within the 1 s min-sync bound; a burst of changes is one sync', async () => {
    await new Promise((r) => setTimeout(r, 1000)); // past the bound: the next change syncs at once
    const before = await syncs();
    const t0 = Date.now();
    await client.update(R.endpointslices, 'default', slice(['10.250.0.5', '10.250.0.6', '10.250.0.7']));
    const partial = await proxier.waitForSync();
    assert.equal(seps(), 3);
    assert.ok(partial.startedAt - t0 < 500, `past the bound, the sync starts at once (${partial.startedAt - t0} ms)`);
    assert.equal(partial.full, false, 'after the first sync, a change writes only its own Service chains');
    assert.ok(partial.rules.text.includes(`:${chain} - [0:0]`));
    // three changes right after a sync: held to the bound (1 s after the last sync began), then written together
    for (const ips of [['10.250.0.5'], ['10.250.0.5', '10.250.0.8'], ['10.250.0.9', '10.250.0.8', '10.250.0.5', '10.250.0.6']]) {
      await client.update(R.endpointslices, 'default', slice(ips));
    }
    const burst = await proxier.waitForSync();
    assert.equal(seps(), 4);
    assert.equal((await syncs()) - before, 2, 'one sync for the first change, one for the burst');
    assert.ok(burst.startedAt - partial.startedAt >= 1000, `burst sync began ${burst.startedAt - partial.startedAt} ms after the previous one`);
  });

  it('a deleted Service loses its chains (flushed and deleted, -X)', async () => {
    await client.delete(R.services, 'default', 'web');
    await proxier.waitForSync();
    const text = save();
    assert.doesNotMatch(text, /KUBE-SVC-|KUBE-SEP-/);
    assert.match(text, /^:KUBE-SERVICES - \[\d+:\d+\]$/m);
  });

  it('exposes kube-proxy metrics by their upstream names', async () => {
    const text = await proxier.metrics.registry.metrics();
    for (const name of [
      'kubeproxy_sync_proxy_rules_duration_seconds_bucket',
      'kubeproxy_sync_proxy_rules_last_timestamp_seconds',
      'kubeproxy_sync_proxy_rules_iptables_total{table="nat",ip_family="IPv4"}',
      'kubeproxy_sync_proxy_rules_endpoint_changes_total',
      'kubeproxy_sync_proxy_rules_service_changes_total',
    ]) {
      assert.ok(text.includes(name), `${name} in\n${text}`);
    }
  });

  it('containment routes make a ClusterIP unreachable from the node; cleanup removes every kube-proxy chain and the routes', async () => {
    const exec = new NetExec(ns.path);
    await installContainmentRoutes(exec, ['10.96.0.0/12', '10.250.0.0/16']);
    await installContainmentRoutes(exec, ['10.96.0.0/12']); // idempotent
    assert.match(ns.exec('ip', ['route', 'show', 'type', 'unreachable']), /^unreachable 10\.96\.0\.0\/12 \n?[\s\S]*^unreachable 10\.250\.0\.0\/16/m);
    assert.throws(() => ns.exec('ip', ['route', 'get', '10.96.0.50']), /No route to host/);
    proxier.stop();
    await cleanupLeftovers(proxier.iptables);
    await removeContainmentRoutes(exec, ['10.96.0.0/12', '10.250.0.0/16']);
    assert.doesNotMatch(save(), /KUBE-/);
    assert.equal(ns.exec('ip', ['route', 'show', 'type', 'unreachable']).trim(), '');
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { KObject } from '../../api/resource.js';
import { FakeClient } from '../../client/testing/fake-client.js';
import { R } from '../../client/types.js';
import { SqliteStorage } from '../../storage/sqlite/sqlite.js';
import { FakeClock } from '../../util/fake-clock.js';
import { apiServerID, groupByPort, IdentityLease, identityLeaseExpired, LeaseEndpointReconciler, MasterLeases } from './index.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A SQLite store whose TTLs read `clock` and are swept only when the test says so. */
function store(clock: FakeClock): SqliteStorage {
  const d = mkdtempSync(join(tmpdir(), 'k8ts-masterleases-'));
  dirs.push(d);
  return SqliteStorage.open({ file: join(d, 'state.db'), compaction: false, now: () => clock.now(), ttlEvery: () => () => {} });
}

type Endpoints = KObject & { subsets?: { addresses: { ip: string }[]; ports: { name: string; port: number; protocol: string }[] }[] };
type Slice = KObject & { addressType: string; endpoints: { addresses: string[]; conditions: { ready: boolean } }[]; ports: { name: string; port: number; protocol: string }[] };

async function slices(client: FakeClient): Promise<Record<string, { ips: string[]; ports: number[]; type: string }>> {
  const l = await client.list<Slice>(R.endpointslices, 'default', { labelSelector: 'kubernetes.io/service-name=kubernetes' });
  return Object.fromEntries(l.items.map((s) => [s.metadata!.name!, { ips: s.endpoints.flatMap((e) => e.addresses), ports: s.ports.map((p) => p.port), type: s.addressType }]));
}

describe('master leases (storage, TTL 15 s)', () => {
  it('keys /registry/masterleases/<ip> (<ip>:<port> off 6443), an Endpoints value, gone once the TTL passes unless refreshed', async () => {
    const clock = new FakeClock();
    const s = store(clock);
    const leases = new MasterLeases(s);
    await leases.update({ ip: '10.0.0.1', port: 6443 });
    await leases.update({ ip: '10.0.0.1', port: 7443 });
    await leases.update({ ip: '10.0.0.1', port: 6443 });
    const { kvs } = await s.list('/registry/masterleases/');
    assert.deepEqual(
      kvs.map((kv) => kv.key),
      ['/registry/masterleases/10.0.0.1', '/registry/masterleases/10.0.0.1:7443'],
    );
    assert.deepEqual(JSON.parse(kvs[0]!.value), {
      kind: 'Endpoints',
      apiVersion: 'v1',
      metadata: { generation: 2, creationTimestamp: null },
      subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }],
    });
    assert.deepEqual(await leases.list(), [
      { ip: '10.0.0.1', port: 6443 },
      { ip: '10.0.0.1', port: 7443 },
    ]);
    await clock.advance(10_000);
    await leases.update({ ip: '10.0.0.1', port: 6443 }); // refreshed; 7443 is not
    await clock.advance(6_000);
    await s.ttlSweeper.sweep();
    assert.deepEqual(await leases.list(), [{ ip: '10.0.0.1', port: 6443 }], 'the unrefreshed lease expired 15 s after its last write');
    await leases.remove({ ip: '10.0.0.1', port: 6443 });
    await leases.remove({ ip: '10.0.0.1', port: 6443 });
    assert.deepEqual(await leases.list(), []);
    await s.close();
  });
});

describe('lease endpoint reconciler of default/kubernetes', () => {
  it('groups endpoints by port, addresses sorted', () => {
    assert.deepEqual(groupByPort([{ ip: '10.0.0.3', port: 6443 }, { ip: '10.0.0.1', port: 6443 }, { ip: '10.0.0.2', port: 443 }, { ip: '10.0.0.9' }], 6443), [
      [443, ['10.0.0.2']],
      [6443, ['10.0.0.1', '10.0.0.3', '10.0.0.9']],
    ]);
  });

  it('lists every live API server, drops a dead one after its lease expires, and a stopping one at once', async () => {
    const clock = new FakeClock();
    const s = store(clock);
    const client = new FakeClient();
    const mk = (ip: string, port: number, own = clock) => new LeaseEndpointReconciler({ client, leases: new MasterLeases(s), self: { ip, port }, clock: own });
    const a = mk('10.0.0.2', 6443);
    const b = mk('10.0.0.1', 6443);
    // c's timers run on a clock that never moves: it stops refreshing when the others go on (a dead process)
    const c = mk('10.0.0.1', 7443, new FakeClock());
    await a.start();
    const ep = () => client.peek<Endpoints>(R.endpoints, 'default', 'kubernetes')!;
    assert.deepEqual(ep().metadata?.labels, { 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    assert.deepEqual(ep().subsets, [{ addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
    await b.start();
    assert.deepEqual(
      ep().subsets,
      [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }],
      "upstream's one subset: a shared port",
    );
    assert.deepEqual(await slices(client), { kubernetes: { ips: ['10.0.0.1', '10.0.0.2'], ports: [6443], type: 'IPv4' } });
    const slice = client.peek<Slice>(R.endpointslices, 'default', 'kubernetes')!;
    assert.deepEqual(slice.endpoints[0], { addresses: ['10.0.0.1'], conditions: { ready: true } });
    await c.start();
    assert.deepEqual(ep().subsets, [
      { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'https', port: 7443, protocol: 'TCP' }] },
    ]);
    assert.deepEqual(await slices(client), {
      kubernetes: { ips: ['10.0.0.1', '10.0.0.2'], ports: [6443], type: 'IPv4' },
      'kubernetes-7443': { ips: ['10.0.0.1'], ports: [7443], type: 'IPv4' },
    });
    // nothing changes: no write
    const rv = ep().metadata?.resourceVersion;
    await a.reconcile();
    assert.equal(ep().metadata?.resourceVersion, rv);

    // c is dead (no refreshes, no stop): 15 s after its last write its lease is gone,
    // and the next reconcile of a live server (every 10 s) drops it
    await clock.advance(10_000); // a and b refresh
    await clock.advance(6_000);
    await s.ttlSweeper.sweep();
    assert.equal(ep().subsets?.length, 2, 'not yet reconciled after the expiry');
    await clock.advance(10_000);
    assert.deepEqual(ep().subsets, [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
    assert.deepEqual(await slices(client), { kubernetes: { ips: ['10.0.0.1', '10.0.0.2'], ports: [6443], type: 'IPv4' } }, 'the other port’s slice is deleted');

    // b shuts down: it removes itself at once
    await b.stop();
    assert.deepEqual(ep().subsets, [{ addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
    // the last one never erases every endpoint
    await a.stop();
    assert.deepEqual(ep().subsets, [{ addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
    await s.close();
  });
});

describe('APIServerIdentity lease', () => {
  it("names the Lease as upstream's APIServerID hash", () => {
    // expected values computed independently (Python: sha256 over uint16-length-prefixed fields, base32, no padding)
    assert.equal(apiServerID('node-a'), 'apiserver-kcaaxytsc3gyd2kyybqqvf4bl4');
    assert.equal(apiServerID('vm'), 'apiserver-wlv32tlttr4jl3gtroqexyxapa');
  });

  it('writes kube-system/apiserver-<hash> with labels, renews it every 10 s, and collects expired identity Leases', async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const client = new FakeClient();
    await client.create(R.leases, 'kube-system', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'apiserver-gone', namespace: 'kube-system', labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver' } },
      spec: { holderIdentity: 'x', leaseDurationSeconds: 3600, renewTime: '2025-12-31T22:59:59.000000Z' },
    });
    await client.create(R.leases, 'kube-system', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'kube-scheduler', namespace: 'kube-system' },
      spec: { holderIdentity: 'y', leaseDurationSeconds: 15, renewTime: '2025-12-31T00:00:00.000000Z' },
    });
    const id = new IdentityLease({ client, host: 'node-a', clock });
    await id.start();
    type L = KObject & { spec: { holderIdentity: string; leaseDurationSeconds: number; renewTime: string } };
    const mine = () => client.peek<L>(R.leases, 'kube-system', 'apiserver-kcaaxytsc3gyd2kyybqqvf4bl4')!;
    assert.deepEqual(mine().metadata?.labels, { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': 'node-a' });
    assert.match(mine().spec.holderIdentity, /^apiserver-kcaaxytsc3gyd2kyybqqvf4bl4_[0-9a-f-]{36}$/);
    assert.equal(mine().spec.leaseDurationSeconds, 3600);
    assert.equal(mine().spec.renewTime, '2026-01-01T00:00:00.000000Z');
    assert.equal(client.peek(R.leases, 'kube-system', 'apiserver-gone'), undefined, 'expired identity lease collected');
    assert.ok(client.peek(R.leases, 'kube-system', 'kube-scheduler'), 'leases without the identity label are not touched');
    await clock.advance(10_000);
    assert.equal(mine().spec.renewTime, '2026-01-01T00:00:10.000000Z');
    assert.equal(identityLeaseExpired(mine(), clock.now() + 3600_000), false);
    assert.equal(identityLeaseExpired(mine(), clock.now() + 3600_001), true);
    id.stop();
  });
});

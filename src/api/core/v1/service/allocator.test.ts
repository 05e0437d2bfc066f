import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import { newInvalid, StatusError } from '../../../../apimachinery/errors.js';
import type { GroupVersionResource, KObject, ObjectLookup, StrategyContext } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { firstUsableIP, IPRange, PortRange, rangeOffset } from './allocator.js';
import { createServiceDefinition, kubernetesServiceIP } from './strategy.js';

/** A fake store: the services the lookup returns. */
class FakeStore implements ObjectLookup {
  readonly items = new Map<string, O<Service>>();
  lists = 0;
  async get(_r: GroupVersionResource, ns: string, name: string): Promise<KObject | undefined> {
    return this.items.get(`${ns}/${name}`);
  }
  async list(): Promise<KObject[]> {
    this.lists++;
    return [...this.items.values()];
  }
  put(s: O<Service>): void {
    this.items.set(`${s.metadata.namespace}/${s.metadata.name}`, structuredClone(s));
  }
}

function setup(opts: { serviceCIDR?: string; nodePortRange?: string } = {}) {
  let now = 1_000_000;
  let seed = 0.5;
  const store = new FakeStore();
  const def = createServiceDefinition({ ...opts, clock: () => now, random: () => seed, reclaimGraceMs: 60_000 });
  const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date(now), lookup: store };
  /** create as the store would: defaults → prepare → hook → validate → persist → afterCreate */
  async function create(s: Partial<Service> & { metadata: Service['metadata'] }, persist = true): Promise<O<Service>> {
    const obj = structuredClone({ apiVersion: 'v1', kind: 'Service', ...s }) as O<Service>;
    obj.metadata.namespace ??= 'default';
    def.defaults!(obj);
    def.prepareForCreate!(obj, ctx);
    await def.hooks!.beforeCreate!(obj, ctx);
    const errs = def.validate!(obj, ctx);
    if (errs.length > 0) throw newInvalid({ group: '', kind: 'Service' }, obj.metadata.name ?? '', errs);
    if (persist) {
      store.put(obj);
      await def.hooks!.afterCreate!(obj, ctx);
    }
    return obj;
  }
  return {
    def,
    store,
    ctx,
    create,
    advance: (ms: number) => (now += ms),
    setRandom: (r: number) => (seed = r),
  };
}

const svc = (name: string, spec: Service['spec'] = {}): Partial<Service> & { metadata: Service['metadata'] } => ({
  metadata: { name },
  spec: { ports: [{ port: 80 }], selector: { app: name }, ...spec },
});

async function rejects(p: Promise<unknown>, code: number, message: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof StatusError, String(e));
    assert.equal(e.code, code);
    assert.equal(e.message, message);
    return true;
  });
}

test('ranges: first usable IP, static band offsets, port range syntax', () => {
  assert.equal(kubernetesServiceIP('10.96.0.0/12'), '10.96.0.1');
  assert.equal(kubernetesServiceIP(), '10.96.0.1');
  assert.equal(firstUsableIP('fd00:10:96::/108'), 'fd00:10:96::1');
  assert.equal(rangeOffset(2 ** 20, 16, 256, 16), 256);
  assert.equal(rangeOffset(256, 16, 256, 16), 16);
  assert.equal(rangeOffset(16, 16, 256, 16), 0);
  assert.equal(rangeOffset(2768, 16, 128, 32), 86);
  const r = new IPRange('10.96.0.0/12', () => 0);
  assert.equal(r.alloc.size, 2 ** 20 - 2);
  assert.equal(r.offsetOf('10.96.0.0'), undefined, 'network address');
  assert.equal(r.offsetOf('10.111.255.255'), undefined, 'broadcast address');
  assert.equal(r.offsetOf('10.96.0.1'), 0);
  assert.equal(r.ipAt(r.offsetOf('10.100.7.9')!), '10.100.7.9');
  assert.equal(new PortRange('30000+2767', () => 0).text, '30000-32767');
  assert.throws(() => new PortRange('3-2', () => 0), /unable to parse port range/);
});

test('ClusterIP: dynamic allocation avoids the static band; specific IPs; families defaulted', async () => {
  const t = setup();
  t.setRandom(0);
  const a = await t.create(svc('a'));
  // offset 0 of the dynamic band = static size (256) past 10.96.0.1
  assert.equal(a.spec?.clusterIP, '10.96.1.1');
  assert.deepEqual(a.spec?.clusterIPs, ['10.96.1.1']);
  assert.deepEqual(a.spec?.ipFamilies, ['IPv4']);
  assert.equal(a.spec?.ipFamilyPolicy, 'SingleStack');
  const b = await t.create(svc('b'));
  assert.equal(b.spec?.clusterIP, '10.96.1.2', 'probes past the taken address');
  const k = await t.create({ metadata: { name: 'kubernetes' }, spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, targetPort: 6443 }] } });
  assert.deepEqual(k.spec?.clusterIPs, ['10.96.0.1']);
});

test('ClusterIP errors: out of range, already allocated (upstream messages)', async () => {
  const t = setup();
  await t.create(svc('dns', { clusterIP: '10.96.0.10' }));
  await rejects(
    t.create(svc('x', { clusterIP: '10.0.0.1' })),
    422,
    'Service "x" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.1"}: failed to allocate IP 10.0.0.1: provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/12',
  );
  await rejects(
    t.create(svc('y', { clusterIP: '10.96.0.10' })),
    422,
    'Service "y" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
  );
  await rejects(
    t.create(svc('z', { clusterIP: '10.96.0.0' })),
    422,
    'Service "z" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.0"}: failed to allocate IP 10.96.0.0: provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/12',
  );
  await rejects(
    t.create(svc('v6', { clusterIP: 'fd00::1' })),
    422,
    'Service "v6" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::1"}: IPv6 is not configured on this cluster',
  );
  await rejects(
    t.create(svc('ds', { ipFamilyPolicy: 'RequireDualStack' })),
    422,
    'Service "ds" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
  );
});

test('release on delete frees the IP and node ports', async () => {
  const t = setup({ nodePortRange: '30000-30001' });
  const a = await t.create(svc('a', { clusterIP: '10.96.0.20', type: 'NodePort', ports: [{ port: 80 }, { port: 81, name: 'b' }].map((p, i) => ({ ...p, name: i ? 'b' : 'a' })) }));
  assert.deepEqual(a.spec?.ports?.map((p) => p.nodePort).sort(), [30000, 30001]);
  await rejects(t.create(svc('b', { type: 'NodePort' })), 500, 'Internal error occurred: failed to allocate a nodePort: range is full');
  t.store.items.delete('default/a');
  await t.def.hooks!.afterDelete!(a, t.ctx);
  const b = await t.create(svc('b', { clusterIP: '10.96.0.20', type: 'NodePort' }));
  assert.equal(b.spec?.clusterIP, '10.96.0.20');
  assert.ok([30000, 30001].includes(b.spec!.ports![0]!.nodePort!));
});

test('headless: no IP allocated, families still set', async () => {
  const t = setup();
  const h = await t.create(svc('h', { clusterIP: 'None' }));
  assert.deepEqual(h.spec?.clusterIPs, ['None']);
  assert.equal(h.spec?.clusterIP, 'None');
  assert.deepEqual(h.spec?.ipFamilies, ['IPv4']);
  assert.equal(h.spec?.ipFamilyPolicy, 'SingleStack');
  assert.equal(t.def.allocator.ranges.get('IPv4')!.alloc.count, 0);
  const sl = await t.create({ metadata: { name: 'sl' }, spec: { clusterIP: 'None', ports: [{ port: 53, protocol: 'UDP' }] } });
  assert.equal(sl.spec?.ipFamilyPolicy, 'RequireDualStack', 'headless without selector');
  assert.deepEqual(sl.spec?.ipFamilies, ['IPv4', 'IPv6']);
  await rejects(
    t.create(svc('np', { clusterIP: 'None', type: 'NodePort' })),
    422,
    'Service "np" is invalid: spec.clusterIPs[0]: Invalid value: "None": may not be set to \'None\' for NodePort services',
  );
});

test('NodePort: auto, requested, shared by protocol, range and conflict errors, LB and health check', async () => {
  const t = setup();
  t.setRandom(0);
  const n = await t.create(
    svc('n', {
      type: 'NodePort',
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      ],
    }),
  );
  // upper band starts after 86 static ports
  assert.deepEqual(
    n.spec?.ports?.map((p) => p.nodePort),
    [30086, 30086],
  );
  const r = await t.create(svc('r', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }));
  assert.equal(r.spec?.ports?.[0]?.nodePort, 30080);
  await rejects(
    t.create(svc('dup', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] })),
    422,
    'Service "dup" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
  );
  await rejects(
    t.create(svc('low', { type: 'NodePort', ports: [{ port: 80, nodePort: 8080 }] })),
    422,
    'Service "low" is invalid: spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767',
  );
  const lb = await t.create(svc('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' }));
  assert.ok(lb.spec?.ports?.[0]?.nodePort);
  assert.ok(lb.spec?.healthCheckNodePort && lb.spec.healthCheckNodePort !== lb.spec.ports![0]!.nodePort);
  assert.equal(lb.spec?.allocateLoadBalancerNodePorts, true);
  const nolb = await t.create(svc('nolb', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false }));
  assert.equal(nolb.spec?.ports?.[0]?.nodePort, undefined);
  const cip = await t.create(svc('cip'));
  assert.equal(cip.spec?.ports?.[0]?.nodePort, undefined);
});

test('state is rebuilt from stored Services on first use', async () => {
  const t = setup();
  t.store.put({
    metadata: { name: 'old', namespace: 'default' },
    spec: { type: 'NodePort', clusterIP: '10.96.0.50', clusterIPs: ['10.96.0.50'], ports: [{ port: 80, nodePort: 30500 }] },
  } as O<Service>);
  await rejects(
    t.create(svc('x', { clusterIP: '10.96.0.50' })),
    422,
    'Service "x" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.50"}: failed to allocate IP 10.96.0.50: provided IP is already allocated',
  );
  await rejects(
    t.create(svc('y', { type: 'NodePort', ports: [{ port: 80, nodePort: 30500 }] })),
    422,
    'Service "y" is invalid: spec.ports[0].nodePort: Invalid value: 30500: provided port is already allocated',
  );
  assert.equal(t.store.lists, 1, 'listed once');
});

test('allocations of failed writes are reclaimed after the grace period', async () => {
  const t = setup();
  await t.create(svc('ghost', { clusterIP: '10.96.0.77' }), false); // the write never happened
  await rejects(
    t.create(svc('early', { clusterIP: '10.96.0.77' })),
    422,
    'Service "early" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.77"}: failed to allocate IP 10.96.0.77: provided IP is already allocated',
  );
  t.advance(61_000);
  const late = await t.create(svc('late', { clusterIP: '10.96.0.77' }));
  assert.equal(late.spec?.clusterIP, '10.96.0.77');
  // a stored owner is never reclaimed
  t.advance(61_000);
  await rejects(
    t.create(svc('again', { clusterIP: '10.96.0.77' })),
    422,
    'Service "again" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.77"}: failed to allocate IP 10.96.0.77: provided IP is already allocated',
  );
});

test('a failed create gives back what it took (transaction)', async () => {
  const t = setup();
  await t.create(svc('hold', { type: 'NodePort', ports: [{ port: 80, nodePort: 30001 }] }));
  await rejects(
    t.create(svc('tx', { clusterIP: '10.96.0.99', type: 'NodePort', ports: [{ port: 80, nodePort: 30001 }] })),
    422,
    'Service "tx" is invalid: spec.ports[0].nodePort: Invalid value: 30001: provided port is already allocated',
  );
  const ok = await t.create(svc('ok', { clusterIP: '10.96.0.99' }));
  assert.equal(ok.spec?.clusterIP, '10.96.0.99');
});

test('updates: type changes allocate node ports, ExternalName to ClusterIP allocates an IP, allocated values are kept', async () => {
  const t = setup();
  const a = await t.create(svc('a'));
  const upd = structuredClone(a);
  upd.spec = { ...upd.spec, type: 'NodePort' };
  delete upd.spec.clusterIP;
  delete upd.spec.clusterIPs;
  t.def.defaults!(upd);
  t.def.prepareForUpdate!(upd, a, t.ctx);
  await t.def.hooks!.beforeUpdate!(upd, a, t.ctx);
  assert.equal(upd.spec?.clusterIP, a.spec?.clusterIP, 'omitted clusterIP patched from the old object');
  assert.ok(upd.spec?.ports?.[0]?.nodePort);
  assert.deepEqual(t.def.validateUpdate!(upd, a, t.ctx), []);

  const e = await t.create({ metadata: { name: 'e' }, spec: { type: 'ExternalName', externalName: 'example.com' } });
  assert.equal(e.spec?.clusterIP, undefined);
  assert.equal(e.spec?.ipFamilies, undefined);
  const toCIP = structuredClone(e);
  toCIP.spec = { type: 'ClusterIP', ports: [{ port: 80 }], selector: { app: 'e' } };
  t.def.defaults!(toCIP);
  t.def.prepareForUpdate!(toCIP, e, t.ctx);
  await t.def.hooks!.beforeUpdate!(toCIP, e, t.ctx);
  assert.match(toCIP.spec?.clusterIP ?? '', /^10\.(9[6-9]|10[0-9]|11[01])\./);
  assert.deepEqual(t.def.validateUpdate!(toCIP, e, t.ctx), []);
});

test('dual-stack cluster: PreferDualStack gets one IP per family, SingleStack one', async () => {
  const t = setup({ serviceCIDR: '10.96.0.0/12,fd00:10:96::/108' });
  const ds = await t.create(svc('ds', { ipFamilyPolicy: 'PreferDualStack' }));
  assert.deepEqual(ds.spec?.ipFamilies, ['IPv4', 'IPv6']);
  assert.equal(ds.spec?.clusterIPs?.length, 2);
  assert.match(ds.spec!.clusterIPs![1]!, /^fd00:10:96::/);
  const v6 = await t.create(svc('v6', { ipFamilies: ['IPv6'] }));
  assert.deepEqual(v6.spec?.ipFamilies, ['IPv6']);
  assert.equal(v6.spec?.clusterIPs?.length, 1);
  assert.match(v6.spec!.clusterIP!, /^fd00:10:96::/);
});

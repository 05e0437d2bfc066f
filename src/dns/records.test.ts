/**
 * The records of the Kubernetes DNS specification (kubernetes/dns docs/specification.md,
 * schema 1.0.1), one test per section, with the spec's own examples where it gives them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { ClusterRecords, reverseName } from './records.js';

function svc(name: string, ns: string, spec: Service['spec']): Service {
  return { metadata: { name, namespace: ns }, spec };
}

function slice(svcName: string, ns: string, eps: { ip: string; hostname?: string; ready?: boolean }[], ports = [{ name: 'https', port: 8443, protocol: 'TCP' }]): EndpointSlice {
  return {
    metadata: { name: `${svcName}-abcde`, namespace: ns, labels: { 'kubernetes.io/service-name': svcName } },
    addressType: 'IPv4',
    endpoints: eps.map((e) => ({ addresses: [e.ip], hostname: e.hostname, conditions: { ready: e.ready ?? true } })),
    ports,
  };
}

function cluster(): ClusterRecords {
  const r = new ClusterRecords({ domain: 'cluster.local', ttl: 5 });
  r.setService(svc('kubernetes', 'default', { clusterIP: '10.3.0.1', clusterIPs: ['10.3.0.1'], ports: [{ name: 'https', port: 443, protocol: 'TCP' }] }));
  r.setService(svc('headless', 'default', { clusterIP: 'None', ports: [{ name: 'https', port: 443, protocol: 'TCP' }] }));
  r.setEndpointSlice(
    slice('headless', 'default', [
      { ip: '10.3.0.100', hostname: 'my-pet' },
      { ip: '10.3.0.101', hostname: 'my-pet-2' },
      { ip: '10.3.0.102' },
      { ip: '10.3.0.103', hostname: 'not-ready', ready: false },
    ]),
  );
  r.setService(svc('foo', 'default', { type: 'ExternalName', externalName: 'www.example.com' }));
  r.setService(svc('empty', 'default', { clusterIP: 'None', ports: [{ name: 'http', port: 80 }] }));
  r.setService(svc('dual', 'default', { clusterIP: '10.3.0.9', clusterIPs: ['10.3.0.9', 'fd00::9'], ports: [{ port: 80 }] }));
  return r;
}

const data = (a: ReturnType<ClusterRecords['answer']>) => a?.answers.map((x) => (x as { data: unknown }).data);

test('2.2 dns-version.<zone> TXT carries the schema version', () => {
  const a = cluster().answer('dns-version.cluster.local', 'TXT')!;
  assert.equal(a.rcode, 'NOERROR');
  assert.deepEqual(data(a), [['1.0.1']]);
});

test('2.3.1 A record of a ClusterIP Service: kubernetes.default.svc.cluster.local. IN A → 10.3.0.1, case-insensitive', () => {
  const r = cluster();
  const a = r.answer('kubernetes.default.svc.cluster.local', 'A')!;
  assert.deepEqual(
    a.answers.map((x) => [x.name, x.type, (x as { ttl: number }).ttl, (x as { data: string }).data]),
    [['kubernetes.default.svc.cluster.local', 'A', 5, '10.3.0.1']],
  );
  assert.deepEqual(data(r.answer('Kubernetes.Default.SVC.cluster.local.', 'A')), ['10.3.0.1']);
  // an IPv4-only Service has no AAAA: NOERROR without answers, the SOA as authority
  const aaaa = r.answer('kubernetes.default.svc.cluster.local', 'AAAA')!;
  assert.equal(aaaa.rcode, 'NOERROR');
  assert.deepEqual(aaaa.answers, []);
  assert.equal(aaaa.authorities[0]?.type, 'SOA');
  // dual-stack: A and AAAA from clusterIPs
  assert.deepEqual(data(r.answer('dual.default.svc.cluster.local', 'AAAA')), ['fd00::9']);
});

test('2.3.2 SRV for each named port: _https._tcp.kubernetes.default.svc.cluster.local. → 443 kubernetes.default.svc.cluster.local.', () => {
  const r = cluster();
  const a = r.answer('_https._tcp.kubernetes.default.svc.cluster.local', 'SRV')!;
  assert.equal(a.rcode, 'NOERROR');
  const srv = a.answers[0] as { data: { port: number; target: string } };
  assert.equal(srv.data.port, 443);
  assert.equal(srv.data.target, 'kubernetes.default.svc.cluster.local');
  assert.deepEqual(
    a.additionals.map((x) => [x.name, (x as { data: string }).data]),
    [['kubernetes.default.svc.cluster.local', '10.3.0.1']],
  );
  // unnamed ports have no SRV record; another protocol is no record
  assert.equal(r.answer('_udp._https.kubernetes.default.svc.cluster.local', 'SRV')!.rcode, 'NXDOMAIN');
  assert.equal(r.answer('_https._udp.kubernetes.default.svc.cluster.local', 'SRV')!.rcode, 'NXDOMAIN');
  assert.deepEqual(data(r.answer('dual.default.svc.cluster.local', 'SRV')), []);
});

test('2.3.3 PTR of a ClusterIP: 1.0.3.10.in-addr.arpa. → kubernetes.default.svc.cluster.local.', () => {
  const r = cluster();
  assert.equal(reverseName('10.3.0.1'), '1.0.3.10.in-addr.arpa');
  assert.deepEqual(data(r.answer('1.0.3.10.in-addr.arpa', 'PTR')), ['kubernetes.default.svc.cluster.local']);
  assert.equal(reverseName('fd00::9'), `9.${'0.'.repeat(27)}0.0.d.f.ip6.arpa`);
  assert.deepEqual(data(r.answer(reverseName('fd00::9'), 'PTR')), ['dual.default.svc.cluster.local']);
  // a reverse name of no Service is not the zone's: forwarded
  assert.equal(r.answer('7.7.7.7.in-addr.arpa', 'PTR'), undefined);
});

test('2.4.1 headless Service: an A record per ready endpoint, <hostname>.<service> records, NXDOMAIN without ready endpoints', () => {
  const r = cluster();
  assert.deepEqual(data(r.answer('headless.default.svc.cluster.local', 'A')), ['10.3.0.100', '10.3.0.101', '10.3.0.102']);
  assert.deepEqual(data(r.answer('my-pet.headless.default.svc.cluster.local', 'A')), ['10.3.0.100']);
  // no hostname: the system-assigned one, the address with dashes (as CoreDNS)
  assert.deepEqual(data(r.answer('10-3-0-102.headless.default.svc.cluster.local', 'A')), ['10.3.0.102']);
  assert.equal(r.answer('not-ready.headless.default.svc.cluster.local', 'A')!.rcode, 'NXDOMAIN');
  assert.equal(r.answer('empty.default.svc.cluster.local', 'A')!.rcode, 'NXDOMAIN');
  // <hostname>.<service> exists only for headless Services
  assert.equal(r.answer('x.kubernetes.default.svc.cluster.local', 'A')!.rcode, 'NXDOMAIN');
});

test('2.4.2 headless SRV: one per ready endpoint and named port, target <hostname>.<service>, the endpoint port', () => {
  const a = cluster().answer('_https._tcp.headless.default.svc.cluster.local', 'SRV')!;
  assert.deepEqual(
    a.answers.map((x) => {
      const d = (x as { data: { port: number; target: string } }).data;
      return [d.port, d.target];
    }),
    [
      [8443, 'my-pet.headless.default.svc.cluster.local'],
      [8443, 'my-pet-2.headless.default.svc.cluster.local'],
      [8443, '10-3-0-102.headless.default.svc.cluster.local'],
    ],
  );
  assert.deepEqual(
    a.additionals.map((x) => (x as { data: string }).data),
    ['10.3.0.100', '10.3.0.101', '10.3.0.102'],
  );
});

test('2.4.3 PTR of a headless endpoint: 100.0.3.10.in-addr.arpa. → my-pet.headless.default.svc.cluster.local.', () => {
  assert.deepEqual(data(cluster().answer('100.0.3.10.in-addr.arpa', 'PTR')), ['my-pet.headless.default.svc.cluster.local']);
});

test('2.5 ExternalName: a CNAME to the external name, which the server may chase', () => {
  const a = cluster().answer('foo.default.svc.cluster.local', 'A')!;
  assert.deepEqual(
    a.answers.map((x) => [x.type, (x as { data: string }).data]),
    [['CNAME', 'www.example.com']],
  );
  assert.equal(a.cnameTarget, 'www.example.com');
});

test('2.6 pod records: a-b-c-d.<ns>.pod.<zone> A a.b.c.d; malformed ones NXDOMAIN', () => {
  const r = cluster();
  assert.deepEqual(data(r.answer('10-42-0-7.default.pod.cluster.local', 'A')), ['10.42.0.7']);
  assert.equal(r.answer('10-42-0-700.default.pod.cluster.local', 'A')!.rcode, 'NXDOMAIN');
  assert.equal(r.answer('10-42-0.default.pod.cluster.local', 'A')!.rcode, 'NXDOMAIN');
});

test('NXDOMAIN (with the SOA) for other names in the zone; names outside it are not answered; updates and deletes apply', () => {
  const r = cluster();
  for (const n of ['nope.default.svc.cluster.local', 'kubernetes.nons.svc.cluster.local', 'web.default.svc.cluster.local.default.svc.cluster.local', 'x.cluster.local']) {
    const a = r.answer(n, 'A')!;
    assert.equal(a.rcode, 'NXDOMAIN', n);
    assert.equal(a.authorities[0]?.type, 'SOA');
    assert.equal((a.authorities[0] as { name: string }).name, 'cluster.local');
  }
  assert.equal(r.answer('default.svc.cluster.local', 'A')!.rcode, 'NOERROR');
  assert.equal(r.answer('example.com', 'A'), undefined);
  assert.equal(r.answer('cluster.local.example.com', 'A'), undefined);
  r.deleteService(svc('kubernetes', 'default', {}));
  assert.equal(r.answer('kubernetes.default.svc.cluster.local', 'A')!.rcode, 'NXDOMAIN');
  r.setEndpointSlice(slice('headless', 'default', [{ ip: '10.3.0.200', hostname: 'my-pet' }]));
  assert.deepEqual(data(r.answer('headless.default.svc.cluster.local', 'A')), ['10.3.0.200']);
  r.deleteEndpointSlice(slice('headless', 'default', []));
  assert.equal(r.answer('headless.default.svc.cluster.local', 'A')!.rcode, 'NXDOMAIN');
  // another cluster domain
  const other = new ClusterRecords({ domain: 'k8s.example' });
  other.setService(svc('web', 'shop', { clusterIP: '10.96.5.5', ports: [{ port: 80 }] }));
  assert.deepEqual(data(other.answer('web.shop.svc.k8s.example', 'A')), ['10.96.5.5']);
  assert.equal(other.answer('web.shop.svc.cluster.local', 'A'), undefined);
});

test('the simulated network: stub-resolver search path (ndots) and ClusterIP → ready endpoint by port name, round-robin', () => {
  const r = cluster();
  const conf = { search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], ndots: 5 };
  assert.deepEqual(r.resolve('kubernetes', conf), { name: 'kubernetes.default.svc.cluster.local', addresses: ['10.3.0.1'] });
  assert.deepEqual(r.resolve('kubernetes.default', conf), { name: 'kubernetes.default.svc.cluster.local', addresses: ['10.3.0.1'] });
  assert.deepEqual(r.resolve('kubernetes.default.svc.cluster.local.', conf), { name: 'kubernetes.default.svc.cluster.local', addresses: ['10.3.0.1'] });
  assert.equal(r.resolve('kubernetes', { search: [], ndots: 1 }), undefined);
  assert.equal(r.resolve('nope', conf), undefined);
  r.setService(svc('web', 'default', { clusterIP: '10.3.0.50', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] }));
  assert.equal(r.serviceEndpoint('10.3.0.50', 80, 'TCP'), 'refused', 'no endpoints yet');
  r.setEndpointSlice(slice('web', 'default', [{ ip: '10.42.0.5' }, { ip: '10.42.0.6' }, { ip: '10.42.0.7', ready: false }], [{ name: 'http', port: 8080, protocol: 'TCP' }]));
  const picks = new Set([1, 2, 3, 4].map(() => JSON.stringify(r.serviceEndpoint('10.3.0.50', 80, 'TCP'))));
  assert.deepEqual([...picks].sort(), ['{"ip":"10.42.0.5","port":8080}', '{"ip":"10.42.0.6","port":8080}']);
  assert.equal(r.serviceEndpoint('10.3.0.50', 81, 'TCP'), 'refused');
  assert.equal(r.serviceEndpoint('10.3.0.99', 80, 'TCP'), undefined);
});

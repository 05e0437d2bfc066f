/**
 * The DNS server on loopback, asked by Node's own resolver (c-ares) and by raw
 * dns-packet queries over UDP and TCP: cluster names answered, others forwarded to an
 * upstream (a second server on loopback), NXDOMAIN / SERVFAIL as specified.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import { promises as dnsPromises } from 'node:dns';
import * as packet from 'dns-packet';
import { ClusterRecords } from './records.js';
import { newForwarder } from './forward.js';
import { startDNSServer } from './server.js';

function records(): ClusterRecords {
  const r = new ClusterRecords({ domain: 'cluster.local' });
  r.setService({ metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.96.12.34', ports: [{ name: 'http', port: 80 }] } });
  r.setService({ metadata: { name: 'ext', namespace: 'default' }, spec: { type: 'ExternalName', externalName: 'upstream.example' } });
  return r;
}

/** An upstream resolver that knows one name. */
async function upstream() {
  const up = new ClusterRecords({ domain: 'example' });
  const orig = up.answer.bind(up);
  up.answer = (name, type) =>
    name.toLowerCase() === 'upstream.example' && type === 'A'
      ? { rcode: 'NOERROR', answers: [{ name, type: 'A', ttl: 60, data: '192.0.2.53' }], authorities: [], additionals: [] }
      : orig(name, type);
  return startDNSServer({ records: up, address: '127.0.0.1', port: 0 });
}

test('Node resolver: A of a Service name, SRV of its named port, PTR, NXDOMAIN, forwarded names, ExternalName CNAME chased', async (t) => {
  const up = await upstream();
  const srv = await startDNSServer({ records: records(), forwarder: newForwarder([`127.0.0.1:${up.address.port}`], 500), address: '127.0.0.1', port: 0 });
  t.after(() => Promise.all([srv.close(), up.close()]));
  const res = new dnsPromises.Resolver({ timeout: 2000, tries: 1 });
  res.setServers([`127.0.0.1:${srv.address.port}`]);
  assert.deepEqual(await res.resolve4('web.default.svc.cluster.local'), ['10.96.12.34']);
  assert.deepEqual(await res.resolveSrv('_http._tcp.web.default.svc.cluster.local'), [{ name: 'web.default.svc.cluster.local', port: 80, priority: 0, weight: 100 }]);
  assert.deepEqual(await res.reverse('10.96.12.34'), ['web.default.svc.cluster.local']);
  await assert.rejects(res.resolve4('nope.default.svc.cluster.local'), (e: NodeJS.ErrnoException) => e.code === 'ENOTFOUND');
  assert.deepEqual(await res.resolve4('upstream.example'), ['192.0.2.53']);
  assert.deepEqual(await res.resolveCname('ext.default.svc.cluster.local'), ['upstream.example']);
  assert.deepEqual(await res.resolve4('ext.default.svc.cluster.local'), ['192.0.2.53']);
  // upstream's own NXDOMAIN is passed through
  await assert.rejects(res.resolve4('other.example'), (e: NodeJS.ErrnoException) => e.code === 'ENOTFOUND');
});

test('SERVFAIL when no upstream answers (within the forward timeout); TCP framing; garbage is ignored or FORMERR', async (t) => {
  const dead = dgram.createSocket('udp4'); // bound, never answers
  await new Promise<void>((r) => dead.bind(0, '127.0.0.1', () => r()));
  const srv = await startDNSServer({ records: records(), forwarder: newForwarder([`127.0.0.1:${dead.address().port}`], 200), address: '127.0.0.1', port: 0 });
  t.after(async () => (dead.close(), await srv.close()));
  const client = dgram.createSocket('udp4');
  t.after(() => client.close());
  const ask = (buf: Buffer): Promise<Buffer> =>
    new Promise((resolve) => {
      client.once('message', (m) => resolve(m));
      client.send(buf, srv.address.port, '127.0.0.1');
    });
  const q = (name: string, id: number) => packet.encode({ type: 'query', id, flags: packet.RECURSION_DESIRED, questions: [{ name, type: 'A', class: 'IN' }] });
  const r1 = packet.decode(await ask(q('www.elsewhere.test', 7))) as packet.DecodedPacket & { rcode: string };
  assert.equal(r1.id, 7);
  assert.equal(r1.rcode, 'SERVFAIL');
  const bad = Buffer.from('0102030405060708090a0b0c0d', 'hex');
  const r2 = packet.decode(await ask(bad)) as packet.DecodedPacket & { rcode: string };
  assert.equal(r2.id, 0x0102);
  assert.equal(r2.rcode, 'FORMERR');

  // TCP: two length-prefixed queries on one connection
  const sock = net.connect(srv.address.port, '127.0.0.1');
  t.after(() => sock.destroy());
  const frames: Buffer[] = [];
  let buf = Buffer.alloc(0);
  const got = new Promise<void>((resolve) =>
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        frames.push(buf.subarray(2, 2 + buf.readUInt16BE(0)));
        buf = buf.subarray(2 + buf.readUInt16BE(0));
      }
      if (frames.length === 2) resolve();
    }),
  );
  for (const [name, id] of [
    ['web.default.svc.cluster.local', 1],
    ['gone.default.svc.cluster.local', 2],
  ] as const) {
    const m = q(name, id);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(m.length);
    sock.write(Buffer.concat([len, m]));
  }
  await got;
  const [a, b] = frames.map((f) => packet.decode(f) as packet.DecodedPacket & { rcode: string });
  assert.deepEqual([a!.id, a!.rcode, a!.flag_aa, (a!.answers![0] as { data: string }).data], [1, 'NOERROR', true, '10.96.12.34']);
  assert.deepEqual([b!.id, b!.rcode, b!.authorities![0]!.type], [2, 'NXDOMAIN', 'SOA']);
});

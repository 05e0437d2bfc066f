import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { makeTempDir } from '../../test/support/tmp.js';
import { BOOTSTRAP_FILES, readBootstrapData, writeBootstrapData } from './bootstrap-data.js';
import { etcdConfigYAML, isInitialized, memberName, parseEtcdArgs } from './config.js';
import { initialCluster } from './join.js';
import { ensureEtcdPKI, etcdPKIPaths } from './pki.js';

describe('managed etcd configuration', () => {
  it('writes the member config as k3s does: TLS with client-cert auth on both ports, k3s timings, --etcd-arg last', () => {
    const pki = etcdPKIPaths('/d');
    const y = parse(
      etcdConfigYAML({
        name: 'n1-0a1b2c3d',
        dataDir: '/d/etcd',
        address: '10.0.0.5',
        ports: { client: 2379, peer: 2380, metrics: 2381 },
        pki,
        initialClusterState: 'existing',
        initialCluster: 'n0-ffffffff=https://10.0.0.4:2380,n1-0a1b2c3d=https://10.0.0.5:2380',
        extraArgs: parseEtcdArgs(['heartbeat-interval=100', '--election-timeout=1000', 'enable-pprof=true']),
      }),
    ) as Record<string, unknown>;
    assert.equal(y['listen-client-urls'], 'https://10.0.0.5:2379,https://127.0.0.1:2379');
    assert.equal(y['advertise-client-urls'], 'https://10.0.0.5:2379');
    assert.equal(y['initial-advertise-peer-urls'], 'https://10.0.0.5:2380');
    assert.equal(y['listen-metrics-urls'], 'http://127.0.0.1:2381');
    assert.equal(y['initial-cluster-state'], 'existing');
    assert.deepEqual(y['client-transport-security'], {
      'cert-file': '/d/tls/etcd/server.crt',
      'key-file': '/d/tls/etcd/server.key',
      'client-cert-auth': true,
      'trusted-ca-file': '/d/tls/etcd/ca.crt',
    });
    assert.deepEqual(y['peer-transport-security'], {
      'cert-file': '/d/tls/etcd/peer.crt',
      'key-file': '/d/tls/etcd/peer.key',
      'client-cert-auth': true,
      'trusted-ca-file': '/d/tls/etcd/ca.crt',
    });
    assert.equal(y['heartbeat-interval'], 100);
    assert.equal(y['election-timeout'], 1000);
    assert.equal(y['enable-pprof'], true);
    assert.equal(y['force-new-cluster'], undefined);
  });

  it('rejects an --etcd-arg without a value', () => {
    assert.throws(() => parseEtcdArgs(['quota-backend-bytes']), /invalid value for --etcd-arg: "quota-backend-bytes": want key=value/);
  });

  it('keeps the member name of a data dir (<node>-<8 hex>) until renewed; no WAL means not initialized', () => {
    const tmp = makeTempDir('k8ts-etcd-cfg-');
    try {
      const n = memberName(tmp.path, 'node-a');
      assert.match(n, /^node-a-[0-9a-f]{8}$/);
      assert.equal(memberName(tmp.path, 'node-a'), n);
      assert.notEqual(memberName(tmp.path, 'node-a', true), n);
      assert.equal(isInitialized(tmp.path), false);
      mkdirSync(join(tmp.path, 'etcd', 'member', 'wal'), { recursive: true });
      assert.equal(isInitialized(tmp.path), true);
    } finally {
      tmp.remove();
    }
  });

  it('initial-cluster lists named members only (one being added has no name yet)', () => {
    const m = (name: string, peer: string) => ({ ID: '1', name, peerURLs: [peer], clientURLs: [], isLearner: false });
    assert.equal(initialCluster([m('a', 'https://h:1'), m('', 'https://h:2'), m('c', 'https://h:3')]), 'a=https://h:1,c=https://h:3');
  });
});

describe('managed etcd PKI (kubeadm layout)', () => {
  it('creates the etcd CA, member and client certificates once, and re-issues a member certificate for a new address', async () => {
    const tmp = makeTempDir('k8ts-etcd-pki-');
    try {
      const p = await ensureEtcdPKI(tmp.path, 'node-a', ['host-a'], ['10.0.0.5']);
      for (const f of ['etcd/ca', 'etcd/server', 'etcd/peer', 'etcd/healthcheck-client', 'apiserver-etcd-client']) {
        assert.ok(existsSync(join(tmp.path, 'tls', `${f}.crt`)) && existsSync(join(tmp.path, 'tls', `${f}.key`)), f);
      }
      const ca = new X509Certificate(readFileSync(p.ca.cert));
      const server = new X509Certificate(readFileSync(p.server.cert));
      assert.ok(server.checkIssued(ca));
      assert.match(server.subject, /CN=node-a/);
      for (const san of ['DNS:localhost', 'DNS:node-a', 'DNS:host-a', 'IP Address:127.0.0.1', 'IP Address:10.0.0.5']) assert.ok(server.subjectAltName!.includes(san), san);
      assert.match(new X509Certificate(readFileSync(p.healthcheckClient.cert)).subject, /CN=kube-etcd-healthcheck-client/);
      assert.match(new X509Certificate(readFileSync(p.apiserverClient.cert)).subject, /CN=kube-apiserver-etcd-client/);

      const before = readFileSync(p.server.cert, 'utf8');
      const client = readFileSync(p.apiserverClient.cert, 'utf8');
      await ensureEtcdPKI(tmp.path, 'node-a', ['host-a'], ['10.0.0.5']);
      assert.equal(readFileSync(p.server.cert, 'utf8'), before);
      await ensureEtcdPKI(tmp.path, 'node-a', ['host-a'], ['10.0.0.6']);
      assert.notEqual(readFileSync(p.server.cert, 'utf8'), before);
      assert.equal(readFileSync(p.apiserverClient.cert, 'utf8'), client);
    } finally {
      tmp.remove();
    }
  });

  it('bootstrap data carries the CAs and the ServiceAccount key, and is written back as it came', async () => {
    const a = makeTempDir('k8ts-etcd-boot-a-');
    const b = makeTempDir('k8ts-etcd-boot-b-');
    try {
      await ensureEtcdPKI(a.path, 'node-a', [], []);
      for (const f of BOOTSTRAP_FILES.filter((f) => !f.startsWith('tls/etcd/'))) {
        mkdirSync(join(a.path, 'tls'), { recursive: true });
        writeFileSync(join(a.path, f), `content of ${f}\n`);
      }
      const data = readBootstrapData(a.path);
      assert.deepEqual(Object.keys(data).sort(), [...BOOTSTRAP_FILES].sort());
      writeBootstrapData(b.path, data);
      for (const f of BOOTSTRAP_FILES) assert.equal(readFileSync(join(b.path, f), 'utf8'), readFileSync(join(a.path, f), 'utf8'));
      assert.throws(() => writeBootstrapData(b.path, { ...data, '../../etc/passwd': { content: 'x' } }), /unexpected file "..\/..\/etc\/passwd"/);
      const { 'tls/sa.key': _omit, ...partial } = data;
      assert.throws(() => writeBootstrapData(b.path, partial), /lacks tls\/sa.key/);
    } finally {
      a.remove();
      b.remove();
    }
  });
});

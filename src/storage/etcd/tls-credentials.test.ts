import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tcpConnect, type AddressInfo, type Socket } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type * as grpc from '@grpc/grpc-js';
import { createCA, issueCert, type KeyPairPEM } from '../../pki/pki.js';
import { startTestEtcd, type TestEtcd } from '../../../test/support/etcd.js';
import { EtcdClient } from './client.js';
import { EtcdTLSCredentials, targetHost } from './tls-credentials.js';

/** A TLS server on 127.0.0.1 with `cert`; `servername` resolves with the ServerName its first client sent (false or null: none). */
async function tlsServer(cert: KeyPairPEM): Promise<{ server: Server; port: number; servername: Promise<string | false | null> }> {
  let sent!: (n: string | false | null) => void;
  const servername = new Promise<string | false | null>((r) => (sent = r));
  const server = createServer({ cert: cert.cert, key: cert.key, ALPNProtocols: ['h2'] }, (s: TLSSocket) => {
    sent(s.servername);
    s.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, servername };
}

const dial = (port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = tcpConnect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });

const uri = (target: string): grpc.experimental.GrpcUri => {
  const m = /^(\w+):(.*)$/.exec(target)!;
  return { scheme: m[1], path: m[2]! };
};

describe('EtcdTLSCredentials', { timeout: 120_000 }, () => {
  let ca: KeyPairPEM;
  let byIP: KeyPairPEM;
  let byName: KeyPairPEM;
  before(async () => {
    ca = await createCA('test-etcd-ca');
    byIP = await issueCert(ca, { commonName: 'etcd', ipAddresses: ['127.0.0.1'], usage: 'server' });
    byName = await issueCert(ca, { commonName: 'etcd', dnsNames: ['localhost'], usage: 'server' });
  });

  it('names the first host of a target', () => {
    assert.equal(targetHost(uri('ipv4:127.0.0.1:2379,10.0.0.2:2379')), '127.0.0.1');
    assert.equal(targetHost(uri('dns:etcd.example:2379')), 'etcd.example');
    assert.equal(targetHost(uri('ipv6:[::1]:2379')), '::1');
  });

  it('sends no ServerName to an IP address and checks the certificate against the dialled address', async () => {
    const srv = await tlsServer(byIP);
    try {
      const creds = new EtcdTLSCredentials(Buffer.from(ca.cert), null, null);
      const r = await creds._createSecureConnector(uri(`ipv4:127.0.0.1:${srv.port}`), {}).connect(await dial(srv.port));
      assert.equal(r.secure, true);
      assert.equal(await srv.servername, false);
      r.socket.destroy();
    } finally {
      srv.server.close();
    }
  });

  it('refuses a certificate that does not name the dialled address', async () => {
    const srv = await tlsServer(byName);
    try {
      const creds = new EtcdTLSCredentials(Buffer.from(ca.cert), null, null);
      const err = await creds
        ._createSecureConnector(uri(`ipv4:127.0.0.1:${srv.port}`), {})
        .connect(await dial(srv.port))
        .then(
          () => undefined,
          (e: NodeJS.ErrnoException) => e,
        );
      assert.equal(err?.code, 'ERR_TLS_CERT_ALTNAME_INVALID');
      assert.match(err.message, /IP: 127\.0\.0\.1 is not in the cert's list/);
    } finally {
      srv.server.close();
    }
  });

  it('sends a host name as ServerName and checks the certificate against it', async () => {
    const srv = await tlsServer(byName);
    try {
      const creds = new EtcdTLSCredentials(Buffer.from(ca.cert), null, null);
      const r = await creds._createSecureConnector(uri(`dns:localhost:${srv.port}`), {}).connect(await dial(srv.port));
      assert.equal(await srv.servername, 'localhost');
      r.socket.destroy();
    } finally {
      srv.server.close();
    }
  });

  describe('EtcdClient to https://127.0.0.1', () => {
    let etcd: TestEtcd;
    before(async () => {
      etcd = await startTestEtcd({ tls: true });
    });
    after(async () => etcd?.stop());

    it('talks to etcd with no RFC 6066 warning', { timeout: 60_000 }, async () => {
      const warnings: string[] = [];
      const onWarning = (w: Error): void => void warnings.push(w.message);
      process.on('warning', onWarning);
      try {
        assert.match(etcd.endpoint, /^https:\/\/127\.0\.0\.1:\d+$/);
        const c = new EtcdClient({ endpoints: [etcd.endpoint], caFile: etcd.tls!.caFile, certFile: etcd.tls!.certFile, keyFile: etcd.tls!.keyFile });
        assert.match((await c.status()).version, /^3\./);
        c.close();
        // a warning is emitted on the next tick after the connection that caused it
        await new Promise((r) => setImmediate(r));
      } finally {
        process.off('warning', onWarning);
      }
      assert.deepEqual(
        warnings.filter((m) => m.includes('RFC 6066')),
        [],
      );
    });
  });
});

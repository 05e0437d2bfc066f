import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, issueCert, type KeyPairPEM } from '../../../pki/pki.js';
import { credentialsFromKubeconfig, webhookCredentialsFrom } from './authentication-info.js';
import { postJSON } from './client.js';
import { readAdmissionConfiguration } from '../config-file.js';

describe('webhook client credentials (--admission-control-config-file)', () => {
  let dir: string;
  let ca: KeyPairPEM;
  let client: KeyPairPEM;
  let server: Server;
  const seen: { authorization?: string; clientCN?: string }[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-webhook-auth-'));
    ca = await createCA('webhook-auth-ca');
    client = await issueCert(ca, { commonName: 'kube-apiserver-webhook-client', usage: 'client' });
    const serving = await issueCert(ca, { commonName: 'webhook', ipAddresses: ['127.0.0.1'], usage: 'server' });
    server = createServer({ cert: serving.cert, key: serving.key, ca: ca.cert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({ authorization: req.headers.authorization, clientCN: peer?.subject?.CN as string | undefined });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"u","allowed":true}}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  after(() => {
    server.closeAllConnections();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const kubeconfig = (users: string): string => {
    const p = join(dir, `kc-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(p, `apiVersion: v1\nkind: Config\nusers:\n${users}`);
    return p;
  };

  it('looks up users as upstream: exact host:port, *.parent, then without :443, then *', () => {
    const r = credentialsFromKubeconfig(
      kubeconfig(`- name: hook.ns.svc:8443
  user: {token: exact}
- name: '*.ns.svc:8443'
  user: {token: star-port}
- name: other.ns.svc
  user: {token: without-port}
- name: '*.example.com'
  user: {token: star-domain}
- name: '*'
  user: {token: default}
`),
    );
    assert.equal(r('hook.ns.svc:8443')?.token, 'exact');
    assert.equal(r('x.ns.svc:8443')?.token, 'star-port');
    assert.equal(r('other.ns.svc:443')?.token, 'without-port');
    assert.equal(r('other.ns.svc:444')?.token, 'default');
    assert.equal(r('a.b.example.com')?.token, 'star-domain');
    assert.equal(r('127.0.0.1:9443')?.token, 'default');
  });

  it('the AdmissionConfiguration names the kubeconfig; a relative kubeConfigFile is refused with upstream text', () => {
    const kc = kubeconfig(`- name: '*'\n  user: {token: t}\n`);
    const cfg = join(dir, 'admission.yaml');
    writeFileSync(
      cfg,
      `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: ${kc}
`,
    );
    const plugins = readAdmissionConfiguration(cfg);
    assert.equal(webhookCredentialsFrom(plugins.get('ValidatingAdmissionWebhook'))?.('h:1')?.token, 't');
    assert.equal(webhookCredentialsFrom(plugins.get('MutatingAdmissionWebhook')), undefined);
    assert.throws(
      () => webhookCredentialsFrom({ kind: 'WebhookAdmissionConfiguration', kubeConfigFile: 'rel.yaml' }),
      /^Error: kubeConfigFile: Invalid value: "rel.yaml": must be an absolute file path$/,
    );
  });

  it('calls carry the bearer token and the client certificate of the matching user', async () => {
    const port = (server.address() as AddressInfo).port;
    const r = credentialsFromKubeconfig(
      kubeconfig(`- name: 127.0.0.1:${port}
  user:
    token: secret-token
    client-certificate-data: ${Buffer.from(client.cert).toString('base64')}
    client-key-data: ${Buffer.from(client.key).toString('base64')}
`),
    );
    const caBundle = Buffer.from(ca.cert).toString('base64');
    await postJSON({ url: `https://127.0.0.1:${port}/validate`, caBundle }, '{}', { timeoutSeconds: 5, credentials: r });
    assert.deepEqual(seen.pop(), { authorization: 'Bearer secret-token', clientCN: 'kube-apiserver-webhook-client' });
    await postJSON({ url: `https://127.0.0.1:${port}/validate`, caBundle }, '{}', { timeoutSeconds: 5 });
    const anon = seen.pop();
    assert.equal(anon?.authorization, undefined);
    assert.equal(anon?.clientCN, undefined);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { parseCSR } from '../../api/certificates/definition.js';
import { createCA } from '../../pki/pki.js';
import { aggregateRules } from '../clusterroleaggregation/controller.js';
import { isNodeClientCert } from './controller.js';
import { createCSR, signCSR } from './sign.js';

describe('CSR signing and recognition', () => {
  it('signs a kubelet client CSR with the cluster CA for the requested lifetime', async () => {
    const ca = await createCA('test-ca');
    const { csr } = await createCSR('system:node:n1', ['system:nodes']);
    const now = new Date('2026-11-30T10:00:00Z');
    const pem = await signCSR(ca, csr, ['digital signature', 'client auth'], 3600, now);
    const cert = new X509Certificate(pem);
    assert.equal(cert.subject, 'O=system:nodes\nCN=system:node:n1');
    assert.ok(cert.verify(new X509Certificate(ca.cert).publicKey));
    assert.equal(new Date(cert.validTo).getTime(), now.getTime() + 3600_000);
    const ext = new x509.X509Certificate(pem).getExtension(x509.ExtendedKeyUsageExtension);
    assert.deepEqual([...(ext?.usages ?? [])], [x509.ExtendedKeyUsage.clientAuth]);
  });

  it('recognises node client requests only with the kubelet signer, system:nodes and client usages', async () => {
    const { csr } = await createCSR('system:node:n1', ['system:nodes']);
    const req = parseCSR(Buffer.from(csr).toString('base64'));
    const spec = (signerName: string, usages: string[]) => ({ spec: { request: '', signerName, usages } });
    assert.ok(isNodeClientCert(spec('kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']), req));
    assert.ok(!isNodeClientCert(spec('kubernetes.io/kube-apiserver-client', ['client auth']), req));
    assert.ok(!isNodeClientCert(spec('kubernetes.io/kube-apiserver-client-kubelet', ['server auth', 'client auth']), req));
    const other = parseCSR(Buffer.from((await createCSR('alice', ['system:nodes'])).csr).toString('base64'));
    assert.ok(!isNodeClientCert(spec('kubernetes.io/kube-apiserver-client-kubelet', ['client auth']), other));
    assert.throws(() => parseCSR(Buffer.from('garbage').toString('base64')), /PEM block type must be CERTIFICATE REQUEST/);
  });
});

describe('ClusterRole aggregation', () => {
  it('unions the rules of the roles the selectors match', () => {
    const r = (name: string, labels: Record<string, string>, verbs: string[]) => ({ metadata: { name, labels }, rules: [{ verbs, apiGroups: [''], resources: ['pods'] }] });
    const agg = { metadata: { name: 'mine' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'x/aggregate': 'true' } }] } };
    const all = [agg, r('b', { 'x/aggregate': 'true' }, ['list']), r('a', { 'x/aggregate': 'true' }, ['get']), r('c', {}, ['delete']), r('d', { 'x/aggregate': 'true' }, ['get'])];
    assert.deepEqual(
      aggregateRules(agg, all).map((x) => x.verbs),
      [['get'], ['list']],
    );
  });
});

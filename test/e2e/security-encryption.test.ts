/**
 * Encryption at rest end to end: Secrets written through kubectl are stored encrypted
 * (the raw storage row starts with `k8s:enc:aescbc:v1:key1:`), read back in clear, and
 * stay readable after the provider order changes (key rotation).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { EncryptingStorage } from '../../src/apiserver/encryption/storage.js';
import { startSecureCluster, type SecureCluster } from './security-harness.js';

const key1 = randomBytes(32).toString('base64');
const key2 = randomBytes(32).toString('base64');
const CONFIG = `
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aescbc:
          keys:
            - name: key1
              secret: ${key1}
      - secretbox:
          keys:
            - name: key2
              secret: ${key2}
      - identity: {}
`;

describe('encryption at rest (kubectl)', { timeout: 120_000 }, () => {
  let c: SecureCluster;
  before(async () => {
    c = await startSecureCluster({ encryption: CONFIG });
  });
  after(async () => {
    await c?.stop();
  });

  it('stores Secrets encrypted and serves them decrypted', async () => {
    const r = await c.kubectl(c.admin, ['create', 'secret', 'generic', 'db', '--from-literal=password=hunter2']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(c.storage instanceof EncryptingStorage);
    const raw = await (c.storage as EncryptingStorage).inner.get('/registry/secrets/default/db');
    assert.ok(raw.kv);
    assert.ok(raw.kv.value.startsWith('k8s:enc:aescbc:v1:key1:'), raw.kv.value.slice(0, 40));
    assert.equal(raw.kv.value.includes('hunter2'), false);
    assert.equal(raw.kv.value.includes(Buffer.from('hunter2').toString('base64')), false);
    const got = JSON.parse((await c.kubectl(c.admin, ['get', 'secret', 'db', '-o', 'json'])).stdout);
    assert.equal(Buffer.from(got.data.password, 'base64').toString(), 'hunter2');
    // ConfigMaps are not configured: stored in clear
    await c.kubectl(c.admin, ['create', 'configmap', 'plain', '--from-literal=a=visible']);
    const cm = await (c.storage as EncryptingStorage).inner.get('/registry/configmaps/default/plain');
    assert.match(cm.kv!.value, /visible/);
  });

  it('reads values written by the other providers (rotation) and in clear (identity)', async () => {
    const inner = (c.storage as EncryptingStorage).inner;
    const { secretbox } = await import('../../src/apiserver/encryption/config.js');
    const sb = secretbox([{ name: 'key2', secret: key2 }]);
    const obj = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'old', namespace: 'default', uid: 'u1', creationTimestamp: '2026-01-01T00:00:00Z' },
      type: 'Opaque',
      data: { k: Buffer.from('rotated').toString('base64') },
    };
    await inner.create('/registry/secrets/default/old', sb.encrypt(JSON.stringify(obj)));
    await inner.create('/registry/secrets/default/legacy', JSON.stringify({ ...obj, metadata: { ...obj.metadata, name: 'legacy' } }));
    for (const name of ['old', 'legacy']) {
      const got = JSON.parse((await c.kubectl(c.admin, ['get', 'secret', name, '-o', 'json'])).stdout);
      assert.equal(Buffer.from(got.data.k, 'base64').toString(), 'rotated');
    }
    // an update re-encrypts with the first provider
    assert.equal((await c.kubectl(c.admin, ['label', 'secret', 'old', 'rotated=yes'])).code, 0);
    assert.ok((await inner.get('/registry/secrets/default/old')).kv!.value.startsWith('k8s:enc:aescbc:v1:key1:'));
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { aescbc, aesgcm, identity, parseEncryptionConfig, ProviderChain, resourcePrefix, secretbox } from './config.js';
import { secretboxOpen, secretboxSeal } from './secretbox.js';

const k32 = () => randomBytes(32).toString('base64');

describe('encryption providers', () => {
  it('secretbox matches the NaCl test vector', () => {
    const key = Buffer.from('1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389', 'hex');
    const nonce = Buffer.from('69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37', 'hex');
    const m = Buffer.from(
      'be075fc53c81f2d5cf141316ebeb0c7b5228c52a4c62cbd44b66849b64244ffce5ecbaaf33bd751a1ac728d45e6c61296cdc3c01233561f41db66cce314adb310e3be8250c46f06dceea3a7fa1348057e2f6556ad6b1318a024a838f21af1fde048977eb48f59ffd4924ca1c60902e52f0a089bc76897040e082f937763848645e0705',
      'hex',
    );
    const c = secretboxSeal(m, nonce, key);
    assert.equal(Buffer.from(c).subarray(0, 32).toString('hex'), 'f3ffc7703f9400e52a7dfb4b3d3305d98e993b9f48681273c29650ba32fc76ce');
    assert.ok(Buffer.from(secretboxOpen(c, nonce, key)!).equals(m));
    c[40] ^= 1;
    assert.equal(secretboxOpen(c, nonce, key), undefined);
  });

  it('each provider round-trips with its prefix and refuses tampering', () => {
    for (const [name, p] of [
      ['aescbc', aescbc([{ name: 'k1', secret: k32() }])],
      ['aesgcm', aesgcm([{ name: 'k1', secret: randomBytes(16).toString('base64') }])],
      ['secretbox', secretbox([{ name: 'k1', secret: k32() }])],
    ] as const) {
      const enc = p.encrypt('{"secret":"value"}');
      assert.ok(enc.startsWith(`k8s:enc:${name}:v1:k1:`), enc);
      assert.equal(p.decrypt(enc), '{"secret":"value"}');
      assert.equal(p.decrypt('{"plain":1}'), undefined);
      if (name !== 'aescbc') {
        const body = Buffer.from(enc.slice(p.prefix.length), 'base64');
        body[body.length - 1] ^= 1;
        assert.throws(() => p.decrypt(p.prefix + body.toString('base64')));
      }
    }
    assert.throws(() => aescbc([{ name: 'k', secret: randomBytes(7).toString('base64') }]), /must be 16, 24, 32 bytes, got 7/);
  });

  it('a chain writes with the first provider and reads with any', () => {
    const a = aescbc([{ name: 'new', secret: k32() }]);
    const b = secretbox([{ name: 'old', secret: k32() }]);
    const chain = new ProviderChain([a, b, identity]);
    assert.ok(chain.encrypt('x').startsWith('k8s:enc:aescbc:v1:new:'));
    assert.equal(chain.decrypt(b.encrypt('old-value')), 'old-value');
    assert.equal(chain.decrypt('{"clear":true}'), '{"clear":true}');
    assert.throws(() => new ProviderChain([a]).decrypt('k8s:enc:aesgcm:v1:x:abc'), /no matching prefix/);
  });

  it('parses EncryptionConfiguration', () => {
    const cfg = parseEncryptionConfig(`
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets, deployments.apps]
    providers:
      - identity: {}
      - aesgcm: { keys: [{ name: key1, secret: ${k32()} }] }
`);
    assert.deepEqual([...cfg.byPrefix.keys()], ['/registry/secrets/', '/registry/deployments/']);
    assert.equal(cfg.byPrefix.get('/registry/secrets/')!.encrypt('v'), 'v');
    assert.equal(resourcePrefix('configmaps'), '/registry/configmaps/');
    assert.throws(() => parseEncryptionConfig('kind: Other'), /want "EncryptionConfiguration"/);
    assert.throws(
      () => parseEncryptionConfig('apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources: [{resources: [secrets], providers: [{kms: {}}]}]'),
      /unsupported provider "kms"/,
    );
  });
});

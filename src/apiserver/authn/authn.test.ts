import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { GroupVersionResource, KObject, ObjectLookup } from '../../api/resource.js';
import { StatusError } from '../../apimachinery/errors.js';
import { BootstrapTokenAuthenticator, bootstrapTokenSecret } from './bootstrap-token.js';
import { Authentication } from './filter.js';
import { generateServiceAccountKey, ServiceAccountTokens } from './serviceaccount.js';
import { parseCSVLine, TokenFileAuthenticator } from './token-file.js';
import { bearerToken, InvalidTokenError } from './types.js';

function lookupOf(objs: Record<string, KObject>): ObjectLookup {
  return {
    async get(r: GroupVersionResource, ns: string, name: string) {
      return objs[`${r.resource}/${ns}/${name}`];
    },
    async list() {
      return [];
    },
  };
}

describe('static token file', () => {
  it('parses upstream CSV: token,user,uid[,"groups"]', async () => {
    assert.deepEqual(parseCSVLine('a,b,"c,d",""'), ['a', 'b', 'c,d', '']);
    const f = new TokenFileAuthenticator('t1,alice,1\n\nt2,bob,2,"dev,ops"\n t3 ,carol,3,\n');
    assert.equal(f.size, 3);
    assert.deepEqual(await f.authenticateToken('t2'), { username: 'bob', uid: '2', groups: ['dev', 'ops'] });
    assert.deepEqual(await f.authenticateToken('t3'), { username: 'carol', uid: '3', groups: [] });
    assert.equal(await f.authenticateToken('nope'), undefined);
    assert.throws(() => new TokenFileAuthenticator('t,only-two', 'tokens.csv'), /token file 'tokens.csv' must have at least 3 columns \(token, user name, user uid\), found 2/);
  });

  it('reads bearer tokens and answers 401 for unknown ones', async () => {
    assert.equal(bearerToken('Bearer abc'), 'abc');
    assert.equal(bearerToken('bearer  abc '), 'abc');
    assert.equal(bearerToken('Basic x'), undefined);
    const a = new Authentication([new TokenFileAuthenticator('t1,alice,1')]);
    const req = { method: 'GET', url: '/', headers: { authorization: 'Bearer t1' } as Record<string, string | undefined> };
    await a.authenticate(req);
    assert.deepEqual(req, { ...req, user: { username: 'alice', uid: '1', groups: ['system:authenticated'] } });
    await assert.rejects(a.authenticate({ method: 'GET', url: '/', headers: { authorization: 'Bearer bad' } }), (e: unknown) => e instanceof StatusError && e.code === 401);
    const anon = { method: 'GET', url: '/', headers: {} as Record<string, string | undefined> };
    await a.authenticate(anon);
    assert.equal((anon as { user?: unknown }).user, undefined);
  });
});

describe('ServiceAccount tokens', () => {
  const key = generateServiceAccountKey();
  let now = new Date('2026-11-30T10:00:00Z');
  const objs: Record<string, KObject> = {
    'serviceaccounts/ns/sa': { metadata: { name: 'sa', uid: 'sa-uid' } },
    'pods/ns/p': { metadata: { name: 'p', uid: 'pod-uid' } },
  };
  const tokens = new ServiceAccountTokens({ key, lookup: lookupOf(objs), now: () => now });
  const spec = { namespace: 'ns', serviceAccount: { name: 'sa', uid: 'sa-uid' }, audiences: ['https://kubernetes.default.svc.cluster.local'], expirationSeconds: 600 };

  it('issues upstream claims and validates them into a user', async () => {
    const t = await tokens.issue({ ...spec, pod: { name: 'p', uid: 'pod-uid' } });
    assert.equal(t.expirationTimestamp, '2026-11-30T10:10:00Z');
    const [h, p] = t.token
      .split('.')
      .slice(0, 2)
      .map((s) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8')));
    assert.equal(h.alg, 'ES256');
    assert.equal(h.kid, key.kid);
    assert.equal(p.sub, 'system:serviceaccount:ns:sa');
    assert.deepEqual(p['kubernetes.io'], { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'sa-uid' }, pod: { name: 'p', uid: 'pod-uid' } });
    const u = await tokens.authenticateToken(t.token);
    assert.equal(u?.username, 'system:serviceaccount:ns:sa');
    assert.deepEqual(u?.groups, ['system:serviceaccounts', 'system:serviceaccounts:ns']);
    assert.deepEqual(u?.extra?.['authentication.kubernetes.io/pod-name'], ['p']);
  });

  it('rejects expired tokens, foreign audiences, deleted or recreated bound objects', async () => {
    const t = (await tokens.issue(spec)).token;
    await assert.rejects(tokens.validate(t, ['other']), InvalidTokenError);
    now = new Date('2026-11-30T10:10:59Z'); // within go-jose's 60 s leeway
    assert.ok(await tokens.validate(t, tokens.apiAudiences));
    now = new Date('2026-11-30T10:11:01Z');
    await assert.rejects(tokens.validate(t, tokens.apiAudiences), { message: 'service account token has expired' });
    now = new Date('2026-11-30T10:00:00Z');
    const bound = (await tokens.issue({ ...spec, pod: { name: 'p', uid: 'old-uid' } })).token;
    await assert.rejects(tokens.validate(bound, tokens.apiAudiences), { message: 'pod UID (pod-uid) does not match service account pod ref claim (old-uid)' });
    const gone = (await tokens.issue({ ...spec, pod: { name: 'missing', uid: 'x' } })).token;
    await assert.rejects(tokens.validate(gone, tokens.apiAudiences), { message: 'service account token has been invalidated' });
    const other = new ServiceAccountTokens({ key: generateServiceAccountKey() });
    await assert.rejects(other.validate(t, other.apiAudiences), InvalidTokenError);
    assert.equal(await tokens.authenticateToken('not.a-jwt'), undefined);
  });

  it('kube-api-access tokens (pod-bound, 3607 s, API audiences) are extended to a year with warnafter, as upstream', async () => {
    now = new Date('2026-11-30T10:00:00Z');
    const pod = { name: 'p', uid: 'pod-uid' };
    const t = await tokens.issue({ ...spec, expirationSeconds: 3607, pod, node: { name: 'n1', uid: 'node-uid' } });
    assert.equal(t.expirationTimestamp, '2026-11-30T11:00:07Z', 'status reports the requested lifetime');
    const p = JSON.parse(Buffer.from(t.token.split('.')[1]!, 'base64url').toString('utf8'));
    assert.equal(p.exp - p.iat, 365 * 24 * 3600);
    assert.equal(p['kubernetes.io'].warnafter, p.iat + 3607);
    now = new Date('2026-12-30T10:00:00Z'); // past warnafter: still accepted
    assert.equal((await tokens.validate(t.token, tokens.apiAudiences))?.user.username, 'system:serviceaccount:ns:sa');
    now = new Date('2026-11-30T10:00:00Z');
    // not extended: another lifetime, a foreign audience, or not bound to a pod
    for (const s2 of [
      { ...spec, expirationSeconds: 3600, pod },
      { ...spec, expirationSeconds: 3607, pod, audiences: ['vault'] },
      { ...spec, expirationSeconds: 3607 },
    ]) {
      const q = JSON.parse(Buffer.from((await tokens.issue(s2)).token.split('.')[1]!, 'base64url').toString('utf8'));
      assert.equal(q.exp - q.iat, s2.expirationSeconds);
      assert.equal(q['kubernetes.io'].warnafter, undefined);
    }
    const off = new ServiceAccountTokens({ key, extendExpiration: false, now: () => now });
    const q = JSON.parse(Buffer.from((await off.issue({ ...spec, expirationSeconds: 3607, pod })).token.split('.')[1]!, 'base64url').toString('utf8'));
    assert.equal(q.exp - q.iat, 3607);
  });

  it('user extra as upstream v1.32: pod name/uid, credential id, node name/uid (the node is informational for pod-bound tokens)', async () => {
    now = new Date('2026-11-30T10:00:00Z');
    const t = await tokens.issue({ ...spec, pod: { name: 'p', uid: 'pod-uid' }, node: { name: 'gone-node', uid: 'node-uid' } });
    const jti = JSON.parse(Buffer.from(t.token.split('.')[1]!, 'base64url').toString('utf8')).jti;
    const r = await tokens.validate(t.token, tokens.apiAudiences);
    assert.deepEqual(r?.user, {
      username: 'system:serviceaccount:ns:sa',
      uid: 'sa-uid',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'],
      extra: {
        'authentication.kubernetes.io/credential-id': [`JTI=${jti}`],
        'authentication.kubernetes.io/pod-name': ['p'],
        'authentication.kubernetes.io/pod-uid': ['pod-uid'],
        'authentication.kubernetes.io/node-name': ['gone-node'],
        'authentication.kubernetes.io/node-uid': ['node-uid'],
      },
    });
    // a node-bound token (no pod) needs its node
    await assert.rejects(tokens.validate((await tokens.issue({ ...spec, node: { name: 'gone-node', uid: 'node-uid' } })).token, tokens.apiAudiences), {
      message: 'service account token has been invalidated',
    });
  });

  it('a pod in its grace period keeps its token; one deleted longer than the leeway ago does not', async () => {
    now = new Date('2026-11-30T10:00:00Z');
    const o: Record<string, KObject> = {
      'serviceaccounts/ns/sa': { metadata: { name: 'sa', uid: 'sa-uid' } },
      'pods/ns/p': { metadata: { name: 'p', uid: 'pod-uid', deletionTimestamp: '2026-11-30T10:00:30Z' } },
    };
    const tk = new ServiceAccountTokens({ key, lookup: lookupOf(o), now: () => now });
    const t = (await tk.issue({ ...spec, pod: { name: 'p', uid: 'pod-uid' } })).token;
    assert.ok(await tk.validate(t, tk.apiAudiences));
    now = new Date('2026-11-30T10:01:31Z');
    await assert.rejects(tk.validate(t, tk.apiAudiences), { message: 'service account token has been invalidated' });
    // the service account itself: gone, or recreated
    now = new Date('2026-11-30T10:00:00Z');
    delete o['serviceaccounts/ns/sa'];
    await assert.rejects(tk.validate(t, tk.apiAudiences), { message: 'serviceaccounts "sa" not found' });
    o['serviceaccounts/ns/sa'] = { metadata: { name: 'sa', uid: 'new-uid' } };
    await assert.rejects(tk.validate(t, tk.apiAudiences), { message: 'service account UID (new-uid) does not match claim (sa-uid)' });
  });

  it('tokens not valid yet or issued in the future are rejected', async () => {
    now = new Date('2026-11-30T10:05:00Z');
    const t = (await tokens.issue(spec)).token;
    now = new Date('2026-11-30T10:03:59Z');
    await assert.rejects(tokens.validate(t, tokens.apiAudiences), { message: 'service account token is not valid yet' });
    now = new Date('2026-11-30T10:04:01Z');
    assert.ok(await tokens.validate(t, tokens.apiAudiences));
  });
});

describe('bootstrap tokens', () => {
  it('authenticates id.secret against kube-system/bootstrap-token-<id>', async () => {
    const now = new Date('2026-11-30T10:00:00Z');
    const s = bootstrapTokenSecret('abcdef', '0123456789abcdef', { expiration: new Date('2026-11-30T11:00:00Z'), extraGroups: ['system:bootstrappers:k8ts:default-node-token'] });
    const a = new BootstrapTokenAuthenticator(lookupOf({ 'secrets/kube-system/bootstrap-token-abcdef': s as KObject }), () => now);
    assert.deepEqual(await a.authenticateToken('abcdef.0123456789abcdef'), {
      username: 'system:bootstrap:abcdef',
      groups: ['system:bootstrappers', 'system:bootstrappers:k8ts:default-node-token'],
    });
    await assert.rejects(a.authenticateToken('abcdef.0123456789abcdee'), InvalidTokenError);
    await assert.rejects(a.authenticateToken('zzzzzz.0123456789abcdef'), InvalidTokenError);
    assert.equal(await a.authenticateToken('not-a-bootstrap-token'), undefined);
    const late = new BootstrapTokenAuthenticator(lookupOf({ 'secrets/kube-system/bootstrap-token-abcdef': s as KObject }), () => new Date('2026-11-30T12:00:00Z'));
    await assert.rejects(late.authenticateToken('abcdef.0123456789abcdef'), InvalidTokenError);
  });
});

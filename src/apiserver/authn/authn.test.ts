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
    const [h, p] = t.token.split('.').slice(0, 2).map((s) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8')));
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
    now = new Date('2026-11-30T10:11:00Z');
    await assert.rejects(tokens.validate(t, tokens.apiAudiences), /expired/);
    now = new Date('2026-11-30T10:00:00Z');
    const bound = (await tokens.issue({ ...spec, pod: { name: 'p', uid: 'old-uid' } })).token;
    await assert.rejects(tokens.validate(bound, tokens.apiAudiences), /pod UID \(pod-uid\) does not match claim \(old-uid\)/);
    const gone = (await tokens.issue({ ...spec, pod: { name: 'missing', uid: 'x' } })).token;
    await assert.rejects(tokens.validate(gone, tokens.apiAudiences), /pod ns\/missing has been deleted/);
    const other = new ServiceAccountTokens({ key: generateServiceAccountKey() });
    await assert.rejects(other.validate(t, other.apiAudiences), InvalidTokenError);
    assert.equal(await tokens.authenticateToken('not.a-jwt'), undefined);
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

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../api/resource.js';
import { newNotFound } from '../../apimachinery/errors.js';
import type { Client, ResourceRef } from '../../client/types.js';
import { TokenManager, type TokenRequestSpec } from './manager.js';

interface Call {
  resource: string;
  ns: string;
  name: string;
  sub: string;
  body: KObject;
}

/** A client whose only verb is serviceaccounts/token: it answers like the API server (status.expirationTimestamp = now + requested seconds). */
function fakeClient(now: () => number) {
  const calls: Call[] = [];
  let fail: Error | undefined;
  let n = 0;
  const client = {
    async createSubresource(r: ResourceRef, ns: string, name: string, sub: string, body: KObject): Promise<KObject> {
      calls.push({ resource: r.resource, ns, name, sub, body: structuredClone(body) });
      if (fail) throw fail;
      const spec = body.spec as { expirationSeconds: number };
      const exp = new Date(Math.floor(now() / 1000) * 1000 + spec.expirationSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      return { ...body, status: { token: `tok-${++n}`, expirationTimestamp: exp } };
    },
  } as unknown as Client;
  return { client, calls, setFail: (e: Error | undefined) => (fail = e) };
}

const spec = (o: Partial<TokenRequestSpec> = {}): TokenRequestSpec => ({
  namespace: 'ns1',
  serviceAccount: 'default',
  audiences: [],
  expirationSeconds: 3607,
  pod: { name: 'p', uid: 'uid-1' },
  ...o,
});

describe('TokenManager', () => {
  const setup = (jitterMs = 0) => {
    let t = Date.UTC(2026, 0, 1);
    const clock = { now: () => t, advance: (ms: number) => (t += ms) };
    const f = fakeClient(clock.now);
    const logs: string[] = [];
    const m = new TokenManager(f.client, clock.now, { jitterMs: () => jitterMs, log: (msg) => logs.push(msg) });
    return { m, clock, ...f, logs };
  };

  it('requests what the volume asks for, bound to the pod, through serviceaccounts/<sa>/token', async () => {
    const { m, calls } = setup();
    assert.equal(await m.getToken(spec({ serviceAccount: 'builder', audiences: ['vault'], expirationSeconds: 7200 })), 'tok-1');
    assert.equal(calls.length, 1);
    const c = calls[0]!;
    assert.deepEqual([c.resource, c.ns, c.name, c.sub], ['serviceaccounts', 'ns1', 'builder', 'token']);
    assert.equal(c.body.apiVersion, 'authentication.k8s.io/v1');
    assert.equal(c.body.kind, 'TokenRequest');
    assert.deepEqual(c.body.spec, {
      audiences: ['vault'],
      expirationSeconds: 7200,
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'uid-1' },
    });
  });

  it('caches per service account, audiences, expiration and pod', async () => {
    const { m, calls } = setup();
    assert.equal(await m.getToken(spec()), 'tok-1');
    assert.equal(await m.getToken(spec()), 'tok-1');
    assert.equal(calls.length, 1);
    assert.equal(await m.getToken(spec({ audiences: ['other'] })), 'tok-2');
    assert.equal(await m.getToken(spec({ expirationSeconds: 600 })), 'tok-3');
    assert.equal(await m.getToken(spec({ pod: { name: 'p', uid: 'uid-2' } })), 'tok-4');
    assert.equal(await m.getToken(spec({ serviceAccount: 'x' })), 'tok-5');
    assert.equal(calls.length, 5);
    assert.equal(m.size, 5);
  });

  it('concurrent requests for one token share a TokenRequest', async () => {
    const { m, calls } = setup();
    const got = await Promise.all([m.getToken(spec()), m.getToken(spec()), m.getToken(spec())]);
    assert.deepEqual(got, ['tok-1', 'tok-1', 'tok-1']);
    assert.equal(calls.length, 1);
  });

  it('refreshes once 80 % of the lifetime has passed', async () => {
    const { m, clock, calls } = setup();
    await m.getToken(spec({ expirationSeconds: 1000 }));
    clock.advance(800_000); // exactly 80 %: not yet
    assert.equal(await m.getToken(spec({ expirationSeconds: 1000 })), 'tok-1');
    clock.advance(1000);
    assert.equal(await m.getToken(spec({ expirationSeconds: 1000 })), 'tok-2');
    assert.equal(calls.length, 2);
  });

  it('the jitter brings the refresh forward', async () => {
    const { m, clock } = setup(5000);
    await m.getToken(spec({ expirationSeconds: 1000 }));
    clock.advance(795_000); // 80 % less the 5 s jitter: not yet
    assert.equal(await m.getToken(spec({ expirationSeconds: 1000 })), 'tok-1');
    clock.advance(1000);
    assert.equal(await m.getToken(spec({ expirationSeconds: 1000 })), 'tok-2');
  });

  it('refreshes a long-lived token once it is older than 24 h', async () => {
    const { m, clock } = setup();
    const week = spec({ expirationSeconds: 7 * 24 * 3600 });
    await m.getToken(week);
    clock.advance(24 * 3600_000);
    assert.equal(await m.getToken(week), 'tok-1');
    clock.advance(1000);
    assert.equal(await m.getToken(week), 'tok-2');
  });

  it('a first request that fails propagates the API error (FailedMount path)', async () => {
    const { m, setFail } = setup();
    setFail(newNotFound({ group: '', resource: 'serviceaccounts' }, 'builder'));
    await assert.rejects(m.getToken(spec({ serviceAccount: 'builder' })), { message: 'failed to fetch token: serviceaccounts "builder" not found' });
    assert.equal(m.size, 0);
    setFail(undefined);
    assert.equal(await m.getToken(spec({ serviceAccount: 'builder' })), 'tok-1');
  });

  it('a failed refresh serves the cached token while it is valid, and fails once it has expired', async () => {
    const { m, clock, setFail, calls, logs } = setup();
    await m.getToken(spec({ expirationSeconds: 1000 }));
    setFail(new Error('connection refused'));
    clock.advance(950_000);
    assert.equal(await m.getToken(spec({ expirationSeconds: 1000 })), 'tok-1');
    assert.equal(calls.length, 2);
    assert.equal(logs.length, 1);
    clock.advance(50_001); // expired, and the minute-ly collection has not run since

    await assert.rejects(m.getToken(spec({ expirationSeconds: 1000 })), /^Error: token .* expired and refresh failed: connection refused$/);
    setFail(undefined);
    assert.equal(await m.getToken(spec({ expirationSeconds: 1000 })), 'tok-2');
  });

  it('an expired token that was collected fails like a first request', async () => {
    const { m, clock, setFail } = setup();
    await m.getToken(spec({ expirationSeconds: 1000 }));
    setFail(new Error('connection refused'));
    clock.advance(1_000_001);
    await assert.rejects(m.getToken(spec({ expirationSeconds: 1000 })), { message: 'failed to fetch token: connection refused' });
  });

  it('deletePod drops only that pod’s tokens; expired tokens are collected', async () => {
    const { m, clock } = setup();
    await m.getToken(spec());
    await m.getToken(spec({ audiences: ['a'] }));
    await m.getToken(spec({ pod: { name: 'q', uid: 'uid-2' }, expirationSeconds: 600 }));
    assert.equal(m.size, 3);
    m.deletePod('uid-1');
    assert.equal(m.size, 1);
    clock.advance(601_000);
    m.cleanup();
    assert.equal(m.size, 0);
  });

  it('getToken collects expired tokens at most once a minute', async () => {
    const { m, clock } = setup();
    await m.getToken(spec({ pod: { name: 'q', uid: 'uid-2' }, expirationSeconds: 600 }));
    clock.advance(601_000);
    await m.getToken(spec());
    assert.equal(m.size, 1, 'the expired token of pod q was collected');
  });
});

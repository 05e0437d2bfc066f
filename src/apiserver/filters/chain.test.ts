import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { UserInfo } from '../../api/resource.js';
import { Auditor } from '../audit/audit.js';
import { parsePolicy } from '../audit/policy.js';
import { Authentication } from '../authn/filter.js';
import { TokenFileAuthenticator } from '../authn/token-file.js';
import type { AuthorizationAttributes, Authorizer } from '../apiserver.js';
import { UnionAuthorizer } from '../authz/types.js';
import type { ApiRequest, ResponseWriter } from '../http/types.js';
import { buildHandlerChain } from './chain.js';
import { withMaxInFlightLimit } from './max-in-flight.js';
import { withPanicRecovery } from './panic-recovery.js';
import type { Handler } from './types.js';

/** A writer that keeps what was written. */
class Recorder implements ResponseWriter {
  status = 0;
  headers: Record<string, string | string[]> = {};
  body = '';
  closed = false;
  writeHead(s: number, h: Record<string, string | string[]>): void {
    this.status = s;
    this.headers = h;
  }
  write(c: string | Buffer): void {
    this.body += c.toString();
  }
  end(c?: string | Buffer): void {
    if (c !== undefined) this.body += c.toString();
    this.closed = true;
  }
  onClose(): void {}
  get json(): { code?: number; reason?: string; message?: string } {
    return JSON.parse(this.body) as { code?: number; reason?: string; message?: string };
  }
}

const req = (method: string, url: string, o: { user?: UserInfo; headers?: Record<string, string> } = {}): ApiRequest => ({
  method,
  url,
  headers: o.headers ?? {},
  user: o.user,
});

async function run(h: Handler, r: ApiRequest): Promise<Recorder> {
  const w = new Recorder();
  await h(r, w);
  return w;
}

/** The innermost handler: answers 200 with the user it sees. */
const whoami: Handler = async (r, w) => {
  w.writeHead(200, { 'Content-Type': 'application/json' });
  w.end(JSON.stringify({ user: r.user }));
};

describe('handler chain', () => {
  const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };

  it('authenticates bearer tokens, gives public paths to anonymous and answers 401 elsewhere', async () => {
    const h = buildHandlerChain(whoami, { authentication: new Authentication([new TokenFileAuthenticator('t1,bob,1')]) });
    const ok = await run(h, req('GET', '/api', { headers: { authorization: 'Bearer t1' } }));
    assert.equal(ok.status, 200);
    assert.deepEqual(JSON.parse(ok.body).user, { username: 'bob', uid: '1', groups: ['system:authenticated'] });
    const anon = await run(h, req('GET', '/healthz/ping'));
    assert.deepEqual(JSON.parse(anon.body).user, { username: 'system:anonymous', groups: ['system:unauthenticated'] });
    for (const r of [req('GET', '/api'), req('POST', '/healthz'), req('GET', '/version', { headers: { authorization: 'Bearer nope' } })]) {
      const w = await run(h, r);
      assert.equal(w.status, 401, r.url);
      assert.equal(w.json.reason, 'Unauthorized');
    }
  });

  it('authorizes with the request info, and answers 403 with upstream message', async () => {
    const seen: AuthorizationAttributes[] = [];
    const authorizer: Authorizer = {
      async authorize(a) {
        seen.push(a);
        return a.verb === 'list' ? { allowed: true } : { allowed: false, reason: 'no rule' };
      },
    };
    const h = buildHandlerChain(whoami, { authorizer });
    assert.equal((await run(h, req('GET', '/api/v1/namespaces/default/pods?labelSelector=a%3Db', { user: alice }))).status, 200);
    assert.equal(seen[0]!.resource, 'pods');
    assert.equal(seen[0]!.namespace, 'default');
    assert.equal(seen[0]!.labelSelector, 'a=b');
    const denied = await run(h, req('DELETE', '/api/v1/namespaces/default/pods/p', { user: alice }));
    assert.equal(denied.status, 403);
    assert.equal(denied.json.message, 'pods "p" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "default": no rule');
    // anonymous on a public path is not asked about
    seen.length = 0;
    assert.equal((await run(h, req('GET', '/readyz'))).status, 200);
    assert.equal(seen.length, 0);
    // a WebSocket exec GET is authorized as create
    await run(h, req('GET', '/api/v1/namespaces/default/pods/p/exec?command=ls', { user: alice, headers: { upgrade: 'websocket' } }));
    assert.equal(seen[0]!.verb, 'create');
  });

  it('audits failed authentications and the impersonated user', async () => {
    const lines: string[] = [];
    const auditor = new Auditor({
      policy: parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n'),
      sink: { write: (l) => void lines.push(l) },
    });
    const h = buildHandlerChain(whoami, { auditor, authentication: new Authentication([]), impersonation: new UnionAuthorizer([]) });
    assert.equal((await run(h, req('GET', '/api/v1/pods'))).status, 401);
    const ev = JSON.parse(lines[0]!) as { stage: string; responseStatus: { code: number } };
    assert.equal(ev.stage, 'ResponseComplete');
    assert.equal(ev.responseStatus.code, 401);
    const admin: UserInfo = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };
    const w = await run(h, req('GET', '/api/v1/pods', { user: admin, headers: { 'impersonate-user': 'alice' } }));
    assert.equal(JSON.parse(w.body).user.username, 'alice');
    const ev2 = JSON.parse(lines[1]!) as { user: { username: string }; impersonatedUser: { username: string } };
    assert.equal(ev2.user.username, 'admin');
    assert.equal(ev2.impersonatedUser.username, 'alice');
  });

  it('turns a handler that throws into a 500 Status instead of a rejection', async () => {
    const h = buildHandlerChain(async () => {
      throw new Error('boom');
    }, {});
    const orig = console.error;
    console.error = () => undefined;
    try {
      const w = await run(h, req('GET', '/api', { user: alice }));
      assert.equal(w.status, 500);
      assert.equal(w.json.reason, 'InternalError');
    } finally {
      console.error = orig;
    }
    // a response already ended stays as it is
    const ended = withPanicRecovery(async (_r, w) => {
      w.writeHead(200, {});
      w.end('done');
      throw new Error('late');
    });
    const w = await run(ended, req('GET', '/api', { user: alice }));
    assert.equal(w.status, 200);
    assert.equal(w.body, 'done');
  });
});

describe('max in flight', () => {
  const bob: UserInfo = { username: 'bob', groups: ['system:authenticated'] };
  const admin: UserInfo = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };

  it('answers 429 with Retry-After over the limit, except to system:masters and long-running requests', async () => {
    const gates: (() => void)[] = [];
    const slow: Handler = async (_r, w) => {
      await new Promise<void>((resolve) => gates.push(resolve));
      w.writeHead(200, {});
      w.end('ok');
    };
    const h = withMaxInFlightLimit(slow, { nonMutating: 1, mutating: 1 });
    const first = run(h, req('GET', '/api/v1/pods', { user: bob }));
    const write = run(h, req('POST', '/api/v1/namespaces/d/configmaps', { user: bob }));
    const over = await run(h, req('GET', '/api/v1/namespaces', { user: bob }));
    assert.equal(over.status, 429);
    assert.equal(over.headers['Retry-After'], '1');
    assert.equal(over.body, 'Too many requests, please try again later.\n');
    // the mutating limit is separate and also full
    assert.equal((await run(h, req('DELETE', '/api/v1/namespaces/d/configmaps/c', { user: bob }))).status, 429);
    // system:masters and watches get through
    const masters = run(h, req('GET', '/api/v1/namespaces', { user: admin }));
    const watch = run(h, req('GET', '/api/v1/pods?watch=true', { user: bob }));
    while (gates.length < 4) await new Promise((r) => setImmediate(r));
    for (const g of gates.splice(0)) g();
    assert.deepEqual([(await first).status, (await write).status, (await masters).status, (await watch).status], [200, 200, 200, 200]);
    // the slots are free again
    const again = run(h, req('GET', '/api/v1/pods', { user: bob }));
    while (gates.length < 1) await new Promise((r) => setImmediate(r));
    gates.pop()!();
    assert.equal((await again).status, 200);
  });

  it('is left out when no limit is set', () => {
    assert.equal(withMaxInFlightLimit(whoami, { nonMutating: 0, mutating: 0 }), whoami);
  });
});

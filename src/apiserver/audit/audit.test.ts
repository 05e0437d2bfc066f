import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiRequest, ResponseWriter } from '../http/types.js';
import { Auditor, microTime } from './audit.js';
import { addAuditAnnotation } from './context.js';
import { evaluatePolicy, parsePolicy } from './policy.js';
import { parseRequestInfo } from '../http/request-info.js';

const POLICY = parsePolicy(`
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    users: ["system:kube-proxy"]
  - level: RequestResponse
    resources: [{ group: "", resources: ["pods/log", "configmaps"] }]
  - level: Request
    verbs: ["create"]
    namespaces: ["prod"]
  - level: Metadata
    nonResourceURLs: ["/healthz*"]
  - level: Metadata
    resources: [{ group: "rbac.authorization.k8s.io" }]
`);

const info = (method: string, path: string) => parseRequestInfo(method, path, new URLSearchParams());
const alice = { username: 'alice', groups: ['system:authenticated'] };

describe('audit policy', () => {
  it('first matching rule decides the level', () => {
    assert.equal(evaluatePolicy(POLICY, { username: 'system:kube-proxy', groups: [] }, info('GET', '/api/v1/configmaps')).level, 'None');
    assert.equal(evaluatePolicy(POLICY, alice, info('GET', '/api/v1/namespaces/a/pods/x/log')).level, 'RequestResponse');
    assert.equal(evaluatePolicy(POLICY, alice, info('GET', '/api/v1/namespaces/a/pods/x')).level, 'None');
    assert.equal(evaluatePolicy(POLICY, alice, info('POST', '/api/v1/namespaces/prod/secrets')).level, 'Request');
    assert.equal(evaluatePolicy(POLICY, alice, info('GET', '/healthz/etcd')).level, 'Metadata');
    assert.equal(evaluatePolicy(POLICY, alice, info('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/x')).level, 'Metadata');
    assert.throws(() => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Loud}]'), /rules\[0\].level: Unsupported value: "Loud"/);
  });

  it('writes ResponseComplete events with request and response objects and annotations', async () => {
    const lines: string[] = [];
    let t = 0;
    const a = new Auditor({ policy: POLICY, sink: { write: (l) => void lines.push(l) }, now: () => new Date(Date.UTC(2026, 10, 30, 10, 0, 0, t++)) });
    const out: string[] = [];
    const res: ResponseWriter = { writeHead: () => undefined, write: () => undefined, end: (c) => void out.push(String(c)), onClose: () => undefined, closed: false };
    const req: ApiRequest = {
      method: 'POST',
      url: '/api/v1/namespaces/a/configmaps',
      headers: { 'content-type': 'application/json', 'user-agent': 'kubectl/v1.32.0' },
      body: Buffer.from('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"}}'),
      user: alice,
      remoteAddress: '10.0.0.9',
    };
    await a.wrap(async (_q, w) => {
      addAuditAnnotation('authorization.k8s.io/decision', 'allow');
      w.writeHead(201, {});
      w.end('{"kind":"ConfigMap","metadata":{"name":"c","uid":"u"}}');
    })(req, res);
    assert.equal(lines.length, 2);
    const [recv, done] = lines.map((l) => JSON.parse(l));
    assert.equal(recv.stage, 'RequestReceived');
    assert.equal(done.stage, 'ResponseComplete');
    assert.equal(done.level, 'RequestResponse');
    assert.deepEqual(done.objectRef, { resource: 'configmaps', namespace: 'a', apiVersion: 'v1' });
    assert.deepEqual(done.sourceIPs, ['10.0.0.9']);
    assert.deepEqual(done.responseStatus, { metadata: {}, code: 201 });
    assert.equal(done.requestObject.metadata.name, 'c');
    assert.equal(done.responseObject.metadata.uid, 'u');
    assert.deepEqual(done.annotations, { 'authorization.k8s.io/decision': 'allow' });
    assert.equal(done.requestReceivedTimestamp, '2026-11-30T10:00:00.000000Z');
    assert.equal(microTime(new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 5))), '2026-01-01T00:00:00.005000Z');
    assert.deepEqual(out, ['{"kind":"ConfigMap","metadata":{"name":"c","uid":"u"}}']);
  });
});

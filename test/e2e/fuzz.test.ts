/**
 * Fuzzing the front door: ≥ 10 000 malformed or hostile requests — bad JSON and YAML,
 * bodies over the 3 MiB limit, invalid names, path traversal, wrong content types,
 * unknown verbs, bad query parameters and patches, forged tokens, unauthorised users —
 * each must get a 4xx metav1.Status, and the server must keep serving afterwards.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { issueCert } from '../../src/pki/pki.js';
import { startSecureCluster, type SecureCluster } from './security-harness.js';

interface Case {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** which client identity: admin (cert), anonymous, or an unprivileged cert user */
  as: 'admin' | 'anon' | 'nobody';
  kind: string;
}

/** A small deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const JSON_GARBAGE = [
  '{',
  '}',
  '{"kind":',
  '[1,2',
  'null',
  'true',
  '42',
  '"str"',
  '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":',
  '\u0000\u0001',
  '{"a":1}{"b":2}',
  "{'single':1}",
];
/** metadata of the wrong JSON type: a 400 decode error, as upstream's decoder gives. */
const WRONG_TYPE_METADATA = ['{"kind":"ConfigMap","apiVersion":"v1","metadata":"nope"}', '{"kind":"ConfigMap","apiVersion":"v1","metadata":[]}'];
const YAML_GARBAGE = ['kind: [', 'a: b: c', '- - -\n  :', '{ unclosed', 'key: "unterminated', '\t\tbad: indent\n  x', '&a [*a, *a', '!!binary %%%'];
const BAD_NAMES = ['UPPER', 'under_score', '..', '.', 'a/b', 'a%2Fb', '-lead', 'trail-', 'sp ace', 'x'.repeat(254), 'ünicode', 'a..b', '$(rm -rf /)', '../../etc/passwd'];
const TRAVERSAL = [
  '/api/v1/namespaces/default/configmaps/..%2F..%2Fsecrets',
  '/api/v1/namespaces/default/configmaps/%2e%2e',
  '/api/v1/namespaces/../../secrets/x',
  '/api/v1/namespaces/default/configmaps/../../../etc/passwd',
  '/api/v1/namespaces/%00/pods/x',
  '/apis/../api/v1/secrets/x',
  '/api/v1/namespaces/default/pods/x/..%2F..%2Fstatus',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/api/v1/namespaces/default/pods/%ZZ',
  '/openapi/v3/../../etc/passwd',
];
const CONTENT_TYPES = ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'image/png', 'application/cbor-seq'];
const VERBS = ['PROPFIND', 'MKCOL', 'LOCK', 'UNLOCK', 'PURGE', 'COPY', 'MOVE', 'SEARCH', 'REPORT', 'LINK'];
const BAD_QUERIES = [
  'limit=abc',
  'labelSelector=a%20in%20(',
  'fieldSelector=spec.nope%3Dx',
  'labelSelector=!!!',
  'resourceVersion=abc&resourceVersionMatch=Exact&limit=1',
  'continue=garbage&limit=1',
  'fieldSelector=metadata.name%3D%3D%3Dx',
];
const PATCHES: [string, string][] = [
  ['application/json-patch+json', '[{"op":"explode","path":"/x"}]'],
  ['application/json-patch+json', '{"not":"a list"}'],
  ['application/merge-patch+json', '[1,2,3'],
  ['application/strategic-merge-patch+json', '{"metadata":{"name":"other-name"}}'],
  ['application/json-patch+json', '[{"op":"replace","path":"/metadata/nope/deeper","value":1}]'],
];

function cases(n: number, seed: number): Case[] {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
  const cmPath = '/api/v1/namespaces/default/configmaps';
  const out: Case[] = [];
  for (let i = 0; out.length < n; i++) {
    switch (i % 12) {
      case 0:
        out.push({
          method: 'POST',
          path: cmPath,
          headers: { 'content-type': 'application/json' },
          body: pick(JSON_GARBAGE) + (r() < 0.5 ? '' : String(r())),
          as: 'admin',
          kind: 'bad-json',
        });
        break;
      case 1:
        out.push({ method: 'POST', path: cmPath, headers: { 'content-type': 'application/yaml' }, body: pick(YAML_GARBAGE), as: 'admin', kind: 'bad-yaml' });
        break;
      case 2: {
        const name = pick(BAD_NAMES);
        out.push({
          method: 'POST',
          path: cmPath,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } }),
          as: 'admin',
          kind: 'invalid-name',
        });
        break;
      }
      case 3:
        out.push({ method: pick(['GET', 'DELETE', 'PUT']), path: pick(TRAVERSAL), headers: { 'content-type': 'application/json' }, body: '{}', as: 'admin', kind: 'traversal' });
        break;
      case 4:
        if (r() < 0.2) {
          out.push({
            method: 'POST',
            path: `${cmPath}?dryRun=Bogus`,
            headers: { 'content-type': 'application/json' },
            body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dry"}}',
            as: 'admin',
            kind: 'bad-query',
          });
        } else out.push({ method: 'POST', path: cmPath, headers: { 'content-type': pick(CONTENT_TYPES) }, body: 'data=1', as: 'admin', kind: 'content-type' });
        break;
      case 5:
        out.push({
          method: pick(VERBS),
          path: pick([cmPath, `${cmPath}/x`, '/api/v1/namespaces', '/apis/rbac.authorization.k8s.io/v1/clusterroles']),
          as: 'admin',
          kind: 'unknown-verb',
        });
        break;
      case 6:
        out.push({ method: 'GET', path: `${pick([cmPath, '/api/v1/pods', '/api/v1/namespaces/default/pods'])}?${pick(BAD_QUERIES)}`, as: 'admin', kind: 'bad-query' });
        break;
      case 7: {
        const [ct, body] = pick(PATCHES);
        out.push({ method: 'PATCH', path: '/api/v1/namespaces/default/configmaps/fuzz-target', headers: { 'content-type': ct }, body, as: 'admin', kind: 'bad-patch' });
        break;
      }
      case 8:
        out.push({
          method: pick(['GET', 'POST', 'DELETE']),
          path: pick(['/api/v1/secrets', cmPath, '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', '/api/v1/nodes']),
          headers:
            r() < 0.5
              ? { authorization: `Bearer ${Math.floor(r() * 1e12).toString(36)}` }
              : {
                  authorization: pick([
                    'Bearer',
                    'Basic YWRtaW46YWRtaW4=',
                    'Bearer a.b.c',
                    'Bearer abcdef.0123456789abcdef',
                    'Bearer eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2t1YmVybmV0ZXMuZGVmYXVsdC5zdmMuY2x1c3Rlci5sb2NhbCJ9.',
                  ]),
                },
          as: 'anon',
          kind: 'forged-token',
        });
        break;
      case 9:
        out.push({
          method: pick(['GET', 'POST', 'DELETE']),
          path: pick(['/api/v1/secrets', '/api/v1/namespaces/kube-system/secrets/x', '/apis/rbac.authorization.k8s.io/v1/clusterroles', '/api/v1/nodes/n1']),
          headers: { 'content-type': 'application/json' },
          body: '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"stolen"}}',
          as: 'nobody',
          kind: 'forbidden',
        });
        break;
      case 10:
        out.push({
          method: 'POST',
          path: pick(['/api/v1/namespaces/default/pods', cmPath, '/apis/rbac.authorization.k8s.io/v1/clusterroles']),
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(
            pick([
              { apiVersion: 'v2', kind: 'Pod', metadata: { name: 'x' } },
              { kind: 'Pod' },
              { apiVersion: 'v1' },
              { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong-kind' } },
              { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'nospec', namespace: 'other' } },
            ]),
          ),
          as: 'admin',
          kind: 'wrong-kind',
        });
        break;
      default:
        out.push({
          method: 'GET',
          path: pick([
            '/api/v9',
            '/apis/nope.example.com/v1/things',
            '/api/v1/namespaces/default/nothings',
            '/apis/nope.example.com',
            '/metrics/../secrets',
            '/api/v1/namespaces/default/configmaps/missing/status',
          ]),
          as: 'admin',
          kind: 'not-found',
        });
    }
  }
  return out;
}

describe('fuzz: hostile requests get 4xx Status and the server stays up', { timeout: 600_000 }, () => {
  let c: SecureCluster;
  let adminTLS: { cert: string; key: string };
  let nobodyTLS: { cert: string; key: string };
  let agents: Record<Case['as'], Agent>;

  before(async () => {
    c = await startSecureCluster({});
    adminTLS = await issueCert(c.ca, { commonName: 'fuzz-admin', organizations: ['system:masters'], usage: 'client' });
    nobodyTLS = await issueCert(c.ca, { commonName: 'fuzz-nobody', usage: 'client' });
    agents = {
      admin: new Agent({ keepAlive: true, maxSockets: 16, ca: c.ca.cert, ...adminTLS }),
      nobody: new Agent({ keepAlive: true, maxSockets: 8, ca: c.ca.cert, ...nobodyTLS }),
      anon: new Agent({ keepAlive: true, maxSockets: 8, ca: c.ca.cert }),
    };
    await (await import('node:timers/promises')).setTimeout(0);
    const k = await c.kubectl(c.admin, ['create', 'configmap', 'fuzz-target', '--from-literal=a=b']);
    assert.equal(k.code, 0, k.stderr);
  });
  after(async () => {
    for (const a of Object.values(agents ?? {})) a.destroy();
    await c?.stop();
  });

  const send = (cs: Case): Promise<{ status: number; body: string; type: string }> =>
    new Promise((resolve) => {
      const u = new URL(c.url);
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          method: cs.method,
          path: cs.path,
          agent: agents[cs.as],
          headers: { ...(cs.headers ?? {}), ...(cs.body !== undefined ? { 'content-length': String(Buffer.byteLength(cs.body)) } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), type: String(res.headers['content-type'] ?? '') }));
          res.on('error', () => resolve({ status: -1, body: '', type: '' }));
        },
      );
      req.on('error', (e) => resolve({ status: -1, body: String(e), type: '' }));
      if (cs.body !== undefined) req.end(cs.body);
      else req.end();
    });

  it('answers 10 000 hostile requests with 4xx metav1.Status', async () => {
    const all = cases(10_200, 0x6b387473);
    // bodies over the 3 MiB limit
    const huge = Buffer.alloc(3 * 1024 * 1024 + 17, 0x61);
    for (let i = 0; i < 12; i++)
      all.push({
        method: i % 2 ? 'POST' : 'PUT',
        path: '/api/v1/namespaces/default/configmaps',
        headers: { 'content-type': 'application/json' },
        body: huge,
        as: 'admin',
        kind: 'huge-body',
      });
    const bad: string[] = [];
    const kinds = new Map<string, number>();
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const i = next++;
        if (i >= all.length) return;
        const cs = all[i]!;
        const r = await send(cs);
        kinds.set(cs.kind, (kinds.get(cs.kind) ?? 0) + 1);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        let ok = r.status >= 400 && r.status < 500 && r.type.startsWith('application/json');
        if (ok) {
          try {
            const s = JSON.parse(r.body) as { kind?: string; apiVersion?: string; status?: string; code?: number };
            ok = s.kind === 'Status' && s.apiVersion === 'v1' && s.status === 'Failure' && s.code === r.status;
          } catch {
            ok = false;
          }
        }
        if (!ok && bad.length < 20) bad.push(`${cs.kind} ${cs.method} ${cs.path.slice(0, 80)} → ${r.status} ${r.body.slice(0, 160)}`);
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    assert.ok(all.length >= 10_000);
    assert.deepEqual(bad, [], `non-4xx-Status answers (statuses: ${JSON.stringify([...statuses])})`);
    for (const k of [
      'bad-json',
      'bad-yaml',
      'invalid-name',
      'traversal',
      'content-type',
      'unknown-verb',
      'bad-query',
      'bad-patch',
      'forged-token',
      'forbidden',
      'wrong-kind',
      'not-found',
      'huge-body',
    ]) {
      assert.ok((kinds.get(k) ?? 0) > 0, `category ${k} exercised`);
    }
    // every status class a hostile request can earn, seen at least once
    for (const s of [400, 401, 403, 404, 405, 413, 415, 422]) assert.ok(statuses.has(s), `saw ${s}: ${JSON.stringify([...statuses])}`);
  });

  it('metadata of the wrong JSON type is a 400 decode error', async () => {
    for (const body of WRONG_TYPE_METADATA) {
      const r = await send({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', headers: { 'content-type': 'application/json' }, body, as: 'admin', kind: 'bad-json' });
      assert.equal(r.status, 400, r.body);
    }
  });

  it('still serves afterwards, and created nothing', async () => {
    const ready = await c.kubectl(c.admin, ['get', '--raw', '/readyz']);
    assert.equal(ready.stdout.trim(), 'ok');
    const cms = await c.kubectl(c.admin, ['get', 'configmaps', '-n', 'default', '-o', 'name']);
    assert.deepEqual(cms.stdout.trim().split('\n').sort(), ['configmap/fuzz-target', 'configmap/kube-root-ca.crt']);
    const cm = JSON.parse((await c.kubectl(c.admin, ['get', 'configmap', 'fuzz-target', '-o', 'json'])).stdout);
    assert.deepEqual(cm.data, { a: 'b' });
    const secrets = await c.kubectl(c.admin, ['get', 'secrets', '-A', '-o', 'name']);
    assert.equal(secrets.stdout.includes('stolen'), false);
  });
});

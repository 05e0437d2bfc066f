/**
 * Fuzzing the decoding step: valid objects of several built-in kinds with one field
 * replaced by a value of another JSON type (create and every patch type), bodies nested
 * past the limit, huge bodies, malformed protobuf, hostile query parameters (a `limit`
 * beyond int64, huge selectors), CRD patterns that V8 cannot compile cheaply, DELETE on
 * the all-namespaces path, bodies that arrive slowly — sent 16 at a time. Every answer
 * must be a 2xx or a 4xx metav1.Status (never a 5xx, never a dropped connection), the
 * server must serve afterwards, and every object stored must survive a PUT of itself
 * (nothing malformed was stored). Bounded: about 1 000 requests, under a minute.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { issueCert } from '../../src/pki/pki.js';
import { startSecureCluster, type SecureCluster } from './security-harness.js';

interface Case {
  method: string;
  path: string;
  contentType?: string;
  body?: Buffer | string;
  kind: string;
  /** deliver the body in this many pieces, 100 ms apart */
  slow?: number;
}

interface Reply {
  status: number;
  body: string;
  type: string;
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

const NS = 'fuzz';
const BASES: { path: string; obj: Record<string, unknown>; dryRun?: boolean }[] = [
  {
    path: `/api/v1/namespaces/${NS}/configmaps`,
    obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 'b' }, annotations: { n: 'v' } }, data: { k: 'v' }, binaryData: { b: 'aGk=' } },
  },
  { path: `/api/v1/namespaces/${NS}/secrets`, obj: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, type: 'Opaque', data: { k: 'dmFsdWU=' }, immutable: false } },
  {
    path: `/api/v1/namespaces/${NS}/services`,
    obj: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'x' },
      spec: { selector: { app: 'x' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }], sessionAffinity: 'None' },
    },
  },
  {
    path: `/api/v1/namespaces/${NS}/pods`,
    obj: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'x', labels: { app: 'x' } },
      spec: {
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '100m', memory: '64Mi' } }, env: [{ name: 'A', value: '1' }] }],
        affinity: {
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }] } },
        },
        tolerations: [{ key: 'k', operator: 'Exists', tolerationSeconds: 5, effect: 'NoExecute' }],
      },
    },
  },
  {
    path: `/apis/apps/v1/namespaces/${NS}/deployments`,
    dryRun: true,
    obj: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'x' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'x' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
        template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    },
  },
];
const WRONG: unknown[] = [42, -1, 1.5, 1e30, 'str', '', true, false, [], [1, 'a'], [[1]], {}, { a: 1 }, { a: { b: [] } }];

/** Every path to a value inside `v` (object keys and array indices), `metadata.name` excepted. */
function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (at.length && !(at.length === 2 && at[0] === 'metadata' && at[1] === 'name') && at[0] !== 'apiVersion' && at[0] !== 'kind') out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

function withValue(obj: unknown, path: (string | number)[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(obj) as Record<string, unknown>;
  let cur = copy as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const p = path[i]!;
    if (!cur[p] || typeof cur[p] !== 'object') cur[p] = typeof path[i + 1] === 'number' ? [] : {};
    cur = cur[p] as Record<string | number, unknown>;
  }
  cur[path[path.length - 1]!] = structuredClone(value);
  return copy;
}

/** A patch body of `type` that sets `path` to `value`. */
function patchBody(type: string, path: (string | number)[], value: unknown): string {
  if (type === 'application/json-patch+json') return JSON.stringify([{ op: 'add', path: '/' + path.join('/'), value }]);
  let v: unknown = value;
  for (let i = path.length - 1; i >= 0; i--) {
    const p = path[i]!;
    v = typeof p === 'number' ? [v] : { [p]: v };
  }
  return JSON.stringify(v);
}

const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);

function cases(n: number, seed: number): Case[] {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
  const out: Case[] = [];
  const cm = `/api/v1/namespaces/${NS}/configmaps`;
  for (let i = 0; out.length < n; i++) {
    const base = pick(BASES);
    const ps = paths(base.obj);
    const path = pick(ps);
    const value = pick(WRONG);
    switch (i % 10) {
      case 0:
      case 1:
      case 2:
      case 3: {
        const obj = withValue(base.obj, path, value);
        const md = obj.metadata;
        if (md && typeof md === 'object' && !Array.isArray(md)) (md as Record<string, unknown>).name = `fz-${i}`;
        out.push({
          method: 'POST',
          path: base.dryRun ? `${base.path}?dryRun=All` : base.path,
          contentType: pick(['application/json', 'application/yaml']),
          body: JSON.stringify(obj),
          kind: 'wrong-type-create',
        });
        break;
      }
      case 4:
      case 5: {
        const type = pick(['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);
        const target = `${base.path}/fz-target`;
        const body =
          type === 'application/apply-patch+yaml' ? JSON.stringify(withValue({ ...base.obj, metadata: { name: 'fz-target' } }, path, value)) : patchBody(type, path, value);
        out.push({ method: 'PATCH', path: `${target}?fieldManager=fuzz${base.dryRun ? '&dryRun=All' : ''}`, contentType: type, body, kind: 'wrong-type-patch' });
        break;
      }
      case 6: {
        const bad = pick([
          `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fz-deep-${i}"},"data":{"k":"v"},"x":${deep(1001)}}`,
          `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fz-deep-${i}"},"x":${deep(5000)}}`,
          deep(60_000),
          `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fz-deep-${i}"},"x":${deep(200)}}`,
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fz-deepy-${i}\nx: ${deep(3000)}\n`,
        ]);
        out.push({ method: 'POST', path: cm, contentType: bad.startsWith('apiVersion:') ? 'application/yaml' : 'application/json', body: bad, kind: 'deep' });
        break;
      }
      case 7: {
        const q = pick([
          'limit=99999999999999999999',
          'limit=9223372036854775807',
          'limit=-5',
          'limit=1e3',
          'timeoutSeconds=99999999999999999999',
          `labelSelector=${encodeURIComponent(Array.from({ length: 2000 }, (_, k) => `k${k} in (a,b,c)`).join(','))}`,
          `labelSelector=${encodeURIComponent('a in (' + 'x,'.repeat(20_000) + 'x)')}`,
          `fieldSelector=${encodeURIComponent('metadata.name=' + 'a'.repeat(50_000))}`,
          'fieldSelector=metadata.name%3D%3D%3D%3D',
          'resourceVersion=-1&resourceVersionMatch=NotOlderThan',
          `continue=${Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: -1, start: '\u0000' })).toString('base64')}&limit=1`,
        ]);
        out.push({ method: 'GET', path: `${pick([cm, '/api/v1/pods', `/api/v1/namespaces/${NS}/pods`])}?${q}`, kind: 'bad-query' });
        break;
      }
      case 8: {
        const rand = Buffer.from(Array.from({ length: 64 }, () => Math.floor(r() * 256)));
        const body = pick([Buffer.concat([Buffer.from('k8s\u0000'), rand]), rand, Buffer.from('k8s\u0000\n\u0002\u0008')]);
        out.push({ method: pick(['POST', 'PUT']), path: pick([cm, `${cm}/fz-target`]), contentType: 'application/vnd.kubernetes.protobuf', body, kind: 'protobuf' });
        break;
      }
      default: {
        const pattern = pick(['a{1001}', '(?:(?:a{1000}){1000}){1000}', '[^a]{1,300}'.repeat(400), '('.repeat(2000) + ')'.repeat(2000), 'x'.repeat(200_000)]);
        const crd = {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `p${i}s.fuzz.example.com` },
          spec: {
            group: 'fuzz.example.com',
            scope: 'Namespaced',
            names: { plural: `p${i}s`, singular: `p${i}`, kind: `P${i}`, listKind: `P${i}List` },
            versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { s: { type: 'string', pattern } } } } }],
          },
        };
        out.push({
          method: 'POST',
          path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
          contentType: 'application/json',
          body: JSON.stringify(crd),
          kind: 'crd-pattern',
        });
      }
    }
  }
  // the all-namespaces path serves only list and watch
  for (const p of ['/api/v1/configmaps', '/api/v1/pods', '/api/v1/secrets']) out.push({ method: 'DELETE', path: p, kind: 'all-namespaces' });
  // bodies that arrive slowly
  for (let i = 0; i < 4; i++) {
    out.push({
      method: 'POST',
      path: cm,
      contentType: 'application/json',
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `fz-slow-${i}`, labels: i % 2 ? [] : { a: 'b' } } }),
      kind: 'slow',
      slow: 8,
    });
  }
  return out;
}

describe('fuzz: typed decoding, depth, size, queries and slow bodies', { timeout: 300_000 }, () => {
  let c: SecureCluster;
  let agent: Agent;

  before(async () => {
    c = await startSecureCluster({});
    const admin = await issueCert(c.ca, { commonName: 'fuzz-admin', organizations: ['system:masters'], usage: 'client' });
    agent = new Agent({ keepAlive: true, maxSockets: 16, ca: c.ca.cert, ...admin });
    assert.equal(
      (
        await send({
          method: 'POST',
          path: '/api/v1/namespaces',
          contentType: 'application/json',
          body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }),
          kind: 'setup',
        })
      ).status,
      201,
    );
    for (const b of BASES) {
      const obj = { ...b.obj, metadata: { ...(b.obj.metadata as object), name: 'fz-target' } };
      const r = await send({ method: 'POST', path: b.path, contentType: 'application/json', body: JSON.stringify(obj), kind: 'setup' });
      assert.equal(r.status, 201, r.body);
    }
  });
  after(async () => {
    agent?.destroy();
    await c?.stop();
  });

  function send(cs: Case): Promise<Reply> {
    return new Promise((resolve) => {
      const u = new URL(c.url);
      const body = cs.body === undefined ? undefined : Buffer.isBuffer(cs.body) ? cs.body : Buffer.from(cs.body);
      const headers: Record<string, string> = {};
      if (cs.contentType) headers['content-type'] = cs.contentType;
      if (body) headers['content-length'] = String(body.length);
      const req = request({ host: u.hostname, port: u.port, method: cs.method, path: cs.path, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), type: String(res.headers['content-type'] ?? '') }));
        res.on('error', (e) => resolve({ status: -1, body: String(e), type: '' }));
      });
      req.on('error', (e) => resolve({ status: -1, body: String(e), type: '' }));
      if (!body) {
        req.end();
        return;
      }
      if (!cs.slow) {
        req.end(body);
        return;
      }
      const step = Math.ceil(body.length / cs.slow);
      let off = 0;
      const tick = (): void => {
        const part = body.subarray(off, off + step);
        off += step;
        if (off >= body.length) req.end(part);
        else {
          req.write(part);
          setTimeout(tick, 100);
        }
      };
      tick();
    });
  }

  it('answers every request with a 2xx or a 4xx Status, stores nothing malformed and keeps serving', { timeout: 120_000 }, async () => {
    const all = cases(1000, 0x74797065);
    const bad: string[] = [];
    const kinds = new Map<string, Map<number, number>>();
    let typeErrors = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const i = next++;
        if (i >= all.length) return;
        const cs = all[i]!;
        const r = await send(cs);
        const m = kinds.get(cs.kind) ?? new Map<number, number>();
        m.set(r.status, (m.get(r.status) ?? 0) + 1);
        kinds.set(cs.kind, m);
        let ok = (r.status >= 200 && r.status < 300) || (r.status >= 400 && r.status < 500);
        if (ok && r.status >= 400) {
          try {
            const s = JSON.parse(r.body) as { kind?: string; status?: string; code?: number; message?: string };
            ok = r.type.startsWith('application/json') && s.kind === 'Status' && s.status === 'Failure' && s.code === r.status && typeof s.message === 'string';
            if (
              /cannot be handled as|cannot unmarshal|cannot restore|cannot convert|failed to create typed patch object|quantities must match|illegal base64|parsing time/.test(
                s.message ?? '',
              )
            )
              typeErrors++;
          } catch {
            ok = false;
          }
        }
        if (cs.kind === 'all-namespaces' && r.status !== 405) ok = false;
        if (cs.kind === 'crd-pattern' && r.status !== 422) ok = false;
        if (!ok && bad.length < 20) bad.push(`${cs.kind} ${cs.method} ${cs.path.slice(0, 80)} ${String(cs.body ?? '').slice(0, 80)} → ${r.status} ${r.body.slice(0, 200)}`);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const summary = JSON.stringify([...kinds].map(([k, m]) => [k, [...m]]));
    assert.deepEqual(bad, [], `answers that are not a 2xx or a 4xx Status: ${summary}`);
    for (const k of ['wrong-type-create', 'wrong-type-patch', 'deep', 'bad-query', 'protobuf', 'crd-pattern', 'all-namespaces', 'slow'])
      assert.ok(kinds.has(k), `category ${k} exercised`);
    assert.ok(typeErrors > 150, `type errors answered as decoding errors: ${typeErrors} (${summary})`);

    // still serving
    const ready = await send({ method: 'GET', path: '/readyz', kind: 'check' });
    assert.equal(ready.body, 'ok');
    // nothing deleted across namespaces, nothing malformed stored: every stored object survives a PUT of itself
    assert.equal((await send({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/kube-root-ca.crt', kind: 'check' })).status, 200);
    let checked = 0;
    for (const b of BASES) {
      if (b.dryRun) continue;
      const list = JSON.parse((await send({ method: 'GET', path: b.path, kind: 'check' })).body) as { items: Record<string, unknown>[] };
      for (const o of list.items) {
        const kind = (b.obj as { kind: string }).kind;
        const md = o.metadata as { name: string };
        const r = await send({
          method: 'PUT',
          path: `${b.path}/${md.name}`,
          contentType: 'application/json',
          body: JSON.stringify({ apiVersion: b.obj.apiVersion, kind, ...o }),
          kind: 'check',
        });
        assert.equal(r.status, 200, `${kind} ${md.name} does not survive a PUT of itself: ${r.body.slice(0, 300)}`);
        checked++;
      }
    }
    assert.ok(checked >= 4, `stored objects checked: ${checked}`);
  });
});

/**
 * The real kubectl against a minimal server that serves /openapi/v3 from handleOpenAPI:
 * client-side apply must take field validation and strategic-merge-patch metadata from
 * the v3 documents (never asking for /openapi/v2) and `kubectl explain` must read them.
 * Fails, saying so, when no kubectl is installed (scripts/ensure-kubectl.sh).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ResourceDefinition } from '../../api/resource.js';
import { handleOpenAPI } from './handler.js';
import { testDefs } from './testdata/defs.js';
import { kubectlPath } from '../../../test/support/tools.js';

let kubectl: string;

const defs = testDefs();
const requests: { method: string; url: string; contentType: string; body: string }[] = [];
const store = new Map<string, Record<string, unknown>>();
let server: Server;
let base = '';
let dir = '';

const AGG = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
function discovery(group: string): unknown {
  const versions = new Map<string, ResourceDefinition[]>();
  for (const d of defs.filter((d) => (group === '' ? d.group === '' : d.group !== ''))) {
    const l = versions.get(d.group) ?? [];
    l.push(d);
    versions.set(d.group, l);
  }
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: [...versions].map(([g, ds]) => ({
      metadata: { name: g },
      versions: [
        {
          version: 'v1',
          freshness: 'Current',
          resources: ds.map((d) => ({
            resource: d.resource,
            responseKind: { group: d.group, version: d.version, kind: d.kind },
            scope: d.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: d.singular,
            verbs: d.verbs ?? ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
          })),
        },
      ],
    })),
  };
}

before(async () => {
  kubectl = kubectlPath();
  dir = mkdtempSync(join(tmpdir(), 'k8ts-openapi-kubectl-'));
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      const body = Buffer.concat(chunks).toString();
      requests.push({ method: req.method!, url: req.url!, contentType: req.headers['content-type'] ?? '', body });
      const send = (code: number, obj: unknown, ct = 'application/json') => {
        res.writeHead(code, { 'Content-Type': ct });
        res.end(JSON.stringify(obj));
      };
      if (url.pathname === '/version') return send(200, { major: '1', minor: '32', gitVersion: 'v1.32.0' });
      if (url.pathname === '/api') return send(200, discovery(''), AGG);
      if (url.pathname === '/apis') return send(200, discovery('*'), AGG);
      if (url.pathname.startsWith('/openapi/')) {
        const r = handleOpenAPI(url.pathname, url.searchParams, defs);
        res.writeHead(r.status, r.headers);
        return res.end(r.body);
      }
      const key = url.pathname;
      if (req.method === 'GET') {
        const o = store.get(key);
        if (o) return send(200, o);
        return send(404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' });
      }
      if (req.method === 'POST') {
        const o = JSON.parse(body) as { metadata: { name: string; resourceVersion?: string } };
        o.metadata.resourceVersion = '1';
        store.set(`${key}/${o.metadata.name}`, o);
        return send(201, o);
      }
      if (req.method === 'PATCH') return send(200, store.get(key));
      send(405, {});
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(kubectl, [`--server=${base}`, `--cache-dir=${join(dir, 'cache')}`, ...args], { env: { ...process.env, KUBECONFIG: '/dev/null' } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const POD = (label: string) => `apiVersion: v1
kind: Pod
metadata:
  name: x
  labels: {app: ${label}}
spec:
  containers:
  - name: c
    image: nginx
`;

test('kubectl apply creates with fieldValidation=Strict and updates with a strategic merge patch, from v3 alone', async () => {
  const file = join(dir, 'pod.yaml');
  writeFileSync(file, POD('demo'));
  let r = await run('apply', '-f', file);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /pod\/x created/);
  writeFileSync(file, POD('demo2'));
  r = await run('apply', '-f', file);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /pod\/x configured/);

  const post = requests.find((q) => q.method === 'POST');
  assert.ok(post && post.url.includes('fieldValidation=Strict'), 'validation left to the server');
  const patch = requests.find((q) => q.method === 'PATCH');
  assert.equal(patch?.contentType, 'application/strategic-merge-patch+json');
  assert.ok(
    requests.some((q) => q.url.startsWith('/openapi/v3/api/v1?hash=')),
    'fetched the hashed api/v1 document',
  );
  assert.ok(!requests.some((q) => q.url.startsWith('/openapi/v2')), 'never fell back to /openapi/v2');
});

test('kubectl explain reads the v3 schemas', async () => {
  const r = await run('explain', 'pods.spec.containers.ports');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /FIELD: ports <\[\]ContainerPort>/);
  assert.match(r.stdout, /containerPort\t<integer> -required-/);
  const d = await run('explain', 'deployments.spec.template.spec.containers.resources.limits');
  assert.equal(d.code, 0, d.stderr);
  assert.match(d.stdout, /limits <map\[string\]Quantity>/);
});

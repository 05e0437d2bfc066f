/**
 * What `kubectl drain`, `kubectl debug` and kind-less clients need from the API server:
 * protobuf DeleteOptions on DELETE, pods/eviction's group and version in /api/v1
 * discovery, the pods/ephemeralcontainers subresource, and apiVersion/kind defaulted from
 * the URL on create and update.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResourceDefinition } from '../../api/resource.js';
import { configMapDefinition } from '../../api/core/v1/configmap/strategy.js';
import { namespaceDefinition } from '../../api/core/v1/namespace/strategy.js';
import { podDefinition } from '../../api/core/v1/pod/strategy.js';
import { openStorage } from '../../storage/index.js';
import type { Storage } from '../../storage/interface.js';
import { APIServer } from '../apiserver.js';
import { podEviction } from '../subresources/pod-eviction.js';
import type { ApiRequest, ResponseWriter } from '../http/types.js';

interface Reply {
  status: number;
  body: any;
}

/** Sends one request to the API server as system:masters and parses the JSON reply. */
async function call(api: APIServer, method: string, url: string, body?: unknown, contentType = 'application/json'): Promise<Reply> {
  let status = 0;
  const chunks: Buffer[] = [];
  let closed = false;
  const res: ResponseWriter = {
    writeHead(s) {
      status = s;
    },
    write(c) {
      chunks.push(Buffer.from(c));
    },
    end(c) {
      if (c !== undefined) chunks.push(Buffer.from(c));
      closed = true;
    },
    onClose() {},
    get closed() {
      return closed;
    },
  };
  const raw = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const req: ApiRequest = {
    method,
    url,
    headers: raw ? { 'content-type': contentType } : {},
    body: raw,
    user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
  };
  await api.handle(req, res);
  const text = Buffer.concat(chunks).toString('utf8');
  return { status, body: text ? JSON.parse(text) : undefined };
}

const TESTDATA = new URL('../protobuf/testdata/', import.meta.url);
const POD = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
const PODS = '/api/v1/namespaces/default/pods';

describe('API server for kubectl drain / debug and kind-less clients', () => {
  let dir: string;
  let storage: Storage;
  let api: APIServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-extras-'));
    storage = await openStorage({ kind: 'sqlite', dataDir: dir });
    api = new APIServer({
      storage,
      definitions: [configMapDefinition, namespaceDefinition, podDefinition] as ResourceDefinition[],
      subresources: [podEviction],
      serverAddress: '127.0.0.1:6443',
    });
    await api.start();
    assert.equal((await call(api, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } })).status, 201);
  });

  after(async () => {
    api.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates and updates from bodies without apiVersion/kind (JSON and YAML), defaulted from the URL', async () => {
    const c = await call(api, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'nokind' }, data: { a: 'b' } });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    assert.deepEqual(Object.keys(c.body).slice(0, 2), ['kind', 'apiVersion']);
    assert.equal(c.body.apiVersion, 'v1');
    assert.equal(c.body.kind, 'ConfigMap');
    const y = await call(api, 'POST', '/api/v1/namespaces/default/configmaps', 'metadata:\n  name: yaml-nokind\ndata:\n  k: v\n', 'application/yaml');
    assert.equal(y.status, 201, JSON.stringify(y.body));
    assert.equal(y.body.kind, 'ConfigMap');
    // kind only, apiVersion only
    assert.equal((await call(api, 'POST', '/api/v1/namespaces/default/configmaps', { kind: 'ConfigMap', metadata: { name: 'k-only' } })).status, 201);
    assert.equal((await call(api, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', metadata: { name: 'v-only' } })).status, 201);
    const u = await call(api, 'PUT', '/api/v1/namespaces/default/configmaps/nokind', { metadata: { name: 'nokind' }, data: { a: 'c' } });
    assert.equal(u.status, 200, JSON.stringify(u.body));
    assert.equal(u.body.data.a, 'c');
    assert.equal(u.body.kind, 'ConfigMap');
    const got = await call(api, 'GET', '/api/v1/namespaces/default/configmaps/nokind');
    assert.equal(got.body.apiVersion, 'v1');
  });

  it('keeps upstream errors when apiVersion or kind are present but wrong for the URL', async () => {
    const k = await call(api, 'POST', '/api/v1/namespaces/default/configmaps', { kind: 'Secret', metadata: { name: 'x' } });
    assert.equal(k.status, 400);
    assert.equal(k.body.message, 'the object provided is unrecognized (must be of type ConfigMap): Secret in version "v1" cannot be handled as a ConfigMap');
    const v = await call(api, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'apps/v1', metadata: { name: 'x' } });
    assert.equal(v.status, 400);
    assert.equal(v.body.message, 'the API version in the data (apps/v1) does not match the expected API version (v1)');
  });

  it("DELETE takes kubectl drain's protobuf DeleteOptions (grace period, dry run)", async () => {
    assert.equal((await call(api, 'POST', PODS, POD('pb-dry'))).status, 201);
    // a scheduled pod, so that graceful deletion applies (unscheduled pods go at once)
    const bound = POD('pb-grace') as ReturnType<typeof POD> & { spec: { nodeName?: string } };
    bound.spec.nodeName = 'n1';
    assert.equal((await call(api, 'POST', PODS, bound)).status, 201);

    const dry = await call(api, 'DELETE', `${PODS}/pb-dry`, readFileSync(new URL('deleteoptions_dryrun.pb', TESTDATA)), 'application/vnd.kubernetes.protobuf');
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal((await call(api, 'GET', `${PODS}/pb-dry`)).status, 200, 'dry run keeps the pod');

    const grace = await call(api, 'DELETE', `${PODS}/pb-grace`, readFileSync(new URL('deleteoptions_grace.pb', TESTDATA)), 'application/vnd.kubernetes.protobuf');
    assert.equal(grace.status, 202, JSON.stringify(grace.body));
    assert.equal(grace.body.metadata.deletionGracePeriodSeconds, 7);

    const zero = await call(api, 'DELETE', `${PODS}/pb-dry`, readFileSync(new URL('deleteoptions_grace_zero.pb', TESTDATA)), 'application/vnd.kubernetes.protobuf');
    assert.equal(zero.status, 200, JSON.stringify(zero.body));
    assert.equal((await call(api, 'GET', `${PODS}/pb-dry`)).status, 404);
  });

  it('DELETE rejects bodies of another kind and invalid propagation policies', async () => {
    assert.equal((await call(api, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'del' } })).status, 201);
    const other = await call(api, 'DELETE', '/api/v1/namespaces/default/configmaps/del', { kind: 'Pod', apiVersion: 'v1' });
    assert.equal(other.status, 400);
    assert.equal(other.body.message, 'decoded object cannot be converted to DeleteOptions');
    const pp = await call(api, 'DELETE', '/api/v1/namespaces/default/configmaps/del', { propagationPolicy: 'Sideways' });
    assert.equal(pp.status, 400);
    assert.match(pp.body.message, /propagationPolicy: Unsupported value: "Sideways"/);
    assert.equal((await call(api, 'DELETE', '/api/v1/namespaces/default/configmaps/del', 'propagationPolicy: Background\n', 'application/yaml')).status, 200);
  });

  it('lists pods/eviction with group and version and pods/ephemeralcontainers in discovery', async () => {
    const legacy = (await call(api, 'GET', '/api/v1')).body.resources as { name: string; group?: string; version?: string; kind: string; verbs: string[] }[];
    const ev = legacy.find((r) => r.name === 'pods/eviction')!;
    // upstream's entry, key order included
    assert.equal(JSON.stringify(ev), '{"name":"pods/eviction","singularName":"","namespaced":true,"group":"policy","version":"v1","kind":"Eviction","verbs":["create"]}');
    const eph = legacy.find((r) => r.name === 'pods/ephemeralcontainers')!;
    assert.deepEqual([eph.group, eph.version, eph.kind, eph.verbs], [undefined, undefined, 'Pod', ['get', 'patch', 'update']]);
    const agg = JSON.parse(api.discovery.aggregated('api', 'v2'));
    const pods = agg.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === 'pods');
    const sub = pods.subresources.find((s: { subresource: string }) => s.subresource === 'ephemeralcontainers');
    assert.deepEqual(sub, { subresource: 'ephemeralcontainers', responseKind: { group: '', version: 'v1', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] });
  });

  it("pods/ephemeralcontainers: kubectl debug's patch adds a container; only ephemeralContainers change", async () => {
    assert.equal((await call(api, 'POST', PODS, { ...POD('dbg'), metadata: { name: 'dbg', labels: { a: 'b' } } })).status, 201);
    const url = `${PODS}/dbg/ephemeralcontainers`;
    const patch = { spec: { ephemeralContainers: [{ image: 'busybox', name: 'debugger-abcde', resources: {}, terminationMessagePolicy: 'File' }] } };
    const p = await call(api, 'PATCH', url, patch, 'application/strategic-merge-patch+json');
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal(p.body.kind, 'Pod');
    assert.deepEqual(
      p.body.spec.ephemeralContainers.map((c: { name: string; imagePullPolicy: string }) => [c.name, c.imagePullPolicy]),
      [['debugger-abcde', 'Always']],
    );
    const g = await call(api, 'GET', url);
    assert.equal(g.status, 200);
    assert.equal(g.body.spec.ephemeralContainers.length, 1);
    // other fields in the request are ignored
    const other = await call(api, 'PATCH', url, { metadata: { labels: { a: 'changed' } }, spec: { activeDeadlineSeconds: 5 } }, 'application/merge-patch+json');
    assert.equal(other.status, 200, JSON.stringify(other.body));
    assert.equal(other.body.metadata.labels.a, 'b');
    assert.equal(other.body.spec.activeDeadlineSeconds, undefined);
    // an update (PUT) with the whole pod
    const cur = (await call(api, 'GET', `${PODS}/dbg`)).body;
    cur.spec.ephemeralContainers.push({ name: 'second', image: 'busybox' });
    const put = await call(api, 'PUT', url, cur);
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(
      put.body.spec.ephemeralContainers.map((c: { name: string }) => c.name),
      ['debugger-abcde', 'second'],
    );
  });

  it('pods/ephemeralcontainers validation: forbidden fields, duplicate names, existing containers immutable', async () => {
    assert.equal((await call(api, 'POST', PODS, POD('val'))).status, 201);
    const url = `${PODS}/val/ephemeralcontainers`;
    const set = (ecs: unknown[]) => call(api, 'PATCH', url, { spec: { ephemeralContainers: ecs } }, 'application/merge-patch+json');
    const ports = await set([{ name: 'd', image: 'busybox', ports: [{ containerPort: 80 }] }]);
    assert.equal(ports.status, 422);
    assert.equal(ports.body.message, 'Pod "val" is invalid: spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container');
    const probe = await set([{ name: 'd', image: 'busybox', readinessProbe: { exec: { command: ['true'] } } }]);
    assert.equal(probe.status, 422);
    assert.match(probe.body.message, /spec\.ephemeralContainers\[0\]\.readinessProbe: Forbidden: cannot be set for an Ephemeral Container/);
    const dup = await set([{ name: 'app', image: 'busybox' }]);
    assert.equal(dup.status, 422);
    assert.match(dup.body.message, /spec\.ephemeralContainers\[0\]\.name: Duplicate value: "app"/);
    assert.equal((await set([{ name: 'd', image: 'busybox' }])).status, 200);
    const changed = await set([{ name: 'd', image: 'alpine' }]);
    assert.equal(changed.status, 422);
    assert.match(changed.body.message, /existing ephemeral containers "d" may not be changed/);
    const removed = await set([]);
    assert.equal(removed.status, 422);
    assert.match(removed.body.message, /existing ephemeral containers "d" may not be removed/);
    const del = await call(api, 'DELETE', url);
    assert.equal(del.status, 405);
  });
});

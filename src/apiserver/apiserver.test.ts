import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KObject, ResourceDefinition } from '../api/resource.js';
import { configMapDefinition } from '../api/core/v1/configmap/strategy.js';
import { namespaceDefinition } from '../api/core/v1/namespace/strategy.js';
import type { StatusError } from '../apimachinery/errors.js';
import { RestClient } from '../client/rest-client.js';
import { InProcessTransport } from './loopback.js';
import type { WatchEvent } from '../client/types.js';
import { openStorage } from '../storage/index.js';
import type { Storage } from '../storage/interface.js';
import { APIServer } from './apiserver.js';
import { namespaceLifecycle } from './admission/plugins/namespace-lifecycle.js';

const cm = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true } as const;
const nsRef = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false } as const;

describe('APIServer (in-process)', () => {
  let dir: string;
  let storage: Storage;
  let api: APIServer;
  let client: RestClient;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-api-'));
    storage = await openStorage({ kind: 'sqlite', dataDir: dir });
    api = new APIServer({
      storage,
      definitions: [configMapDefinition as ResourceDefinition, namespaceDefinition as ResourceDefinition],
      admission: [namespaceLifecycle],
      serverAddress: '127.0.0.1:6443',
    });
    await api.start();
    client = new RestClient(new InProcessTransport(api, { username: 'admin', groups: ['system:masters'] }));
    await client.create(nsRef, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });

  after(async () => {
    api.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, gets and lists with resourceVersion, uid and creationTimestamp', async () => {
    const created = await client.create<KObject>(cm, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { x: '1' } }, data: { k: 'v' } });
    assert.ok(created.metadata?.uid);
    assert.match(created.metadata?.creationTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(created.metadata?.resourceVersion ?? '', /^\d+$/);
    const got = await client.get(cm, 'default', 'a');
    assert.equal(got.metadata?.resourceVersion, created.metadata?.resourceVersion);
    const l = await client.list(cm, 'default', { labelSelector: 'x=1' });
    assert.equal(l.kind, 'ConfigMapList');
    assert.deepEqual(
      l.items.map((i) => i.metadata?.name),
      ['a'],
    );
    const none = await client.list(cm, 'default', { labelSelector: 'x=2' });
    assert.equal(none.items.length, 0);
  });

  it('answers NotFound, AlreadyExists and Conflict with upstream messages', async () => {
    await assert.rejects(client.get(cm, 'default', 'nope'), (e: StatusError) => e.code === 404 && e.message === 'configmaps "nope" not found');
    await assert.rejects(
      client.create(cm, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }),
      (e: StatusError) => e.code === 409 && e.reason === 'AlreadyExists' && e.message === 'configmaps "a" already exists',
    );
    const cur = await client.get(cm, 'default', 'a');
    await client.update(cm, 'default', { ...cur, data: { k: 'v2' } });
    await assert.rejects(
      client.update(cm, 'default', { ...cur, data: { k: 'v3' } }),
      (e: StatusError) =>
        e.code === 409 &&
        e.message === 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('rejects creation in a missing namespace', async () => {
    await assert.rejects(
      client.create(cm, 'nope', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }),
      (e: StatusError) => e.code === 404 && e.message === 'namespaces "nope" not found',
    );
  });

  it('validates names with Invalid and field causes', async () => {
    await assert.rejects(
      client.create(cm, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } }),
      (e: StatusError) =>
        e.code === 422 &&
        e.message.startsWith('ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"') &&
        e.status.details?.causes?.[0]?.field === 'metadata.name',
    );
  });

  it('lists ObjectMeta errors before the strategy’s, each once, as upstream’s ValidateConfigMap', async () => {
    await assert.rejects(client.create(cm, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' }, data: { 'bad key!': 'x' } }), (e: StatusError) => {
      assert.deepEqual(
        e.status.details?.causes?.map((c) => c.field),
        ['metadata.name', 'data[bad key!]'],
      );
      return e.code === 422 && e.message.startsWith('ConfigMap "Bad_Name" is invalid: [metadata.name: Invalid value: "Bad_Name"');
    });
  });

  it('patches with merge and strategic merge patches', async () => {
    const p = await client.patch(cm, 'default', 'a', 'merge', { metadata: { labels: { y: '2' } } });
    assert.deepEqual(p.metadata?.labels, { x: '1', y: '2' });
    const s = await client.patch(cm, 'default', 'a', 'strategic', { data: { k2: 'v' } });
    assert.deepEqual(s.data, { k: 'v2', k2: 'v' });
    const j = await client.patch(cm, 'default', 'a', 'json', [{ op: 'remove', path: '/data/k2' }]);
    assert.deepEqual(j.data, { k: 'v2' });
  });

  it('streams watch events from a resourceVersion, with selector transitions', async () => {
    const start = await client.list(cm, 'default');
    const events: WatchEvent[] = [];
    const w = client.watch(cm, 'default', { resourceVersion: start.metadata.resourceVersion, labelSelector: 'w=1' }, (e) => events.push(e));
    await client.create(cm, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w', labels: { w: '1' } } });
    await client.patch(cm, 'default', 'w', 'merge', { data: { a: 'b' } });
    await client.patch(cm, 'default', 'w', 'merge', { metadata: { labels: { w: '0' } } });
    await client.create(cm, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'z', labels: { w: '1' } } });
    await client.delete(cm, 'default', 'z');
    for (let i = 0; i < 50 && events.length < 5; i++) await new Promise((r) => setTimeout(r, 10));
    w.stop();
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.object.metadata?.name}`),
      ['ADDED w', 'MODIFIED w', 'DELETED w', 'ADDED z', 'DELETED z'],
    );
  });

  it('serves a Table with rows[].object metadata', async () => {
    const res = await client.transport.request('GET', '/api/v1/namespaces/default/configmaps', {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    const t = JSON.parse(res.body.toString()) as { kind: string; columnDefinitions: { name: string }[]; rows: { cells: unknown[]; object: { kind: string } }[] };
    assert.equal(t.kind, 'Table');
    assert.deepEqual(
      t.columnDefinitions.map((c) => c.name),
      ['Name', 'Data', 'Age'],
    );
    assert.equal(t.rows[0]!.object.kind, 'PartialObjectMetadata');
  });

  it('paginates lists with continue tokens at one revision', async () => {
    for (let i = 0; i < 5; i++) await client.create(cm, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `p${i}` } });
    const names: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const l = await client.list(cm, 'default', { limit: 2, continue: cont });
      names.push(...l.items.map((i) => i.metadata!.name!));
      cont = l.metadata.continue;
      pages++;
    } while (cont);
    assert.ok(pages >= 3);
    assert.deepEqual(names, [...names].sort());
    assert.ok(['p0', 'p1', 'p2', 'p3', 'p4'].every((n) => names.includes(n)));
  });

  it('serves aggregated discovery with the exact content type', async () => {
    const res = await client.transport.request('GET', '/api', {
      Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
    });
    assert.equal(res.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const d = JSON.parse(res.body.toString()) as { items: { versions: { resources: { resource: string }[] }[] }[] };
    assert.ok(d.items[0]!.versions[0]!.resources.some((r) => r.resource === 'configmaps'));
  });

  it('serves only list and watch on the all-namespaces path of a namespaced resource (405 otherwise)', async () => {
    await client.create(cm, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep' } });
    for (const method of ['DELETE', 'POST', 'PUT', 'PATCH']) {
      const res = await client.transport.request(method, '/api/v1/configmaps', { 'Content-Type': 'application/json' }, Buffer.from('{}'));
      assert.equal(res.status, 405, method);
      assert.deepEqual(JSON.parse(res.body.toString()), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server does not allow this method on the requested resource',
        reason: 'MethodNotAllowed',
        details: {},
        code: 405,
      });
    }
    // nothing was deleted; a name on that path addresses nothing
    assert.equal((await client.get(cm, 'default', 'keep')).metadata?.name, 'keep');
    assert.equal((await client.transport.request('GET', '/api/v1/configmaps/keep', {})).status, 404);
    assert.equal((await client.transport.request('DELETE', '/api/v1/configmaps/keep', {})).status, 404);
    const list = await client.transport.request('GET', '/api/v1/configmaps', {});
    assert.equal(list.status, 200);
  });
});

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResourceDefinition } from '../../api/resource.js';
import { namespaceDefinition } from '../../api/core/v1/namespace/strategy.js';
import { podDefinition } from '../../api/core/v1/pod/strategy.js';
import { configMapDefinition } from '../../api/core/v1/configmap/strategy.js';
import { RestClient } from '../../client/rest-client.js';
import { R } from '../../client/types.js';
import { openStorage } from '../../storage/index.js';
import type { Storage } from '../../storage/interface.js';
import { APIServer } from '../apiserver.js';
import { InProcessTransport } from '../loopback.js';
import { bindingsResource, podBinding } from './pod-binding.js';
import { podEviction } from './pod-eviction.js';

describe('write options: dryRun', () => {
  const bindings = bindingsResource();
  let dir: string;
  let storage: Storage;
  let api: APIServer;
  let client: RestClient;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-dryrun-'));
    storage = await openStorage({ kind: 'sqlite', dataDir: dir });
    api = new APIServer({
      storage,
      definitions: [namespaceDefinition, podDefinition, configMapDefinition] as ResourceDefinition[],
      subresources: [podBinding, podEviction],
      virtualResources: [bindings],
      storeConsumers: [bindings],
      serverAddress: '127.0.0.1:6443',
    });
    await api.start();
    client = new RestClient(new InProcessTransport(api, { username: 'admin', groups: ['system:masters'] }));
    await client.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    await client.create(R.pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
  });

  after(async () => {
    api.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const status = (body: string): { code: number; reason: string; message: string; details?: { kind?: string; group?: string } } => JSON.parse(body);
  const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'node-1' } };

  it('pods/binding answers 422 for dryRun=foo, as every create does, and binds nothing', async () => {
    const r = await client.raw('POST', '/api/v1/namespaces/default/pods/p/binding?dryRun=foo', binding);
    assert.equal(r.status, 422);
    const st = status(r.body);
    assert.equal(st.reason, 'Invalid');
    assert.equal(st.message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"foo"}: supported values: "All"');
    assert.deepEqual(st.details && { group: st.details.group, kind: st.details.kind }, { group: 'meta.k8s.io', kind: 'CreateOptions' });
    const cm = await client.raw('POST', '/api/v1/namespaces/default/configmaps?dryRun=foo', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
    assert.equal(cm.status, 422);
    assert.equal(status(cm.body).message, status(r.body).message);
    const pod = await client.get<{ spec: { nodeName?: string } }>(R.pods, 'default', 'p');
    assert.equal(pod.spec.nodeName, undefined);
  });

  it('pods/binding with dryRun=All answers 201 and leaves the pod unbound', async () => {
    const r = await client.raw('POST', '/api/v1/namespaces/default/pods/p/binding?dryRun=All', binding);
    assert.equal(r.status, 201);
    const pod = await client.get<{ spec: { nodeName?: string } }>(R.pods, 'default', 'p');
    assert.equal(pod.spec.nodeName, undefined);
  });

  it('the legacy bindings resource validates dryRun and honours dryRun=All', async () => {
    const bad = await client.raw('POST', '/api/v1/namespaces/default/bindings?dryRun=foo', binding);
    assert.equal(bad.status, 422);
    assert.equal(status(bad.body).message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"foo"}: supported values: "All"');
    const dry = await client.raw('POST', '/api/v1/namespaces/default/bindings?dryRun=All', binding);
    assert.equal(dry.status, 201);
    const pod = await client.get<{ spec: { nodeName?: string } }>(R.pods, 'default', 'p');
    assert.equal(pod.spec.nodeName, undefined);
  });

  it('names the options kind of the verb: UpdateOptions, PatchOptions, DeleteOptions', async () => {
    const put = await client.raw('PUT', '/api/v1/namespaces/default/pods/p?dryRun=x', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } });
    assert.equal(status(put.body).message, 'UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"x"}: supported values: "All"');
    const patch = await client.raw('PATCH', '/api/v1/namespaces/default/pods/p?dryRun=x', {});
    assert.equal(status(patch.body).message, 'PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"x"}: supported values: "All"');
    const del = await client.raw('DELETE', '/api/v1/namespaces/default/pods/p?dryRun=All&dryRun=x');
    assert.equal(del.status, 422);
    assert.equal(status(del.body).message, 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "x"}: supported values: "All"');
    const ev = await client.raw('POST', '/api/v1/namespaces/default/pods/p/eviction?dryRun=no', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' } });
    assert.equal(ev.status, 422);
    assert.match(status(ev.body).message, /^CreateOptions\.meta\.k8s\.io "" is invalid: dryRun/);
  });
});

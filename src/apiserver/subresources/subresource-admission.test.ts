/**
 * Subresource requests reach admission as upstream's: the scale subresource with
 * autoscaling/v1 Scale objects (a mutation of the Scale lands in the Deployment),
 * pods/binding, pods/eviction with the request's own object (CREATE), pods/exec as CONNECT
 * with the PodExecOptions; a denial stops the request.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allDefinitions } from '../../api/all.js';
import { newForbidden } from '../../apimachinery/errors.js';
import { APIServer } from '../apiserver.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission/types.js';
import { InProcessTransport } from '../loopback.js';
import { RestClient } from '../../client/rest-client.js';
import { R } from '../../client/types.js';
import { openStorage } from '../../storage/index.js';
import type { Storage } from '../../storage/interface.js';
import type { KubeletClient } from '../proxy/kubelet.js';
import { connectOptions } from '../proxy/pod-stream.js';
import { bindingsResource, podBinding } from './pod-binding.js';
import { podEviction } from './pod-eviction.js';
import { podExecHandler } from './pod-exec.js';
import { scaleSubresources } from './scale.js';

interface Seen {
  phase: 'admit' | 'validate';
  operation: string;
  kind: string;
  subresource: string;
  name: string;
  object: Record<string, unknown> | undefined;
  oldObject: Record<string, unknown> | undefined;
  options: unknown;
}

const seen: Seen[] = [];
const bindingsSeen: string[][] = [];
/** records subresource requests; caps a Scale at 5 replicas (mutating); denies exec of `locked` and the eviction of `keep` */
const recorder: AdmissionPlugin = {
  name: 'Recorder',
  async admit(a) {
    if (a.resource.resource === 'bindings') bindingsSeen.push([a.operation, `${a.kind.group}/${a.kind.version}/${a.kind.kind}`, a.resource.resource, a.name]);
    if (!a.subresource || a.subresource === 'status') return;
    seen.push(record('admit', a));
    const s = a.object as { kind?: string; spec?: { replicas?: number } } | undefined;
    if (s?.kind === 'Scale' && (s.spec?.replicas ?? 0) > 5) s.spec!.replicas = 5;
  },
  async validate(a) {
    if (!a.subresource || a.subresource === 'status') return;
    seen.push(record('validate', a));
    if (a.operation === 'CONNECT' && a.name === 'locked') throw newForbidden({ group: '', resource: 'pods/exec' }, a.name, 'exec is not allowed here');
    if (a.subresource === 'eviction' && a.name === 'keep') throw newForbidden({ group: '', resource: 'pods/eviction' }, a.name, 'this pod stays');
  },
};
const record = (phase: Seen['phase'], a: AdmissionAttributes): Seen => ({
  phase,
  operation: a.operation,
  kind: `${a.kind.group}/${a.kind.version}/${a.kind.kind}`,
  subresource: a.subresource,
  name: a.name,
  object: a.object ? structuredClone(a.object) : undefined,
  oldObject: a.oldObject ? structuredClone(a.oldObject) : undefined,
  options: a.options,
});

let dir = '';
let storage: Storage;
let api: APIServer;
let client: RestClient;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'k8ts-subadm-'));
  storage = await openStorage({ kind: 'sqlite', dataDir: dir });
  const bindings = bindingsResource();
  api = new APIServer({
    storage,
    virtualResources: [bindings],
    storeConsumers: [bindings],
    definitions: allDefinitions({ serviceCIDR: '10.96.0.0/12' }),
    subresources: [...scaleSubresources, podEviction, podBinding, podExecHandler({} as KubeletClient)],
    admission: [recorder],
    serverAddress: '127.0.0.1:6443',
  });
  await api.start();
  client = new RestClient(new InProcessTransport(api, { username: 'admin', groups: ['system:masters', 'system:authenticated'] }));
  await client.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});

after(async () => {
  api.stop();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true } as const;
const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });

test('scale: admission sees autoscaling/v1 Scale objects (new and old); a mutated Scale changes the Deployment', async () => {
  await client.create(DEPLOYMENTS, 'default', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  seen.length = 0;
  const path = '/apis/apps/v1/namespaces/default/deployments/web/scale';
  const current = JSON.parse((await client.raw('GET', path)).body) as { spec: { replicas: number } };
  const r = await client.raw('PUT', path, { ...current, spec: { replicas: 9 } });
  assert.equal(r.status, 200, r.body);
  assert.equal((JSON.parse(r.body) as { spec: { replicas: number } }).spec.replicas, 5);
  const d = await client.get<{ spec: { replicas: number } }>(DEPLOYMENTS, 'default', 'web');
  assert.equal(d.spec.replicas, 5);
  assert.deepEqual(
    seen.map((s) => [s.phase, s.operation, s.kind, s.subresource]),
    [
      ['admit', 'UPDATE', 'autoscaling/v1/Scale', 'scale'],
      ['validate', 'UPDATE', 'autoscaling/v1/Scale', 'scale'],
    ],
  );
  const [admit, validate] = seen;
  assert.equal(admit!.object?.kind, 'Scale');
  assert.equal(admit!.object?.apiVersion, 'autoscaling/v1');
  assert.deepEqual(admit!.object?.spec, { replicas: 9 });
  assert.deepEqual(admit!.oldObject?.spec, { replicas: 1 });
  assert.deepEqual(admit!.oldObject?.status, { replicas: 0, selector: 'app=web' });
  // validating admission sees the Scale of the object to be stored
  assert.deepEqual(validate!.object?.spec, { replicas: 5 });
});

test('pods/binding and pods/eviction: CREATE with the Binding and the Eviction; a denied eviction leaves the pod', async () => {
  await client.create(R.pods, 'default', pod('a'));
  await client.create(R.pods, 'default', pod('keep'));
  seen.length = 0;
  const b = await client.raw('POST', '/api/v1/namespaces/default/pods/a/binding', {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: 'a' },
    target: { kind: 'Node', name: 'n1' },
  });
  assert.equal(b.status, 201, b.body);
  assert.deepEqual(
    seen.map((s) => [s.phase, s.operation, s.kind, s.subresource, s.name]),
    [
      ['admit', 'CREATE', '/v1/Binding', 'binding', 'a'],
      ['validate', 'CREATE', '/v1/Binding', 'binding', 'a'],
    ],
  );
  assert.deepEqual(seen[0]!.object, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'a', namespace: 'default' }, target: { kind: 'Node', name: 'n1' } });
  assert.deepEqual(seen[0]!.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });

  seen.length = 0;
  const e = await client.raw('POST', '/api/v1/namespaces/default/pods/keep/eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'keep' } });
  assert.equal(e.status, 403, e.body);
  assert.equal((JSON.parse(e.body) as { message: string }).message, 'pods/eviction "keep" is forbidden: this pod stays');
  assert.deepEqual(
    seen.map((s) => [s.phase, s.operation, s.kind, s.subresource]),
    [
      ['admit', 'CREATE', 'policy/v1/Eviction', 'eviction'],
      ['validate', 'CREATE', 'policy/v1/Eviction', 'eviction'],
    ],
  );
  assert.equal((await client.get(R.pods, 'default', 'keep')).metadata?.name, 'keep');
});

test('the legacy bindings resource: CREATE of bindings (no subresource) with the Binding', async () => {
  await client.create(R.pods, 'default', pod('legacy'));
  const before = bindingsSeen.length;
  const r = await client.raw('POST', '/api/v1/namespaces/default/bindings', {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: 'legacy' },
    target: { kind: 'Node', name: 'n1' },
  });
  assert.equal(r.status, 201, r.body);
  assert.equal((await client.get<{ spec: { nodeName?: string } }>(R.pods, 'default', 'legacy')).spec.nodeName, 'n1');
  assert.deepEqual(bindingsSeen.slice(before), [['CREATE', '/v1/Binding', 'bindings', 'legacy']]);
});

test('pods/exec: CONNECT with the PodExecOptions, before the pod is looked at; a denial is the answer', async () => {
  seen.length = 0;
  const r = await client.raw('POST', '/api/v1/namespaces/default/pods/locked/exec?command=ls&command=-l&stdout=true&container=c');
  assert.equal(r.status, 403, r.body);
  assert.equal((JSON.parse(r.body) as { message: string }).message, 'pods/exec "locked" is forbidden: exec is not allowed here');
  assert.deepEqual(
    seen.map((s) => [s.phase, s.operation, s.kind, s.subresource, s.name, s.options]),
    [
      ['admit', 'CONNECT', '/v1/PodExecOptions', 'exec', 'locked', undefined],
      ['validate', 'CONNECT', '/v1/PodExecOptions', 'exec', 'locked', undefined],
    ],
  );
  assert.deepEqual(seen[0]!.object, { kind: 'PodExecOptions', apiVersion: 'v1', stdout: true, container: 'c', command: ['ls', '-l'] });
  // an admitted exec of a pod that does not exist then fails on the pod
  const missing = await client.raw('POST', '/api/v1/namespaces/default/pods/ghost/exec?command=ls&stdout=true');
  assert.equal(missing.status, 404, missing.body);
});

test('connectOptions: attach and port-forward options as upstream encodes them', () => {
  assert.deepEqual(connectOptions('attach', 'PodAttachOptions', new URLSearchParams('stdin=1&tty=true&container=c')), {
    kind: 'PodAttachOptions',
    apiVersion: 'v1',
    stdin: true,
    tty: true,
    container: 'c',
  });
  assert.deepEqual(connectOptions('portforward', 'PodPortForwardOptions', new URLSearchParams('ports=80,8080')), {
    kind: 'PodPortForwardOptions',
    apiVersion: 'v1',
    ports: [80, 8080],
  });
  assert.deepEqual(connectOptions('exec', 'PodExecOptions', new URLSearchParams('')), { kind: 'PodExecOptions', apiVersion: 'v1', command: null });
});

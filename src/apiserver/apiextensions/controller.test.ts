import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KObject, ResourceDefinition } from '../../api/resource.js';
import { namespaceDefinition } from '../../api/core/v1/namespace/strategy.js';
import { customResourceDefinitionDefinition } from '../../api/apiextensions/v1/customresourcedefinition/strategy.js';
import { StatusError } from '../../apimachinery/errors.js';
import { RestClient } from '../../client/rest-client.js';
import { InProcessTransport } from '../loopback.js';
import type { ResourceRef, WatchEvent } from '../../client/types.js';
import { openStorage } from '../../storage/index.js';
import type { Storage } from '../../storage/interface.js';
import { APIServer } from '../apiserver.js';
import { namespaceLifecycle } from '../admission/plugins/namespace-lifecycle.js';

const nsRef: ResourceRef = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false };
const crdRef: ResourceRef = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false };
const ctRef: ResourceRef = { group: 'stable.example.com', version: 'v1', resource: 'crontabs', kind: 'CronTab', namespaced: true };

export const cronTabCRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
                  image: { type: 'string' },
                  replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
                },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' }, labelSelector: { type: 'string' } } },
            },
          },
        },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' } },
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      },
    ],
  },
};

/** Polls (yielding to the event loop, no timers) until `fn` returns a truthy value. */
async function until<T>(fn: () => Promise<T> | T, tries = 2000): Promise<NonNullable<T>> {
  let last: unknown;
  for (let i = 0; i < tries; i++) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`condition not met${last ? `: ${String(last)}` : ''}`);
}

function established(o: KObject): boolean {
  const conds = (o.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conds.some((c) => c.type === 'Established' && c.status === 'True');
}

describe('CustomResourceDefinition controller (in-process)', () => {
  let dir: string;
  let storage: Storage;
  let api: APIServer;
  let client: RestClient;

  const boot = async (): Promise<void> => {
    storage = await openStorage({ kind: 'sqlite', dataDir: dir });
    api = new APIServer({
      storage,
      definitions: [namespaceDefinition as ResourceDefinition, customResourceDefinitionDefinition as ResourceDefinition],
      admission: [namespaceLifecycle],
      serverAddress: '127.0.0.1:6443',
    });
    await api.start();
    client = new RestClient(new InProcessTransport(api, { username: 'admin', groups: ['system:masters'] }));
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-crd-'));
    await boot();
    await client.create(nsRef, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });

  after(async () => {
    api.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('defaults names, records the stored version and becomes Established with accepted names', async () => {
    const created = await client.create<KObject>(crdRef, '', structuredClone(cronTabCRD));
    const spec = created.spec as { names: { listKind: string }; conversion: { strategy: string } };
    assert.equal(spec.names.listKind, 'CronTabList');
    assert.equal(spec.conversion.strategy, 'None');
    assert.deepEqual((created.status as { storedVersions: string[] }).storedVersions, ['v1']);
    const crd = await until(async () => {
      const o = await client.get(crdRef, '', 'crontabs.stable.example.com');
      return established(o) ? o : undefined;
    });
    const st = crd.status as { acceptedNames: { plural: string; shortNames: string[] }; conditions: { type: string; status: string; reason: string }[] };
    assert.equal(st.acceptedNames.plural, 'crontabs');
    assert.deepEqual(st.acceptedNames.shortNames, ['ct']);
    assert.deepEqual(
      st.conditions.map((c) => [c.type, c.status, c.reason]),
      [
        ['NamesAccepted', 'True', 'NoConflicts'],
        ['Established', 'True', 'InitialNamesAccepted'],
      ],
    );
  });

  it('lists the custom resource in discovery with short names and categories', async () => {
    const rl = JSON.parse((await client.raw('GET', '/apis/stable.example.com/v1')).body) as { resources: { name: string; shortNames?: string[]; categories?: string[] }[] };
    const names = rl.resources.map((r) => r.name).sort();
    assert.deepEqual(names, ['crontabs', 'crontabs/scale', 'crontabs/status']);
    const ct = rl.resources.find((r) => r.name === 'crontabs')!;
    assert.deepEqual(ct.shortNames, ['ct']);
    assert.deepEqual(ct.categories, ['all']);
    const groups = JSON.parse((await client.raw('GET', '/apis')).body) as { groups: { name: string }[] };
    assert.ok(groups.groups.some((g) => g.name === 'stable.example.com'));
  });

  it('creates a custom resource with pruning and defaulting, and watches it', async () => {
    const events: WatchEvent<KObject>[] = [];
    const w = client.watch<KObject>(ctRef, 'default', {}, (e) => events.push(e));
    const o = await client.create<KObject>(ctRef, 'default', {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name: 'c1', labels: { app: 'x' } },
      spec: { cronSpec: '* * * * */5', image: 'img', bogus: true },
      status: { replicas: 9 },
    } as KObject);
    assert.deepEqual(o.spec, { cronSpec: '* * * * */5', image: 'img', replicas: 1 });
    assert.equal(o.status, undefined, 'status is dropped on create with the status subresource');
    assert.equal(o.metadata?.generation, 1);
    await until(() => events.some((e) => e.type === 'ADDED' && e.object.metadata?.name === 'c1'));
    w.stop();
    const l = await client.list(ctRef, 'default', { labelSelector: 'app=x', fieldSelector: 'metadata.name=c1' });
    assert.equal(l.kind, 'CronTabList');
    assert.deepEqual(
      l.items.map((i) => i.metadata?.name),
      ['c1'],
    );
  });

  it('rejects invalid objects with the upstream schema messages', async () => {
    await assert.rejects(
      client.create(ctRef, 'default', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'bad' }, spec: { replicas: 'three', cronSpec: 'x' } } as KObject),
      (e: unknown) => {
        assert.ok(e instanceof StatusError);
        assert.equal(e.status.code, 422);
        assert.equal(
          e.status.message,
          'CronTab.stable.example.com "bad" is invalid: [spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string", spec.cronSpec: Invalid value: "x": spec.cronSpec in body should match \'^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$\']',
        );
        return true;
      },
    );
  });

  it('serves status and scale subresources with generation bumped only on spec changes', async () => {
    const cur = await client.get<KObject>(ctRef, 'default', 'c1');
    const st = await client.patch<KObject>(
      ctRef,
      'default',
      'c1',
      'merge',
      { spec: { image: 'ignored' }, status: { replicas: 2, labelSelector: 'app=x' } },
      { subresource: 'status' },
    );
    assert.deepEqual(st.status, { replicas: 2, labelSelector: 'app=x' });
    assert.equal((st.spec as { image: string }).image, 'img', 'spec changes are ignored on /status');
    assert.equal(st.metadata?.generation, cur.metadata?.generation);
    const main = await client.patch<KObject>(ctRef, 'default', 'c1', 'merge', { spec: { image: 'img2' }, status: { replicas: 7 } });
    assert.equal((main.status as { replicas: number }).replicas, 2, 'status changes are ignored on the main resource');
    assert.equal(main.metadata?.generation, 2);
    const scale = await client.get<KObject>(ctRef, 'default', 'c1', { subresource: 'scale' });
    assert.deepEqual(scale.spec, { replicas: 1 });
    assert.deepEqual(scale.status, { replicas: 2, selector: 'app=x' });
    await client.patch(ctRef, 'default', 'c1', 'merge', { spec: { replicas: 5 } }, { subresource: 'scale' });
    const after = await client.get<KObject>(ctRef, 'default', 'c1');
    assert.equal((after.spec as { replicas: number }).replicas, 5);
    assert.equal(after.metadata?.generation, 3);
  });

  it('prints the additional printer columns', async () => {
    const r = await api.lookup.get({ group: 'stable.example.com', version: 'v1', resource: 'crontabs' }, 'default', 'c1');
    assert.ok(r);
    const store = api.store('stable.example.com', 'crontabs')!;
    assert.deepEqual(
      store.def.table!.columns.map((c) => c.name),
      ['Name', 'Spec', 'Replicas', 'Age'],
    );
    const cells = store.def.table!.cells(store.peek('default', 'c1')!.obj, new Date());
    assert.deepEqual(cells.slice(0, 3), ['c1', '* * * * */5', 5]);
  });

  it('serves the custom resources again after a restart', async () => {
    api.stop();
    await storage.close();
    await boot();
    const o = await client.get<KObject>(ctRef, 'default', 'c1');
    assert.equal((o.spec as { replicas: number }).replicas, 5);
  });

  it('deletes the custom resources before the CRD, then stops serving them', async () => {
    const events: string[] = [];
    let ended = false;
    const w = client.watch<KObject>(ctRef, 'default', {}, (e) => {
      events.push(`${e.type}:${e.object.metadata?.name ?? ''}`);
    });
    void w.done.then(() => (ended = true));
    await until(() => events.includes('ADDED:c1'));
    await client.delete(crdRef, '', 'crontabs.stable.example.com');
    await until(async () => {
      try {
        await client.get(crdRef, '', 'crontabs.stable.example.com');
        return false;
      } catch (e) {
        return e instanceof StatusError && e.status.code === 404;
      }
    });
    const res = await client.raw('GET', '/apis/stable.example.com/v1/namespaces/default/crontabs');
    assert.equal(res.status, 404);
    const rows = await storage.list('/registry/stable.example.com/crontabs/', {});
    assert.equal(rows.kvs.length, 0);
    assert.ok(events.includes('DELETED:c1'), events.join(' '));
    await until(() => ended);
  });

  it('serves several versions of one storage (conversion None) with selectable fields', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Cluster',
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: ['v1beta1', 'v1'].map((name) => ({
          name,
          served: true,
          storage: name === 'v1',
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' } } } } } },
          selectableFields: [{ jsonPath: '.spec.color' }],
        })),
      },
    };
    await client.create(crdRef, '', crd as KObject);
    await until(async () => established(await client.get(crdRef, '', 'gadgets.example.com')));
    const beta: ResourceRef = { group: 'example.com', version: 'v1beta1', resource: 'gadgets', kind: 'Gadget', namespaced: false };
    const v1: ResourceRef = { ...beta, version: 'v1' };
    await client.create(beta, '', { apiVersion: 'example.com/v1beta1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { color: 'red' } } as KObject);
    await client.create(v1, '', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g2' }, spec: { color: 'blue' } } as KObject);
    const viaV1 = await client.get(v1, '', 'g1');
    assert.equal(viaV1.apiVersion, 'example.com/v1');
    const viaBeta = await client.list(beta, '');
    assert.deepEqual(
      viaBeta.items.map((i) => [i.metadata?.name, i.apiVersion]),
      [
        ['g1', 'example.com/v1beta1'],
        ['g2', 'example.com/v1beta1'],
      ],
    );
    const stored = await storage.get('/registry/example.com/gadgets/g1');
    assert.equal(JSON.parse(stored.kv!.value).apiVersion, 'example.com/v1');
    const red = await client.list(v1, '', { fieldSelector: 'spec.color=red' });
    assert.deepEqual(
      red.items.map((i) => i.metadata?.name),
      ['g1'],
    );
    const groups = JSON.parse((await client.raw('GET', '/apis/example.com')).body) as { preferredVersion: { version: string }; versions: { version: string }[] };
    assert.equal(groups.preferredVersion.version, 'v1');
    assert.deepEqual(
      groups.versions.map((v) => v.version),
      ['v1', 'v1beta1'],
    );
  });

  it('does not accept names another CRD of the group uses, and does not serve it', async () => {
    const mk = (plural: string, kind: string): KObject => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.conflict.example.com` },
      spec: {
        group: 'conflict.example.com',
        scope: 'Cluster',
        names: { plural, kind, shortNames: ['w'] },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    await client.create(crdRef, '', mk('widgets', 'Widget'));
    await until(async () => established(await client.get(crdRef, '', 'widgets.conflict.example.com')));
    await client.create(crdRef, '', mk('gizmos', 'Gizmo'));
    const st = await until(async () => {
      const o = await client.get(crdRef, '', 'gizmos.conflict.example.com');
      const conds = (o.status as { conditions?: { type: string; status: string; reason: string; message: string }[] }).conditions ?? [];
      return conds.length === 2 ? conds : undefined;
    });
    assert.deepEqual(
      st.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['NamesAccepted', 'False', 'ShortNamesConflict', '"w" is already in use'],
        ['Established', 'False', 'NotAccepted', 'not all names are accepted'],
      ],
    );
    assert.equal((await client.raw('GET', '/apis/conflict.example.com/v1/gizmos')).status, 404);
    assert.equal((await client.raw('GET', '/apis/conflict.example.com/v1/widgets')).status, 200);
  });

  it('rejects a CRD whose name is not <plural>.<group> or whose group has no dot', async () => {
    const bad = structuredClone(cronTabCRD) as KObject & { spec: { group: string } };
    bad.metadata = { name: 'wrong' };
    bad.spec.group = 'nodot';
    await assert.rejects(client.create(crdRef, '', bad), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.match(e.status.message ?? '', /metadata.name: Invalid value: "wrong": must be spec.names.plural\+"."\+spec.group/);
      assert.match(e.status.message ?? '', /spec.group: Invalid value: "nodot": should be a domain with at least one dot/);
      return true;
    });
  });
});

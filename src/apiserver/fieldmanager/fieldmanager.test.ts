import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Obj } from '../../api/resource.js';
import { deploymentDefinition } from '../../api/apps/v1/deployment/strategy.js';
import { StatusError } from '../../apimachinery/errors.js';
import { applyFields, managerName, updateFields, type FieldManagerScope } from './fieldmanager.js';
import type { ManagedFieldsEntry } from './managed.js';

const def = deploymentDefinition as unknown as FieldManagerScope['def'] & { defaults(o: Obj): void };
const T0 = new Date('2026-01-01T00:00:00Z');
const T1 = new Date('2026-01-01T00:01:00.750Z');
const scope = (now = T0, subresource = ''): FieldManagerScope => ({ def, subresource, now });

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

function deployment(): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'nginx' } },
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] }] },
      },
    },
  } as Obj;
}

/** A created Deployment as the store would keep it (defaults, uid, managedFields). */
function created(manager = 'kubectl-create'): Obj {
  const d = deployment();
  def.defaults(d);
  updateFields(undefined, d, manager, scope());
  d.metadata.uid = 'uid-1';
  d.metadata.resourceVersion = '5';
  return d;
}

const entries = (o: Obj) => o.metadata.managedFields as ManagedFieldsEntry[];

/** Golden: what kube-apiserver 1.32 records for `kubectl create` of this Deployment (defaults included). */
const GOLDEN_CREATE = {
  'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
  'f:spec': {
    'f:progressDeadlineSeconds': {},
    'f:replicas': {},
    'f:revisionHistoryLimit': {},
    'f:selector': {},
    'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
    'f:template': {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"nginx"}': {
            '.': {},
            'f:env': { '.': {}, 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
            'f:image': {},
            'f:imagePullPolicy': {},
            'f:name': {},
            'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
            'f:resources': {},
            'f:terminationMessagePath': {},
            'f:terminationMessagePolicy': {},
          },
        },
        'f:dnsPolicy': {},
        'f:restartPolicy': {},
        'f:schedulerName': {},
        'f:securityContext': {},
        'f:terminationGracePeriodSeconds': {},
      },
    },
  },
};

test('create: the manager owns every field it set (defaults too), in upstream fieldsV1 form', () => {
  const d = created();
  const e = entries(d);
  assert.equal(e.length, 1);
  assert.deepEqual(Object.keys(e[0]!), ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
  assert.deepEqual(
    { ...e[0], fieldsV1: undefined },
    { manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: undefined },
  );
  assert.equal(JSON.stringify(e[0]!.fieldsV1), JSON.stringify(GOLDEN_CREATE));
});

test('update: only changed fields move to the updater; unchanged writes add nothing', () => {
  const live = created();
  const next = structuredClone(live) as Any;
  next.spec.replicas = 3;
  updateFields(live, next, 'kubectl', scope(T1));
  const e = entries(next);
  assert.deepEqual(
    e.map((x) => x.manager),
    ['kubectl-create', 'kubectl'],
  );
  assert.deepEqual(e[1]!.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
  assert.equal(e[1]!.time, '2026-01-01T00:01:00Z');
  assert.equal((e[0]!.fieldsV1 as Any)['f:spec']['f:replicas'], undefined, 'taken from the creator');
  // a no-op write keeps managedFields as they are
  const again = structuredClone(next) as Obj;
  updateFields(next, again, 'other', scope(new Date('2026-01-02T00:00:00Z')));
  assert.deepEqual(again.metadata.managedFields, next.metadata.managedFields);
});

test('update: removed fields leave every manager; status writes record the status subresource', () => {
  const live = created();
  const next = structuredClone(live) as Any;
  delete next.metadata.labels;
  next.status = { replicas: 1, conditions: [{ type: 'Available', status: 'True' }] };
  updateFields(live, next, 'kube-controller-manager', scope(T1, 'status'));
  const e = entries(next);
  const creator = e.find((x) => x.manager === 'kubectl-create')!;
  assert.equal((creator.fieldsV1 as Any)['f:metadata'], undefined);
  const ctrl = e.find((x) => x.manager === 'kube-controller-manager')!;
  assert.equal(ctrl.subresource, 'status');
  assert.deepEqual(ctrl.fieldsV1, {
    'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"Available"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:replicas': {} },
  });
});

test('update: repeated status writes by one manager do not grow managedFields', () => {
  let live = created();
  let size = 0;
  for (let i = 0; i < 20; i++) {
    const next = structuredClone(live) as Any;
    next.status = { observedGeneration: i, replicas: i % 3, conditions: [{ type: 'Progressing', status: 'True', lastUpdateTime: `t${i}` }] };
    updateFields(live, next, 'kube-controller-manager', scope(new Date(T0.getTime() + i * 1000), 'status'));
    const len = JSON.stringify(next.metadata.managedFields).length;
    if (i > 1) assert.ok(len <= size, `managedFields grew at write ${i}`);
    size = len;
    live = next;
  }
  assert.equal(entries(live).length, 2);
});

test('update: objects without managedFields stay without them; [] resets them', () => {
  const live = created();
  delete live.metadata.managedFields;
  const next = structuredClone(live) as Any;
  next.spec.replicas = 2;
  updateFields(live, next, 'kubectl', scope());
  assert.equal(next.metadata.managedFields, undefined);
  const withMF = created();
  const reset = structuredClone(withMF) as Any;
  reset.metadata.managedFields = [];
  updateFields(withMF, reset, 'kubectl', scope());
  assert.equal(reset.metadata.managedFields, undefined);
});

test('update: more than 10 Update managers fold the oldest into ancient-changes', () => {
  let live = created('m00');
  for (let i = 1; i <= 11; i++) {
    const next = structuredClone(live) as Any;
    next.metadata.labels[`l${i}`] = 'x';
    updateFields(live, next, `m${String(i).padStart(2, '0')}`, scope(new Date(T0.getTime() + i * 1000)));
    live = next;
  }
  const names = entries(live).map((e) => e.manager);
  assert.equal(names.length, 10);
  assert.ok(names.includes('ancient-changes'));
  assert.ok(!names.includes('m00') && !names.includes('m01') && !names.includes('m02'));
  const ancient = entries(live).find((e) => e.manager === 'ancient-changes')!;
  assert.ok((ancient.fieldsV1 as Any)['f:metadata']['f:labels']['f:l1'], 'm01 fields kept under ancient-changes');
  assert.ok((ancient.fieldsV1 as Any)['f:spec'], 'the creator fields kept under ancient-changes');
});

test('managerName: fieldManager, else the User-Agent before the first slash', () => {
  assert.equal(managerName('flux', 'kubectl/v1.32.0 (linux/amd64)'), 'flux');
  assert.equal(managerName(null, 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc'), 'kubectl');
  assert.equal(managerName(undefined, 'kube-controller-manager/v1.32.0 (linux/amd64)/deployment-controller'), 'kube-controller-manager');
  assert.equal(managerName(undefined, 'a\u0007b/1'), 'ab');
  assert.equal(managerName(undefined, 'x'.repeat(200)).length, 128);
  assert.equal(managerName(undefined, undefined), '');
});

function applyCfg(replicas: number | undefined, env: Any[] | undefined, extra: Any = {}): Any {
  const c: Any = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx', labels: { app: 'nginx' } },
    spec: {
      selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ...(env ? { env } : {}) }] } },
      ...extra,
    },
  };
  if (replicas !== undefined) c.spec.replicas = replicas;
  return c;
}

function applyCreate(cfg: Any, manager = 'kubectl'): Obj {
  const o = applyFields(undefined, cfg, manager, false, scope());
  def.defaults(o);
  o.metadata.uid = 'uid-1';
  return o;
}

test('apply: creates with an Apply entry of exactly the applied fields', () => {
  const o = applyCreate(applyCfg(2, [{ name: 'A', value: '1' }]));
  const e = entries(o);
  assert.equal(e.length, 1);
  assert.deepEqual(
    { ...e[0], fieldsV1: undefined },
    { manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: undefined },
  );
  assert.deepEqual(e[0]!.fieldsV1, {
    'f:metadata': { 'f:labels': { 'f:app': {} } },
    'f:spec': {
      'f:replicas': {},
      'f:selector': {},
      'f:template': {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': {
          'f:containers': {
            'k:{"name":"nginx"}': { '.': {}, 'f:env': { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } }, 'f:image': {}, 'f:name': {} },
          },
        },
      },
    },
  });
  assert.equal((o as Any).spec.replicas, 2);
  assert.equal((o as Any).spec.strategy.type, 'RollingUpdate', 'defaulted');
});

test('apply: fields dropped from the configuration are removed unless someone else owns them', () => {
  const live = applyCreate(
    applyCfg(2, [
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ]),
  );
  const next = applyFields(structuredClone(live), applyCfg(2, [{ name: 'A', value: '1' }]), 'kubectl', false, scope(T1));
  const c = (next as Any).spec.template.spec.containers[0];
  assert.deepEqual(c.env, [{ name: 'A', value: '1' }]);
  assert.equal(c.imagePullPolicy, 'IfNotPresent', 'unowned defaults stay');
  // dropping env entirely removes the list; dropping replicas removes it (defaulting brings 1 back later)
  const next2 = applyFields(structuredClone(next), applyCfg(undefined, undefined), 'kubectl', false, scope(T1));
  assert.equal((next2 as Any).spec.template.spec.containers[0].env, undefined);
  assert.equal((next2 as Any).spec.replicas, undefined);
  // a field another manager also applied stays
  const shared = applyFields(structuredClone(live), { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx', labels: { team: 'a' } } }, 'other', false, scope(T1));
  assert.deepEqual((shared as Any).metadata.labels, { app: 'nginx', team: 'a' });
  const shared2 = applyFields(
    structuredClone(shared),
    applyCfg(
      2,
      [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
      {},
    ),
    'kubectl',
    false,
    scope(T1),
  );
  assert.deepEqual((shared2 as Any).metadata.labels, { app: 'nginx', team: 'a' });
});

test('apply: lists merge by key; live-only items keep their place', () => {
  const live = applyCreate(applyCfg(1, [{ name: 'A', value: '1' }]));
  (live as Any).spec.template.spec.containers.push({ name: 'sidecar', image: 'busybox' });
  const cfg = applyCfg(1, [
    { name: 'A', value: '2' },
    { name: 'C', value: '3' },
  ]);
  const next = applyFields(structuredClone(live), cfg, 'kubectl', false, scope(T1)) as Any;
  assert.deepEqual(
    next.spec.template.spec.containers.map((c: Any) => c.name),
    ['nginx', 'sidecar'],
  );
  assert.deepEqual(next.spec.template.spec.containers[0].env, [
    { name: 'A', value: '2' },
    { name: 'C', value: '3' },
  ]);
});

test('apply: a changed value owned by another manager conflicts with upstream text; force takes it', () => {
  const live = created('kubectl-client-side-apply');
  const cfg = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx' }, spec: { replicas: 5 } };
  let err: unknown;
  try {
    applyFields(structuredClone(live), cfg, 'flux', false, scope(T1));
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof StatusError);
  assert.equal(err.status.code, 409);
  assert.equal(err.status.reason, 'Conflict');
  assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas');
  assert.deepEqual(err.status.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }]);
  // the same value is no conflict: ownership is shared
  const same = applyFields(structuredClone(live), { ...cfg, spec: { replicas: 1 } }, 'flux', false, scope(T1));
  assert.equal(entries(same).length, 2);
  assert.ok((entries(same).find((e) => e.manager === 'kubectl-client-side-apply')!.fieldsV1 as Any)['f:spec']['f:replicas']);
  // force: the value changes hands
  const forced = applyFields(structuredClone(live), cfg, 'flux', true, scope(T1)) as Any;
  assert.equal(forced.spec.replicas, 5);
  assert.equal((entries(forced).find((e) => e.manager === 'kubectl-client-side-apply')!.fieldsV1 as Any)['f:spec']['f:replicas'], undefined);
});

test('apply: several conflicts are grouped per manager', () => {
  const live = created('kubectl-create');
  const cfg = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx' }, spec: { replicas: 5, paused: true, revisionHistoryLimit: 3 } };
  try {
    applyFields(structuredClone(live), cfg, 'flux', false, scope(T1));
    assert.fail('expected a conflict');
  } catch (e) {
    assert.ok(e instanceof StatusError);
    assert.equal(e.status.message, 'Apply failed with 2 conflicts: conflicts with "kubectl-create" using apps/v1:\n- .spec.replicas\n- .spec.revisionHistoryLimit');
    assert.equal(e.status.details?.causes?.length, 2);
  }
});

test('apply: an Update after an apply takes the field; the next apply conflicts with the updater', () => {
  const live = applyCreate(applyCfg(2, undefined));
  const scaled = structuredClone(live) as Any;
  scaled.spec.replicas = 4;
  updateFields(live, scaled, 'kubectl-patch', scope(T1));
  const e = entries(scaled);
  assert.deepEqual(
    e.map((x) => `${x.manager}/${x.operation}`),
    ['kubectl/Apply', 'kubectl-patch/Update'],
  );
  assert.equal((e[0]!.fieldsV1 as Any)['f:spec']['f:replicas'], undefined);
  assert.throws(
    () => applyFields(structuredClone(scaled), applyCfg(2, undefined), 'kubectl', false, scope(T1)),
    (x: unknown) => x instanceof StatusError && x.status.message === 'Apply failed with 1 conflict: conflict with "kubectl-patch" using apps/v1: .spec.replicas',
  );
});

test('apply: objects created without managedFields give their fields to before-first-apply', () => {
  const live = created();
  delete live.metadata.managedFields;
  const next = applyFields(structuredClone(live), { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx', labels: { x: 'y' } } }, 'kubectl', false, scope(T1));
  assert.deepEqual(
    entries(next).map((e) => `${e.manager}/${e.operation}`),
    ['kubectl/Apply', 'before-first-apply/Update'],
  );
});

test('apply: rejects managedFields in the configuration and list items without keys', () => {
  assert.throws(
    () => applyFields(undefined, { ...applyCfg(1, undefined), metadata: { name: 'nginx', managedFields: [] } }, 'k', false, scope()),
    /metadata.managedFields must be nil/,
  );
  const bad = applyCfg(1, undefined);
  bad.spec.template.spec.containers.push({ image: 'x' });
  assert.throws(() => applyFields(undefined, bad, 'k', false, scope()), /omits key field "name"/);
});

test('create fast path equals the general comparison with the zero object', async () => {
  const { podDefinition } = await import('../../api/core/v1/pod/strategy.js');
  const { configMapDefinition } = await import('../../api/core/v1/configmap/strategy.js');
  const cases: [FieldManagerScope['def'] & { defaults?(o: Obj): void }, Obj][] = [
    [def, deployment()],
    [
      podDefinition as never,
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'default', labels: { a: 'b' }, finalizers: ['x/y'] },
        spec: {
          containers: [
            {
              name: 'c',
              image: 'i',
              ports: [{ containerPort: 8080 }, { containerPort: 53, protocol: 'UDP' }],
              env: [{ name: 'E', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            },
          ],
          tolerations: [{ key: 'k', operator: 'Exists' }],
        },
      } as Obj,
    ],
    [configMapDefinition as never, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { a: '1' } } as Obj],
  ];
  for (const [d, o] of cases) {
    d.defaults?.(o);
    const fast = structuredClone(o);
    updateFields(undefined, fast, 'creator', { def: d, subresource: '', now: T0 });
    // the general path: an object without managedFields gets them under before-first-apply
    const live = structuredClone(o);
    live.metadata.uid = 'u';
    const applied = applyFields(live, { apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata.name } }, 'noop', false, { def: d, subresource: '', now: T0 });
    const general = entries(applied).find((e) => e.manager === 'before-first-apply')!;
    assert.equal(JSON.stringify(general.fieldsV1), JSON.stringify(entries(fast)[0]!.fieldsV1), o.kind);
  }
});

test('custom resources: list types from the structural schema when the definition carries it, else atomic lists', () => {
  const openAPIV3Schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
          },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  };
  const cr = (ports: Any[], tags: string[]): Any => ({ apiVersion: 'example.com/v1', kind: 'CronTab', metadata: { name: 'c' }, spec: { ports, tags } });
  for (const [withSchema, want] of [
    [true, { 'f:metadata': {}, 'f:spec': { 'f:ports': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:port': {} } }, 'f:tags': {} } }],
    // without a schema every key is a map key, so spec is itself a member (upstream's deduced type)
    [false, { 'f:spec': { '.': {}, 'f:ports': {}, 'f:tags': {} } }],
  ] as const) {
    const d: FieldManagerScope['def'] = { group: 'example.com', version: 'v1', kind: 'CronTab', ...(withSchema ? { openAPIV3Schema } : {}) };
    const s: FieldManagerScope = { def: d, subresource: '', now: T0 };
    const live = applyFields(undefined, cr([{ name: 'a', port: 1 }], ['x']), 'one', false, s);
    live.metadata.uid = 'u';
    const mine = entries(live)[0]!.fieldsV1 as Any;
    delete mine['f:metadata'];
    assert.deepEqual(mine, { 'f:spec': want['f:spec'] });
    const next = applyFields(structuredClone(live), cr([{ name: 'b', port: 2 }], ['y']), 'two', true, s) as Any;
    assert.deepEqual(
      next.spec.ports.map((p: Any) => p.name),
      withSchema ? ['a', 'b'] : ['b'],
      `schema: ${withSchema}`,
    );
    assert.deepEqual(next.spec.tags, ['y']);
  }
});

test('apply by kubectl over client-side apply: conflicts on last-applied fields are allowed and the annotation follows', () => {
  const live = created('kubectl-client-side-apply') as Any;
  live.metadata.annotations = {
    'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx' }, spec: { replicas: 1 } }),
  };
  const cfg = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx' }, spec: { replicas: 4 } };
  assert.throws(() => applyFields(structuredClone(live), cfg, 'flux', false, scope(T1)), /conflict with "kubectl-client-side-apply"/);
  const next = applyFields(structuredClone(live), cfg, 'kubectl', false, scope(T1)) as Any;
  assert.equal(next.spec.replicas, 4);
  assert.deepEqual(JSON.parse(next.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']), cfg);
  // a field outside the last-applied configuration still conflicts
  assert.throws(
    () => applyFields(structuredClone(live), { ...cfg, spec: { replicas: 4, revisionHistoryLimit: 2 } }, 'kubectl', false, scope(T1)),
    (e: unknown) =>
      e instanceof StatusError && e.status.message === 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.revisionHistoryLimit',
  );
});

test('updates of a stored object reuse the fieldsV1 of managers whose fields did not change, with the same result as decoding afresh', async () => {
  const { CachedObject, thawShared } = await import('../registry/cached-object.js');
  // stored: created by kubectl-create, then the replicas changed by a second manager
  const stored0 = created();
  const w1 = structuredClone(stored0);
  (w1 as Any).spec.replicas = 2;
  updateFields(stored0, w1, 'scaler', scope(T1));
  const cached = new CachedObject('/registry/deployments/default/nginx', w1, 6);
  cached.shared(); // frozen, as the watch cache shares it with in-process watchers

  // the same manager writes the replicas again (PUT of a copy that sends the entries back)
  const live = cached.clone();
  const next = cached.clone();
  (next as Any).spec.replicas = 3;
  updateFields(live, next, 'scaler', scope(T1));
  const [creator, scaler] = entries(next);
  assert.equal(creator!.fieldsV1, entries(w1)[0]!.fieldsV1, "the creator's fieldsV1 is the stored object's");
  assert.equal(scaler!.fieldsV1, entries(w1)[1]!.fieldsV1, "the scaler owns the replicas already: its fieldsV1 is the stored object's");
  // a mutable copy for the rest of the write pipeline keeps the shared fieldsV1 and thaws the rest
  thawShared(next);
  assert.ok(!Object.isFrozen(next.metadata.managedFields![0]));
  assert.equal(entries(next)[0]!.fieldsV1, entries(w1)[0]!.fieldsV1);

  // the same write computed without the stored object's decoded sets: equal entries
  const plainLive = JSON.parse(JSON.stringify(cached.obj)) as Obj;
  const plainNext = JSON.parse(JSON.stringify(cached.obj)) as Obj;
  (plainNext as Any).spec.replicas = 3;
  updateFields(plainLive, plainNext, 'scaler', scope(T1));
  assert.deepEqual(JSON.parse(JSON.stringify(next.metadata.managedFields)), JSON.parse(JSON.stringify(plainNext.metadata.managedFields)));

  // a third manager takes the replicas: the scaler's set changes, the creator's stays shared
  const third = cached.clone();
  (third as Any).spec.replicas = 4;
  updateFields(cached.clone(), third, 'hpa', scope(T1));
  const byManager = new Map(entries(third).map((e) => [e.manager, e]));
  assert.equal(byManager.get('kubectl-create')!.fieldsV1, entries(w1)[0]!.fieldsV1);
  assert.equal(byManager.has('scaler'), false, 'the scaler owned only the replicas');
  assert.deepEqual(byManager.get('hpa')!.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors.js';
import { isStrategicMergeSupported, strategicMergeMapPatch, strategicMergePatch, strategicMergePatchBody, type PatchMetaTables } from './strategic-merge-patch.js';
import { fieldTypes, kindDefinitions, patchMeta } from './patch-meta.js';
import type { JsonObject } from './json-value.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** A pod as the API server stores it after `kubectl apply` created it (defaults, injected token volume, status). */
function storedPod(): JsonObject {
  const lastApplied =
    '{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"labels":{"app":"demo","tier":"web"},"name":"x","namespace":"default"},' +
    '"spec":{"containers":[{"image":"nginx","name":"c","ports":[{"containerPort":80}]}]}}\n';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'x',
      namespace: 'default',
      uid: '6f1c1c1e-2a52-4c36-9d0e-1f1e0e7c0c01',
      resourceVersion: '1042',
      creationTimestamp: '2026-11-30T08:18:56Z',
      labels: { app: 'demo', tier: 'web' },
      annotations: { [LAST_APPLIED]: lastApplied },
    },
    spec: {
      containers: [
        {
          name: 'c',
          image: 'nginx',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          resources: {},
          volumeMounts: [{ name: 'kube-api-access-7x2kq', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'Always',
        },
      ],
      volumes: [{ name: 'kube-api-access-7x2kq', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { path: 'token' } }] } }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      nodeName: 'node-1',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Initialized', status: 'True' },
        { type: 'Ready', status: 'True' },
      ],
      podIP: '10.244.0.5',
    },
  };
}

function statusOf(fn: () => unknown): { code: number; reason: string | undefined; message: string | undefined } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return { code: e.status.code, reason: e.status.reason, message: e.status.message };
  }
  assert.fail('expected an error');
}

describe('strategicMergePatch: kubectl client-side apply', () => {
  it('applies the captured label change patch (kubectl apply, labels app=demo → demo2)', () => {
    const live = storedPod();
    const newLastApplied =
      '{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"labels":{"app":"demo2"},"name":"x","namespace":"default"},' +
      '"spec":{"containers":[{"image":"nginx","name":"c","ports":[{"containerPort":80}]}]}}\n';
    const body = JSON.stringify({ metadata: { annotations: { [LAST_APPLIED]: newLastApplied }, labels: { app: 'demo2', tier: null } } });
    const { object, strictErrors } = strategicMergePatchBody(live, body, 'v1/Pod', { fieldValidation: 'Strict' });
    const want = storedPod();
    (want.metadata as JsonObject).labels = { app: 'demo2' };
    ((want.metadata as JsonObject).annotations as JsonObject)[LAST_APPLIED] = newLastApplied;
    assert.deepEqual(object, want);
    assert.deepEqual(strictErrors, []);
    // the stored object is not modified
    assert.deepEqual(live, storedPod());
  });

  it('merges containers by name and ports by containerPort, keeping server-set fields', () => {
    // kubectl's three-way patch for: image nginx → nginx:1.27, add port 443, add env, drop label tier
    const patch = {
      metadata: { labels: { tier: null } },
      spec: {
        '$setElementOrder/containers': [{ name: 'c' }],
        containers: [
          {
            '$setElementOrder/ports': [{ containerPort: 80 }, { containerPort: 443 }],
            env: [{ name: 'MODE', value: 'prod' }],
            image: 'nginx:1.27',
            name: 'c',
            ports: [{ containerPort: 443 }],
          },
        ],
      },
    };
    const got = strategicMergePatch(storedPod(), patch, 'v1/Pod');
    const c = ((got.spec as JsonObject).containers as JsonObject[])[0]!;
    assert.equal(c.image, 'nginx:1.27');
    assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }]);
    assert.deepEqual(c.env, [{ name: 'MODE', value: 'prod' }]);
    assert.equal(c.terminationMessagePath, '/dev/termination-log');
    assert.equal((c.volumeMounts as JsonObject[]).length, 1, 'server-injected volume mount kept');
    assert.deepEqual((got.metadata as JsonObject).labels, { app: 'demo' });
    assert.deepEqual((got.spec as JsonObject).volumes, (storedPod().spec as JsonObject).volumes);
    assert.deepEqual(got.status, storedPod().status);
  });

  it('applies the captured `kubectl set image` patch to a Deployment', () => {
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'x', namespace: 'default', generation: 1 },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'x' } },
        template: {
          metadata: { labels: { app: 'x' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx', imagePullPolicy: 'Always', resources: {} }] },
        },
      },
    };
    const body = '{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"nginx"}],"containers":[{"image":"nginx:2","name":"nginx"}]}}}}';
    const { object } = strategicMergePatchBody(deploy, body, 'apps/v1/Deployment');
    const tpl = ((object.spec as JsonObject).template as JsonObject).spec as JsonObject;
    assert.deepEqual(tpl.containers, [{ name: 'nginx', image: 'nginx:2', imagePullPolicy: 'Always', resources: {} }]);
  });

  it('applies `kubectl rollout restart` and `kubectl cordon` patches', () => {
    const deploy = { spec: { template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'a' }] } } } };
    const got = strategicMergePatch(
      deploy,
      { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-30T08:24:37Z' } } } } },
      'apps/v1/Deployment',
    );
    assert.deepEqual(((got.spec as JsonObject).template as JsonObject).metadata, {
      labels: { app: 'x' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-30T08:24:37Z' },
    });
    const node = strategicMergePatch({ metadata: { name: 'n' }, spec: { podCIDR: '10.0.0.0/24' } }, { spec: { unschedulable: true } }, 'v1/Node');
    assert.deepEqual(node.spec, { podCIDR: '10.0.0.0/24', unschedulable: true });
  });

  it('deletes a container with $patch: delete and keeps a server-only sidecar where it was', () => {
    // live: app, istio-proxy (injected by a webhook), old; config replaced "old" by "new"
    const live = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'app', image: 'a' },
              { name: 'istio-proxy', image: 'p' },
              { name: 'old', image: 'o' },
            ],
          },
        },
      },
    };
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'app' }, { name: 'new' }],
            containers: [
              { image: 'n', name: 'new' },
              { $patch: 'delete', name: 'old' },
            ],
          },
        },
      },
    };
    const got = strategicMergePatch(live, patch, 'apps/v1/Deployment');
    const names = (((got.spec as JsonObject).template as JsonObject).spec as JsonObject).containers as JsonObject[];
    assert.deepEqual(
      names.map((c) => c.name),
      ['app', 'istio-proxy', 'new'],
    );
  });

  it('switches a volume source with $retainKeys (emptyDir → hostPath)', () => {
    const live = {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'a' }],
            volumes: [
              { name: 'data', emptyDir: {} },
              { name: 'cfg', configMap: { name: 'c', defaultMode: 420 } },
            ],
          },
        },
      },
    };
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/volumes': [{ name: 'data' }, { name: 'cfg' }],
            volumes: [{ $retainKeys: ['hostPath', 'name'], hostPath: { path: '/data' }, name: 'data' }],
          },
        },
      },
    };
    const got = strategicMergePatch(live, patch, 'apps/v1/Deployment');
    const vols = (((got.spec as JsonObject).template as JsonObject).spec as JsonObject).volumes;
    assert.deepEqual(vols, [
      { name: 'data', hostPath: { path: '/data' } },
      { name: 'cfg', configMap: { name: 'c', defaultMode: 420 } },
    ]);
  });

  it('switches a Deployment strategy with $retainKeys (RollingUpdate → Recreate)', () => {
    const live = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } } };
    const got = strategicMergePatch(live, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, 'apps/v1/Deployment');
    assert.deepEqual(got.spec, { strategy: { type: 'Recreate' } });
  });

  it('rejects patch keys missing from $retainKeys and a $retainKeys that is not a list (400)', () => {
    const live = { spec: { strategy: { type: 'RollingUpdate' } } };
    assert.deepEqual(
      statusOf(() => strategicMergePatch(live, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: {} } } }, 'apps/v1/Deployment')),
      { code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' },
    );
    assert.deepEqual(
      statusOf(() => strategicMergePatch(live, { spec: { strategy: { $retainKeys: 'type' } } }, 'apps/v1/Deployment')),
      { code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' },
    );
  });
});

describe('strategicMergePatch: primitive lists (finalizers)', () => {
  const obj = (finalizers: string[]): JsonObject => ({ metadata: { name: 'ns', finalizers } });
  const fin = (o: JsonObject): unknown => (o.metadata as JsonObject).finalizers;

  it('merges finalizers as a set; items new to the live list come first, as upstream', () => {
    assert.deepEqual(fin(strategicMergePatch(obj(['a', 'b']), { metadata: { finalizers: ['c'] } }, 'v1/Namespace')), ['c', 'a', 'b']);
    assert.deepEqual(fin(strategicMergePatch(obj(['a', 'b']), { metadata: { finalizers: ['b'] } }, 'v1/Namespace')), ['a', 'b']);
  });

  it('orders finalizers by $setElementOrder', () => {
    const got = strategicMergePatch(obj(['a', 'b']), { metadata: { '$setElementOrder/finalizers': ['a', 'b', 'c'], finalizers: ['c'] } }, 'v1/Namespace');
    assert.deepEqual(fin(got), ['a', 'b', 'c']);
  });

  it('removes finalizers listed in $deleteFromPrimitiveList/finalizers', () => {
    const got = strategicMergePatch(obj(['a', 'b', 'c']), { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'zz'] } }, 'v1/Namespace');
    assert.deepEqual(fin(got), ['a', 'c']);
    const none = strategicMergePatch({ metadata: { name: 'ns' } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } }, 'v1/Namespace');
    assert.deepEqual(none.metadata, { name: 'ns' }, 'a delete list never creates the list');
  });

  it('replaces primitive lists without merge strategy (container args)', () => {
    const live = { spec: { containers: [{ name: 'c', args: ['a', 'b'] }] } };
    const got = strategicMergePatch(live, { spec: { containers: [{ name: 'c', args: ['z'] }] } }, 'v1/Pod');
    assert.deepEqual(got.spec, { containers: [{ name: 'c', args: ['z'] }] });
  });

  it('merges ownerReferences by uid', () => {
    const live = { metadata: { ownerReferences: [{ uid: '1', kind: 'ReplicaSet', name: 'rs1' }] } };
    const got = strategicMergePatch(
      live,
      {
        metadata: {
          ownerReferences: [
            { uid: '1', controller: true },
            { uid: '2', kind: 'Node', name: 'n' },
          ],
        },
      },
      'v1/Pod',
    );
    assert.deepEqual((got.metadata as JsonObject).ownerReferences, [
      { uid: '1', kind: 'ReplicaSet', name: 'rs1', controller: true },
      { uid: '2', kind: 'Node', name: 'n' },
    ]);
  });
});

describe('strategicMergePatch: maps, nulls, directives', () => {
  it('deletes keys set to null and drops nulls inside newly added maps', () => {
    const got = strategicMergePatch(
      { metadata: { labels: { a: '1', b: '2' } } },
      { metadata: { labels: { a: null, c: '3' }, annotations: { x: 'y', gone: null } } },
      'v1/ConfigMap',
    );
    assert.deepEqual(got.metadata, { labels: { b: '2', c: '3' }, annotations: { x: 'y' } });
  });

  it('replaces lists without a merge strategy (tolerations)', () => {
    const got = strategicMergePatch(storedPod(), { spec: { tolerations: [{ key: 'k', operator: 'Exists' }] } }, 'v1/Pod');
    assert.deepEqual((got.spec as JsonObject).tolerations, [{ key: 'k', operator: 'Exists' }]);
  });

  it('replaces a map with $patch: replace and empties it with $patch: delete', () => {
    const live = { metadata: { labels: { a: '1', b: '2' }, annotations: { k: 'v' } } };
    const got = strategicMergePatch(live, { metadata: { labels: { $patch: 'replace', z: '9' }, annotations: { $patch: 'delete' } } }, 'v1/ConfigMap');
    assert.deepEqual(got.metadata, { labels: { z: '9' }, annotations: {} });
  });

  it('replaces a whole merge list with a $patch: replace element', () => {
    const live = { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b' }] } };
    const got = strategicMergePatch(live, { spec: { containers: [{ name: 'c', image: 'y' }, { $patch: 'replace' }] } }, 'v1/Pod');
    assert.deepEqual(got.spec, { containers: [{ name: 'c', image: 'y' }] });
  });

  it('treats the PodDisruptionBudget selector as replace', () => {
    const live = { spec: { selector: { matchLabels: { app: 'a' } }, minAvailable: 1 } };
    const got = strategicMergePatch(live, { spec: { selector: { matchExpressions: [{ key: 'k', operator: 'Exists' }] } } }, 'policy/v1/PodDisruptionBudget');
    assert.deepEqual(got.spec, { selector: { matchExpressions: [{ key: 'k', operator: 'Exists' }] }, minAvailable: 1 });
  });

  it('merges status conditions by type (pods/status)', () => {
    const got = strategicMergePatch(storedPod(), { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'X' }] } }, 'v1/Pod');
    assert.deepEqual((got.status as JsonObject).conditions, [
      { type: 'Initialized', status: 'True' },
      { type: 'Ready', status: 'False', reason: 'X' },
    ]);
  });

  it('a null body changes nothing', () => {
    assert.deepEqual(strategicMergePatchBody(storedPod(), 'null', 'v1/Pod').object, storedPod());
  });
});

describe('strategicMergePatch: errors as the API server answers them', () => {
  it('400 (upstream: 500) when a merge list element lacks its merge key', () => {
    assert.deepEqual(
      statusOf(() => strategicMergePatch(storedPod(), { spec: { containers: [{ image: 'x' }] } }, 'v1/Pod')),
      { code: 400, reason: 'BadRequest', message: 'map: map[image:x] does not contain declared merge key: name' },
    );
  });

  it('400 (upstream: 500) for an unknown $patch directive', () => {
    assert.deepEqual(
      statusOf(() => strategicMergePatch(storedPod(), { spec: { $patch: 'merge' } }, 'v1/Pod')),
      {
        code: 400,
        reason: 'BadRequest',
        message: 'unknown patch type: merge in map: map[$patch:merge]',
      },
    );
  });

  it('400 for malformed $setElementOrder / $deleteFromPrimitiveList keys', () => {
    assert.deepEqual(
      statusOf(() => strategicMergePatch(storedPod(), { spec: { $setElementOrderX: [] } }, 'v1/Pod')),
      {
        code: 400,
        reason: 'BadRequest',
        message: 'invalid patch format of setElementOrder list',
      },
    );
    assert.deepEqual(
      statusOf(() => strategicMergePatch(storedPod(), { metadata: { $deleteFromPrimitiveList: ['a'] } }, 'v1/Pod')),
      {
        code: 400,
        reason: 'BadRequest',
        message: 'invalid patch format of primitive list',
      },
    );
  });

  it('400 (upstream: 500) when the patch list does not follow $setElementOrder', () => {
    const s = statusOf(() => strategicMergePatch(storedPod(), { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b' }] } }, 'v1/Pod'));
    assert.equal(s.code, 400);
    assert.equal(s.message, "The order in patch list:\n[map[name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]\n");
  });

  it('422 with the generic text for lists of lists', () => {
    const s = statusOf(() => strategicMergePatch({ metadata: { finalizers: [] } }, { metadata: { finalizers: [['x']] } }, 'v1/Pod'));
    assert.deepEqual(s, { code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request' });
  });

  it('400 (upstream: 500) for list elements of different types', () => {
    const s = statusOf(() => strategicMergePatch({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [['x']] } }, 'v1/Pod'));
    assert.deepEqual(s, { code: 400, reason: 'BadRequest', message: 'list element types are not identical: [[a] [[x]]]' });
  });

  it('415 for kinds without strategic merge support (custom resources)', () => {
    assert.equal(isStrategicMergeSupported('example.com/v1/Widget'), false);
    assert.equal(isStrategicMergeSupported('v1/Pod'), true);
    assert.deepEqual(
      statusOf(() => strategicMergePatch({}, {}, 'example.com/v1/Widget')),
      {
        code: 415,
        reason: 'UnsupportedMediaType',
        message:
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      },
    );
  });

  it('400 with Go decoding errors for bodies that are not JSON objects', () => {
    assert.deepEqual(
      statusOf(() => strategicMergePatchBody(storedPod(), '[1]', 'v1/Pod')),
      {
        code: 400,
        reason: 'BadRequest',
        message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
      },
    );
    assert.deepEqual(
      statusOf(() => strategicMergePatchBody(storedPod(), '{"a":', 'v1/Pod')),
      {
        code: 400,
        reason: 'BadRequest',
        message: 'unexpected end of JSON input',
      },
    );
    assert.deepEqual(
      statusOf(() => strategicMergePatchBody(storedPod(), "{'a':1}", 'v1/Pod')),
      {
        code: 400,
        reason: 'BadRequest',
        message: "invalid character '\\'' looking for beginning of object key string",
      },
    );
  });

  it('reports duplicate fields of the body as strict errors', () => {
    const { strictErrors } = strategicMergePatchBody(storedPod(), '{"metadata":{"labels":{"a":"1","a":"2"}}}', 'v1/Pod');
    assert.deepEqual(strictErrors, ['duplicate field "metadata.labels.a"']);
  });
});

describe('strategicMergeMapPatch: upstream ordering rules (custom tables)', () => {
  const tables: PatchMetaTables = {
    patchMeta: { item: { list: { strategy: 'merge', mergeKey: 'name' }, ints: { strategy: 'merge' } } },
    fieldTypes: { item: { list: 'item' } },
  };
  const apply = (original: JsonObject, patch: JsonObject): JsonObject => strategicMergeMapPatch(original, patch, 'item', tables);

  it('$setElementOrder wins over patch order, and server-only items keep their live position', () => {
    const got = apply({ list: [{ name: 1 }, { name: 4 }, { name: 2 }] }, { '$setElementOrder/list': [{ name: 2 }, { name: 3 }, { name: 1 }], list: [{ name: 3, v: 'x' }] });
    assert.deepEqual(got.list, [{ name: 4 }, { name: 2 }, { name: 3, v: 'x' }, { name: 1 }]);
  });

  it('$setElementOrder without a patch list only reorders', () => {
    // 7 (server-only) stays before 3, which followed it in the live list
    assert.deepEqual(apply({ ints: [1, 2, 7, 3] }, { '$setElementOrder/ints': [3, 1, 2] }).ints, [7, 3, 1, 2]);
    assert.deepEqual(apply({ ints: [1, 2, 7, 9, 8, 3, 4] }, { '$setElementOrder/ints': [2, 1, 4, 3] }).ints, [2, 1, 7, 9, 8, 4, 3]);
  });

  it('deleting with $patch: delete removes every element with that key', () => {
    const got = apply({ list: [{ name: 'a' }, { name: 'b' }, { name: 'a', x: 1 }] }, { list: [{ name: 'a', $patch: 'delete' }] });
    assert.deepEqual(got.list, [{ name: 'b' }]);
  });
});

describe('patch metadata tables', () => {
  it('every kind resolves to a definition reachable in fieldTypes, every child is a known definition', () => {
    for (const [kind, def] of Object.entries(kindDefinitions)) {
      assert.ok(fieldTypes[def]?.metadata, `${kind}: ${def} has metadata`);
    }
    for (const [def, fields] of Object.entries(fieldTypes)) {
      for (const child of Object.values(fields)) {
        assert.ok(fieldTypes[child] || patchMeta[child], `${def} → ${child} leads to patch metadata`);
      }
    }
  });

  it('carries the upstream struct tags', () => {
    assert.deepEqual(patchMeta['io.k8s.api.core.v1.PodSpec']!.containers, { strategy: 'merge', mergeKey: 'name' });
    assert.deepEqual(patchMeta['io.k8s.api.core.v1.PodSpec']!.volumes, { strategy: 'merge,retainKeys', mergeKey: 'name' });
    assert.deepEqual(patchMeta['io.k8s.api.core.v1.Container']!.ports, { strategy: 'merge', mergeKey: 'containerPort' });
    assert.deepEqual(patchMeta['io.k8s.api.core.v1.Container']!.volumeMounts, { strategy: 'merge', mergeKey: 'mountPath' });
    assert.deepEqual(patchMeta['io.k8s.api.core.v1.ServiceSpec']!.ports, { strategy: 'merge', mergeKey: 'port' });
    assert.deepEqual(patchMeta['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'], {
      ownerReferences: { strategy: 'merge', mergeKey: 'uid' },
      finalizers: { strategy: 'merge' },
    });
    assert.deepEqual(patchMeta['io.k8s.api.apps.v1.DeploymentSpec']!.strategy, { strategy: 'retainKeys' });
    assert.equal(fieldTypes['io.k8s.api.core.v1.PodSpec']!.ephemeralContainers, 'io.k8s.api.core.v1.EphemeralContainer');
    assert.equal(kindDefinitions['batch/v1/CronJob'], 'io.k8s.api.batch.v1.CronJob');
  });
});

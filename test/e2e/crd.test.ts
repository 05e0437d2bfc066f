/**
 * CustomResourceDefinitions through the real kubectl and @kubernetes/client-node: the
 * CronTab example of the Kubernetes docs with short names, category `all`, printer
 * columns, status and scale subresources; established → CRUD → Table columns → schema
 * errors, pruning, defaulting, strict field validation → scale, status patch → explain →
 * CustomObjectsApi create/list/watch → deletion of the CRD removes its resources. The
 * schema uses x-kubernetes-* extensions (its CEL rule is evaluated: see crd-validation-rules.test.ts).
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { startCluster, eventually, type Cluster } from './harness.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              description: The desired state of the CronTab.
              x-kubernetes-validations:
                - rule: "self.replicas <= 10"
                  message: "at most 10 replicas"
              properties:
                port:
                  x-kubernetes-int-or-string: true
                config:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
                cronSpec:
                  type: string
                  description: The cron schedule.
                  pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'
                image:
                  type: string
                targets:
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [name]
                  items:
                    type: object
                    required: [name]
                    properties:
                      name: {type: string}
                      weight: {type: integer}
                replicas:
                  type: integer
                  minimum: 1
                  maximum: 10
                  default: 1
            status:
              type: object
              properties:
                replicas:
                  type: integer
                labelSelector:
                  type: string
      subresources:
        status: {}
        scale:
          specReplicasPath: .spec.replicas
          statusReplicasPath: .status.replicas
          labelSelectorPath: .status.labelSelector
      additionalPrinterColumns:
        - name: Spec
          type: string
          jsonPath: .spec.cronSpec
        - name: Replicas
          type: integer
          jsonPath: .spec.replicas
        - name: Age
          type: date
          jsonPath: .metadata.creationTimestamp
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames:
      - ct
    categories:
      - all
`;

const CR = `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-new-cron-object
spec:
  cronSpec: "* * * * */5"
  image: my-awesome-cron-image
`;

describe('e2e: CustomResourceDefinitions (kubectl)', () => {
  let c: Cluster;
  const ok = (args: string[], input?: string): string => {
    const r = c.kubectl(args, { input });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const fail = (args: string[], input?: string): string => {
    const r = c.kubectl(args, { input });
    assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} should fail: ${r.stdout}`);
    return r.stderr;
  };

  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('applies the CRD and waits for it to be established', () => {
    assert.match(ok(['apply', '-f', '-'], CRD), /customresourcedefinition.apiextensions.k8s.io\/crontabs.stable.example.com created/);
    assert.match(ok(['wait', '--for', 'condition=established', '--timeout=30s', 'crd/crontabs.stable.example.com']), /condition met/);
    const crd = JSON.parse(ok(['get', 'crd', 'crontabs.stable.example.com', '-o', 'json'])) as { status: { acceptedNames: { kind: string }; storedVersions: string[] } };
    assert.equal(crd.status.acceptedNames.kind, 'CronTab');
    assert.deepEqual(crd.status.storedVersions, ['v1']);
  });

  it('creates a custom resource and prints it with the printer columns', () => {
    assert.match(ok(['apply', '-f', '-'], CR), /crontab.stable.example.com\/my-new-cron-object created/);
    const table = ok(['get', 'crontabs']);
    assert.match(table, /^NAME\s+SPEC\s+REPLICAS\s+AGE\n/);
    assert.match(table, /my-new-cron-object\s+\* \* \* \* \*\/5\s+1\s+\d+s/);
    assert.match(ok(['get', 'ct']), /my-new-cron-object/);
    const yaml = ok(['get', 'ct', 'my-new-cron-object', '-o', 'yaml']);
    assert.match(yaml, /apiVersion: stable.example.com\/v1/);
    assert.match(yaml, /replicas: 1/, 'defaulted from the schema');
    assert.match(yaml, /generation: 1/);
  });

  it('reports schema violations with upstream messages', () => {
    const bad = CR.replace('my-new-cron-object', 'bad').replace('image: my-awesome-cron-image', 'replicas: "three"');
    const err = fail(['apply', '-f', '-'], bad);
    // the schema's type error blocks its x-kubernetes-validations rule, which upstream reports as a fieldless cause
    assert.equal(
      err.trim(),
      'The CronTab "bad" is invalid: \n* spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"\n* <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    );
    const big = CR.replace('my-new-cron-object', 'big').replace('image: my-awesome-cron-image', 'replicas: 20');
    assert.match(fail(['apply', '-f', '-'], big), /spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10/);
  });

  it('prunes unknown fields, and rejects them with --validate=strict', () => {
    const extra = CR.replace('my-new-cron-object', 'extra').replace('image: my-awesome-cron-image', 'image: x\n  bogus: 1');
    assert.match(fail(['apply', '--validate=strict', '-f', '-'], extra), /unknown field "spec.bogus"/);
    ok(['apply', '--validate=false', '-f', '-'], extra);
    const o = JSON.parse(ok(['get', 'ct', 'extra', '-o', 'json'])) as { spec: Record<string, unknown> };
    assert.deepEqual(o.spec, { cronSpec: '* * * * */5', image: 'x', replicas: 1 });
  });

  it('scales through the scale subresource and patches status', () => {
    assert.match(ok(['scale', 'crontab/my-new-cron-object', '--replicas=3']), /crontab.stable.example.com\/my-new-cron-object scaled/);
    ok(['patch', 'crontab', 'my-new-cron-object', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":3,"labelSelector":"app=cron"},"spec":{"image":"ignored"}}']);
    const o = JSON.parse(ok(['get', 'ct', 'my-new-cron-object', '-o', 'json'])) as {
      spec: { replicas: number; image: string };
      status: { replicas: number };
      metadata: { generation: number };
    };
    assert.equal(o.spec.replicas, 3);
    assert.equal(o.spec.image, 'my-awesome-cron-image');
    assert.equal(o.status.replicas, 3);
    assert.equal(o.metadata.generation, 2);
    // kubectl scale owns spec.replicas through the scale subresource (upstream ScaleHandler)
    const managed = (
      JSON.parse(ok(['get', 'ct', 'my-new-cron-object', '-o', 'json', '--show-managed-fields'])) as {
        metadata: { managedFields: { manager: string; subresource?: string; fieldsV1: Record<string, Record<string, unknown>> }[] };
      }
    ).metadata.managedFields;
    const byScale = managed.find((e) => e.subresource === 'scale');
    assert.ok(byScale?.fieldsV1['f:spec']?.['f:replicas'], JSON.stringify(managed));
    assert.equal(byScale?.manager, 'kubectl');
    const scale = JSON.parse(ok(['get', '--raw', '/apis/stable.example.com/v1/namespaces/default/crontabs/my-new-cron-object/scale'])) as { status: { selector: string } };
    assert.equal(scale.status.selector, 'app=cron');
  });

  it('updates a custom resource with kubectl apply and lists CRDs', () => {
    assert.match(ok(['apply', '-f', '-'], CR.replace('my-awesome-cron-image', 'my-awesome-cron-image:2')), /crontab.stable.example.com\/my-new-cron-object configured/);
    const o = JSON.parse(ok(['get', 'ct', 'my-new-cron-object', '-o', 'json'])) as { spec: { image: string; replicas: number }; metadata: { generation: number } };
    assert.equal(o.spec.image, 'my-awesome-cron-image:2');
    assert.equal(o.spec.replicas, 3);
    assert.equal(o.metadata.generation, 3);
    assert.match(ok(['get', 'crd']), /^NAME\s+CREATED AT\ncrontabs.stable.example.com\s+\d{4}-/);
    assert.match(ok(['apply', '--server-side', '-f', '-'], CR.replace('my-new-cron-object', 'ssa')), /crontab.stable.example.com\/ssa serverside-applied/);
    assert.match(ok(['get', 'ct', 'ssa', '-o', 'jsonpath={.spec.replicas}']), /^1$/);
  });

  it('server-side apply merges a list-type map by its keys: each manager owns its own items', () => {
    const cr = (targets: string): string =>
      `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: merged\nspec:\n  cronSpec: "* * * * */5"\n  image: img\n  targets: ${targets}\n`;
    ok(['apply', '--server-side', '--field-manager=a', '-f', '-'], cr('[{name: a, weight: 1}]'));
    ok(['apply', '--server-side', '--field-manager=b', '-f', '-'], cr('[{name: b, weight: 2}]'));
    const names = (): string => ok(['get', 'ct', 'merged', '-o', 'jsonpath={.spec.targets[*].name}']);
    assert.equal(names(), 'a b', 'both managers keep their item (an atomic list would have been replaced)');
    ok(['apply', '--server-side', '--field-manager=a', '-f', '-'], cr('[]'));
    assert.equal(names(), 'b', "a's item goes when a stops applying it; b's stays");
  });

  it('explains the kind from the published OpenAPI schema', () => {
    const out = ok(['explain', 'crontab.spec']);
    assert.match(out, /KIND:\s+CronTab/);
    assert.match(out, /The desired state of the CronTab/);
    assert.match(out, /cronSpec\s+<string>/);
    assert.match(out, /replicas\s+<integer>/);
  });

  it('lists custom resources in category all', () => {
    assert.match(ok(['get', 'all']), /crontab.stable.example.com\/my-new-cron-object/);
  });

  it('creates, lists and watches custom objects with @kubernetes/client-node', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(c.kubeconfig);
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    const group = 'stable.example.com';
    const seen: string[] = [];
    const watch = new k8s.Watch(kc);
    const req = await watch.watch(
      '/apis/stable.example.com/v1/namespaces/default/crontabs',
      {},
      (type: string, obj: { metadata?: { name?: string } }) => seen.push(`${type}:${obj.metadata?.name}`),
      () => undefined,
    );
    const created = (await api.createNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: 'default',
      plural: 'crontabs',
      body: { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'from-lib' }, spec: { cronSpec: '*/1 * * * *' } },
    })) as { metadata: { name: string }; spec: { replicas: number } };
    assert.equal(created.metadata.name, 'from-lib');
    assert.equal(created.spec.replicas, 1);
    const list = (await api.listNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'crontabs' })) as {
      kind: string;
      items: { metadata: { name: string } }[];
    };
    assert.equal(list.kind, 'CronTabList');
    assert.ok(list.items.some((i) => i.metadata.name === 'from-lib'));
    await eventually(() => seen.includes('ADDED:from-lib'), 10_000);
    req.abort();
  });

  it('authorizes custom resources with RBAC like any resource', () => {
    ok(['create', 'role', 'crontab-reader', '--verb=get,list', '--resource=crontabs.stable.example.com']);
    ok(['create', 'rolebinding', 'bob-reads-crontabs', '--role=crontab-reader', '--user=bob']);
    assert.match(ok(['get', 'crontabs', '--as=bob']), /my-new-cron-object/);
    assert.match(
      fail(['get', 'crontabs', '-n', 'kube-system', '--as=bob']),
      /crontabs.stable.example.com is forbidden: User "bob" cannot list resource "crontabs" in API group "stable.example.com" in the namespace "kube-system"/,
    );
    assert.match(fail(['delete', 'crontab', 'my-new-cron-object', '--as=bob']), /cannot delete resource "crontabs" in API group "stable.example.com"/);
  });

  it('deletes custom resources with their namespace', () => {
    ok(['create', 'namespace', 'crns']);
    ok(['apply', '-n', 'crns', '-f', '-'], CR.replace('my-new-cron-object', 'in-ns'));
    assert.match(ok(['get', 'ct', '-n', 'crns']), /in-ns/);
    ok(['delete', 'namespace', 'crns', '--timeout=60s']);
    assert.notEqual(c.kubectl(['get', 'ns', 'crns']).code, 0);
  });

  it('garbage-collects the dependents of a deleted custom resource', async () => {
    ok(['apply', '-f', '-'], CR.replace('my-new-cron-object', 'gc-owner'));
    const uid = ok(['get', 'ct', 'gc-owner', '-o', 'jsonpath={.metadata.uid}']);
    const cm = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'gc-dep', ownerReferences: [{ apiVersion: 'stable.example.com/v1', kind: 'CronTab', name: 'gc-owner', uid }] },
      data: { a: 'b' },
    });
    ok(['apply', '-f', '-'], cm);
    ok(['delete', 'ct', 'gc-owner']);
    // the garbage collector learns of new resources at its next discovery resync (30 s)
    await eventually(() => c.kubectl(['get', 'cm', 'gc-dep']).code !== 0, 60_000, 500);
  });

  it('deletes the custom resources with the CRD', () => {
    ok(['delete', 'crd', 'crontabs.stable.example.com', '--timeout=60s']);
    // kubectl trusts its discovery cache for 6 h: a stale cache lists and gets 404 (as upstream)
    assert.match(fail(['get', 'crontabs']), /the server could not find the requested resource|doesn't have a resource type "crontabs"/);
    // fresh discovery no longer lists the resource
    const fresh = mkdtempSync(join(c.dir, 'cache-'));
    assert.match(fail(['--cache-dir', fresh, 'get', 'crontabs']), /error: the server doesn't have a resource type "crontabs"/);
    assert.equal(c.kubectl(['get', 'crd', 'crontabs.stable.example.com']).code, 1);
  });

  it('serves the resources of an existing CRD again after a restart', async () => {
    ok(['apply', '-f', '-'], CRD);
    ok(['wait', '--for', 'condition=established', '--timeout=30s', 'crd/crontabs.stable.example.com']);
    ok(['apply', '-f', '-'], CR);
    await c.restart();
    assert.match(ok(['get', 'ct', 'my-new-cron-object', '-o', 'name']), /crontab.stable.example.com\/my-new-cron-object/);
  });
});

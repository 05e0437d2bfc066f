/**
 * The default-enabled v1.32 kinds beyond the workload core, through the real kubectl on
 * one simulated cluster: published manifests (test/fixtures/manifests) and published-style
 * objects are applied and read back with upstream's printer columns; typical mistakes get
 * upstream's validation text.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCluster, eventually, MANIFESTS, type Cluster } from './harness.js';
import { kubectlHelpers } from './storage-support.js';

const m = (f: string): string => join(MANIFESTS, f);

/** kubectl's fixed-width table split at the header's column starts (cells may be empty). */
function columns(out: string): string[][] {
  const lines = out.trimEnd().split('\n');
  const header = lines[0]!;
  const starts: number[] = [];
  for (const mt of header.matchAll(/\S+/g)) starts.push(mt.index!);
  return lines.map((l) => starts.map((st, i) => l.slice(st, i + 1 < starts.length ? starts[i + 1] : undefined).trim()));
}

/** The table's lines split into whitespace-separated cells, the AGE column ("0s", "3s") masked as `<age>`. */
function rows(out: string, ageColumn = 'AGE'): string[][] {
  const lines = out.trimEnd().split('\n');
  const header = lines[0]!.split(/\s{2,}/);
  const age = header.indexOf(ageColumn);
  return lines.map((l, i) => {
    const cells = l.split(/\s{2,}/);
    if (i > 0 && age >= 0 && /^\d+[smhd]/.test(cells[age] ?? '')) cells[age] = '<age>';
    return cells;
  });
}

describe('e2e: built-in resources beyond the workload core', () => {
  let c: Cluster;
  before(async () => {
    // no built-in CSI driver: the storage.k8s.io tables below list only what this test creates;
    // no aggregated APIs: k3s' switch for its packaged metrics-server
    c = await startCluster({ args: ['--no-csi-hostpath', '--disable', 'metrics-server'] });
  });
  after(async () => {
    await c?.stop();
  });

  const { ok, fails } = kubectlHelpers(() => c);

  describe('storage.k8s.io/v1', () => {
    it('published StorageClasses apply; `get sc` shows upstream columns, defaults and the (default) marker', () => {
      assert.equal(ok(['apply', '-f', m('storageclass-local.yaml')]).trim(), 'storageclass.storage.k8s.io/local-storage created');
      assert.equal(ok(['apply', '-f', m('storageclass-topology.yaml')]).trim(), 'storageclass.storage.k8s.io/standard created');
      ok(['annotate', 'sc', 'standard', 'storageclass.kubernetes.io/is-default-class=true']);
      assert.deepEqual(rows(ok(['get', 'sc'])), [
        ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE'],
        ['local-storage', 'kubernetes.io/no-provisioner', 'Delete', 'WaitForFirstConsumer', 'false', '<age>'],
        ['standard (default)', 'example.com/example', 'Delete', 'WaitForFirstConsumer', 'false', '<age>'],
      ]);
      assert.equal(ok(['get', 'storageclass', 'standard', '-o', 'jsonpath={.allowedTopologies[0].matchLabelExpressions[0].values}']), '["us-central-1a","us-central-1b"]');
    });

    it('StorageClass mistakes: missing provisioner, bad reclaimPolicy, changed parameters', () => {
      const bad = 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: bad}\nreclaimPolicy: Recycle\n';
      assert.equal(
        fails(['apply', '-f', '-'], bad),
        'The StorageClass "bad" is invalid: \n* provisioner: Required value\n* reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
      );
      assert.equal(
        fails(['patch', 'sc', 'standard', '--type=merge', '-p', '{"parameters":{"type":"pd-ssd"}}']),
        'The StorageClass "standard" is invalid: parameters: Forbidden: updates to parameters are forbidden.',
      );
    });

    it('CSIDriver, CSINode, VolumeAttachment, CSIStorageCapacity: defaults and printer columns', () => {
      ok(
        ['apply', '-f', '-'],
        `apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: hostpath.csi.k8s.io
spec:
  podInfoOnMount: true
  volumeLifecycleModes: [Persistent, Ephemeral]
  tokenRequests: [{audience: vault}]
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata:
  name: e2e-node
spec:
  drivers:
  - name: hostpath.csi.k8s.io
    nodeID: e2e-node
    topologyKeys: [topology.hostpath.csi/node]
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata:
  name: csi-0123
spec:
  attacher: hostpath.csi.k8s.io
  nodeName: e2e-node
  source: {persistentVolumeName: pv-1}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata:
  name: cap-1
  namespace: default
storageClassName: standard
capacity: 1024Mi
nodeTopology: {matchLabels: {topology.hostpath.csi/node: e2e-node}}
`,
      );
      assert.deepEqual(rows(ok(['get', 'csidrivers'])), [
        ['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES', 'AGE'],
        ['hostpath.csi.k8s.io', 'true', 'true', 'false', 'vault', 'false', 'Persistent,Ephemeral', '<age>'],
      ]);
      assert.equal(ok(['get', 'csidriver', 'hostpath.csi.k8s.io', '-o', 'jsonpath={.spec.fsGroupPolicy}']), 'ReadWriteOnceWithFSType');
      assert.deepEqual(rows(ok(['get', 'csinodes'])), [
        ['NAME', 'DRIVERS', 'AGE'],
        ['e2e-node', '1', '<age>'],
      ]);
      assert.deepEqual(rows(ok(['get', 'volumeattachments'])), [
        ['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED', 'AGE'],
        ['csi-0123', 'hostpath.csi.k8s.io', 'pv-1', 'e2e-node', 'false', '<age>'],
      ]);
      assert.deepEqual(rows(ok(['get', 'csistoragecapacities'])), [
        ['NAME', 'STORAGECLASSNAME', 'CAPACITY'],
        ['cap-1', 'standard', '1Gi'],
      ]);
      assert.equal(fails(['patch', 'volumeattachment', 'csi-0123', '--type=merge', '-p', '{"spec":{"nodeName":"other"}}']).split(': ').slice(-1)[0], 'field is immutable');
    });
  });

  describe('admissionregistration.k8s.io/v1', () => {
    it('published ValidatingAdmissionPolicy and binding apply and print upstream columns', () => {
      assert.equal(ok(['apply', '-f', m('vap-basic-example-policy.yaml')]).trim(), 'validatingadmissionpolicy.admissionregistration.k8s.io/demo-policy.example.com created');
      assert.equal(
        ok(['apply', '-f', m('vap-basic-example-binding.yaml')]).trim(),
        'validatingadmissionpolicybinding.admissionregistration.k8s.io/demo-binding-test.example.com created',
      );
      assert.deepEqual(rows(ok(['get', 'validatingadmissionpolicies'])), [
        ['NAME', 'VALIDATIONS', 'PARAMKIND', 'AGE'],
        ['demo-policy.example.com', '1', '<unset>', '<age>'],
      ]);
      assert.deepEqual(rows(ok(['get', 'validatingadmissionpolicybindings'])), [
        ['NAME', 'POLICYNAME', 'PARAMREF', 'AGE'],
        ['demo-binding-test.example.com', 'demo-policy.example.com', '<unset>', '<age>'],
      ]);
      assert.equal(ok(['get', 'validatingadmissionpolicybinding', 'demo-binding-test.example.com', '-o', 'jsonpath={.spec.matchResources.matchPolicy}']), 'Equivalent');
    });

    it('a ValidatingWebhookConfiguration as the docs write it: defaults, WEBHOOKS column; a missing sideEffects and an http URL are rejected; the webhook is called until deleted', async () => {
      const cfg = (extra: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: "pod-policy.example.com"
webhooks:
- name: "pod-policy.example.com"
  rules:
  - apiGroups:   [""]
    apiVersions: ["v1"]
    operations:  ["CREATE"]
    resources:   ["pods"]
    scope:       "Namespaced"
  admissionReviewVersions: ["v1"]
${extra}`;
      assert.equal(
        ok(
          ['apply', '-f', '-'],
          cfg(
            '  clientConfig:\n    service:\n      namespace: "example-namespace"\n      name: "example-service"\n    caBundle: "Y2E="\n  sideEffects: None\n  timeoutSeconds: 5\n',
          ),
        ).trim(),
        'validatingwebhookconfiguration.admissionregistration.k8s.io/pod-policy.example.com created',
      );
      assert.deepEqual(rows(ok(['get', 'validatingwebhookconfigurations'])), [
        ['NAME', 'WEBHOOKS', 'AGE'],
        ['pod-policy.example.com', '1', '<age>'],
      ]);
      assert.equal(
        ok([
          'get',
          'validatingwebhookconfiguration',
          'pod-policy.example.com',
          '-o',
          'jsonpath={.webhooks[0].failurePolicy} {.webhooks[0].matchPolicy} {.webhooks[0].clientConfig.service.port} {.webhooks[0].rules[0].resources}',
        ]),
        'Fail Equivalent 443 ["pods"]',
      );
      const err = fails(
        ['create', '-f', '-'],
        cfg('  clientConfig:\n    url: "http://example.com/hook"\n').replace('name: "pod-policy.example.com"\nwebhooks', 'name: "other"\nwebhooks'),
      );
      assert.equal(
        err,
        'The ValidatingWebhookConfiguration "other" is invalid: \n' +
          '* webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun\n' +
          '* webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
      );
      // the docs' webhook is live: pod creates call it, and its Service does not exist
      const called = await eventually(() => {
        const r = c.kubectl(['run', 'webhook-probe', '--image=nginx', '--dry-run=server']);
        return r.code !== 0 ? r.stderr.trim() : '';
      }, 15_000);
      assert.equal(
        called,
        'Error from server (InternalError): Internal error occurred: failed calling webhook "pod-policy.example.com": failed to call webhook: Post "https://example-service.example-namespace.svc:443?timeout=5s": service "example-service" not found',
      );
      ok(['delete', 'validatingwebhookconfiguration', 'pod-policy.example.com']);
      await eventually(() => c.kubectl(['run', 'webhook-probe', '--image=nginx', '--dry-run=server']).code === 0, 15_000);
    });
  });

  describe('apiregistration.k8s.io/v1', () => {
    it('`kubectl get apiservices` lists a Local, Available APIService per built-in group-version', () => {
      const out = rows(ok(['get', 'apiservices']));
      assert.deepEqual(out[0], ['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
      assert.deepEqual(
        out.slice(1).map((r) => r[0]),
        [
          'v1.',
          'v1.admissionregistration.k8s.io',
          'v1.apiextensions.k8s.io',
          'v1.apiregistration.k8s.io',
          'v1.apps',
          'v1.authentication.k8s.io',
          'v1.authorization.k8s.io',
          'v1.autoscaling',
          'v1.batch',
          'v1.certificates.k8s.io',
          'v1.coordination.k8s.io',
          'v1.discovery.k8s.io',
          'v1.events.k8s.io',
          'v1.flowcontrol.apiserver.k8s.io',
          'v1.networking.k8s.io',
          'v1.node.k8s.io',
          'v1.policy',
          'v1.rbac.authorization.k8s.io',
          'v1.scheduling.k8s.io',
          'v1.storage.k8s.io',
          'v2.autoscaling',
        ],
      );
      for (const r of out.slice(1)) assert.deepEqual(r.slice(1), ['Local', 'True', '<age>'], r[0]);
      assert.equal(
        ok(['get', 'apiservice', 'v1.apps', '-o', 'jsonpath={.spec.groupPriorityMinimum}/{.spec.versionPriority} {.status.conditions[0].reason}: {.status.conditions[0].message}']),
        '17800/15 Local: Local APIServices are always available',
      );
    });
  });

  describe('networking.k8s.io/v1 NetworkPolicy', () => {
    it('the published NetworkPolicy applies; `get netpol` shows POD-SELECTOR; a bad ipBlock is rejected with upstream text', () => {
      assert.equal(ok(['apply', '-f', m('networkpolicy.yaml')]).trim(), 'networkpolicy.networking.k8s.io/test-network-policy created');
      assert.deepEqual(rows(ok(['get', 'netpol'])), [
        ['NAME', 'POD-SELECTOR', 'AGE'],
        ['test-network-policy', 'role=db', '<age>'],
      ]);
      assert.equal(ok(['get', 'networkpolicy', 'test-network-policy', '-o', 'jsonpath={.spec.policyTypes} {.metadata.generation}']), '["Ingress","Egress"] 1');
      const bad = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: bad}
spec:
  podSelector: {}
  ingress:
  - from:
    - ipBlock: {cidr: 172.17.0.0/16, except: [10.0.0.0/24]}
      podSelector: {}
`;
      assert.equal(
        fails(['apply', '-f', '-'], bad),
        'The NetworkPolicy "bad" is invalid: \n* spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.0.0.0/24": must be a strict subset of `cidr`\n* spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer',
      );
    });
  });

  describe('node.k8s.io/v1 RuntimeClass', () => {
    it('a RuntimeClass with overhead: HANDLER column; pods get its overhead and nodeSelector; an unknown class is rejected by admission', () => {
      ok(
        ['apply', '-f', '-'],
        `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: sandboxed
handler: runsc
overhead:
  podFixed:
    memory: "120Mi"
    cpu: "250m"
scheduling:
  nodeSelector:
    kubernetes.io/os: linux
`,
      );
      assert.deepEqual(rows(ok(['get', 'runtimeclasses'])), [
        ['NAME', 'HANDLER', 'AGE'],
        ['sandboxed', 'runsc', '<age>'],
      ]);
      ok(['run', 'rc-pod', '--image=nginx', '--overrides={"spec":{"runtimeClassName":"sandboxed"}}']);
      assert.equal(ok(['get', 'pod', 'rc-pod', '-o', 'jsonpath={.spec.overhead} {.spec.nodeSelector}']), '{"cpu":"250m","memory":"120Mi"} {"kubernetes.io/os":"linux"}');
      assert.equal(
        fails(['run', 'rc-missing', '--image=nginx', '--overrides={"spec":{"runtimeClassName":"nope"}}']),
        'Error from server (Forbidden): pods "rc-missing" is forbidden: pod rejected: RuntimeClass "nope" not found',
      );
      assert.equal(
        fails(['run', 'rc-overhead', '--image=nginx', '--overrides={"spec":{"overhead":{"cpu":"1"}}}']),
        'Error from server (Forbidden): pods "rc-overhead" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
      );
      assert.equal(
        fails(['patch', 'runtimeclass', 'sandboxed', '--type=merge', '-p', '{"handler":"kata"}']),
        'The RuntimeClass "sandboxed" is invalid: handler: Invalid value: "kata": field is immutable',
      );
    });
  });

  describe('flowcontrol.apiserver.k8s.io/v1', () => {
    it('the mandatory and suggested bootstrap FlowSchemas and PriorityLevelConfigurations, in matching order, none dangling', () => {
      assert.deepEqual(rows(ok(['get', 'flowschemas'])), [
        ['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL'],
        ['exempt', 'exempt', '1', '<none>', '<age>', 'False'],
        ['probes', 'exempt', '2', '<none>', '<age>', 'False'],
        ['system-leader-election', 'leader-election', '100', 'ByUser', '<age>', 'False'],
        ['endpoint-controller', 'workload-high', '150', 'ByUser', '<age>', 'False'],
        ['workload-leader-election', 'leader-election', '200', 'ByUser', '<age>', 'False'],
        ['system-node-high', 'node-high', '400', 'ByUser', '<age>', 'False'],
        ['system-nodes', 'system', '500', 'ByUser', '<age>', 'False'],
        ['kube-controller-manager', 'workload-high', '800', 'ByNamespace', '<age>', 'False'],
        ['kube-scheduler', 'workload-high', '800', 'ByNamespace', '<age>', 'False'],
        ['kube-system-service-accounts', 'workload-high', '900', 'ByNamespace', '<age>', 'False'],
        ['service-accounts', 'workload-low', '9000', 'ByUser', '<age>', 'False'],
        ['global-default', 'global-default', '9900', 'ByUser', '<age>', 'False'],
        ['catch-all', 'catch-all', '10000', 'ByUser', '<age>', 'False'],
      ]);
      assert.deepEqual(rows(ok(['get', 'prioritylevelconfigurations'])), [
        ['NAME', 'TYPE', 'NOMINALCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT', 'AGE'],
        ['catch-all', 'Limited', '5', '<none>', '<none>', '<none>', '<age>'],
        ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>', '<age>'],
        ['global-default', 'Limited', '20', '128', '6', '50', '<age>'],
        ['leader-election', 'Limited', '10', '16', '4', '50', '<age>'],
        ['node-high', 'Limited', '40', '64', '6', '50', '<age>'],
        ['system', 'Limited', '30', '64', '6', '50', '<age>'],
        ['workload-high', 'Limited', '40', '128', '6', '50', '<age>'],
        ['workload-low', 'Limited', '100', '128', '6', '50', '<age>'],
      ]);
      assert.equal(
        fails(
          ['create', '-f', '-'],
          'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata: {name: mine}\nspec:\n  matchingPrecedence: 20000\n  priorityLevelConfiguration: {name: workload-low}\n',
        ),
        'The FlowSchema "mine" is invalid: spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000',
      );
    });
  });

  describe('core/v1 bindings and componentstatuses', () => {
    it('POST bindings binds the named pod, as pods/binding; a bound pod conflicts', () => {
      ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: Pod\nmetadata: {name: unbound}\nspec:\n  schedulerName: nobody\n  containers: [{name: c, image: nginx}]\n');
      const binding = 'apiVersion: v1\nkind: Binding\nmetadata: {name: unbound}\ntarget: {apiVersion: v1, kind: Node, name: e2e-node}\n';
      // the server answers with a Success Status (upstream BindingREST), which kubectl names as it can
      assert.equal(ok(['create', '-f', '-'], binding).trim(), 'status/<unknown> created');
      assert.equal(ok(['get', 'pod', 'unbound', '-o', 'jsonpath={.spec.nodeName}']), 'e2e-node');
      assert.equal(
        fails(['create', '-f', '-'], binding),
        'Error from server (Conflict): error when creating "STDIN": Operation cannot be fulfilled on bindings "unbound": pod unbound is already assigned to node "e2e-node"',
      );
    });

    it('`kubectl get cs` lists scheduler, controller-manager and etcd-0, Healthy', () => {
      const r = c.kubectl(['get', 'componentstatuses']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(columns(r.stdout), [
        ['NAME', 'STATUS', 'MESSAGE', 'ERROR'],
        ['scheduler', 'Healthy', 'ok', ''],
        ['controller-manager', 'Healthy', 'ok', ''],
        ['etcd-0', 'Healthy', 'ok', ''],
      ]);
      assert.equal(ok(['get', 'cs', 'etcd-0', '-o', 'jsonpath={.conditions[0].type}={.conditions[0].status}']), 'Healthy=True');
      assert.equal(fails(['get', 'cs', 'nope']), 'Error from server (NotFound): componentstatuses "nope" not found');
    });
  });

  describe('kubectl api-resources', () => {
    it("lists exactly a v1.32 cluster's rows (test/fixtures/api-resources/v1.32.txt)", () => {
      const want = readFileSync(join(MANIFESTS, '..', 'api-resources', 'v1.32.txt'), 'utf8')
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => l.split('|'));
      const all = columns(ok(['api-resources']));
      assert.deepEqual(all[0], ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
      // k8ts' own group (the pod creation trace, on by default) comes on top of upstream's rows
      const own = all.slice(1).filter((r) => r[2] === 'trace.k8ts.io/v1alpha1');
      assert.deepEqual(own, [['podtraces', 'pt', 'trace.k8ts.io/v1alpha1', 'true', 'PodTrace']]);
      const got = [all[0], ...all.slice(1).filter((r) => r[2] !== 'trace.k8ts.io/v1alpha1')];
      assert.deepEqual(got.slice(1), want);
    });

    it('kubectl explain finds the new kinds in the OpenAPI v3 documents', () => {
      for (const [what, field] of [
        ['storageclasses.provisioner', 'provisioner'],
        ['apiservices.spec.groupPriorityMinimum', 'groupPriorityMinimum'],
        ['validatingwebhookconfigurations.webhooks.rules.resources', 'resources'],
        ['flowschemas.spec.matchingPrecedence', 'matchingPrecedence'],
        ['networkpolicies.spec.podSelector', 'podSelector'],
        ['runtimeclasses.handler', 'handler'],
      ]) {
        assert.match(ok(['explain', what!]), new RegExp(`^FIELD: +${field} `, 'm'), what);
      }
    });

    it('-o wide: verbs and categories of the computed and extension resources', () => {
      const wide = columns(ok(['api-resources', '-o', 'wide']));
      assert.deepEqual(wide[0], ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES']);
      const row = (name: string, apiVersion: string): string[] => wide.find((r) => r[0] === name && r[2] === apiVersion)!.slice(5);
      assert.deepEqual(row('bindings', 'v1'), ['create', '']);
      assert.deepEqual(row('componentstatuses', 'v1'), ['get,list', '']);
      assert.deepEqual(row('validatingwebhookconfigurations', 'admissionregistration.k8s.io/v1'), ['create,delete,deletecollection,get,list,patch,update,watch', 'api-extensions']);
      assert.deepEqual(row('apiservices', 'apiregistration.k8s.io/v1'), ['create,delete,deletecollection,get,list,patch,update,watch', 'api-extensions']);
      assert.deepEqual(row('storageclasses', 'storage.k8s.io/v1'), ['create,delete,deletecollection,get,list,patch,update,watch', '']);
    });
  });
});

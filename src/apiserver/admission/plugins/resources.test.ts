import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { GroupVersionResource, KObject, Obj, ObjectLookup } from '../../../api/resource.js';
import { StatusError } from '../../../apimachinery/errors.js';
import type { AdmissionAttributes } from '../types.js';
import { limitRanger } from './limit-ranger.js';
import { nodeRestriction } from './node-restriction.js';
import { priority } from './priority.js';
import { podConstraints, resourceQuota } from './resource-quota.js';

function lookupOf(lists: Record<string, KObject[]>): ObjectLookup {
  return {
    async get(r: GroupVersionResource, _ns: string, name: string) {
      return (lists[r.resource] ?? []).find((o) => o.metadata?.name === name);
    },
    async list(r: GroupVersionResource) {
      return lists[r.resource] ?? [];
    },
  };
}

const podAttrs = (spec: Record<string, unknown>, op: 'CREATE' | 'UPDATE' = 'CREATE'): AdmissionAttributes => ({
  operation: op,
  resource: { group: '', version: 'v1', resource: 'pods' },
  kind: { group: '', version: 'v1', kind: 'Pod' },
  subresource: '',
  namespace: 'ns',
  name: 'p',
  object: { metadata: { name: 'p', namespace: 'ns' }, spec } as Obj,
  user: { username: 'u', groups: [] },
  dryRun: false,
  warnings: [],
});

const forbidden = (msg: string) => (e: unknown) => {
  assert.ok(e instanceof StatusError);
  assert.equal(e.code, 403);
  assert.equal(e.message, msg);
  return true;
};

describe('LimitRanger', () => {
  const lr = {
    metadata: { name: 'l' },
    spec: { limits: [{ type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: '100m' }, max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '5' } }] },
  };
  const lookup = lookupOf({ limitranges: [lr as KObject] });

  it('sets defaults and records them in the annotation', async () => {
    const a = podAttrs({ containers: [{ name: 'a' }, { name: 'b', resources: { limits: { cpu: '200m' }, requests: { cpu: '200m' } } }], initContainers: [{ name: 'i' }] });
    await limitRanger.admit!(a, lookup);
    const spec = a.object!.spec as { containers: { resources: unknown }[] };
    assert.deepEqual(spec.containers[0]!.resources, { limits: { cpu: '500m' }, requests: { cpu: '100m' } });
    assert.deepEqual(spec.containers[1]!.resources, { limits: { cpu: '200m' }, requests: { cpu: '200m' } });
    assert.equal(
      a.object!.metadata.annotations!['kubernetes.io/limit-ranger'],
      'LimitRanger plugin set: cpu request for container a; cpu limit for container a; cpu request for init container i; cpu limit for init container i',
    );
    await limitRanger.validate!(a, lookup);
  });

  it('enforces max and the limit/request ratio with upstream messages', async () => {
    await assert.rejects(
      limitRanger.validate!(podAttrs({ containers: [{ name: 'a', resources: { limits: { cpu: '2' }, requests: { cpu: '100m' } } }] }), lookup),
      forbidden(
        'pods "p" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, cpu max limit to request ratio per Container is 5, but provided ratio is 20.000000]',
      ),
    );
  });
});

describe('Priority', () => {
  const lookup = lookupOf({
    priorityclasses: [{ metadata: { name: 'high' }, value: 1000 } as KObject, { metadata: { name: 'dflt' }, value: 7, globalDefault: true, preemptionPolicy: 'Never' } as KObject],
  });
  it('resolves names, applies the global default, refuses unknown classes and conflicting values', async () => {
    const a = podAttrs({ priorityClassName: 'high', containers: [] });
    await priority.admit!(a, lookup);
    assert.equal((a.object!.spec as { priority: number }).priority, 1000);
    const d = podAttrs({ containers: [] });
    await priority.admit!(d, lookup);
    assert.deepEqual(
      [
        (d.object!.spec as { priorityClassName: string }).priorityClassName,
        (d.object!.spec as { priority: number }).priority,
        (d.object!.spec as { preemptionPolicy: string }).preemptionPolicy,
      ],
      ['dflt', 7, 'Never'],
    );
    await assert.rejects(
      priority.admit!(podAttrs({ priorityClassName: 'nope', containers: [] }), lookup),
      forbidden('pods "p" is forbidden: no PriorityClass with name nope was found'),
    );
    await assert.rejects(
      priority.admit!(podAttrs({ priorityClassName: 'high', priority: 5, containers: [] }), lookup),
      forbidden(
        'pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
      ),
    );
  });
});

describe('ResourceQuota admission', () => {
  const quota = {
    metadata: { name: 'q', namespace: 'ns' },
    spec: { hard: { 'requests.memory': '1Gi', pods: '2', 'count/configmaps': '1' } },
    status: { hard: { 'requests.memory': '1Gi', pods: '2', 'count/configmaps': '1' }, used: { 'requests.memory': '600Mi', pods: '1', 'count/configmaps': '1' } },
  };
  const lookup = lookupOf({ resourcequotas: [quota as KObject] });
  const plugin = resourceQuota();

  it('refuses usage over the hard limit with the exceeded-quota message', async () => {
    const a = podAttrs({ containers: [{ name: 'c', resources: { requests: { memory: '700Mi' } } }] });
    await assert.rejects(
      plugin.validate!(a, lookup),
      forbidden('pods "p" is forbidden: exceeded quota: q, requested: requests.memory=700Mi, used: requests.memory=600Mi, limited: requests.memory=1Gi'),
    );
    const ok = podAttrs({ containers: [{ name: 'c', resources: { requests: { memory: '100Mi' } } }] });
    await plugin.validate!(ok, lookup);
    const cm: AdmissionAttributes = { ...podAttrs({}), resource: { group: '', version: 'v1', resource: 'configmaps' }, object: { metadata: { name: 'x' } } as Obj, name: 'x' };
    await assert.rejects(
      plugin.validate!(cm, lookup),
      forbidden('configmaps "x" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1'),
    );
  });

  it('requires compute resources the quota constrains', () => {
    assert.equal(
      podConstraints({ spec: { containers: [{ name: 'b', resources: { limits: { cpu: '1' } } }, { name: 'a' }] } } as never, ['limits.cpu', 'requests.memory', 'pods']),
      'must specify limits.cpu for: a; requests.memory for: a,b',
    );
  });
});

describe('NodeRestriction', () => {
  const kubelet = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
  const lookup = lookupOf({ nodes: [{ metadata: { name: 'n1', uid: 'node-uid' } } as KObject] });
  const mirror = (extra: Record<string, unknown> = {}) => ({
    ...podAttrs({ nodeName: 'n1', containers: [{ name: 'c' }], ...extra }),
    user: kubelet,
  });
  const withMeta = (a: AdmissionAttributes, meta: Record<string, unknown>) => ({ ...a, object: { ...a.object!, metadata: { ...a.object!.metadata, ...meta } } as Obj });
  const ann = { annotations: { 'kubernetes.io/config.mirror': 'hash' } };
  const own = (o: Record<string, unknown> = {}) => ({ ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid', controller: true, ...o }] });

  it('lets a kubelet create only mirror pods bound to and owned by itself', async () => {
    await nodeRestriction.admit!(withMeta(mirror(), { ...ann, ...own() }), lookup);
    await assert.rejects(
      nodeRestriction.admit!(mirror(), lookup),
      forbidden('pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods'),
    );
    await assert.rejects(
      nodeRestriction.admit!(withMeta(mirror(), ann), lookup),
      forbidden('pods "p" is forbidden: node "n1" can only create pods with an owner reference set to itself'),
    );
    await assert.rejects(
      nodeRestriction.admit!(withMeta(mirror(), { ...ann, ...own({ uid: 'x' }) }), lookup),
      forbidden('pods "p" is forbidden: node n1 UID mismatch: expected x got node-uid'),
    );
    await assert.rejects(
      nodeRestriction.admit!(withMeta(mirror({ volumes: [{ name: 's', secret: { secretName: 's' } }] }), { ...ann, ...own() }), lookup),
      forbidden('pods "p" is forbidden: node "n1" can not create pods that reference secrets'),
    );
    await assert.rejects(
      nodeRestriction.admit!(withMeta(mirror({ nodeName: 'n2' }), { ...ann, ...own() }), lookup),
      forbidden('pods "p" is forbidden: node "n1" can only create pods with spec.nodeName set to itself'),
    );
  });

  it('guards its Node: no other node, no taint changes, no restricted labels', async () => {
    const nodeAttrs = (name: string, op: 'CREATE' | 'UPDATE', labels: Record<string, string>, old?: Record<string, string>, taints: unknown[] = []): AdmissionAttributes => ({
      ...podAttrs({}),
      operation: op,
      resource: { group: '', version: 'v1', resource: 'nodes' },
      namespace: '',
      name,
      user: kubelet,
      object: { metadata: { name, labels }, spec: { taints } } as Obj,
      oldObject: old ? ({ metadata: { name, labels: old }, spec: {} } as Obj) : undefined,
    });
    await nodeRestriction.admit!(nodeAttrs('n1', 'CREATE', { 'kubernetes.io/hostname': 'n1', 'example.com/rack': 'r1' }), lookup);
    await assert.rejects(nodeRestriction.admit!(nodeAttrs('n2', 'UPDATE', {}, {}), lookup), forbidden('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"'));
    await assert.rejects(
      nodeRestriction.admit!(nodeAttrs('n1', 'CREATE', { 'node-role.kubernetes.io/control-plane': '', 'node-restriction.kubernetes.io/x': 'y' }), lookup),
      forbidden('nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: node-restriction.kubernetes.io/x, node-role.kubernetes.io/control-plane'),
    );
    await assert.rejects(
      nodeRestriction.admit!(nodeAttrs('n1', 'UPDATE', {}, {}, [{ key: 'k', effect: 'NoSchedule' }]), lookup),
      forbidden('nodes "n1" is forbidden: node "n1" is not allowed to modify taints'),
    );
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pod, service } from '../endpoint/testdata.js';
import { type EndpointSlice, type Node, planSlices } from './reconciler.js';

const nodes: Record<string, Node> = {
  'node-1': { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } } },
  'node-2': { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-2' } },
};
const nodeOf = (n: string): Node | undefined => nodes[n];

/** What the API server would return for a planned slice. */
let seq = 0;
const stored = (s: EndpointSlice): EndpointSlice => {
  seq++;
  return {
    ...structuredClone(s),
    metadata: { ...structuredClone(s.metadata), name: s.metadata?.name ?? `${s.metadata?.generateName}x${seq}`, uid: `slice-${seq}`, resourceVersion: String(seq), generation: 1 },
  };
};

describe('EndpointSlice reconciler', () => {
  it('one new slice per port set with conditions, targetRef, nodeName, zone, owner reference and labels', () => {
    const svc = service('web', { labels: { team: 'a' } });
    const pods = [pod('a', '10.42.0.2'), pod('b', '10.42.0.3', { ready: false, node: 'node-2' }), pod('c', '10.42.0.4', { deleting: true })];
    const plan = planSlices(svc, pods, [], nodeOf);
    assert.equal(plan.update.length + plan.delete.length, 0);
    assert.equal(plan.create.length, 1);
    const s = plan.create[0]!;
    assert.equal(s.metadata?.generateName, 'web-');
    assert.deepEqual(s.metadata?.labels, { team: 'a', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
    assert.deepEqual(s.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'uid-svc-web', controller: true, blockOwnerDeletion: true }]);
    assert.equal(s.addressType, 'IPv4');
    assert.deepEqual(s.ports, [{ name: '', protocol: 'TCP', port: 80 }]);
    assert.deepEqual(s.endpoints, [
      {
        addresses: ['10.42.0.2'],
        conditions: { ready: true, serving: true, terminating: false },
        targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'uid-a' },
        nodeName: 'node-1',
        zone: 'zone-a',
      },
      {
        addresses: ['10.42.0.3'],
        conditions: { ready: false, serving: false, terminating: false },
        targetRef: { kind: 'Pod', namespace: 'default', name: 'b', uid: 'uid-b' },
        nodeName: 'node-2',
      },
      {
        addresses: ['10.42.0.4'],
        conditions: { ready: false, serving: true, terminating: true },
        targetRef: { kind: 'Pod', namespace: 'default', name: 'c', uid: 'uid-c' },
        nodeName: 'node-1',
        zone: 'zone-a',
      },
    ]);
  });

  it('updates in place: unchanged → nothing, new pod appended, changed condition replaced, removed pod dropped', () => {
    const svc = service('web');
    const first = stored(planSlices(svc, [pod('a', '10.42.0.2'), pod('b', '10.42.0.3')], [], nodeOf).create[0]!);
    const same = planSlices(svc, [pod('a', '10.42.0.2'), pod('b', '10.42.0.3')], [first], nodeOf);
    assert.deepEqual([same.create.length, same.update.length, same.delete.length], [0, 0, 0]);
    const grown = planSlices(svc, [pod('a', '10.42.0.2'), pod('b', '10.42.0.3', { ready: false }), pod('c', '10.42.0.4')], [first], nodeOf);
    assert.deepEqual([grown.create.length, grown.delete.length], [0, 0]);
    assert.equal(grown.update[0]!.metadata?.name, first.metadata?.name);
    assert.deepEqual(
      grown.update[0]!.endpoints.map((e) => [e.targetRef?.name, e.conditions?.ready]),
      [
        ['a', true],
        ['b', false],
        ['c', true],
      ],
    );
    const shrunk = planSlices(svc, [pod('b', '10.42.0.3')], [first], nodeOf);
    assert.deepEqual(
      shrunk.update[0]!.endpoints.map((e) => e.targetRef?.name),
      ['b'],
    );
  });

  it('at most maxPerSlice endpoints per slice; leftovers go to the unchanged slice they fit best', () => {
    const svc = service('web');
    const pods = Array.from({ length: 250 }, (_, i) => pod(`p${String(i).padStart(3, '0')}`, `10.42.${Math.floor(i / 200)}.${i % 200}`));
    const plan = planSlices(svc, pods, [], nodeOf);
    assert.deepEqual(
      plan.create.map((s) => s.endpoints.length),
      [100, 100, 50],
    );
    const slices = plan.create.map(stored);
    const more = planSlices(svc, [...pods, pod('q', '10.43.0.1')], slices, nodeOf);
    assert.equal(more.create.length, 0);
    assert.equal(more.update.length, 1);
    assert.equal(more.update[0]!.endpoints.length, 51);
    const small = planSlices(svc, pods.slice(0, 3), [], nodeOf, 2);
    assert.deepEqual(
      small.create.map((s) => s.endpoints.length),
      [2, 1],
    );
  });

  it('no endpoints: one empty placeholder slice, kept as is; replaced (same name) once pods arrive', () => {
    const svc = service('web');
    const plan = planSlices(svc, [], [], nodeOf);
    assert.equal(plan.create.length, 1);
    assert.deepEqual([plan.create[0]!.endpoints, plan.create[0]!.ports], [[], []]);
    const placeholder = stored(plan.create[0]!);
    const again = planSlices(svc, [], [placeholder], nodeOf);
    assert.deepEqual([again.create.length, again.update.length, again.delete.length], [0, 0, 0]);
    const filled = planSlices(svc, [pod('a', '10.42.0.2')], [placeholder], nodeOf);
    assert.deepEqual([filled.create.length, filled.delete.length], [0, 0]);
    assert.equal(filled.update[0]!.metadata?.name, placeholder.metadata?.name);
    assert.deepEqual(filled.update[0]!.ports, [{ name: '', protocol: 'TCP', port: 80 }]);
  });

  it('pods on unknown nodes are left out and reported; headless services get the headless label and hostnames', () => {
    const svc = service('nginx', { clusterIP: 'None' });
    const plan = planSlices(svc, [pod('web-0', '10.42.0.2', { hostname: 'web-0', subdomain: 'nginx' }), pod('x', '10.42.0.3', { node: 'gone' })], [], nodeOf);
    assert.deepEqual(plan.missingNodes, [{ pod: 'x', node: 'gone' }]);
    const s = plan.create[0]!;
    assert.equal(s.metadata?.labels?.['service.kubernetes.io/headless'], '');
    assert.deepEqual(
      s.endpoints.map((e) => [e.targetRef?.name, e.hostname]),
      [['web-0', 'web-0']],
    );
  });

  it('service label changes update the slice labels', () => {
    const svc = service('web');
    const first = stored(planSlices(svc, [pod('a', '10.42.0.2')], [], nodeOf).create[0]!);
    const relabelled = planSlices({ ...svc, metadata: { ...svc.metadata, labels: { tier: 'front' } } }, [pod('a', '10.42.0.2')], [first], nodeOf);
    assert.equal(relabelled.update.length, 1);
    assert.equal(relabelled.update[0]!.metadata?.labels?.tier, 'front');
  });

  it('slices of an earlier Service of the same name are deleted, not reused', () => {
    const svc = service('web');
    const old = stored(planSlices({ ...svc, metadata: { ...svc.metadata, uid: 'old-uid' } }, [pod('a', '10.42.0.2')], [], nodeOf).create[0]!);
    const plan = planSlices(svc, [pod('a', '10.42.0.2')], [old], nodeOf);
    assert.deepEqual(
      plan.delete.map((s) => s.metadata?.name),
      [old.metadata?.name],
    );
    assert.equal(plan.create.length, 1);
    assert.equal(plan.create[0]!.metadata?.ownerReferences?.[0]?.uid, 'uid-svc-web');
    assert.equal(plan.update.length, 0);
  });

  it('publishNotReadyAddresses: every endpoint ready, serving still from the pod, pods on unknown nodes kept', () => {
    const svc = service('web', { publishNotReady: true });
    const plan = planSlices(svc, [pod('a', '10.42.0.2', { ready: false }), pod('b', '10.42.0.3', { deleting: true, node: 'gone' })], [], nodeOf);
    assert.deepEqual(plan.missingNodes, []);
    assert.deepEqual(
      plan.create[0]!.endpoints.map((e) => [e.targetRef?.name, e.conditions]),
      [
        ['a', { ready: true, serving: false, terminating: false }],
        ['b', { ready: true, serving: true, terminating: true }],
      ],
    );
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { AuthorizationAttributes } from '../apiserver.js';
import { NodeGraph, podReferences } from './node-graph.js';
import { NodeAuthorizer, nodeIdentity } from './node.js';
import { resourceAttributes } from './types.js';

const n1 = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const pod = (name: string, node: string, extra: Partial<Pod['spec']> = {}): Pod => ({
  metadata: { name, namespace: 'ns' },
  spec: { nodeName: node, serviceAccountName: 'sa', containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'env' } }] }], ...extra },
});

describe('Node authorizer', () => {
  const graph = new NodeGraph();
  graph.setPod(
    '/registry/pods/ns/a',
    pod('a', 'n1', {
      volumes: [
        { name: 'v', secret: { secretName: 's1' } },
        { name: 'p', persistentVolumeClaim: { claimName: 'claim' } },
      ],
    }),
  );
  graph.setPod('/registry/pods/ns/b', pod('b', 'n2', { volumes: [{ name: 'v', secret: { secretName: 's2' } }] }));
  graph.setPVC({ metadata: { name: 'claim', namespace: 'ns' }, spec: { volumeName: 'pv1' } }, false);
  const authz = new NodeAuthorizer(graph);
  const d = (a: AuthorizationAttributes & { fieldSelector?: string }) => authz.decide(a);

  it('identifies kubelets only by name prefix and group', () => {
    assert.equal(nodeIdentity(n1), 'n1');
    assert.equal(nodeIdentity({ username: 'system:node:n1', groups: [] }), undefined);
    assert.equal(nodeIdentity({ username: 'alice', groups: ['system:nodes'] }), undefined);
  });

  it('reads objects reachable from its pods and nothing else', () => {
    assert.equal(d(resourceAttributes(n1, 'get', '', 'secrets', 'ns', 's1')).decision, 'Allow');
    assert.deepEqual(d(resourceAttributes(n1, 'get', '', 'secrets', 'ns', 's2')), { decision: 'NoOpinion', reason: "no relationship found between node 'n1' and this object" });
    assert.equal(d(resourceAttributes(n1, 'get', '', 'configmaps', 'ns', 'env')).decision, 'Allow');
    assert.equal(d(resourceAttributes(n1, 'get', '', 'persistentvolumes', '', 'pv1')).decision, 'Allow');
    assert.equal(d(resourceAttributes(n1, 'get', '', 'pods', 'ns', 'a')).decision, 'Allow');
    assert.equal(d(resourceAttributes(n1, 'get', '', 'pods', 'ns', 'b')).decision, 'NoOpinion');
    assert.equal(d(resourceAttributes(n1, 'create', '', 'serviceaccounts', 'ns', 'sa', 'token')).decision, 'Allow');
    assert.equal(d(resourceAttributes(n1, 'list', '', 'secrets', 'ns')).reason, 'No Object name found');
  });

  it('pod list/watch needs the spec.nodeName selector when the server passes it', () => {
    const list: AuthorizationAttributes & { fieldSelector?: string } = { ...resourceAttributes(n1, 'list', '', 'pods'), fieldSelector: 'spec.nodeName=n1' };
    assert.equal(d(list).decision, 'Allow');
    assert.equal(d({ ...list, fieldSelector: 'spec.nodeName=n2' }).reason, 'can only list/watch pods with spec.nodeName field selector');
  });

  it('leases only for itself in kube-node-lease; static node rules otherwise', () => {
    assert.equal(d(resourceAttributes(n1, 'update', 'coordination.k8s.io', 'leases', 'kube-node-lease', 'n1')).decision, 'Allow');
    assert.equal(d(resourceAttributes(n1, 'update', 'coordination.k8s.io', 'leases', 'kube-node-lease', 'n2')).decision, 'NoOpinion');
    assert.equal(d(resourceAttributes(n1, 'patch', '', 'nodes', '', 'n1', 'status')).decision, 'Allow');
    assert.equal(d(resourceAttributes(n1, 'delete', '', 'namespaces', '', 'ns')).decision, 'NoOpinion');
  });

  it('forgets pods when they leave the node', () => {
    graph.setPod('/registry/pods/ns/a', undefined);
    assert.equal(d(resourceAttributes(n1, 'get', '', 'secrets', 'ns', 's1')).decision, 'NoOpinion');
    assert.ok(podReferences(pod('x', 'n1')).includes('serviceaccount/ns/sa'));
  });
});

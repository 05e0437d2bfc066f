import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../util/pods.js';
import { daemonSetStatus, groupByNode, managePlan, rollingUpdatePlan } from './plan.js';
import { DaemonPredicates, type DaemonSet, newDaemonPod, type Node, replaceNodeNameAffinity, targetNodeName } from './predicates.js';

const NOW = Date.parse('2025-01-01T00:10:00Z');
const node = (name: string, extra: Partial<Node> = {}): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } }, ...extra });
const ds = (spec: Partial<NonNullable<DaemonSet['spec']>> = {}, podSpec: Record<string, unknown> = {}): DaemonSet => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'd', namespace: 'default', generation: 2, annotations: { 'deprecated.daemonset.template.generation': '2' } },
  spec: {
    selector: { matchLabels: { a: 'd' } },
    template: { metadata: { labels: { a: 'd' } }, spec: { containers: [{ name: 'c', image: 'i' }], ...podSpec } },
    ...spec,
  } as NonNullable<DaemonSet['spec']>,
});
let seq = 0;
/** a daemon pod on `n` at revision `hash`, ready (or not) since 5 minutes before NOW */
const pod = (n: string, hash: string, ready = true, created = '2025-01-01T00:00:00Z'): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `d-${seq++}`, namespace: 'default', labels: { a: 'd', 'controller-revision-hash': hash }, creationTimestamp: created },
  spec: { nodeName: n, containers: [{ name: 'c' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: '2025-01-01T00:05:00Z' }] },
});

describe('DaemonSet predicates', () => {
  it('adds network-unavailable only for hostNetwork pods and keeps template tolerations', () => {
    const plain = newDaemonPod(ds({}, { tolerations: [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }] }), 'n1', 'h');
    assert.equal(plain.spec?.tolerations?.length, 7);
    assert.equal(plain.spec?.tolerations?.[0]?.key, 'node-role.kubernetes.io/master');
    assert.ok(!plain.spec?.tolerations?.some((t) => t.key === 'node.kubernetes.io/network-unavailable'));
    const host = newDaemonPod(ds({}, { hostNetwork: true }), 'n1', 'h');
    assert.ok(host.spec?.tolerations?.some((t) => t.key === 'node.kubernetes.io/network-unavailable' && t.effect === 'NoSchedule' && t.operator === 'Exists'));
    assert.equal(plain.metadata?.generateName, 'd-');
    assert.deepEqual(plain.metadata?.labels, { a: 'd', 'pod-template-generation': '2', 'controller-revision-hash': 'h' });
  });

  it('replaces matchFields in every required term and keeps matchExpressions and preferences', () => {
    const a = replaceNodeNameAffinity(
      {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['old'] }] }],
          },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'x', operator: 'Exists' }] } }],
        },
      },
      'n2',
    );
    assert.deepEqual(a.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [
      { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] },
    ]);
    assert.equal(a.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length, 1);
    assert.equal(targetNodeName({ spec: { affinity: a, containers: [] } } as Pod), 'n2');
  });

  it('NoSchedule taints stop new pods but keep running ones; NoExecute stops both; daemon tolerations apply', () => {
    const p = new DaemonPredicates(ds());
    assert.deepEqual(p.shouldRun(node('a', { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } })), [false, true]);
    assert.deepEqual(p.shouldRun(node('a', { spec: { taints: [{ key: 'k', effect: 'NoExecute' }] } })), [false, false]);
    assert.deepEqual(p.shouldRun(node('a', { spec: { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] } })), [true, true]);
    assert.deepEqual(
      p.shouldRun(
        node('a', {
          spec: {
            taints: [
              { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
              { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
            ],
          },
        }),
      ),
      [true, true],
    );
    assert.deepEqual(p.shouldRun(node('a', { spec: { taints: [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }] } })), [false, true]);
    const sel = new DaemonPredicates(ds({}, { nodeSelector: { disk: 'ssd' } }));
    assert.deepEqual(sel.shouldRun(node('a')), [false, false]);
    assert.deepEqual(sel.shouldRun({ ...node('a'), metadata: { name: 'a', labels: { disk: 'ssd' } } }), [true, true]);
    const fixed = new DaemonPredicates(ds({}, { nodeName: 'b' }));
    assert.deepEqual(fixed.shouldRun(node('a')), [false, false]);
  });
});

describe('DaemonSet plan', () => {
  const nodes = [node('a'), node('b'), node('c')];
  const always = (): boolean => true;

  it('creates on nodes without a pod, keeps the oldest of duplicates, removes failed and misplaced pods', () => {
    const old = pod('a', 'h', true, '2025-01-01T00:00:00Z');
    const dup = pod('a', 'h', true, '2025-01-01T00:01:00Z');
    const failed = { ...pod('b', 'h'), status: { phase: 'Failed' } } as Pod;
    const gone = { ...pod('', 'h'), spec: { containers: [], affinity: replaceNodeNameAffinity(undefined, 'zz') } } as Pod;
    const d = ds();
    const plan = managePlan(d, nodes, groupByNode([old, dup, failed, gone]), 'h', new DaemonPredicates(d), always);
    assert.deepEqual(plan.create, ['c']);
    assert.deepEqual(plan.delete.map((p) => p.metadata?.name).sort(), [dup, failed, gone].map((p) => p.metadata!.name!).sort());
    assert.deepEqual(
      plan.failed.map((f) => f.node),
      ['b'],
    );
    const held = managePlan(d, nodes, groupByNode([failed]), 'h', new DaemonPredicates(d), () => false);
    assert.deepEqual(held.delete, [], 'a failed pod in backoff stays');
  });

  it('maxUnavailable 1: deletes one old pod while all are available, none while a new one is not ready', () => {
    const d = ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } } });
    const pred = new DaemonPredicates(d);
    const all = [pod('a', 'old'), pod('b', 'old'), pod('c', 'old')];
    const step = rollingUpdatePlan(d, nodes, groupByNode(all), 'new', pred, NOW);
    assert.equal(step.delete.length, 1);
    assert.deepEqual(step.create, []);
    const waiting = rollingUpdatePlan(d, nodes, groupByNode([pod('a', 'new', false), pod('b', 'old'), pod('c', 'old')]), 'new', pred, NOW);
    assert.deepEqual(waiting.delete, []);
    const broken = pod('c', 'old', false);
    const replace = rollingUpdatePlan(d, nodes, groupByNode([pod('a', 'new', false), pod('b', 'old'), broken]), 'new', pred, NOW);
    assert.deepEqual(replace.delete, [broken], 'an unavailable old pod is always replaced');
    const pct = ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '50%' } } });
    assert.equal(rollingUpdatePlan(pct, nodes, groupByNode(all), 'new', new DaemonPredicates(pct), NOW).delete.length, 2, '50% of 3 rounds up to 2');
  });

  it('maxSurge 1: creates beside one available old pod, deletes the old one once the new one is available', () => {
    const d = ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });
    const pred = new DaemonPredicates(d);
    const first = rollingUpdatePlan(d, nodes, groupByNode([pod('a', 'old'), pod('b', 'old'), pod('c', 'old')]), 'new', pred, NOW);
    assert.equal(first.create.length, 1);
    assert.deepEqual(first.delete, []);
    const oldA = pod('a', 'old');
    const next = rollingUpdatePlan(d, nodes, groupByNode([oldA, pod('a', 'new'), pod('b', 'old'), pod('c', 'old')]), 'new', pred, NOW);
    assert.deepEqual(next.delete, [oldA]);
    assert.equal(next.create.length, 1);
  });

  it('status counts desired, current, misscheduled, ready, available (minReadySeconds) and updated', () => {
    const d = ds({ minReadySeconds: 600 });
    const tainted = node('c', { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } });
    const st = daemonSetStatus(d, [node('a'), node('b'), tainted], groupByNode([pod('a', 'h'), pod('c', 'h')]), 'h', new DaemonPredicates(d), NOW);
    assert.deepEqual(st, {
      desiredNumberScheduled: 2,
      currentNumberScheduled: 1,
      numberMisscheduled: 1,
      numberReady: 1,
      numberAvailable: 0,
      updatedNumberScheduled: 1,
      numberUnavailable: 2,
    });
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../util/pods.js';
import { completeRollingUpdate, newVersionedPod, type StatefulPodOps, updateStatefulSet } from './control.js';
import { newStatefulSetPod, type StatefulSet } from './pods.js';

const NOW = Date.parse('2025-01-01T00:10:00Z');
const set = (replicas: number, extra: Partial<NonNullable<StatefulSet['spec']>> = {}): StatefulSet => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'web', namespace: 'default', uid: 'u1', generation: 3 },
  spec: {
    replicas,
    serviceName: 'nginx',
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    ...extra,
  },
});
/** an existing pod `web-<ord>` at revision `rev` */
const pod = (s: StatefulSet, ord: number, rev: string, state: 'ready' | 'pending' | 'failed' = 'ready'): Pod => {
  const p = newStatefulSetPod(s, ord, rev);
  const status: Pod['status'] =
    state === 'ready'
      ? { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z' }] }
      : { phase: state === 'failed' ? 'Failed' : 'Pending' };
  return { ...p, metadata: { ...p.metadata, uid: `pod-${ord}` }, status };
};

function fakeOps(): StatefulPodOps & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    async createPod(_s, p) {
      log.push(`create ${p.metadata?.name} ${p.metadata?.labels?.['controller-revision-hash']}`);
    },
    async updatePod(_s, p) {
      log.push(`update ${p.metadata?.name}`);
    },
    async deletePod(_s, p) {
      log.push(`delete ${p.metadata?.name}`);
    },
    async createMissingClaims() {},
    claimsMatchPolicy: () => true,
    async updateClaimsForPolicy() {},
    claimIsStale: () => false,
    event(_s, type, reason, message) {
      log.push(`${type} ${reason} ${message}`);
    },
  };
}

const run = (s: StatefulSet, pods: Pod[], ops: StatefulPodOps, cur = 'web-1', upd = 'web-1') =>
  updateStatefulSet({ set: s, currentSet: s, updateSet: s, currentRevision: cur, updateRevision: upd, collisionCount: 0, pods, ops, now: NOW });

describe('updateStatefulSet', () => {
  it('OrderedReady creates the first missing ordinal only, and nothing while an earlier pod is not ready', async () => {
    const s = set(3);
    const ops = fakeOps();
    await run(s, [pod(s, 0, 'web-1')], ops);
    assert.deepEqual(ops.log, ['create web-1 web-1']);
    const blocked = fakeOps();
    await run(s, [pod(s, 0, 'web-1', 'pending')], blocked);
    assert.deepEqual(blocked.log, []);
  });

  it('Parallel creates every missing ordinal', async () => {
    const ops = fakeOps();
    await run(set(3, { podManagementPolicy: 'Parallel' }), [], ops);
    assert.deepEqual(ops.log.sort(), ['create web-0 web-1', 'create web-1 web-1', 'create web-2 web-1']);
  });

  it('scale-down deletes the highest ordinal, one at a time, and waits while a remaining pod is unhealthy', async () => {
    const s = set(1);
    const ops = fakeOps();
    const res = await run(s, [pod(s, 0, 'web-1'), pod(s, 1, 'web-1'), pod(s, 2, 'web-1')], ops);
    assert.deepEqual(ops.log, ['delete web-2']);
    assert.equal(res.status.replicas, 3);
    const blocked = fakeOps();
    await run(s, [pod(s, 0, 'web-1', 'pending'), pod(s, 1, 'web-1'), pod(s, 2, 'web-1')], blocked);
    assert.deepEqual(blocked.log, []);
    const par = fakeOps();
    await run(set(1, { podManagementPolicy: 'Parallel' }), [pod(s, 0, 'web-1'), pod(s, 1, 'web-1'), pod(s, 2, 'web-1')], par);
    assert.deepEqual(par.log.sort(), ['delete web-1', 'delete web-2']);
  });

  it('a failed pod is deleted with a RecreatingFailedPod warning', async () => {
    const s = set(2);
    const ops = fakeOps();
    await run(s, [pod(s, 0, 'web-1', 'failed'), pod(s, 1, 'web-1')], ops);
    assert.deepEqual(ops.log, ['Warning RecreatingFailedPod StatefulSet default/web is recreating failed Pod web-0', 'delete web-0']);
  });

  it('RollingUpdate deletes the highest pod not at the update revision; status counts revisions', async () => {
    const s = set(3);
    const ops = fakeOps();
    const res = await run(s, [pod(s, 0, 'web-1'), pod(s, 1, 'web-1'), pod(s, 2, 'web-2')], ops, 'web-1', 'web-2');
    assert.deepEqual(ops.log, ['delete web-1']);
    assert.deepEqual(
      { ...res.status },
      {
        observedGeneration: 3,
        currentRevision: 'web-1',
        updateRevision: 'web-2',
        collisionCount: 0,
        replicas: 3,
        readyReplicas: 3,
        availableReplicas: 3,
        currentReplicas: 2,
        updatedReplicas: 1,
      },
    );
    completeRollingUpdate(s, res.status);
    assert.equal(res.status.currentRevision, 'web-1', 'not complete before every pod is updated');
    const done = { ...res.status, updatedReplicas: 3, currentReplicas: 0 };
    completeRollingUpdate(s, done);
    assert.equal(done.currentRevision, 'web-2');
    assert.equal(done.currentReplicas, 3);
  });

  it('maxUnavailable (feature gate) deletes up to that many outdated pods at once', async () => {
    const s = set(4, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 2 } } });
    const ops = fakeOps();
    const pods = [0, 1, 2, 3].map((i) => pod(s, i, 'web-1'));
    await updateStatefulSet({
      set: s,
      currentSet: s,
      updateSet: s,
      currentRevision: 'web-1',
      updateRevision: 'web-2',
      collisionCount: 0,
      pods,
      ops,
      now: NOW,
      maxUnavailableGate: true,
    });
    assert.deepEqual(ops.log, ['delete web-3', 'delete web-2']);
  });

  it('new pods below the partition are created at the current revision', () => {
    const s = set(3, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } });
    assert.equal(newVersionedPod(s, s, 'web-1', 'web-2', 1).metadata?.labels?.['controller-revision-hash'], 'web-1');
    assert.equal(newVersionedPod(s, s, 'web-1', 'web-2', 2).metadata?.labels?.['controller-revision-hash'], 'web-2');
    const od = set(3, { updateStrategy: { type: 'OnDelete' } });
    assert.equal(newVersionedPod(od, od, 'web-1', 'web-2', 0).metadata?.labels?.['controller-revision-hash'], 'web-2');
  });
});

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { R } from '../../client/types.js';
import type { RunningController } from '../util/context.js';
import type { ControllerRevision } from '../util/history.js';
import type { Pod } from '../util/pods.js';
import { W } from '../util/resources.js';
import { listPods, makePodReady, startFakeKubelet, startTestCluster, type TestCluster, waitFor } from '../util/test-cluster.js';
import { startStatefulSetController, type StatefulSet } from './controller.js';
import { FakeClock } from '../../util/fake-clock.js';

const sts = (name: string, replicas: number, extra: Partial<NonNullable<StatefulSet['spec']>> = {}, claims = false): StatefulSet => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name },
  spec: {
    serviceName: 'nginx',
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          {
            name: 'nginx',
            image: 'registry.k8s.io/nginx-slim:0.24',
            ports: [{ containerPort: 80, name: 'web' }],
            volumeMounts: claims ? [{ name: 'www', mountPath: '/usr/share/nginx/html' }] : undefined,
          },
        ],
      },
    },
    volumeClaimTemplates: claims ? [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] : undefined,
    ...extra,
  },
});

const live = async (c: TestCluster, app: string): Promise<Pod[]> =>
  (await listPods(c.client, 'default', `app=${app}`)).filter((p) => !p.metadata?.deletionTimestamp).sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
const names = (ps: Pod[]): string[] => ps.map((p) => p.metadata!.name!);
const getSet = (c: TestCluster, n: string) => c.client.get<StatefulSet>(W.statefulsets, 'default', n);

describe('StatefulSet controller', () => {
  let c: TestCluster;
  let ctl: RunningController;
  let kubelet: { stop(): void };
  /** apps whose pods the fake kubelet readies at once */
  const auto = new Set<string>();
  /** pods the test readies itself */
  const manual = new Set<string>(['web-0']);
  before(async () => {
    c = await startTestCluster();
    ctl = await startStatefulSetController({ client: c.client, recorder: c.recorder, informers: c.informers });
    kubelet = startFakeKubelet(c.client, (p) => (auto.has(p.metadata?.labels?.app ?? '') && !manual.has(p.metadata?.name ?? '') ? 'ready' : 'ignore'));
  });
  after(async () => {
    kubelet?.stop();
    await ctl?.stop();
    await c?.stop();
  });

  it('OrderedReady: creates web-0 with identity, claim and revision, and web-1 only once web-0 is Running and Ready', async () => {
    const set = await c.client.create<StatefulSet>(W.statefulsets, 'default', sts('web', 3, {}, true));
    const [p0] = await waitFor(
      async () => {
        const l = await live(c, 'web');
        return l.length === 1 ? l : undefined;
      },
      5000,
      'web-0',
    );
    assert.equal(p0!.metadata?.name, 'web-0');
    const cur = await waitFor(
      async () => {
        const s = await getSet(c, 'web');
        return s.status?.updateRevision && s.status.replicas === 1 && s.status.observedGeneration === s.metadata?.generation ? s : undefined;
      },
      5000,
      'status',
    );
    assert.equal((await live(c, 'web')).length, 1, 'web-1 waits for web-0');

    const rev = cur.status!.updateRevision!;
    assert.equal(cur.status?.currentRevision, rev);
    assert.match(rev, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    const cr = await c.client.get<ControllerRevision>(W.controllerrevisions, 'default', rev);
    assert.equal(cr.revision, 1);
    assert.equal(cr.metadata?.labels?.app, 'web');
    assert.equal(cr.metadata?.ownerReferences?.[0]?.uid, set.metadata?.uid);
    assert.equal((cr.data as { spec: { template: { $patch: string } } }).spec.template.$patch, 'replace');

    assert.equal(p0!.metadata?.labels?.['statefulset.kubernetes.io/pod-name'], 'web-0');
    assert.equal(p0!.metadata?.labels?.['apps.kubernetes.io/pod-index'], '0');
    assert.equal(p0!.metadata?.labels?.['controller-revision-hash'], rev);
    assert.equal(p0!.spec?.hostname, 'web-0');
    assert.equal(p0!.spec?.subdomain, 'nginx');
    assert.deepEqual(p0!.metadata?.ownerReferences, [
      { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: set.metadata!.uid, controller: true, blockOwnerDeletion: true },
    ]);
    assert.deepEqual(p0!.spec?.volumes?.find((v) => v.name === 'www')?.persistentVolumeClaim, { claimName: 'www-web-0' });
    const pvc = await c.client.get<PersistentVolumeClaim & KObject>(R.persistentvolumeclaims, 'default', 'www-web-0');
    assert.equal(pvc.metadata?.labels?.app, 'web');
    assert.equal(pvc.spec?.resources?.requests?.storage, '1Gi');

    auto.add('web');
    await makePodReady(c.client, p0!);
    await waitFor(async () => (await live(c, 'web')).length === 3, 5000, 'web-1 and web-2 after web-0 is ready');
    const done = await waitFor(
      async () => {
        const s = await getSet(c, 'web');
        return s.status?.readyReplicas === 3 && s.status.availableReplicas === 3 ? s : undefined;
      },
      8000,
      '3 ready',
    );
    assert.equal(done.status?.replicas, 3);
    assert.equal(done.status?.currentReplicas, 3);
    assert.equal(done.status?.updatedReplicas, 3);
    assert.deepEqual(names(await live(c, 'web')), ['web-0', 'web-1', 'web-2']);
    const creates = c.recorder.lines().filter((l) => l.startsWith('SuccessfulCreate:') && l.includes('StatefulSet web '));
    assert.deepEqual(creates, [
      'SuccessfulCreate: create Claim www-web-0 Pod web-0 in StatefulSet web success',
      'SuccessfulCreate: create Pod web-0 in StatefulSet web successful',
      'SuccessfulCreate: create Claim www-web-1 Pod web-1 in StatefulSet web success',
      'SuccessfulCreate: create Pod web-1 in StatefulSet web successful',
      'SuccessfulCreate: create Claim www-web-2 Pod web-2 in StatefulSet web success',
      'SuccessfulCreate: create Pod web-2 in StatefulSet web successful',
    ]);
  });

  it('scales down from the highest ordinal and keeps the claims', async () => {
    await c.client.patch(W.statefulsets, 'default', 'web', 'merge', { spec: { replicas: 1 } }, { subresource: 'scale' });
    await waitFor(async () => names(await live(c, 'web')).join() === 'web-0', 8000, 'scale to 1');
    const deletes = c.recorder.lines().filter((l) => l.startsWith('SuccessfulDelete:') && l.includes('StatefulSet web '));
    assert.deepEqual(deletes, ['SuccessfulDelete: delete Pod web-2 in StatefulSet web successful', 'SuccessfulDelete: delete Pod web-1 in StatefulSet web successful']);
    const s = await waitFor(
      async () => {
        const x = await getSet(c, 'web');
        return x.status?.replicas === 1 ? x : undefined;
      },
      5000,
      'status replicas 1',
    );
    assert.equal(s.status?.readyReplicas, 1);
    const claims = (await c.client.list(R.persistentvolumeclaims, 'default')).items.map((x) => x.metadata?.name).sort();
    assert.deepEqual(claims, ['www-web-0', 'www-web-1', 'www-web-2']);
  });

  it('RollingUpdate with a partition updates only the ordinals at or above it, from the highest down', async () => {
    auto.add('roll');
    await c.client.create(W.statefulsets, 'default', sts('roll', 3, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } }));
    const first = await waitFor(
      async () => {
        const s = await getSet(c, 'roll');
        return s.status?.readyReplicas === 3 ? s : undefined;
      },
      8000,
      'roll ready',
    );
    const oldRev = first.status!.currentRevision!;
    await c.client.patch(W.statefulsets, 'default', 'roll', 'merge', {
      spec: { template: { spec: { containers: [{ name: 'nginx', image: 'registry.k8s.io/nginx-slim:0.25' }] } } },
    });
    const mid = await waitFor(
      async () => {
        const s = await getSet(c, 'roll');
        return s.status?.updateRevision !== oldRev && s.status?.updatedReplicas === 2 && s.status.readyReplicas === 3 ? s : undefined;
      },
      8000,
      'partitioned update',
    );
    assert.equal(mid.status?.currentRevision, oldRev, 'a partitioned rollout does not complete');
    assert.equal(mid.status?.currentReplicas, 1);
    const pods = await live(c, 'roll');
    const rev = (n: string) => pods.find((p) => p.metadata?.name === n)!.metadata!.labels!['controller-revision-hash'];
    assert.equal(rev('roll-0'), oldRev);
    assert.equal(rev('roll-1'), mid.status!.updateRevision);
    assert.equal(rev('roll-2'), mid.status!.updateRevision);
    assert.equal(pods.find((p) => p.metadata?.name === 'roll-2')!.spec!.containers[0]!.image, 'registry.k8s.io/nginx-slim:0.25');
    const deletes = c.recorder.lines().filter((l) => l.startsWith('SuccessfulDelete:') && l.includes('StatefulSet roll '));
    assert.deepEqual(deletes, ['SuccessfulDelete: delete Pod roll-2 in StatefulSet roll successful', 'SuccessfulDelete: delete Pod roll-1 in StatefulSet roll successful']);

    await c.client.patch(W.statefulsets, 'default', 'roll', 'merge', { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
    const done = await waitFor(
      async () => {
        const s = await getSet(c, 'roll');
        return s.status?.currentRevision === mid.status!.updateRevision && s.status?.updatedReplicas === 3 && s.status.readyReplicas === 3 ? s : undefined;
      },
      8000,
      'rollout complete',
    );
    assert.equal(done.status?.currentReplicas, 3);
    const revs = (await c.client.list<ControllerRevision>(W.controllerrevisions, 'default')).items.filter((r) => r.metadata?.ownerReferences?.[0]?.name === 'roll');
    assert.deepEqual(revs.map((r) => r.revision).sort(), [1, 2]);
  });

  it('Parallel creates every pod without waiting for readiness', async () => {
    await c.client.create(W.statefulsets, 'default', sts('par', 3, { podManagementPolicy: 'Parallel' }));
    await waitFor(async () => names(await live(c, 'par')).join() === 'par-0,par-1,par-2', 5000, 'par pods');
    assert.ok((await live(c, 'par')).every((p) => p.status?.phase === 'Pending'));
  });

  it("revisions carry the set's annotations (upstream newRevision)", async () => {
    const set = sts('annotated', 1);
    set.metadata!.annotations = { 'example.com/owner': 'team-a', 'kubernetes.io/change-cause': 'initial' };
    await c.client.create(W.statefulsets, 'default', set);
    const rev = await waitFor(
      async () => {
        const l = await c.client.list<ControllerRevision>(W.controllerrevisions, 'default', { labelSelector: 'app=annotated' });
        return l.items[0];
      },
      5000,
      'annotated revision',
    );
    assert.deepEqual(rev.metadata?.annotations, { 'example.com/owner': 'team-a', 'kubernetes.io/change-cause': 'initial' });
  });

  it('OnDelete leaves pods alone until they are deleted, then recreates them at the update revision', async () => {
    auto.add('od');
    await c.client.create(W.statefulsets, 'default', sts('od', 2, { updateStrategy: { type: 'OnDelete' } }));
    const first = await waitFor(
      async () => {
        const s = await getSet(c, 'od');
        return s.status?.readyReplicas === 2 ? s : undefined;
      },
      8000,
      'od ready',
    );
    await c.client.patch(W.statefulsets, 'default', 'od', 'merge', { spec: { template: { metadata: { labels: { app: 'od', v: '2' } } } } });
    const s = await waitFor(
      async () => {
        const x = await getSet(c, 'od');
        return x.status?.updateRevision !== first.status?.updateRevision && x.status?.observedGeneration === x.metadata?.generation ? x : undefined;
      },
      5000,
      'new update revision',
    );
    assert.equal(s.status?.updatedReplicas, 0);
    assert.ok(!c.recorder.lines().some((l) => l.startsWith('SuccessfulDelete:') && l.includes('StatefulSet od ')));
    const old = (await live(c, 'od')).find((p) => p.metadata?.name === 'od-1')!;
    await c.client.delete(R.pods, 'default', 'od-1');
    const fresh = await waitFor(
      async () => {
        const p = (await live(c, 'od')).find((x) => x.metadata?.name === 'od-1');
        return p && p.metadata?.uid !== old.metadata?.uid ? p : undefined;
      },
      5000,
      'od-1 recreated',
    );
    assert.equal(fresh.metadata?.labels?.['controller-revision-hash'], s.status?.updateRevision);
    assert.equal(fresh.metadata?.labels?.v, '2');
  });

  it('retention whenDeleted/whenScaled=Delete: claims owned by the set, then by the scaled-down pod; a stale claim holds back the new pod', async () => {
    auto.add('ret');
    const set = await c.client.create<StatefulSet>(
      W.statefulsets,
      'default',
      sts('ret', 2, { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' } }, true),
    );
    await waitFor(async () => (await getSet(c, 'ret')).status?.readyReplicas === 2, 8000, 'ret ready');
    const claim = (n: string) => c.client.get<PersistentVolumeClaim & KObject>(R.persistentvolumeclaims, 'default', n);
    for (const n of ['www-ret-0', 'www-ret-1']) {
      assert.deepEqual((await claim(n)).metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'ret', uid: set.metadata!.uid }]);
    }
    const p1 = (await live(c, 'ret')).find((p) => p.metadata?.name === 'ret-1')!;
    await c.client.patch(W.statefulsets, 'default', 'ret', 'merge', { spec: { replicas: 1 } });
    await waitFor(async () => names(await live(c, 'ret')).join() === 'ret-0', 5000, 'ret scaled to 1');
    assert.deepEqual((await claim('www-ret-1')).metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Pod', name: 'ret-1', uid: p1.metadata!.uid }]);
    assert.deepEqual(
      (await claim('www-ret-0')).metadata?.ownerReferences?.map((r) => r.kind),
      ['StatefulSet'],
    );

    // scaling back up while the old claim (owned by the gone ret-1) is still there waits for its removal
    await waitFor(async () => (await listPods(c.client, 'default', 'app=ret')).length === 1, 5000, 'ret-1 gone');
    await c.client.patch(W.statefulsets, 'default', 'ret', 'merge', { spec: { replicas: 2 } });
    await waitFor(
      async () => {
        const s = await getSet(c, 'ret');
        return s.metadata?.generation === s.status?.observedGeneration;
      },
      5000,
      'scale-up observed',
    );
    assert.equal((await live(c, 'ret')).length, 1, 'ret-1 waits for the stale claim');
    await c.client.delete(R.persistentvolumeclaims, 'default', 'www-ret-1'); // what the garbage collector does
    await waitFor(async () => names(await live(c, 'ret')).join() === 'ret-0,ret-1', 5000, 'ret-1 recreated');
    const fresh = await waitFor(
      async () => {
        const x = await claim('www-ret-1').catch(() => undefined);
        return x?.metadata?.ownerReferences?.length ? x : undefined;
      },
      5000,
      'new claim',
    );
    assert.deepEqual(
      fresh.metadata?.ownerReferences?.map((r) => r.kind),
      ['StatefulSet'],
    );
  });
});

describe('StatefulSet controller with a fake clock', () => {
  it('OrderedReady with minReadySeconds creates the next pod only once the previous one is available', async () => {
    const c = await startTestCluster();
    const clock = new FakeClock(Date.now());
    let ctl: RunningController | undefined;
    let kubelet: { stop(): void } | undefined;
    try {
      ctl = await startStatefulSetController({ client: c.client, recorder: c.recorder, informers: c.informers, clock });
      kubelet = startFakeKubelet(c.client);
      await c.client.create(W.statefulsets, 'default', sts('slow', 2, { minReadySeconds: 10 }));
      const s = await waitFor(
        async () => {
          const x = await getSet(c, 'slow');
          return x.status?.readyReplicas === 1 ? x : undefined;
        },
        5000,
        'slow-0 ready',
      );
      assert.equal(s.status?.availableReplicas, 0);
      await clock.advance(5000);
      assert.deepEqual(names(await live(c, 'slow')), ['slow-0'], 'slow-1 waits for slow-0 to be available');
      // slow-0 became ready within the 5 s wait above (real time): 25 s on the controller
      // clock is past readiness + minReadySeconds, and only the controller's own requeue
      // timer (fired by the fake clock) can create slow-1.
      await clock.advance(20_000);
      await waitFor(async () => (await live(c, 'slow')).length === 2, 10_000, 'slow-1 created after minReadySeconds on the controller clock');
    } finally {
      kubelet?.stop();
      await ctl?.stop();
      await c.stop();
    }
  });
});

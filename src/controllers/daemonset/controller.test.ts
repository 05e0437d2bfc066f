import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { R } from '../../client/types.js';
import type { Client } from '../../client/types.js';
import type { RunningController } from '../util/context.js';
import type { ControllerRevision } from '../util/history.js';
import { SharedInformers } from '../util/informers.js';
import type { Pod } from '../util/pods.js';
import { W } from '../util/resources.js';
import { listPods, makePodReady, startTestCluster, type TestCluster, waitFor } from '../util/test-cluster.js';
import { startDaemonSetController, type DaemonSet } from './controller.js';
import { targetNodeName, type Node } from './predicates.js';
import { FakeClock } from '../../util/fake-clock.js';

const NODES = ['node-a', 'node-b', 'node-c'];

const daemon = (name: string, extra: Partial<NonNullable<DaemonSet['spec']>> = {}, podSpec: Record<string, unknown> = {}): DaemonSet => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name },
  spec: {
    selector: { matchLabels: { name } },
    template: { metadata: { labels: { name } }, spec: { containers: [{ name: 'agent', image: 'agent:v1' }], ...podSpec } },
    ...extra,
  },
});

/**
 * A kubelet stand-in for daemon pods: binds each new pod to the node its affinity names
 * and reports it Running and Ready unless `ready(pod)` says no; removes deleted pods.
 */
/** A stand-in kubelet: makes pods `ready` accepts Ready (at `now()`, ms since the epoch) and deletes terminating ones. */
function startDaemonKubelet(client: Client, ready: (p: Pod) => boolean, now: () => number = Date.now): { stop(): void } {
  const inf = new SharedInformers(client).get<Pod>(R.pods);
  const busy = new Set<string>();
  const handle = (p: Pod): void => {
    const key = `${p.metadata?.namespace}/${p.metadata?.name}`;
    if (busy.has(key)) return;
    let work: Promise<unknown> | undefined;
    if (p.metadata?.deletionTimestamp) work = client.delete(R.pods, p.metadata.namespace!, p.metadata.name!, { gracePeriodSeconds: 0 });
    else if (p.status?.phase === 'Pending' && !isReadyPod(p) && ready(p)) work = makePodReady(client, p, targetNodeName(p) ?? 'nowhere', new Date(now()));
    if (!work) return;
    busy.add(key);
    void work.catch(() => undefined).finally(() => busy.delete(key));
  };
  inf.addEventHandler({ add: handle, update: (_o, p) => handle(p) });
  inf.start();
  return { stop: () => inf.stop() };
}
const isReadyPod = (p: Pod): boolean => !!p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

describe('DaemonSet controller', () => {
  let c: TestCluster;
  let ctl: RunningController;
  let kubelet: { stop(): void };
  /** images the kubelet stand-in refuses to make ready */
  const broken = new Set<string>();
  const live = async (name: string): Promise<Pod[]> => (await listPods(c.client, 'default', `name=${name}`)).filter((p) => !p.metadata?.deletionTimestamp);
  const nodesOf = (ps: Pod[]): string[] => ps.map((p) => targetNodeName(p)!).sort();
  const getDS = (n: string) => c.client.get<DaemonSet>(W.daemonsets, 'default', n);
  const patchNode = (n: string, body: unknown) => c.client.patch(R.nodes, '', n, 'merge', body);

  before(async () => {
    c = await startTestCluster();
    for (const n of NODES) await c.client.create<Node>(R.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: n, labels: { 'kubernetes.io/hostname': n } } });
    ctl = await startDaemonSetController({ client: c.client, recorder: c.recorder, informers: c.informers });
    kubelet = startDaemonKubelet(c.client, (p) => !broken.has(p.spec?.containers[0]?.image ?? ''));
  });
  after(async () => {
    kubelet?.stop();
    await ctl?.stop();
    await c?.stop();
  });

  it('creates one pod per node, targeted by a metadata.name node affinity, with the daemon tolerations and revision labels', async () => {
    const ds = await c.client.create<DaemonSet>(W.daemonsets, 'default', daemon('agent'));
    const st = await waitFor(
      async () => {
        const d = await getDS('agent');
        return d.status?.numberAvailable === 3 && d.status.observedGeneration === d.metadata?.generation ? d : undefined;
      },
      8000,
      '3 available',
    );
    assert.deepEqual(
      { ...st.status, collisionCount: undefined },
      {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberMisscheduled: 0,
        numberReady: 3,
        numberAvailable: 3,
        updatedNumberScheduled: 3,
        numberUnavailable: 0,
        observedGeneration: st.metadata?.generation,
        collisionCount: undefined,
      },
    );
    const pods = await live('agent');
    assert.deepEqual(nodesOf(pods), NODES);
    const revs = (await c.client.list<ControllerRevision>(W.controllerrevisions, 'default')).items.filter((r) => r.metadata?.ownerReferences?.[0]?.uid === ds.metadata?.uid);
    assert.equal(revs.length, 1);
    const hash = revs[0]!.metadata!.labels!['controller-revision-hash']!;
    assert.equal(revs[0]!.metadata?.name, `agent-${hash}`);
    for (const p of pods) {
      assert.match(p.metadata!.name!, /^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.equal(p.metadata?.labels?.['controller-revision-hash'], hash);
      assert.equal(p.metadata?.labels?.['pod-template-generation'], '1');
      assert.deepEqual(p.metadata?.ownerReferences, [
        { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: ds.metadata!.uid, controller: true, blockOwnerDeletion: true },
      ]);
      assert.deepEqual(p.spec?.affinity, {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [p.spec!.nodeName!] }] }] },
        },
      });
      assert.deepEqual(
        p.spec?.tolerations?.map((t) => `${t.key}:${t.operator}:${t.effect}`),
        [
          'node.kubernetes.io/not-ready:Exists:NoExecute',
          'node.kubernetes.io/unreachable:Exists:NoExecute',
          'node.kubernetes.io/disk-pressure:Exists:NoSchedule',
          'node.kubernetes.io/memory-pressure:Exists:NoSchedule',
          'node.kubernetes.io/pid-pressure:Exists:NoSchedule',
          'node.kubernetes.io/unschedulable:Exists:NoSchedule',
        ],
      );
    }
    const created = c.recorder.lines().filter((l) => l.startsWith('SuccessfulCreate: Created pod: agent-'));
    assert.equal(created.length, 3);
  });

  it('follows nodeSelector: a pod appears on a node that gets the label and goes from one that loses it', async () => {
    await patchNode('node-b', { metadata: { labels: { disk: 'ssd' } } });
    await c.client.create(W.daemonsets, 'default', daemon('ssd', {}, { nodeSelector: { disk: 'ssd' } }));
    await waitFor(async () => nodesOf(await live('ssd')).join() === 'node-b', 5000, 'ssd on node-b');
    await patchNode('node-c', { metadata: { labels: { disk: 'ssd' } } });
    await waitFor(async () => nodesOf(await live('ssd')).join() === 'node-b,node-c', 5000, 'ssd on node-b and node-c');
    await patchNode('node-b', { metadata: { labels: { disk: null } } });
    await waitFor(async () => nodesOf(await live('ssd')).join() === 'node-c', 5000, 'ssd gone from node-b');
    const d = await waitFor(
      async () => {
        const x = await getDS('ssd');
        return x.status?.desiredNumberScheduled === 1 && x.status.currentNumberScheduled === 1 && x.status.numberMisscheduled === 0 ? x : undefined;
      },
      5000,
      'ssd status',
    );
    assert.equal(d.status?.numberReady, 1);
    assert.ok(c.recorder.lines().some((l) => l.startsWith('SuccessfulDelete: Deleted pod: ssd-')));
  });

  it('taints: NoSchedule keeps new pods off but running ones on, NoExecute evicts; unschedulable is tolerated', async () => {
    await patchNode('node-a', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } });
    await patchNode('node-c', { spec: { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] } });
    await c.client.create(W.daemonsets, 'default', daemon('late'));
    await waitFor(async () => nodesOf(await live('late')).join() === 'node-b,node-c', 5000, 'late avoids node-a');
    const d = await waitFor(
      async () => {
        const x = await getDS('late');
        return x.status?.desiredNumberScheduled === 2 && x.status.numberAvailable === 2 ? x : undefined;
      },
      5000,
      'late status',
    );
    assert.equal(d.status?.numberMisscheduled, 0);
    // the earlier DaemonSet keeps its pod on the NoSchedule-tainted node (now counted as misscheduled)
    assert.deepEqual(nodesOf(await live('agent')), NODES);
    await waitFor(async () => (await getDS('agent')).status?.numberMisscheduled === 1, 5000, 'agent misscheduled 1');

    await patchNode('node-a', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }] } });
    await waitFor(async () => nodesOf(await live('agent')).join() === 'node-b,node-c', 5000, 'agent evicted from node-a');
    await patchNode('node-a', { spec: { taints: null } });
    await patchNode('node-c', { spec: { unschedulable: null, taints: null } });
    await waitFor(async () => nodesOf(await live('agent')).join() === NODES.join() && nodesOf(await live('late')).join() === NODES.join(), 5000, 'back on node-a');
  });

  it('RollingUpdate maxUnavailable 1 replaces one pod at a time and waits for it to become available', async () => {
    broken.add('agent:v2');
    const before = await getDS('agent');
    await c.client.patch(W.daemonsets, 'default', 'agent', 'merge', { spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:v2' }] } } } });
    const mid = await waitFor(
      async () => {
        const x = await getDS('agent');
        const ps = await live('agent');
        return x.status?.observedGeneration === x.metadata?.generation && ps.filter((p) => p.spec?.containers[0]?.image === 'agent:v2').length === 1 && ps.length === 3
          ? ps
          : undefined;
      },
      5000,
      'one new pod',
    );
    assert.equal(mid.filter((p) => p.spec?.containers[0]?.image === 'agent:v1').length, 2, 'the others wait for the new pod');
    const st = await waitFor(
      async () => {
        const x = await getDS('agent');
        return x.status?.updatedNumberScheduled === 1 ? x : undefined;
      },
      5000,
      'updated 1',
    );
    assert.equal(st.status?.numberAvailable, 2);
    assert.equal(st.status?.numberUnavailable, 1);
    assert.notEqual(st.metadata?.generation, before.metadata?.generation);

    broken.delete('agent:v2');
    // the stand-in kubelet acts on pod events: nudge the waiting pod
    const waiting = mid.find((p) => p.spec?.containers[0]?.image === 'agent:v2')!;
    await c.client.patch(R.pods, 'default', waiting.metadata!.name!, 'merge', { metadata: { annotations: { nudge: '1' } } });
    const done = await waitFor(
      async () => {
        const x = await getDS('agent');
        return x.status?.updatedNumberScheduled === 3 && x.status.numberAvailable === 3 ? x : undefined;
      },
      8000,
      'rollout done',
    );
    assert.equal(done.status?.numberUnavailable, 0);
    assert.ok((await live('agent')).every((p) => p.spec?.containers[0]?.image === 'agent:v2' && p.metadata?.labels?.['pod-template-generation'] === '2'));
    const revs = (await c.client.list<ControllerRevision>(W.controllerrevisions, 'default')).items.filter((r) => r.metadata?.ownerReferences?.[0]?.name === 'agent');
    assert.deepEqual(revs.map((r) => r.revision).sort(), [1, 2]);
  });

  it('RollingUpdate maxSurge 1 starts the new pod beside the old one before deleting it', async () => {
    await c.client.create(W.daemonsets, 'default', daemon('surge', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
    await waitFor(async () => (await getDS('surge')).status?.numberAvailable === 3, 5000, 'surge ready');
    broken.add('agent:v3');
    await c.client.patch(W.daemonsets, 'default', 'surge', 'merge', { spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:v3' }] } } } });
    const ps = await waitFor(
      async () => {
        const l = await live('surge');
        return l.length === 4 ? l : undefined;
      },
      5000,
      'a surge pod',
    );
    const nodes = nodesOf(ps);
    const doubled = nodes.find((n, i) => nodes[i + 1] === n)!;
    assert.deepEqual(
      ps
        .filter((p) => targetNodeName(p) === doubled)
        .map((p) => p.spec?.containers[0]?.image)
        .sort(),
      ['agent:v1', 'agent:v3'],
    );
    broken.delete('agent:v3');
    const waiting = ps.find((p) => p.spec?.containers[0]?.image === 'agent:v3')!;
    await c.client.patch(R.pods, 'default', waiting.metadata!.name!, 'merge', { metadata: { annotations: { nudge: '1' } } });
    await waitFor(
      async () => {
        const l = await live('surge');
        return l.length === 3 && l.every((p) => p.spec?.containers[0]?.image === 'agent:v3');
      },
      8000,
      'surge rollout done',
    );
  });

  it('OnDelete keeps old pods until they are deleted', async () => {
    await c.client.create(W.daemonsets, 'default', daemon('od', { updateStrategy: { type: 'OnDelete' } }));
    await waitFor(async () => (await getDS('od')).status?.numberAvailable === 3, 5000, 'od ready');
    await c.client.patch(W.daemonsets, 'default', 'od', 'merge', { spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:v9' }] } } } });
    const st = await waitFor(
      async () => {
        const x = await getDS('od');
        return x.status?.observedGeneration === x.metadata?.generation ? x : undefined;
      },
      5000,
      'od observed',
    );
    assert.equal(st.status?.updatedNumberScheduled, 0);
    const victim = (await live('od')).find((p) => targetNodeName(p) === 'node-b')!;
    await c.client.delete(R.pods, 'default', victim.metadata!.name!);
    const fresh = await waitFor(
      async () => (await live('od')).find((p) => targetNodeName(p) === 'node-b' && p.metadata?.uid !== victim.metadata?.uid),
      5000,
      'replacement on node-b',
    );
    assert.equal(fresh.spec?.containers[0]?.image, 'agent:v9');
    assert.equal((await live('od')).filter((p) => p.spec?.containers[0]?.image === 'agent:v1').length, 2);
  });
});

describe('DaemonSet controller with a fake clock', () => {
  it('counts a ready pod available only after minReadySeconds, requeueing itself for it', async () => {
    const c = await startTestCluster();
    const clock = new FakeClock(Date.now());
    let ctl: RunningController | undefined;
    let kubelet: { stop(): void } | undefined;
    try {
      for (const n of ['node-a', 'node-b']) await c.client.create<Node>(R.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: n } });
      ctl = await startDaemonSetController({ client: c.client, recorder: c.recorder, informers: c.informers, clock });
      // Ready at the controller clock's time, which stands still until advanced: however long
      // the set-up takes in real time, 40 s on that clock is past readiness + minReadySeconds
      kubelet = startDaemonKubelet(
        c.client,
        () => true,
        () => clock.now(),
      );
      await c.client.create(W.daemonsets, 'default', daemon('slow', { minReadySeconds: 30 }));
      const ready = await waitFor(
        async () => {
          const d = await c.client.get<DaemonSet>(W.daemonsets, 'default', 'slow');
          return d.status?.numberReady === 2 ? d : undefined;
        },
        5000,
        'numberReady 2',
      );
      assert.equal(ready.status?.numberAvailable, 0);
      assert.equal(ready.status?.numberUnavailable, 2);
      const availableNow = async (): Promise<number> => (await c.client.get<DaemonSet>(W.daemonsets, 'default', 'slow')).status?.numberAvailable ?? 0;
      await clock.advance(20_000);
      assert.equal(await availableNow(), 0, 'not available 20 s after becoming ready');
      // only the controller's own requeue timer (fired by the fake clock) can bring the count
      // up — no other event touches the pods.
      await clock.advance(20_000);
      await waitFor(async () => (await availableNow()) === 2, 10_000, 'numberAvailable 2 once minReadySeconds passed on the controller clock');
    } finally {
      kubelet?.stop();
      await ctl?.stop();
      await c.stop();
    }
  });
});

/**
 * StatefulSets and DaemonSets through the real kubectl on the simulated runtime with
 * `--sim-nodes 3` (4 nodes: e2e-node, sim-node-0..2): ordered creation web-0, web-1,
 * web-2, `kubectl rollout status sts`, scale-down from the highest ordinal, a rolling
 * image update; one DaemonSet pod per node placed by the default scheduler,
 * `kubectl rollout status ds`, and a NoSchedule taint that keeps new daemon pods off a
 * node while the ones already there stay.
 *
 * Needs the statefulset-controller and daemon-set-controller registered in
 * src/controllers/index.ts.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startCluster, eventually, MANIFESTS, type Cluster } from './harness.js';

const NODES = ['e2e-node', 'sim-node-0', 'sim-node-1', 'sim-node-2'];

interface PodLite {
  metadata: { name: string; creationTimestamp: string; deletionTimestamp?: string; labels?: Record<string, string> };
  spec: { nodeName?: string; hostname?: string; subdomain?: string; containers: { image: string }[] };
  status: { phase?: string; conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
}

const WEB = `apiVersion: v1
kind: Service
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  ports:
  - port: 80
    name: web
  clusterIP: None
  selector:
    app: nginx
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: nginx
  serviceName: nginx
  replicas: 3
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
          name: web
`;

const daemonSet = (name: string) => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ${name}
spec:
  selector:
    matchLabels:
      name: ${name}
  template:
    metadata:
      labels:
        name: ${name}
    spec:
      containers:
      - name: agent
        image: nginx:1.27
`;

describe('e2e: StatefulSet and DaemonSet (kubectl, --sim-nodes 3)', () => {
  let c: Cluster;
  const ok = (args: string[], timeoutMs?: number): string => {
    const r = c.kubectl(args, { timeoutMs });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const apply = (ns: string, yaml: string): string => {
    const r = c.kubectl(['apply', '-n', ns, '-f', '-'], { input: yaml });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  const pods = (ns: string, selector: string): PodLite[] => (JSON.parse(ok(['get', 'pods', '-n', ns, '-l', selector, '-o', 'json'])) as { items: PodLite[] }).items;
  const ready = (p: PodLite | undefined): boolean => !!p?.status.conditions?.some((x) => x.type === 'Ready' && x.status === 'True');
  const readyAt = (p: PodLite): number => Date.parse(p.status.conditions!.find((x) => x.type === 'Ready')!.lastTransitionTime!);
  /** `Reason message` of the object's events, in the order they were recorded */
  const events = (ns: string, obj: string, reason: string): string[] => {
    const list = JSON.parse(ok(['get', 'events', '-n', ns, '--field-selector', `involvedObject.name=${obj},reason=${reason}`, '-o', 'json'])) as {
      items: { message: string; metadata: { resourceVersion: string } }[];
    };
    return list.items.sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion)).map((e) => e.message);
  };

  before(async () => {
    c = await startCluster({ args: ['--sim-nodes', '3'] });
    await eventually(() => c.kubectl(['get', 'nodes', '--no-headers']).stdout.trim().split('\n').length === NODES.length, 30_000);
  });
  after(async () => {
    await c?.stop();
  });

  it('a StatefulSet of 3 comes up web-0, web-1, web-2, each after the previous one is Ready; rollout status succeeds', async () => {
    ok(['create', 'namespace', 'sts']);
    assert.match(apply('sts', WEB), /statefulset\.apps\/web created/);
    // while it comes up, the pods present are always a prefix web-0..web-k, all but the last Ready
    const violations: string[] = [];
    await eventually(
      () => {
        const ps = pods('sts', 'app=nginx');
        const names = ps.map((p) => p.metadata.name).sort();
        if (names.join() !== ['web-0', 'web-1', 'web-2'].slice(0, names.length).join()) violations.push(`pods ${names.join()}`);
        for (let i = 0; i + 1 < names.length; i++) if (!ready(ps.find((p) => p.metadata.name === names[i]))) violations.push(`${names[i + 1]} exists before ${names[i]} is Ready`);
        return names.length === 3 && ps.every(ready);
      },
      90_000,
      50,
    );
    assert.deepEqual(violations, []);
    const out = ok(['rollout', 'status', 'sts/web', '-n', 'sts', '--timeout=90s'], 100_000);
    const sts = JSON.parse(ok(['get', 'sts', 'web', '-n', 'sts', '-o', 'json'])) as { status: Record<string, unknown> };
    // the defaulted rollingUpdate.partition makes kubectl report a partitioned roll out, as upstream
    assert.match(out, /partitioned roll out complete: 3 new pods have been updated\.\.\.\n$/);
    assert.equal(sts.status.readyReplicas, 3);
    assert.equal(sts.status.currentRevision, sts.status.updateRevision);
    assert.match(ok(['get', 'sts', 'web', '-n', 'sts']), /web\s+3\/3\s/);

    const ps = pods('sts', 'app=nginx').sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    for (let i = 0; i < 3; i++) {
      const p = ps[i]!;
      assert.equal(p.spec.hostname, `web-${i}`);
      assert.equal(p.spec.subdomain, 'nginx');
      assert.equal(p.metadata.labels?.['statefulset.kubernetes.io/pod-name'], `web-${i}`);
      assert.equal(p.metadata.labels?.['apps.kubernetes.io/pod-index'], String(i));
      assert.equal(p.metadata.labels?.['controller-revision-hash'], sts.status.updateRevision);
      if (i > 0) assert.ok(Date.parse(p.metadata.creationTimestamp) >= Math.floor(readyAt(ps[i - 1]!) / 1000) * 1000, `web-${i} created after web-${i - 1} became Ready`);
    }
    assert.deepEqual(events('sts', 'web', 'SuccessfulCreate'), [
      'create Pod web-0 in StatefulSet web successful',
      'create Pod web-1 in StatefulSet web successful',
      'create Pod web-2 in StatefulSet web successful',
    ]);
  });

  it('kubectl scale sts down removes the highest ordinal first', async () => {
    assert.match(ok(['scale', 'sts', 'web', '-n', 'sts', '--replicas=1']), /statefulset\.apps\/web scaled/);
    const seen = new Set<string>();
    await eventually(
      () => {
        const live = pods('sts', 'app=nginx')
          .filter((p) => !p.metadata.deletionTimestamp)
          .map((p) => p.metadata.name)
          .sort()
          .join();
        seen.add(live);
        return live === 'web-0';
      },
      90_000,
      50,
    );
    for (const s of seen) assert.ok(['web-0,web-1,web-2', 'web-0,web-1', 'web-0'].includes(s), `live pods ${s}: web-1 went before web-2`);
    assert.deepEqual(events('sts', 'web', 'SuccessfulDelete'), ['delete Pod web-2 in StatefulSet web successful', 'delete Pod web-1 in StatefulSet web successful']);
    await eventually(() => pods('sts', 'app=nginx').length === 1, 60_000);
  });

  it('kubectl set image rolls the StatefulSet to a new revision; rollout undo rolls it back', async () => {
    ok(['scale', 'sts', 'web', '-n', 'sts', '--replicas=2']);
    ok(['rollout', 'status', 'sts/web', '-n', 'sts', '--timeout=90s'], 100_000);
    const before = JSON.parse(ok(['get', 'sts', 'web', '-n', 'sts', '-o', 'json'])) as { status: { currentRevision: string } };
    ok(['set', 'image', 'sts/web', '-n', 'sts', 'nginx=nginx:1.27.1']);
    const out = ok(['rollout', 'status', 'sts/web', '-n', 'sts', '--timeout=90s'], 100_000);
    const after = JSON.parse(ok(['get', 'sts', 'web', '-n', 'sts', '-o', 'json'])) as { status: { currentRevision: string; updateRevision: string } };
    assert.notEqual(after.status.updateRevision, before.status.currentRevision);
    assert.match(out, /partitioned roll out complete: 2 new pods have been updated\.\.\.\n$/);
    const ps = pods('sts', 'app=nginx').filter((p) => !p.metadata.deletionTimestamp);
    assert.equal(ps.length, 2);
    for (const p of ps) {
      assert.equal(p.spec.containers[0]!.image, 'nginx:1.27.1');
      assert.equal(p.metadata.labels?.['controller-revision-hash'], after.status.updateRevision);
    }
    const revs = ok(['get', 'controllerrevisions', '-n', 'sts', '-o', 'name']).trim().split('\n').sort();
    assert.deepEqual(revs, [`controllerrevision.apps/${before.status.currentRevision}`, `controllerrevision.apps/${after.status.updateRevision}`].sort());

    // kubectl rollout undo applies the previous revision's data; that revision is renumbered 3
    assert.match(ok(['rollout', 'history', 'sts/web', '-n', 'sts', '--revision=1']), /Image:\s+nginx:1\.27\n/);
    assert.match(ok(['rollout', 'undo', 'sts/web', '-n', 'sts']), /statefulset\.apps\/web rolled back/);
    ok(['rollout', 'status', 'sts/web', '-n', 'sts', '--timeout=90s'], 100_000);
    const undone = JSON.parse(ok(['get', 'sts', 'web', '-n', 'sts', '-o', 'json'])) as { status: { updateRevision: string; currentRevision: string } };
    assert.equal(undone.status.updateRevision, before.status.currentRevision);
    assert.match(ok(['get', 'controllerrevisions', '-n', 'sts']), new RegExp(`${before.status.currentRevision}\\s+statefulset\\.apps/web\\s+3\\s`));
    await eventually(() => {
      const ps = pods('sts', 'app=nginx').filter((p) => !p.metadata.deletionTimestamp);
      return ps.length === 2 && ps.every((p) => p.spec.containers[0]!.image === 'nginx:1.27');
    }, 60_000);
  });

  it('a DaemonSet runs one pod per node (4), placed by the default scheduler; rollout status succeeds', () => {
    ok(['create', 'namespace', 'ds']);
    assert.match(apply('ds', daemonSet('agent')), /daemonset\.apps\/agent created/);
    const out = ok(['rollout', 'status', 'ds/agent', '-n', 'ds', '--timeout=90s'], 100_000);
    assert.match(out, /daemon set "agent" successfully rolled out/);
    const ps = pods('ds', 'name=agent');
    assert.deepEqual(ps.map((p) => p.spec.nodeName).sort(), NODES);
    assert.match(ok(['get', 'ds', 'agent', '-n', 'ds']), /agent\s+4\s+4\s+4\s+4\s+4\s/);
    const scheduled = JSON.parse(ok(['get', 'events', '-n', 'ds', '--field-selector', 'reason=Scheduled', '-o', 'json'])) as {
      items: { source?: { component?: string }; reportingComponent?: string }[];
    };
    assert.equal(scheduled.items.length, 4, 'each daemon pod bound by the scheduler');
  });

  it('a node tainted NoSchedule gets no new daemon pods; the pod already there stays', async () => {
    ok(['taint', 'nodes', 'sim-node-2', 'dedicated=db:NoSchedule']);
    apply('ds', daemonSet('late'));
    ok(['rollout', 'status', 'ds/late', '-n', 'ds', '--timeout=90s'], 100_000);
    const late = pods('ds', 'name=late')
      .map((p) => p.spec.nodeName)
      .sort();
    assert.deepEqual(late, ['e2e-node', 'sim-node-0', 'sim-node-1']);
    const st = JSON.parse(ok(['get', 'ds', 'late', '-n', 'ds', '-o', 'json'])) as { status: Record<string, number> };
    assert.equal(st.status.desiredNumberScheduled, 3);
    assert.equal(st.status.numberMisscheduled, 0);
    assert.deepEqual(
      pods('ds', 'name=agent')
        .map((p) => p.spec.nodeName)
        .sort(),
      NODES,
      'the earlier DaemonSet keeps its pod on sim-node-2',
    );
    ok(['taint', 'nodes', 'sim-node-2', 'dedicated-']);
    await eventually(() => pods('ds', 'name=late').filter((p) => p.spec.nodeName).length === 4, 60_000);
  });

  it('daemonset-fluentd.yaml (kube-system): a pod on each of the 4 nodes, the template toleration first, then the daemon ones', () => {
    ok(['apply', '-f', join(MANIFESTS, 'daemonset-fluentd.yaml')]);
    ok(['rollout', 'status', 'ds/fluentd-elasticsearch', '-n', 'kube-system', '--timeout=90s'], 100_000);
    const ps = pods('kube-system', 'name=fluentd-elasticsearch');
    assert.deepEqual(ps.map((p) => p.spec.nodeName).sort(), NODES);
    const tols = (ps[0]!.spec as { tolerations?: { key?: string; effect?: string }[] }).tolerations?.map((t) => `${t.key}:${t.effect}`);
    assert.deepEqual(tols, [
      'node-role.kubernetes.io/master:NoSchedule',
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/disk-pressure:NoSchedule',
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/pid-pressure:NoSchedule',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ]);
  });
});

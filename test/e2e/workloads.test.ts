/**
 * Workloads through the real kubectl on the simulated runtime: Deployments (rollout
 * status, scale, set image, history, undo), ownership Pod → ReplicaSet → Deployment,
 * cascading deletion (background and orphan) by the garbage collector, Jobs that
 * complete, fail with BackoffLimitExceeded, run Indexed, and expire after
 * ttlSecondsAfterFinished.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startCluster, eventually, manifestFile, MANIFESTS, type Cluster } from './harness.js';

interface Obj {
  metadata: {
    name: string;
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
    finalizers?: string[];
  };
  spec?: Record<string, unknown> & { template?: { spec?: { containers?: { image?: string }[] } } };
  status?: Record<string, unknown> & { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

describe('e2e: workloads (kubectl)', () => {
  let c: Cluster;
  const ok = (args: string[], timeoutMs?: number): string => {
    const r = c.kubectl(args, { timeoutMs });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const items = (args: string[]): Obj[] => (JSON.parse(ok(['get', ...args, '-o', 'json'])) as { items: Obj[] }).items;
  const one = (args: string[]): Obj => JSON.parse(ok(['get', ...args, '-o', 'json'])) as Obj;

  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('deployment-nginx.yaml: rollout status, ownership chain Pod → ReplicaSet → Deployment', () => {
    ok(['apply', '-f', join(MANIFESTS, 'deployment-nginx.yaml')]);
    const out = ok(['rollout', 'status', 'deployment/nginx-deployment', '--timeout=90s'], 100_000);
    assert.match(out, /deployment "nginx-deployment" successfully rolled out/);
    const d = one(['deployment', 'nginx-deployment']);
    const rs = items(['rs', '-l', 'app=nginx']);
    assert.equal(rs.length, 1);
    const hash = rs[0]!.metadata.labels!['pod-template-hash']!;
    assert.equal(rs[0]!.metadata.name, `nginx-deployment-${hash}`);
    assert.deepEqual(
      rs[0]!.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller, r.blockOwnerDeletion]),
      [['Deployment', 'nginx-deployment', d.metadata.uid, true, true]],
    );
    const pods = items(['pods', '-l', 'app=nginx']);
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.match(p.metadata.name, new RegExp(`^nginx-deployment-${hash}-[a-z0-9]{5}$`));
      assert.deepEqual(
        p.metadata.ownerReferences?.map((r) => [r.kind, r.uid, r.controller, r.blockOwnerDeletion]),
        [['ReplicaSet', rs[0]!.metadata.uid, true, true]],
      );
    }
    assert.match(ok(['get', 'deploy', 'nginx-deployment']), /nginx-deployment\s+2\/2\s+2\s+2\s/);
  });

  it('set image, rollout history and undo', () => {
    ok(['set', 'image', 'deployment/nginx-deployment', 'nginx=nginx:1.16.1']);
    ok(['rollout', 'status', 'deployment/nginx-deployment', '--timeout=90s'], 100_000);
    const rs = items(['rs', '-l', 'app=nginx']);
    assert.equal(rs.length, 2);
    const history = ok(['rollout', 'history', 'deployment/nginx-deployment']);
    assert.match(history, /REVISION\s+CHANGE-CAUSE/);
    assert.match(history, /^1\s/m);
    assert.match(history, /^2\s/m);
    assert.match(ok(['rollout', 'history', 'deployment/nginx-deployment', '--revision=2']), /nginx:1\.16\.1/);

    ok(['rollout', 'undo', 'deployment/nginx-deployment']);
    ok(['rollout', 'status', 'deployment/nginx-deployment', '--timeout=90s'], 100_000);
    const d = one(['deployment', 'nginx-deployment']);
    assert.equal(d.spec!.template!.spec!.containers![0]!.image, 'nginx:1.14.2');
    assert.ok(items(['pods', '-l', 'app=nginx', '--field-selector=status.phase=Running']).length >= 2);
  });

  it('kubectl scale (deployments/scale subresource)', () => {
    ok(['scale', 'deployment/nginx-deployment', '--replicas=3']);
    ok(['rollout', 'status', 'deployment/nginx-deployment', '--timeout=90s'], 100_000);
    assert.match(ok(['get', 'deploy', 'nginx-deployment']), /nginx-deployment\s+3\/3\s+3\s+3\s/);
    assert.equal(one(['deployment', 'nginx-deployment']).status!.replicas, 3);
  });

  it('kubectl delete deployment removes its ReplicaSets and pods', async () => {
    ok(['delete', 'deployment', 'nginx-deployment']);
    await eventually(() => items(['rs', '-l', 'app=nginx']).length === 0, 30_000);
    await eventually(() => items(['pods', '-l', 'app=nginx']).length === 0, 60_000);
  });

  it('--cascade=foreground: ReplicaSets and pods go before the Deployment', async () => {
    ok(['create', 'deployment', 'fg', '--image=nginx', '--replicas=2']);
    ok(['rollout', 'status', 'deployment/fg', '--timeout=90s'], 100_000);
    // kubectl waits until the Deployment itself is gone
    ok(['delete', 'deployment', 'fg', '--cascade=foreground', '--timeout=90s'], 100_000);
    assert.equal(items(['rs', '-l', 'app=fg']).length, 0);
    assert.equal(items(['pods', '-l', 'app=fg']).length, 0, 'blocking pods are gone before their ReplicaSet, and it before the Deployment');
  });

  it('--cascade=orphan keeps the ReplicaSet and pods, without owner references', async () => {
    ok(['create', 'deployment', 'keep', '--image=nginx', '--replicas=2']);
    ok(['rollout', 'status', 'deployment/keep', '--timeout=90s'], 100_000);
    const before = items(['pods', '-l', 'app=keep'])
      .map((p) => p.metadata.uid)
      .sort();
    ok(['delete', 'deployment', 'keep', '--cascade=orphan']);
    await eventually(() => c.kubectl(['get', 'deployment', 'keep']).code !== 0, 30_000);
    const rs = await eventually(() => {
      const l = items(['rs', '-l', 'app=keep']);
      return l.length === 1 && !l[0]!.metadata.ownerReferences?.length ? l : undefined;
    }, 30_000);
    assert.ok(rs);
    const pods = items(['pods', '-l', 'app=keep']);
    assert.deepEqual(pods.map((p) => p.metadata.uid).sort(), before);
    for (const p of pods) assert.equal(p.metadata.ownerReferences?.[0]?.kind, 'ReplicaSet');
    ok(['delete', 'rs', '-l', 'app=keep']);
  });

  it('kubectl create job → Complete, wait, logs; the pod carries the job labels; delete removes pods', async () => {
    ok(['create', 'job', 'hello', '--image=busybox', '--', 'echo', 'hi']);
    ok(['wait', '--for=condition=complete', 'job/hello', '--timeout=90s'], 100_000);
    assert.equal(ok(['logs', 'job/hello']).trim(), 'hi');
    const j = one(['job', 'hello']);
    assert.equal(j.status!.succeeded, 1);
    assert.deepEqual(
      j.status!.conditions!.map((x) => x.type),
      ['SuccessCriteriaMet', 'Complete'],
    );
    assert.ok(j.status!.completionTime);
    assert.match(ok(['get', 'job', 'hello']), /hello\s+Complete\s+1\/1\s/);
    const pods = items(['pods', '-l', 'batch.kubernetes.io/job-name=hello']);
    assert.equal(pods.length, 1);
    assert.equal(pods[0]!.metadata.labels!['batch.kubernetes.io/controller-uid'], j.metadata.uid);
    assert.ok(!pods[0]!.metadata.finalizers?.includes('batch.kubernetes.io/job-tracking'), 'the tracking finalizer is removed once counted');
    assert.match(ok(['get', 'events', '--field-selector=involvedObject.name=hello']), /Completed\s+job\/hello\s+Job completed/);
    ok(['delete', 'job', 'hello']);
    await eventually(() => items(['pods', '-l', 'batch.kubernetes.io/job-name=hello']).length === 0, 30_000);
  });

  it('a failing Job fails with BackoffLimitExceeded after backoffLimit+1 pods', async () => {
    ok([
      'apply',
      '-f',
      manifestFile(
        c.dir,
        'fail-job.yaml',
        `apiVersion: batch/v1
kind: Job
metadata: {name: boom}
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: boom, image: busybox, command: ["sh", "-c", "echo failing; exit 3"]}
`,
      ),
    ]);
    ok(['wait', '--for=condition=failed', 'job/boom', '--timeout=90s'], 100_000);
    const j = one(['job', 'boom']);
    const failed = j.status!.conditions!.find((x) => x.type === 'Failed')!;
    assert.equal(failed.reason, 'BackoffLimitExceeded');
    assert.equal(failed.message, 'Job has reached the specified backoff limit');
    assert.equal(j.status!.failed, 2);
    assert.equal(items(['pods', '-l', 'batch.kubernetes.io/job-name=boom']).length, 2);
    assert.match(ok(['get', 'job', 'boom']), /boom\s+Failed\s+0\/1\s/);
    assert.match(ok(['get', 'events', '--field-selector=involvedObject.name=boom']), /BackoffLimitExceeded\s+job\/boom\s+Job has reached the specified backoff limit/);
  });

  it('an Indexed Job runs one pod per index with JOB_COMPLETION_INDEX; ttlSecondsAfterFinished removes it', async () => {
    ok([
      'apply',
      '-f',
      manifestFile(
        c.dir,
        'indexed.yaml',
        `apiVersion: batch/v1
kind: Job
metadata: {name: idx}
spec:
  completions: 3
  parallelism: 2
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sh", "-c", "echo index=$JOB_COMPLETION_INDEX"]}
`,
      ),
    ]);
    ok(['wait', '--for=condition=complete', 'job/idx', '--timeout=90s'], 100_000);
    const j = one(['job', 'idx']);
    assert.equal(j.status!.completedIndexes, '0-2');
    const pods = items(['pods', '-l', 'batch.kubernetes.io/job-name=idx']);
    const logs = pods.map((p) => ok(['logs', p.metadata.name]).trim()).sort();
    assert.deepEqual(logs, ['index=0', 'index=1', 'index=2']);
    // the TTL is set once the logs are read (a TTL in the manifest could expire before `kubectl logs` on a busy machine);
    // the TTL-after-finished controller acts on the update of a finished Job as upstream
    ok(['patch', 'job', 'idx', '--type=merge', '-p', '{"spec":{"ttlSecondsAfterFinished":1}}']);
    await eventually(() => c.kubectl(['get', 'job', 'idx']).code !== 0, 30_000);
    await eventually(() => items(['pods', '-l', 'batch.kubernetes.io/job-name=idx']).length === 0, 30_000);
  });

  it('kubectl create cronjob: a Job per minute, run to completion, lastScheduleTime and lastSuccessfulTime', async () => {
    ok(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=* * * * *', '--', 'echo', 'tick']);
    const job = await eventually(
      () => items(['jobs']).find((j) => j.metadata.ownerReferences?.[0]?.kind === 'CronJob' && j.metadata.ownerReferences[0].name === 'tick'),
      80_000,
      1000,
    );
    assert.match(job.metadata.name, /^tick-\d+$/);
    assert.ok(job.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']);
    ok(['wait', '--for=condition=complete', `job/${job.metadata.name}`, '--timeout=60s'], 70_000);
    assert.equal(ok(['logs', `job/${job.metadata.name}`]).trim(), 'tick');
    const cj = await eventually(() => {
      const x = one(['cronjob', 'tick']);
      return x.status?.lastSuccessfulTime ? x : undefined;
    }, 30_000);
    assert.ok(cj.status!.lastScheduleTime);
    assert.match(ok(['get', 'events', '--field-selector=involvedObject.name=tick']), new RegExp(`SuccessfulCreate\\s+cronjob/tick\\s+Created job ${job.metadata.name}`));
    ok(['delete', 'cronjob', 'tick']);
    await eventually(() => !items(['jobs']).some((j) => j.metadata.name === job.metadata.name), 30_000);
  });
});

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { listPods, startFakeKubelet, startTestCluster, type TestCluster, waitFor } from '../util/test-cluster.js';
import { W } from '../util/resources.js';
import type { RunningController } from '../util/context.js';
import type { Pod } from '../util/pods.js';
import { startJobController } from './controller.js';
import { ensureCondition, formatIndexes, isPodFailed, parseIndexes, pastBackoffLimitOnFailure, podFailureBackoff, type Job } from './util.js';

const jobManifest = (name: string, spec: Record<string, unknown> = {}, labels: Record<string, string> = { test: name }): Job => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name },
  spec: {
    ...spec,
    template: { metadata: { labels }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['echo', 'hi'] }] } },
  },
});

const cond = (j: Job, type: string) => j.status?.conditions?.find((c) => c.type === type && c.status === 'True');

describe('job helpers', () => {
  it('formats and parses completed indexes as upstream ordered intervals', () => {
    assert.equal(formatIndexes([0, 1, 2, 4]), '0-2,4');
    assert.equal(formatIndexes([3, 0, 1, 7, 8]), '0,1,3,7,8');
    assert.equal(formatIndexes([]), undefined);
    assert.deepEqual([...parseIndexes('0-2,4,9', 5)].sort(), [0, 1, 2, 4]);
  });
  it('counts deleted pods as failed unless podReplacementPolicy is Failed; OnFailure restarts reach the limit', () => {
    const job = (extra: Record<string, unknown> = {}): Job => ({
      metadata: {},
      spec: { backoffLimit: 2, template: { spec: { restartPolicy: 'OnFailure', containers: [] } }, ...extra },
    });
    const deleting = { metadata: { deletionTimestamp: '2025-01-01T00:00:00Z' }, status: { phase: 'Running' } } as Pod;
    assert.equal(isPodFailed(deleting, job()), true);
    assert.equal(isPodFailed(deleting, job({ podReplacementPolicy: 'Failed' })), false);
    assert.equal(isPodFailed({ metadata: {}, status: { phase: 'Failed' } } as Pod, job()), true);
    const restarting = (n: number) => ({ metadata: {}, status: { phase: 'Running', containerStatuses: [{ name: 'c', restartCount: n }] } }) as unknown as Pod;
    assert.equal(pastBackoffLimitOnFailure(job(), [restarting(1)]), false);
    assert.equal(pastBackoffLimitOnFailure(job(), [restarting(1), restarting(1)]), true);
    assert.equal(pastBackoffLimitOnFailure(job({ backoffLimit: 0 }), [restarting(1)]), true);
  });
  it('ensureCondition appends only True conditions and moves lastTransitionTime on status changes', () => {
    const j: Job = { metadata: {}, status: {} };
    assert.equal(ensureCondition(j, 'Suspended', 'False', 'JobResumed', 'Job resumed', 0), false);
    assert.equal(j.status?.conditions, undefined);
    assert.equal(ensureCondition(j, 'Suspended', 'True', 'JobSuspended', 'Job suspended', 0), true);
    assert.equal(ensureCondition(j, 'Suspended', 'True', 'JobSuspended', 'Job suspended', 5000), false);
    assert.equal(ensureCondition(j, 'Suspended', 'False', 'JobResumed', 'Job resumed', 60_000), true);
    assert.deepEqual(j.status?.conditions, [
      { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed', lastProbeTime: '1970-01-01T00:01:00Z', lastTransitionTime: '1970-01-01T00:01:00Z' },
    ]);
  });
  it('backs off 10 s doubling to 6 min', () => {
    assert.equal(podFailureBackoff(0), 0);
    assert.equal(podFailureBackoff(1), 10_000);
    assert.equal(podFailureBackoff(3), 40_000);
    assert.equal(podFailureBackoff(20), 360_000);
  });
});

describe('Job controller', () => {
  let c: TestCluster;
  let ctl: RunningController;
  let kubelet: { stop(): void };
  before(async () => {
    c = await startTestCluster();
    ctl = await startJobController({ client: c.client, recorder: c.recorder, informers: c.informers });
    kubelet = startFakeKubelet(c.client, (p) => {
      const t = p.metadata?.labels?.test ?? '';
      return t.startsWith('fail') ? 'fail' : t.startsWith('hang') ? 'ignore' : 'succeed';
    });
  });
  after(async () => {
    kubelet?.stop();
    await ctl?.stop();
    await c?.stop();
  });

  const getJob = (name: string) => c.client.get<Job>(W.jobs, 'default', name);

  it('runs a pod to completion: SuccessCriteriaMet then Complete, counts, finalizer removed, events', async () => {
    const created = await c.client.create<Job>(W.jobs, 'default', jobManifest('pi'));
    const pods = await waitFor(
      async () => {
        const l = await listPods(c.client, 'default', 'test=pi');
        return l.length ? l : undefined;
      },
      5000,
      'a pod',
    );
    const p = pods[0]!;
    assert.match(p.metadata!.name!, /^pi-[a-z0-9]{5}$/);
    assert.equal(p.metadata?.labels?.['batch.kubernetes.io/job-name'], 'pi');
    assert.equal(p.metadata?.labels?.['batch.kubernetes.io/controller-uid'], created.metadata!.uid);
    assert.deepEqual(p.metadata?.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: created.metadata!.uid, controller: true, blockOwnerDeletion: true }]);
    const job = await waitFor(
      async () => {
        const j = await getJob('pi');
        return cond(j, 'Complete') ? j : undefined;
      },
      5000,
      'Complete',
    );
    assert.deepEqual(
      job.status?.conditions?.map((x) => x.type),
      ['SuccessCriteriaMet', 'Complete'],
    );
    assert.equal(cond(job, 'Complete')?.reason, 'CompletionsReached');
    assert.equal(cond(job, 'Complete')?.message, 'Reached expected number of succeeded pods');
    assert.equal(job.status?.succeeded, 1);
    assert.equal(job.status?.active, 0);
    assert.equal(job.status?.ready, 0);
    assert.ok(job.status?.startTime && job.status.completionTime);
    assert.deepEqual(job.status?.uncountedTerminatedPods, {});
    const after = await listPods(c.client, 'default', 'test=pi');
    assert.equal(after[0]?.metadata?.finalizers?.length ?? 0, 0);
    const lines = c.recorder.events.filter((e) => e.obj.metadata?.name === 'pi').map((e) => `${e.type} ${e.reason}: ${e.message}`);
    assert.ok(
      lines.some((l) => /^Normal SuccessfulCreate: Created pod: pi-/.test(l)),
      lines.join('\n'),
    );
    assert.ok(lines.includes('Normal Completed: Job completed'), lines.join('\n'));
  });

  it('respects completions and parallelism', async () => {
    let maxActive = 0;
    await c.client.create<Job>(W.jobs, 'default', jobManifest('multi', { completions: 4, parallelism: 2 }));
    const job = await waitFor(
      async () => {
        const j = await getJob('multi');
        maxActive = Math.max(maxActive, j.status?.active ?? 0);
        return cond(j, 'Complete') ? j : undefined;
      },
      10000,
      'Complete',
    );
    assert.equal(job.status?.succeeded, 4);
    assert.ok(maxActive <= 2, `at most 2 active, saw ${maxActive}`);
    assert.equal((await listPods(c.client, 'default', 'test=multi')).length, 4);
  });

  it('fails with BackoffLimitExceeded once failures exceed backoffLimit', async () => {
    await c.client.create<Job>(W.jobs, 'default', jobManifest('fail-fast', { backoffLimit: 0 }, { test: 'fail-fast' }));
    const job = await waitFor(
      async () => {
        const j = await getJob('fail-fast');
        return cond(j, 'Failed') ? j : undefined;
      },
      5000,
      'Failed',
    );
    assert.deepEqual(
      job.status?.conditions?.map((x) => x.type),
      ['FailureTarget', 'Failed'],
    );
    assert.equal(cond(job, 'Failed')?.reason, 'BackoffLimitExceeded');
    assert.equal(cond(job, 'Failed')?.message, 'Job has reached the specified backoff limit');
    assert.equal(job.status?.failed, 1);
    assert.equal(job.status?.completionTime, undefined);
    assert.ok(c.recorder.lines().includes('BackoffLimitExceeded: Job has reached the specified backoff limit'));
  });

  it('fails with DeadlineExceeded after activeDeadlineSeconds, deleting the active pods', async () => {
    await c.client.create<Job>(W.jobs, 'default', jobManifest('hang', { activeDeadlineSeconds: 1 }, { test: 'hang' }));
    const job = await waitFor(
      async () => {
        const j = await getJob('hang');
        return cond(j, 'Failed') ? j : undefined;
      },
      8000,
      'Failed',
    );
    assert.equal(cond(job, 'Failed')?.reason, 'DeadlineExceeded');
    assert.equal(cond(job, 'Failed')?.message, 'Job was active longer than specified deadline');
    assert.equal(job.status?.active, 0);
    assert.equal(job.status?.failed, 1);
    await waitFor(async () => (await listPods(c.client, 'default', 'test=hang')).length === 0, 5000, 'pod removed');
  });

  it('Indexed: one pod per index with annotation, label, env and hostname; completedIndexes', async () => {
    await c.client.create<Job>(W.jobs, 'default', jobManifest('idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' }, { test: 'idx' }));
    const job = await waitFor(
      async () => {
        const j = await getJob('idx');
        return cond(j, 'Complete') ? j : undefined;
      },
      8000,
      'Complete',
    );
    assert.equal(job.status?.completedIndexes, '0-2');
    assert.equal(job.status?.succeeded, 3);
    const pods: Pod[] = await listPods(c.client, 'default', 'test=idx');
    const idx = pods.map((p) => p.metadata!.annotations!['batch.kubernetes.io/job-completion-index']).sort();
    assert.deepEqual(idx, ['0', '1', '2']);
    for (const p of pods) {
      const i = p.metadata!.annotations!['batch.kubernetes.io/job-completion-index'];
      assert.match(p.metadata!.name!, new RegExp(`^idx-${i}-[a-z0-9]{5}$`));
      assert.equal(p.metadata!.labels!['batch.kubernetes.io/job-completion-index'], i);
      assert.equal(p.spec?.hostname, `idx-${i}`);
      assert.deepEqual(p.spec?.containers[0]?.env, [
        { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } },
      ]);
    }
  });

  it('suspend: no pods, Suspended condition; resuming runs it', async () => {
    await c.client.create<Job>(W.jobs, 'default', jobManifest('susp', { suspend: true }, { test: 'susp' }));
    const j = await waitFor(
      async () => {
        const x = await getJob('susp');
        return cond(x, 'Suspended') ? x : undefined;
      },
      5000,
      'Suspended',
    );
    assert.equal(cond(j, 'Suspended')?.reason, 'JobSuspended');
    assert.equal((await listPods(c.client, 'default', 'test=susp')).length, 0);
    await c.client.patch(W.jobs, 'default', 'susp', 'merge', { spec: { suspend: false } });
    const done = await waitFor(
      async () => {
        const x = await getJob('susp');
        return cond(x, 'Complete') ? x : undefined;
      },
      5000,
      'Complete',
    );
    assert.equal(done.status?.conditions?.find((x) => x.type === 'Suspended')?.status, 'False');
    assert.equal(done.status?.conditions?.find((x) => x.type === 'Suspended')?.reason, 'JobResumed');
  });
});

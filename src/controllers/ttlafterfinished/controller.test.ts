import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster, waitFor } from '../util/test-cluster.js';
import { W } from '../util/resources.js';
import type { RunningController } from '../util/context.js';
import type { Job } from '../job/util.js';
import { startTTLAfterFinishedController, ttlExpiry } from './controller.js';

const finished = (ttl: number | undefined, at: string, type = 'Complete'): Job => ({
  metadata: { name: 'j', namespace: 'default' },
  spec: { ttlSecondsAfterFinished: ttl, template: {} },
  status: { conditions: [{ type, status: 'True', lastTransitionTime: at }] },
});

describe('ttl-after-finished', () => {
  it('expires finished Jobs ttl seconds after the terminal condition', () => {
    assert.equal(ttlExpiry(finished(10, '2025-01-01T00:00:00Z')), Date.parse('2025-01-01T00:00:10Z'));
    assert.equal(ttlExpiry(finished(0, '2025-01-01T00:00:00Z', 'Failed')), Date.parse('2025-01-01T00:00:00Z'));
    assert.equal(ttlExpiry(finished(undefined, '2025-01-01T00:00:00Z')), undefined);
    assert.equal(ttlExpiry(finished(5, '2025-01-01T00:00:00Z', 'SuccessCriteriaMet')), undefined);
  });

  let c: TestCluster;
  let ctl: RunningController;
  before(async () => {
    c = await startTestCluster();
    ctl = await startTTLAfterFinishedController({ client: c.client, recorder: c.recorder, informers: c.informers });
  });
  after(async () => {
    await ctl?.stop();
    await c?.stop();
  });

  it('deletes the Job (foreground) once the TTL passes, keeps one without TTL', async () => {
    for (const [name, ttl] of [
      ['ttl', 0],
      ['keep', undefined],
    ] as const) {
      const j = await c.client.create<Job>(W.jobs, 'default', {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name },
        spec: { ttlSecondsAfterFinished: ttl, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
      });
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      await c.client.update(
        W.jobs,
        'default',
        {
          ...j,
          status: {
            startTime: now,
            completionTime: now,
            succeeded: 1,
            conditions: [
              { type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: now },
              { type: 'Complete', status: 'True', lastTransitionTime: now },
            ],
          },
        },
        { subresource: 'status' },
      );
    }
    // nothing else removes the foregroundDeletion finalizer here: the Job is left terminating with it
    const gone = await waitFor(
      async () => {
        const j = await c.client.get<Job>(W.jobs, 'default', 'ttl');
        return j.metadata?.deletionTimestamp ? j : undefined;
      },
      5000,
      'ttl job being deleted',
    );
    assert.deepEqual(gone.metadata?.finalizers, ['foregroundDeletion']);
    const kept = await c.client.get<Job>(W.jobs, 'default', 'keep');
    assert.equal(kept.metadata?.deletionTimestamp, undefined);
  });
});

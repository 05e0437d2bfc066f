import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseSchedule } from '../../api/batch/v1/cronjob/schedule.js';
import { FakeClock } from '../../util/fake-clock.js';
import { startTestCluster, type TestCluster, waitFor } from '../util/test-cluster.js';
import { W } from '../util/resources.js';
import type { RunningController } from '../util/context.js';
import type { Job } from '../job/util.js';
import { startCronJobController } from './controller.js';
import { type CronJob, formatInZone, jobNameFor, mostRecentScheduleTime, rfc1123Z } from './schedule-times.js';

const T0 = Date.parse('2025-03-01T10:00:30Z');

describe('cron schedules', () => {
  const at = (s: string, from: string, zone?: string): string => new Date(parseSchedule(s, zone).next(Date.parse(from))!).toISOString();
  it('evaluates fields, descriptors, day-of-month/day-of-week and zones like robfig', () => {
    assert.equal(at('* * * * *', '2025-03-01T09:58:10Z'), '2025-03-01T09:59:00.000Z');
    assert.equal(at('*/15 * * * *', '2025-03-01T09:58:10Z'), '2025-03-01T10:00:00.000Z');
    assert.equal(at('59 * * * *', '2025-03-01T09:59:00Z'), '2025-03-01T10:59:00.000Z');
    assert.equal(at('@hourly', '2025-03-01T09:58:10Z'), '2025-03-01T10:00:00.000Z');
    assert.equal(at('@monthly', '2025-03-01T09:58:10Z'), '2025-04-01T00:00:00.000Z');
    assert.equal(at('30 8 * * MON-FRI', '2025-03-01T09:58:10Z'), '2025-03-03T08:30:00.000Z'); // Saturday → Monday
    assert.equal(at('0 0 13 * 5', '2025-03-01T00:00:00Z'), '2025-03-07T00:00:00.000Z'); // dom OR dow: first Friday
    assert.equal(at('0 9 * * *', '2025-02-28T23:59:00Z', 'Asia/Tokyo'), '2025-03-01T00:00:00.000Z');
    assert.equal(at('0 9 * * *', '2025-03-01T00:00:01Z', 'Asia/Tokyo'), '2025-03-02T00:00:00.000Z');
    assert.equal(at('0 0 1 jan *', '2025-03-01T00:00:00Z'), '2026-01-01T00:00:00.000Z');
    assert.throws(() => parseSchedule('61 * * * *'), /end of range \(61\) above maximum \(59\)/);
  });
});

describe('cronjob schedule times', () => {
  const cj = (extra: Partial<CronJob['spec']> = {}, last?: string): CronJob => ({
    metadata: { name: 'hello', creationTimestamp: '2025-03-01T09:58:10Z' },
    spec: { schedule: '* * * * *', jobTemplate: {}, ...extra },
    status: last ? { lastScheduleTime: last } : {},
  });
  it('finds the most recent unmet time and counts missed ones', () => {
    const s = parseSchedule('* * * * *');
    const r = mostRecentScheduleTime(cj(), T0, s);
    assert.equal(new Date(r.mostRecent!).toISOString(), '2025-03-01T10:00:00.000Z');
    assert.equal(r.missed, 2);
    assert.equal(mostRecentScheduleTime(cj({}, '2025-03-01T10:00:00Z'), T0, s).mostRecent, undefined);
    // a year of missed minutes still yields the latest one
    const old = { ...cj(), metadata: { name: 'x', creationTimestamp: '2024-03-01T10:00:00Z' } };
    const r2 = mostRecentScheduleTime(old, T0, s);
    assert.equal(new Date(r2.mostRecent!).toISOString(), '2025-03-01T10:00:00.000Z');
    assert.ok(r2.missed > 100);
    // startingDeadlineSeconds bounds how far back it looks
    assert.equal(mostRecentScheduleTime(old, T0, s).earliest, Date.parse('2024-03-01T10:00:00Z'));
    assert.equal(mostRecentScheduleTime({ ...old, spec: { ...old.spec!, startingDeadlineSeconds: 10 } }, T0, s).mostRecent, undefined);
  });
  it('names jobs by scheduled minute and formats times', () => {
    assert.equal(jobNameFor(cj(), Date.parse('2025-03-01T10:00:00Z')), `hello-${Date.parse('2025-03-01T10:00:00Z') / 60000}`);
    assert.equal(formatInZone(Date.parse('2025-03-01T10:00:00Z'), undefined), '2025-03-01T10:00:00Z');
    assert.equal(formatInZone(Date.parse('2025-03-01T10:00:00Z'), 'Europe/Paris'), '2025-03-01T11:00:00+01:00');
    assert.equal(rfc1123Z(Date.parse('2025-03-01T10:00:00Z')), 'Sat, 01 Mar 2025 10:00:00 +0000');
  });
});

describe('CronJob controller', () => {
  let c: TestCluster;
  let ctl: RunningController;
  let clock: FakeClock;
  before(async () => {
    c = await startTestCluster();
    clock = new FakeClock(Date.now());
    // one worker: CronJobs are synced in the order they were queued, so a later CronJob's
    // Job proves an earlier one was synced at the same time
    ctl = await startCronJobController({ client: c.client, recorder: c.recorder, informers: c.informers, clock, workers: 1 });
  });
  after(async () => {
    await ctl?.stop();
    await c?.stop();
  });

  const cronJob = (name: string, spec: Record<string, unknown> = {}): CronJob => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name },
    spec: {
      schedule: '* * * * *',
      ...spec,
      jobTemplate: {
        metadata: { labels: { cj: name } },
        spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox', command: ['date'] }] } } },
      },
    },
  });
  const jobsOf = async (name: string): Promise<Job[]> => (await c.client.list<Job>(W.jobs, 'default', { labelSelector: `cj=${name}` })).items;
  const complete = async (j: Job): Promise<void> => {
    const t = new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await c.client.update(
      W.jobs,
      'default',
      {
        ...j,
        status: {
          startTime: t,
          completionTime: t,
          succeeded: 1,
          conditions: [
            { type: 'SuccessCriteriaMet', status: 'True' },
            { type: 'Complete', status: 'True', lastTransitionTime: t },
          ],
        },
      },
      { subresource: 'status' },
    );
  };
  /** Moves the fake clock just past the next minute boundary. */
  const nextMinute = async (): Promise<void> => {
    const now = clock.now();
    await clock.advance(Math.ceil((now + 1) / 60_000) * 60_000 - now + 500);
  };

  it('creates a Job per scheduled time, tracks active / lastScheduleTime / lastSuccessfulTime, trims history', async () => {
    await c.client.create(W.cronjobs, 'default', cronJob('hello', { successfulJobsHistoryLimit: 1 }));
    await nextMinute();
    const [j1] = await waitFor(
      async () => {
        const l = await jobsOf('hello');
        return l.length === 1 ? l : undefined;
      },
      5000,
      'first job',
    );
    const scheduled = Math.floor(clock.now() / 60_000) * 60_000;
    assert.equal(j1!.metadata?.name, `hello-${scheduled / 60_000}`);
    assert.equal(j1!.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'], new Date(scheduled).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    assert.equal(j1!.metadata?.ownerReferences?.[0]?.kind, 'CronJob');
    const cj = await waitFor(
      async () => {
        const x = await c.client.get<CronJob>(W.cronjobs, 'default', 'hello');
        return x.status?.active?.length ? x : undefined;
      },
      5000,
      'active',
    );
    assert.equal(cj.status?.active?.[0]?.name, j1!.metadata?.name);
    assert.equal(cj.status?.lastScheduleTime, new Date(scheduled).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    assert.ok(c.recorder.lines().includes(`SuccessfulCreate: Created job ${j1!.metadata?.name}`));

    await complete(j1!);
    await waitFor(
      async () => {
        const x = await c.client.get<CronJob>(W.cronjobs, 'default', 'hello');
        return !x.status?.active && x.status?.lastSuccessfulTime;
      },
      5000,
      'completed job seen',
    );
    assert.ok(c.recorder.lines().includes(`SawCompletedJob: Saw completed job: ${j1!.metadata?.name}, condition: Complete`));

    await nextMinute();
    const j2 = await waitFor(async () => (await jobsOf('hello')).find((j) => j.metadata?.name !== j1!.metadata?.name), 5000, 'second job');
    await complete(j2);
    // history limit 1: the first job goes
    await waitFor(async () => (await jobsOf('hello')).every((j) => j.metadata?.name !== j1!.metadata?.name || j.metadata?.deletionTimestamp), 5000, 'old job deleted');
    assert.ok(c.recorder.lines().includes(`SuccessfulDelete: Deleted job ${j1!.metadata?.name}`));
  });

  it('Forbid: no new Job while one is active', async () => {
    await c.client.create(W.cronjobs, 'default', cronJob('forbid', { concurrencyPolicy: 'Forbid' }));
    await nextMinute();
    await waitFor(async () => (await jobsOf('forbid')).length === 1, 5000, 'first job');
    await nextMinute();
    await waitFor(() => c.recorder.events.some((e) => e.obj.metadata?.name === 'forbid' && e.reason === 'JobAlreadyActive'), 5000, 'JobAlreadyActive');
    assert.equal((await jobsOf('forbid')).length, 1);
  });

  it('suspend: nothing is created', async () => {
    await c.client.create(W.cronjobs, 'default', cronJob('sleepy', { suspend: true }));
    await c.client.create(W.cronjobs, 'default', cronJob('awake'));
    await nextMinute();
    // the Job the CronJob created after it gets for this minute: that tick has been handled
    const minute = `awake-${Math.floor(clock.now() / 60_000)}`;
    await waitFor(async () => (await jobsOf('awake')).some((j) => j.metadata?.name === minute), 5000, "this minute's Job of the CronJob created after it");
    assert.equal((await jobsOf('sleepy')).length, 0);
  });

  it('a schedule that never fires (31 February): an InvalidSchedule warning, no Job', async () => {
    await c.client.create(W.cronjobs, 'default', cronJob('never', { schedule: '0 0 31 2 *' }));
    const ev = await waitFor(() => c.recorder.events.find((e) => e.obj.metadata?.name === 'never' && e.reason === 'InvalidSchedule'), 5000, 'InvalidSchedule');
    assert.equal(ev.type, 'Warning');
    assert.equal(ev.message, 'invalid schedule: 0 0 31 2 * : time difference between two schedules is less than 1 second');
    assert.equal((await jobsOf('never')).length, 0);
  });
});

/**
 * Which scheduled time a CronJob should act on now (upstream mostRecentScheduleTime /
 * nextScheduleTime) and the name of the Job for a scheduled time.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/cronjob/utils.go
 */
import type { CronJob as KCronJob } from 'kubernetes-types/batch/v1.js';
import type { KObject } from '../../api/resource.js';
import type { Schedule } from '../../api/batch/v1/cronjob/schedule.js';

export type CronJob = KCronJob & KObject;

/** More missed start times than this are reported (TooManyMissedTimes) and skipped. */
export const MAX_MISSED_START_TIMES = 100;

/** The result of {@link mostRecentScheduleTime}. */
interface RecentSchedule {
  /** the earliest time considered (last schedule, creation, or now − startingDeadlineSeconds), ms */
  earliest: number;
  /** the most recent unmet scheduled time at or before `now`, ms; undefined when none */
  mostRecent?: number;
  /** how many scheduled times were missed (capped count, for the TooManyMissedTimes event) */
  missed: number;
  /**
   * why the schedule cannot be acted on (a schedule that never fires, `0 0 31 2 *`: upstream's
   * next times are both the zero time), for the InvalidSchedule event
   */
  invalid?: string;
}

/**
 * The most recent scheduled time not yet acted on (upstream mostRecentScheduleTime):
 * scheduled times after the last schedule time (or creation), bounded by
 * `startingDeadlineSeconds` when set.
 */
export function mostRecentScheduleTime(cj: CronJob, now: number, sched: Schedule, includeStartingDeadline = true): RecentSchedule {
  const last = cj.status?.lastScheduleTime ?? cj.metadata?.creationTimestamp;
  let earliest = last ? Date.parse(last) : now;
  const sds = cj.spec?.startingDeadlineSeconds;
  if (includeStartingDeadline && sds !== undefined && sds !== null) {
    const deadline = now - sds * 1000;
    if (deadline > earliest) earliest = deadline;
  }
  const t1 = sched.next(earliest);
  if (t1 === undefined) return { earliest, missed: 0, invalid: 'time difference between two schedules is less than 1 second' };
  if (t1 > now) return { earliest, missed: 0 };
  const t2 = sched.next(t1);
  if (t2 === undefined || t2 > now) return { earliest, mostRecent: t1, missed: 1 };
  // walk the remaining times; after many, jump close to now and walk from there
  let missed = 2;
  let t = t2;
  for (;;) {
    const n = sched.next(t);
    if (n === undefined || n > now) break;
    t = n;
    if (++missed < 1000) continue;
    for (const w of [60_000, 3_600_000, 86_400_000, 32 * 86_400_000, 366 * 86_400_000]) {
      const s = sched.next(now - w);
      if (s !== undefined && s <= now && s > t) {
        t = s;
        break;
      }
    }
    for (let m = sched.next(t); m !== undefined && m <= now; m = sched.next(t)) t = m;
    break;
  }
  return { earliest, mostRecent: t, missed };
}

/** When to look again: just after the next scheduled time (upstream nextScheduleTimeDuration, +100 ms), ms from now. */
export function nextScheduleDelay(cj: CronJob, now: number, sched: Schedule): number | undefined {
  const r = mostRecentScheduleTime(cj, now, sched, false);
  const next = sched.next(r.mostRecent ?? r.earliest);
  if (next === undefined) return undefined;
  return Math.max(next + 100 - now, 0);
}

/** `<cronjob>-<scheduled time in minutes since the epoch>` (upstream getJobName). */
export function jobNameFor(cj: CronJob, scheduled: number): string {
  return `${cj.metadata?.name ?? ''}-${Math.floor(scheduled / 60_000)}`;
}

/** Scheduled time as RFC 3339 in `zone` (or UTC), for the cronjob-scheduled-timestamp annotation. */
export function formatInZone(ms: number, zone: string | undefined): string {
  if (!zone || zone === 'UTC' || zone === 'Etc/UTC') return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const g = (t: string): string => parts.find((p) => p.type === t)?.value ?? '00';
  const wall = Date.UTC(+g('year'), +g('month') - 1, +g('day'), +g('hour'), +g('minute'), +g('second'));
  const off = Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  const tz = off === 0 ? 'Z' : `${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
  return `${g('year')}-${g('month')}-${g('day')}T${g('hour')}:${g('minute')}:${g('second')}${tz}`;
}

/** RFC 1123 with numeric zone, as Go's time.RFC1123Z (for the MissSchedule event). */
export function rfc1123Z(ms: number): string {
  const d = new Date(ms);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]}, ${p(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

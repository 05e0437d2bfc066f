/**
 * Cron schedule evaluation for the controller (robfig/cron v3 standard parser
 * semantics): 5 fields minute hour day-of-month month day-of-week with `*`, `?`, ranges,
 * steps, lists and month/weekday names, the @descriptors and `@every <duration>`, in UTC
 * or an IANA zone. Syntax errors are reported by the API's validator
 * ({@link parseSchedule} in src/api/batch/v1/cronjob/schedule.ts, robfig's messages),
 * which runs first; this module only evaluates schedules that passed it. Fields are kept
 * as boolean tables (minute needs 60 values, more than a float's exact bit range).
 *
 * @see https://github.com/robfig/cron/blob/v3.0.1/spec.go
 */
import { parseSchedule, type Schedule } from '../../api/batch/v1/cronjob/schedule.js';

interface Field {
  /** allowed[i] for i in [min, max] */
  allowed: boolean[];
  /** the field was `*` or `?` (matters for the day-of-month / day-of-week rule) */
  star: boolean;
}

const MONTHS: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

function field(expr: string, min: number, max: number, names?: Record<string, number>): Field {
  const allowed = new Array<boolean>(max + 1).fill(false);
  let star = false;
  const num = (s: string): number => names?.[s.toLowerCase()] ?? Number(s);
  for (const part of expr.split(',')) {
    const [range, stepS] = part.split('/') as [string, string | undefined];
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') {
      lo = min;
      hi = max;
      if (stepS === undefined || Number(stepS) <= 1) star = true;
    } else {
      const [a, b] = range.split('-') as [string, string | undefined];
      lo = num(a);
      hi = b === undefined ? (stepS !== undefined ? max : lo) : num(b);
    }
    const step = stepS === undefined ? 1 : Number(stepS);
    for (let i = lo; i <= hi; i += step) allowed[i] = true;
  }
  return { allowed, star };
}

interface Wall {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  dow: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const DOW: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

function wallOf(t: number, zone: string | undefined): Wall {
  if (!zone || zone === 'UTC') {
    const d = new Date(t);
    return { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(), dow: d.getUTCDay() };
  }
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', weekday: 'short' });
    formatters.set(zone, f);
  }
  const p: Record<string, string> = {};
  for (const x of f.formatToParts(new Date(t))) p[x.type] = x.value;
  return { y: +p.year!, mo: +p.month!, d: +p.day!, h: +p.hour! % 24, mi: +p.minute!, dow: DOW[p.weekday!] ?? 0 };
}

/** The instant whose wall clock in `zone` shows these fields (fields may overflow, as Date.UTC allows). */
function instantOf(y: number, mo: number, d: number, h: number, mi: number, zone: string | undefined): number {
  const want = Date.UTC(y, mo - 1, d, h, mi);
  if (!zone || zone === 'UTC') return want;
  let t = want;
  for (let i = 0; i < 3; i++) {
    const w = wallOf(t, zone);
    const diff = Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi) - want;
    if (diff === 0) break;
    t -= diff;
  }
  return t;
}

class CronSchedule implements Schedule {
  constructor(
    private readonly minute: Field,
    private readonly hour: Field,
    private readonly dom: Field,
    private readonly month: Field,
    private readonly dow: Field,
    private readonly zone: string | undefined,
  ) {}

  private dayMatches(w: Wall): boolean {
    const a = !!this.dom.allowed[w.d];
    const b = !!this.dow.allowed[w.dow];
    return this.dom.star || this.dow.star ? a && b : a || b;
  }

  next(t: number): number | undefined {
    let cur = Math.floor(t / 60_000) * 60_000 + 60_000;
    const limit = t + 5 * 366 * 86_400_000;
    while (cur <= limit) {
      const w = wallOf(cur, this.zone);
      if (!this.month.allowed[w.mo]) cur = Math.max(cur + 60_000, instantOf(w.y, w.mo + 1, 1, 0, 0, this.zone));
      else if (!this.dayMatches(w)) cur = Math.max(cur + 60_000, instantOf(w.y, w.mo, w.d + 1, 0, 0, this.zone));
      else if (!this.hour.allowed[w.h]) cur = Math.max(cur + 60_000, instantOf(w.y, w.mo, w.d, w.h + 1, 0, this.zone));
      else if (!this.minute.allowed[w.mi]) cur += 60_000;
      else return cur;
    }
    return undefined;
  }
}

/**
 * Parses and compiles a schedule in `zone` (UTC when undefined).
 * @throws ScheduleError (robfig's message) for an invalid schedule
 */
export function compileSchedule(spec: string, zone?: string): Schedule {
  const validated = parseSchedule(spec, zone); // throws robfig's errors
  let s = spec;
  if (s.startsWith('TZ=') || s.startsWith('CRON_TZ=')) {
    const i = s.indexOf(' ');
    zone = s.slice(s.indexOf('=') + 1, i);
    s = s.slice(i).trim();
  }
  if (s.startsWith('@every ')) return validated;
  s = DESCRIPTORS[s] ?? s;
  const f = s.split(/\s+/).filter(Boolean);
  return new CronSchedule(field(f[0]!, 0, 59), field(f[1]!, 0, 23), field(f[2]!, 1, 31), field(f[3]!, 1, 12, MONTHS), field(f[4]!, 0, 6, DAYS), zone);
}

/**
 * Cron schedules as the CronJob API validates and the CronJob controller evaluates them:
 * robfig/cron v3's standard parser (5 fields: minute hour day-of-month month
 * day-of-week, with `*`, `?`, ranges `a-b`, steps `/n`, lists `,`, month and weekday
 * names) and the descriptors `@yearly @annually @monthly @weekly @daily @midnight
 * @hourly @every <duration>`. Error texts are robfig's, which upstream returns as the
 * validation detail.
 *
 * Times are evaluated in UTC or in an IANA time zone (the CronJob's spec.timeZone).
 *
 * @see https://github.com/robfig/cron/blob/v3.0.1/parser.go
 * @see https://github.com/robfig/cron/blob/v3.0.1/spec.go
 */

/** A parsed schedule. */
export interface Schedule {
  /** The first activation strictly after `t` (ms since epoch), or undefined when none within 5 years. */
  next(t: number): number | undefined;
}

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

/** the `*` marker bit, above every field's range (minutes use bits 0-59) */
const STAR = 1n << 63n;
const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } };
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

/** Thrown for malformed schedules; `message` is robfig's error text. */
export class ScheduleError extends Error {}

function mustParseInt(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw new ScheduleError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new ScheduleError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names?: Record<string, number>): number {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? named : mustParseInt(expr);
}

/** Bit set (bit i = value i; STAR for `*`) for one comma-separated element. */
function getRange(expr: string, r: Bounds): bigint {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const single = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let extra = 0n;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
    extra = STAR;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new ScheduleError(`too many hyphens: ${expr}`);
  }
  let step: number;
  if (rangeAndStep.length === 1) step = 1;
  else if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    if (single) end = r.max;
    if (step > 1) extra = 0n;
  } else throw new ScheduleError(`too many slashes: ${expr}`);
  if (start < r.min) throw new ScheduleError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new ScheduleError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new ScheduleError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new ScheduleError(`step of range should be a positive number: ${expr}`);
  let bits = 0n;
  for (let i = start; i <= end; i += step) bits |= 1n << BigInt(i);
  return bits | extra;
}

function getField(field: string, r: Bounds): bigint {
  let bits = 0n;
  for (const expr of field.split(',')) bits |= getRange(expr, r);
  return bits;
}

const has = (bits: bigint, i: number): boolean => ((bits >> BigInt(i)) & 1n) === 1n;

/** Wall-clock fields of an instant in a zone (UTC when zone is undefined). */
interface Wall {
  y: number;
  mo: number; // 1-12
  d: number;
  h: number;
  mi: number;
  dow: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function wallOf(t: number, zone: string | undefined): Wall {
  if (!zone || zone === 'UTC') {
    const d = new Date(t);
    return { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(), dow: d.getUTCDay() };
  }
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      weekday: 'short',
    });
    formatters.set(zone, f);
  }
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(t))) parts[p.type] = p.value;
  const dows: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
  return { y: Number(parts.year), mo: Number(parts.month), d: Number(parts.day), h: Number(parts.hour) % 24, mi: Number(parts.minute), dow: dows[parts.weekday!] ?? 0 };
}

/** The instant whose wall clock in `zone` is the given fields (first match across DST gaps/overlaps). */
function instantOf(w: { y: number; mo: number; d: number; h: number; mi: number }, zone: string | undefined): number {
  const guess = Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi);
  if (!zone || zone === 'UTC') return guess;
  let t = guess;
  for (let i = 0; i < 3; i++) {
    const got = wallOf(t, zone);
    const diff = Date.UTC(got.y, got.mo - 1, got.d, got.h, got.mi) - guess;
    if (diff === 0) return t;
    t -= diff;
  }
  return t;
}

class SpecSchedule implements Schedule {
  constructor(
    private readonly minute: bigint,
    private readonly hour: bigint,
    private readonly dom: bigint,
    private readonly month: bigint,
    private readonly dow: bigint,
    private readonly zone: string | undefined,
  ) {}

  private dayMatches(w: Wall): boolean {
    const domMatch = has(this.dom, w.d);
    const dowMatch = has(this.dow, w.dow);
    if ((this.dom & STAR) !== 0n || (this.dow & STAR) !== 0n) return domMatch && dowMatch;
    return domMatch || dowMatch;
  }

  next(t: number): number | undefined {
    // start at the next whole minute
    let cur = Math.floor(t / 60_000) * 60_000 + 60_000;
    const limit = t + 5 * 366 * 86_400_000;
    while (cur <= limit) {
      const w = wallOf(cur, this.zone);
      if (!has(this.month, w.mo)) {
        cur = Math.max(cur + 60_000, instantOf({ y: w.y, mo: w.mo + 1, d: 1, h: 0, mi: 0 }, this.zone));
        continue;
      }
      if (!this.dayMatches(w)) {
        cur = Math.max(cur + 60_000, instantOf({ y: w.y, mo: w.mo, d: w.d + 1, h: 0, mi: 0 }, this.zone));
        continue;
      }
      if (!has(this.hour, w.h)) {
        // the start of the next wall-clock hour (at least one minute ahead across DST shifts)
        cur = Math.max(cur + 60_000, instantOf({ y: w.y, mo: w.mo, d: w.d, h: w.h + 1, mi: 0 }, this.zone));
        continue;
      }
      if (!has(this.minute, w.mi)) {
        cur += 60_000;
        continue;
      }
      return cur;
    }
    return undefined;
  }
}

class EverySchedule implements Schedule {
  constructor(private readonly ms: number) {}
  next(t: number): number {
    // robfig ConstantDelaySchedule: t + delay, rounded down to the second
    return Math.floor((t + this.ms) / 1000) * 1000;
  }
}

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Go time.ParseDuration for the units cron schedules use; ms. */
function parseGoDuration(s: string): number {
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  if (!s || !/^(?:(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$/.test(s)) throw new ScheduleError(`time: invalid duration ${JSON.stringify(s)}`);
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  for (const m of s.matchAll(re)) total += Number(m[1]) * unit[m[2]!]!;
  return total;
}

/**
 * Parses a schedule (robfig cron.ParseStandard). `TZ=`/`CRON_TZ=` prefixes select the
 * zone as robfig does; spec.timeZone is passed as `zone`.
 *
 * @throws ScheduleError with robfig's message
 */
export function parseSchedule(spec: string, zone?: string): Schedule {
  let s = spec;
  if (s.length === 0) throw new ScheduleError('empty spec string');
  if (s.startsWith('TZ=') || s.startsWith('CRON_TZ=')) {
    const i = s.indexOf(' ');
    const eq = s.indexOf('=');
    const name = s.slice(eq + 1, i < 0 ? undefined : i);
    if (!isKnownZone(name)) throw new ScheduleError(`provided bad location ${name}: unknown time zone ${name}`);
    zone = name;
    s = i < 0 ? '' : s.slice(i).trim();
  }
  if (s.startsWith('@')) {
    if (s.startsWith('@every ')) {
      const d = s.slice('@every '.length);
      let ms: number;
      try {
        ms = parseGoDuration(d);
      } catch (e) {
        throw new ScheduleError(`failed to parse duration ${s}: ${(e as Error).message}`);
      }
      return new EverySchedule(Math.max(1000, Math.floor(ms / 1000) * 1000));
    }
    const expanded = DESCRIPTORS[s];
    if (!expanded) throw new ScheduleError(`unrecognized descriptor: ${s}`);
    s = expanded;
  }
  const fields = s.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) throw new ScheduleError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  return new SpecSchedule(getField(fields[0]!, MINUTES), getField(fields[1]!, HOURS), getField(fields[2]!, DOM), getField(fields[3]!, MONTHS), getField(fields[4]!, DOW), zone);
}

/** Is `zone` an IANA zone this runtime knows (Go's time.LoadLocation)? */
export function isKnownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * klog-style logging for the in-process control-plane components: the text format
 * upstream's components write to stderr (`I1201 13:37:43.768051    3854 file.ts:313]
 * "msg" key="value" n=3`), a process-wide verbosity (`--v`, changed at run time through
 * `PUT /debug/flags/v`), and `V(n)` gating as klog's.
 *
 * @see https://github.com/kubernetes/klog/blob/v2.130.1/klog.go (header format, Level.Set)
 * @see https://github.com/kubernetes/klog/blob/v2.130.1/internal/serialize/keyvalues.go (key=value text)
 * @see https://github.com/kubernetes/component-base/blob/v0.32.0/logs/api/v1/options.go (GlogSetter)
 */

/** Key/value pairs of a structured log line, in order. */
export type KV = Record<string, unknown>;

/** A verbosity level shared by the loggers of one process (klog's `-v`). */
export class Verbosity {
  constructor(public level = 0) {}

  /**
   * Sets the level from text, as klog's Level.Set / component-base's GlogSetter.
   * @returns `successfully set klog.logging.verbosity to <v>`
   * @throws Error `failed set klog.logging.verbosity <v>: strconv.ParseInt: parsing "<v>": invalid syntax` for a value that is not a 32-bit integer
   */
  set(value: string): string {
    if (!/^[+-]?\d+$/.test(value)) throw new Error(`failed set klog.logging.verbosity ${value}: strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
    const n = Number(value);
    if (n > 2 ** 31 - 1 || n < -(2 ** 31)) throw new Error(`failed set klog.logging.verbosity ${value}: strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`);
    this.level = n;
    return `successfully set klog.logging.verbosity to ${value}`;
  }
}

export interface Logger {
  info(msg: string, kv?: KV): void;
  warning(msg: string, kv?: KV): void;
  /** an error line, `err="<message>"` first among the key/values */
  error(err: unknown, msg: string, kv?: KV): void;
  /** lines at verbosity `level`: written only while the process's verbosity is at least `level` */
  V(level: number): { readonly enabled: boolean; info(msg: string, kv?: KV): void };
}

export interface KLoggerOptions {
  /** receives each formatted line (without the trailing newline) */
  write: (line: string) => void;
  verbosity: Verbosity;
  /** ms since the epoch (default Date.now) */
  now?: () => number;
  /** default process.pid */
  pid?: number;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** A value as klog's text serializer writes it: strings quoted, numbers and booleans bare, errors by message, the rest as JSON. */
function formatValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null || v === undefined) return '<nil>';
  if (v instanceof Error) return JSON.stringify(v.message);
  return JSON.stringify(v) ?? '<nil>';
}

/**
 * One klog text line: `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg` with the structured
 * message quoted and key/values after it.
 * @param severity I, W or E
 * @param ms time in ms since the epoch (local time, as klog)
 */
export function formatKlogLine(severity: 'I' | 'W' | 'E', ms: number, pid: number, where: string, msg: string, kv: KV = {}): string {
  const d = new Date(ms);
  const micros = `${pad(d.getMilliseconds(), 3)}000`;
  const head = `${severity}${pad(d.getMonth() + 1)}${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${micros} ${String(pid).padStart(7)} ${where}]`;
  const pairs = Object.entries(kv)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}=${formatValue(v)}`)
    .join('');
  return `${head} ${JSON.stringify(msg)}${pairs}`;
}

/** The caller's `file:line` (the frame `depth` above this function), as klog's header names it. */
function callerOf(depth: number): string {
  const frames = new Error().stack?.split('\n') ?? [];
  const f = frames[depth + 1] ?? '';
  const m = /([^/\\( ]+):(\d+):\d+\)?$/.exec(f);
  return m ? `${m[1]}:${m[2]}` : '???:1';
}

export class KLogger implements Logger {
  constructor(private readonly o: KLoggerOptions) {}

  private line(sev: 'I' | 'W' | 'E', msg: string, kv?: KV): void {
    this.o.write(formatKlogLine(sev, (this.o.now ?? Date.now)(), this.o.pid ?? process.pid, callerOf(3), msg, kv));
  }

  info(msg: string, kv?: KV): void {
    this.line('I', msg, kv);
  }

  warning(msg: string, kv?: KV): void {
    this.line('W', msg, kv);
  }

  error(err: unknown, msg: string, kv?: KV): void {
    this.line('E', msg, { err: err instanceof Error ? err.message : String(err), ...kv });
  }

  V(level: number): { readonly enabled: boolean; info(msg: string, kv?: KV): void } {
    const enabled = this.o.verbosity.level >= level;
    return {
      enabled,
      info: (msg, kv) => {
        if (enabled) this.line('I', msg, kv);
      },
    };
  }
}

/** `<namespace>/<name>` of an object, as klog.KObj prints it. */
export function kObj(o: { metadata?: { namespace?: string; name?: string } }): string {
  const m = o.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

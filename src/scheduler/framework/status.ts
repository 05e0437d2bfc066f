/**
 * The result of running a plugin: a code, human-readable reasons, an optional error
 * and the name of the plugin that produced it. `null` stands for Success everywhere,
 * so the common path allocates nothing.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/interface.go
 */

/** Status codes, numbered as upstream's `framework.Code`. */
export enum Code {
  /** The plugin ran correctly and found the pod schedulable (also spelled `null`). */
  Success = 0,
  /** An internal error or an unexpected input. */
  Error = 1,
  /** The plugin finds the pod unschedulable; preemption may help. */
  Unschedulable = 2,
  /** Unschedulable and preemption cannot help (e.g. a node selector mismatch). */
  UnschedulableAndUnresolvable = 3,
  /** A Permit plugin wants the pod to wait. */
  Wait = 4,
  /** The plugin has nothing to do for this pod (PreFilter/PreScore/Bind). */
  Skip = 5,
  /** The pod waits for something outside the scheduler; events may make it schedulable. */
  Pending = 6,
}

const codeNames = ['Success', 'Error', 'Unschedulable', 'UnschedulableAndUnresolvable', 'Wait', 'Skip', 'Pending'];

/** A non-success result. Construct with {@link newStatus} or {@link asStatus}. */
export class Status {
  /** The plugin that returned this status ('' until the runner sets it). */
  plugin = '';

  constructor(
    readonly code: Code,
    readonly reasons: readonly string[] = [],
    /** the underlying error for Code.Error */
    readonly err?: Error,
  ) {}

  /** Reasons joined by ", " (upstream `Status.Message()`). */
  message(): string {
    if (this.err && this.reasons.length === 0) return this.err.message;
    return this.reasons.join(', ');
  }

  /** Unschedulable or UnschedulableAndUnresolvable. */
  isRejected(): boolean {
    return this.code === Code.Unschedulable || this.code === Code.UnschedulableAndUnresolvable || this.code === Code.Pending;
  }

  withPlugin(name: string): this {
    this.plugin = name;
    return this;
  }

  toString(): string {
    return `${codeNames[this.code]}: ${this.message()}`;
  }
}

/** A status, or null for Success. */
export type StatusOrNull = Status | null;

/** New status with the given code and reasons. `Code.Success` with no reasons gives null. */
export function newStatus(code: Code, ...reasons: string[]): Status | null {
  if (code === Code.Success && reasons.length === 0) return null;
  return new Status(code, reasons);
}

/** New non-null status (for codes other than Success). */
export function status(code: Exclude<Code, Code.Success>, ...reasons: string[]): Status {
  return new Status(code, reasons);
}

/** An Error status wrapping `err` (upstream `AsStatus`). */
export function asStatus(err: unknown): Status {
  const e = err instanceof Error ? err : new Error(String(err));
  return new Status(Code.Error, [e.message], e);
}

/** The code of a possibly-null status. */
export function codeOf(s: Status | null | undefined): Code {
  return s ? s.code : Code.Success;
}

export function isSuccess(s: Status | null | undefined): boolean {
  return !s || s.code === Code.Success;
}

export function isSkip(s: Status | null | undefined): boolean {
  return !!s && s.code === Code.Skip;
}

export function isRejected(s: Status | null | undefined): boolean {
  return !!s && s.isRejected();
}

/** Name of a code, as upstream's `Code.String()`. */
export function codeName(c: Code): string {
  return codeNames[c] ?? `Code(${c})`;
}

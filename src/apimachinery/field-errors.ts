/**
 * Field errors as upstream's k8s.io/apimachinery/pkg/util/validation/field:
 * a type (FieldValueRequired, …), a path (`spec.containers[0].image`), the bad
 * value and a detail; printed exactly as upstream prints them.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/util/validation/field/errors.go
 */

/** field.ErrorType values (these strings are the StatusCause.reason on the wire). */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Marker for "do not print the value" (upstream's omitValue). */
export const omitValue = Symbol('omitValue');

/** One validation error on one field. */
export interface FieldError {
  type: FieldErrorType;
  /** dotted path with indices, e.g. `spec.containers[0].image` */
  field: string;
  badValue?: unknown;
  detail?: string;
}

/** Go's %q for a string: double-quoted with Go escapes. */
export function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\u00([0-9a-f]{2})/g, '\\x$1');
}

/** A bad value printed verbatim, for values upstream prints with Go's `%#v` of a struct. */
export class GoSyntax {
  constructor(readonly text: string) {}
}

function formatValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof GoSyntax) return v.text;
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) {
    // Go prints []string{"a", "b"} for %#v; upstream validation mostly passes strings,
    // so print slices the Go way for the common case.
    if (v.every((x) => typeof x === 'string')) return `[]string{${v.map((x) => goQuote(x as string)).join(', ')}}`;
    return JSON.stringify(v);
  }
  return JSON.stringify(v);
}

/** The body of an error without its field path, e.g. `Required value` or `Invalid value: "x": must be …`. */
export function fieldErrorBody(e: FieldError): string {
  let s: string;
  const t = typeText[e.type];
  if (e.type === 'FieldValueRequired' || e.type === 'FieldValueForbidden' || e.type === 'FieldValueTooLong' || e.type === 'InternalError' || e.badValue === omitValue) {
    s = t;
  } else {
    s = `${t}: ${formatValue(e.badValue)}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** `field: body` as upstream's Error.Error(). */
export function fieldErrorString(e: FieldError): string {
  return e.field ? `${e.field}: ${fieldErrorBody(e)}` : fieldErrorBody(e);
}

/** Aggregate like utilerrors.NewAggregate(...).Error(): one message bare, several in [a, b] de-duplicated. */
export function aggregateFieldErrors(errs: FieldError[]): string {
  if (errs.length === 0) return '';
  const msgs: string[] = [];
  const seen = new Set<string>();
  for (const e of errs) {
    const m = fieldErrorString(e);
    if (!seen.has(m)) {
      seen.add(m);
      msgs.push(m);
    }
  }
  if (msgs.length === 1) return msgs[0]!;
  return `[${msgs.join(', ')}]`;
}

/**
 * A field path builder: `new Path('spec').child('containers').index(0).child('image').toString()`.
 * Paths are built on every validation run but printed only for errors, so a Path keeps
 * its parent and last step and makes its text on first `toString()`.
 */
export class Path {
  private text: string | undefined;
  private constructor(
    private readonly parent: Path | undefined,
    /** the step: a child name, or an index/key (bracketed) */
    private readonly step: string,
    private readonly bracket: boolean,
  ) {
    if (parent === undefined) this.text = step;
  }
  static root(name: string): Path {
    return new Path(undefined, name, false);
  }
  child(name: string, ...more: string[]): Path {
    let p = new Path(this, name, false);
    for (const m of more) p = new Path(p, m, false);
    if (more.length > 0) p.text = more.reduce((s, m) => `${s}.${m}`, this.joinChild(name));
    return p;
  }
  index(i: number): Path {
    return new Path(this, String(i), true);
  }
  key(k: string): Path {
    return new Path(this, k, true);
  }
  toString(): string {
    if (this.text !== undefined) return this.text;
    const parent = this.parent!;
    const t = this.bracket ? `${parent.toString()}[${this.step}]` : parent.joinChild(this.step);
    this.text = t;
    return t;
  }
  /** this path followed by child `name` (no dot after an empty path) */
  private joinChild(name: string): string {
    const s = this.toString();
    return s ? `${s}.${name}` : name;
  }
}

type P = Path | string;
const ps = (p: P): string => (typeof p === 'string' ? p : p.toString());

export const required = (p: P, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: ps(p), badValue: '', detail });
export const invalid = (p: P, value: unknown, detail = ''): FieldError => ({ type: 'FieldValueInvalid', field: ps(p), badValue: value, detail });
export const duplicate = (p: P, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field: ps(p), badValue: value });
export const forbidden = (p: P, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: ps(p), badValue: '', detail });
export const notFound = (p: P, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field: ps(p), badValue: value });
export const tooLong = (p: P, _value: unknown, maxLength: number): FieldError => ({
  type: 'FieldValueTooLong',
  field: ps(p),
  badValue: '',
  detail: `may not be more than ${maxLength} bytes`,
});
export const tooMany = (p: P, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany',
  field: ps(p),
  badValue: actual,
  detail: `must have at most ${max} items`,
});
/** `Unsupported value: "x": supported values: "a", "b"` */
export function notSupported(p: P, value: unknown, valid: string[]): FieldError {
  const detail = valid.length ? `supported values: ${valid.map((v) => goQuote(v)).join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field: ps(p), badValue: value, detail };
}
export const internalError = (p: P, err: unknown): FieldError => ({
  type: 'InternalError',
  field: ps(p),
  badValue: '',
  detail: err instanceof Error ? err.message : String(err),
});

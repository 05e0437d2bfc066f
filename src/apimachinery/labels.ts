/**
 * Label selectors as upstream k8s.io/apimachinery/pkg/labels: the string syntax
 * (`app=web,tier!=db,env in (prod,staging),!canary,release`) with upstream's parser and
 * error texts, metav1.LabelSelector conversion (LabelSelectorAsSelector) with its
 * validation errors, and printing.
 *
 * A Selector is compiled once and matched many times: `matches` allocates nothing (one
 * property read per requirement; `in`/`notin` with several values use a Set).
 *
 * @see https://github.com/kubernetes/apimachinery/blob/release-1.32/pkg/labels/selector.go
 * @see https://github.com/kubernetes/apimachinery/blob/release-1.32/pkg/apis/meta/v1/helpers.go
 * @see https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { newBadRequest } from './errors.js';
import { goQuote } from './field-errors.js';
import { type Operator, type Requirement, aggregate, byteOrder, parseSelectorString, requirementErrors } from './labels-parse.js';

export type { Operator, Requirement } from './labels-parse.js';
export { aggregate, requirementErrors } from './labels-parse.js';

/** Label set of an object (metadata.labels). */
export type Labels = Readonly<Record<string, string>>;

/** A compiled label selector. */
export interface Selector {
  /** Does the label set satisfy every requirement? Allocation-free. */
  matches(labels: Labels | undefined | null): boolean;
  /** True when the selector does not restrict anything (matches everything). */
  empty(): boolean;
  /** The requirements, sorted by key; undefined for the Nothing selector. */
  readonly requirements: readonly Requirement[] | undefined;
  /** Upstream String(): requirements joined by `,`, `in`/`notin` values sorted. */
  toString(): string;
  /**
   * The value a selector requires for `key` when it pins it to one value
   * (`key=v`, `key==v`, `key in (v)`), else undefined (upstream RequiresExactMatch).
   */
  requiresExactMatch(key: string): string | undefined;
}

const OP_EQ = 0;
const OP_NE = 1;
const OP_EXISTS = 2;
const OP_NOT_EXISTS = 3;
const OP_GT = 4;
const OP_LT = 5;

interface Compiled {
  key: string;
  op: number;
  /** single value for = / != / in / notin with one value */
  one: string | undefined;
  /** several values for in / notin */
  set: Set<string> | undefined;
  /** integer for gt / lt */
  num: number;
}

function compile(r: Requirement): Compiled {
  let op: number;
  switch (r.operator) {
    case '=':
    case '==':
    case 'in':
      op = OP_EQ;
      break;
    case '!=':
    case 'notin':
      op = OP_NE;
      break;
    case 'exists':
      op = OP_EXISTS;
      break;
    case '!':
      op = OP_NOT_EXISTS;
      break;
    case 'gt':
      op = OP_GT;
      break;
    default:
      op = OP_LT;
  }
  const many = r.values.length > 1;
  return {
    key: r.key,
    op,
    one: many ? undefined : r.values[0],
    set: many ? new Set(r.values) : undefined,
    num: op === OP_GT || op === OP_LT ? Number(r.values[0]) : 0,
  };
}

function hasValue(c: Compiled, v: string): boolean {
  return c.set ? c.set.has(v) : c.one === v;
}

function matchOne(c: Compiled, labels: Labels | undefined | null): boolean {
  // typeof check: inherited members ('constructor', …) are never labels.
  const v = labels ? labels[c.key] : undefined;
  const has = typeof v === 'string';
  switch (c.op) {
    case OP_EQ:
      return has && hasValue(c, v);
    case OP_NE:
      return !has || !hasValue(c, v);
    case OP_EXISTS:
      return has;
    case OP_NOT_EXISTS:
      return !has;
    default: {
      if (!has || !/^[+-]?\d+$/.test(v)) return false;
      const n = Number(v);
      return c.op === OP_GT ? n > c.num : n < c.num;
    }
  }
}

class InternalSelector implements Selector {
  private readonly compiled: Compiled[];
  constructor(readonly requirements: readonly Requirement[]) {
    this.compiled = requirements.map(compile);
  }
  matches(labels: Labels | undefined | null): boolean {
    const cs = this.compiled;
    for (let i = 0; i < cs.length; i++) if (!matchOne(cs[i]!, labels)) return false;
    return true;
  }
  empty(): boolean {
    return this.requirements.length === 0;
  }
  toString(): string {
    return this.requirements.map(requirementToString).join(',');
  }
  requiresExactMatch(key: string): string | undefined {
    for (const r of this.requirements) {
      if (r.key !== key) continue;
      if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
      return undefined;
    }
    return undefined;
  }
}

const everythingSelector: Selector = new InternalSelector([]);
const nothingSelector: Selector = {
  matches: () => false,
  empty: () => false,
  requirements: undefined,
  toString: () => '',
  requiresExactMatch: () => undefined,
};

/** The selector that matches every label set (also what an empty string parses to). */
export function everything(): Selector {
  return everythingSelector;
}

/** The selector that matches nothing (what a nil metav1.LabelSelector converts to). */
export function nothing(): Selector {
  return nothingSelector;
}

/** Upstream Requirement.String(): `!k`, `k`, `k=v`, `k in (a,b)`, `k>1`. */
export function requirementToString(r: Requirement): string {
  let s = r.operator === '!' ? `!${r.key}` : r.key;
  switch (r.operator) {
    case '=':
      s += '=';
      break;
    case '==':
      s += '==';
      break;
    case '!=':
      s += '!=';
      break;
    case 'in':
      s += ' in ';
      break;
    case 'notin':
      s += ' notin ';
      break;
    case 'gt':
      s += '>';
      break;
    case 'lt':
      s += '<';
      break;
    default:
      return s;
  }
  const vals = r.values.length === 1 ? r.values[0]! : [...r.values].sort(byteOrder).join(',');
  return r.operator === 'in' || r.operator === 'notin' ? `${s}(${vals})` : s + vals;
}

/** The selector's string form (upstream Selector.String()). */
export function selectorToString(s: Selector): string {
  return s.toString();
}

// ---------------------------------------------------------------------------------------
// requirements and their validation (upstream NewRequirement)

// ---------------------------------------------------------------------------------------
// constructors

/**
 * Builds a validated requirement (upstream NewRequirement). `values === null` stands
 * for a nil Go slice (printed `[]string(nil)` in errors).
 *
 * @throws StatusError 400 BadRequest whose message is upstream's aggregated error, e.g.
 *   `values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty`.
 */
export function newRequirement(key: string, operator: string, values: readonly string[] | null): Requirement {
  const errs = requirementErrors(key, operator, values);
  if (errs.length) throw newBadRequest(aggregate(errs));
  return { key, operator: operator as Operator, values: values ?? [] };
}

/**
 * Parses a label selector string as upstream labels.Parse does. The empty string is
 * Everything.
 *
 * @throws StatusError 400 BadRequest with upstream's parse error text, e.g.
 *   `unable to parse requirement: found '', expected: identifier`, which is what the API
 *   server answers for a bad `labelSelector` query parameter.
 */
export function parseSelector(selector: string): Selector {
  const res = parseSelectorString(selector);
  if (typeof res === 'string') throw newBadRequest(res);
  if (res.length === 0) return everythingSelector;
  return new InternalSelector(res);
}

/** A selector requiring every `key=value` of the set (unvalidated, as upstream SelectorFromSet). */
export function selectorFromSet(set: Labels | undefined | null): Selector {
  if (!set) return everythingSelector;
  const keys = Object.keys(set);
  if (keys.length === 0) return everythingSelector;
  keys.sort(byteOrder);
  return new InternalSelector(keys.map((k) => ({ key: k, operator: '=' as const, values: [set[k]!] })));
}

/**
 * metav1.LabelSelector → Selector (upstream LabelSelectorAsSelector): undefined/null is
 * Nothing, an empty selector Everything; matchLabels become `=` requirements and
 * matchExpressions In/NotIn/Exists/DoesNotExist.
 *
 * @throws StatusError 400 BadRequest with upstream's message for an unknown operator
 *   (`"Foo" is not a valid label selector operator`) or an invalid requirement.
 */
export function labelSelectorAsSelector(ls: LabelSelector | undefined | null): Selector {
  if (!ls) return nothingSelector;
  const ml = ls.matchLabels ?? {};
  const me = ls.matchExpressions ?? [];
  const mlKeys = Object.keys(ml);
  if (mlKeys.length + me.length === 0) return everythingSelector;
  const reqs: Requirement[] = [];
  for (const k of mlKeys) reqs.push(newRequirement(k, '=', [ml[k]!]));
  for (const expr of me) {
    let op: Operator;
    switch (expr.operator) {
      case 'In':
        op = 'in';
        break;
      case 'NotIn':
        op = 'notin';
        break;
      case 'Exists':
        op = 'exists';
        break;
      case 'DoesNotExist':
        op = '!';
        break;
      default:
        throw newBadRequest(`${goQuote(expr.operator)} is not a valid label selector operator`);
    }
    const values = expr.values && expr.values.length ? [...expr.values] : null;
    reqs.push(newRequirement(expr.key, op, values));
  }
  reqs.sort((a, b) => byteOrder(a.key, b.key));
  return new InternalSelector(reqs);
}

/** `app=web,tier in (a,b)`, `<none>` for an empty selector, `<error>` for an invalid one (upstream FormatLabelSelector). */
export function formatLabelSelector(ls: LabelSelector | undefined | null): string {
  let s: string;
  try {
    s = labelSelectorAsSelector(ls).toString();
  } catch {
    return '<error>';
  }
  return s === '' ? '<none>' : s;
}

/** `a=b,c=d` sorted, or `<none>` (upstream labels.FormatLabels). */
export function formatLabels(labels: Labels | undefined | null): string {
  if (!labels) return '<none>';
  const parts = Object.keys(labels).map((k) => `${k}=${labels[k]}`);
  parts.sort(byteOrder);
  return parts.length ? parts.join(',') : '<none>';
}

/**
 * CRD validation rules (`x-kubernetes-validations`) evaluated on custom resources as
 * apiextensions-apiserver's CEL validator does: each rule of a schema node runs with
 * `self` bound to the value there (typed by the schema: `number` fields are doubles,
 * property names escaped as upstream escapes them), transition rules (those using
 * `oldSelf`) only when the old object has a correlated value (properties, map-type list
 * items by key) unless `optionalOldSelf` makes `oldSelf` an optional, `message`,
 * `messageExpression`, `reason` and `fieldPath`, the per-call cost limit and the
 * 10,000,000 runtime budget of one validation, and validation ratcheting: an error of a
 * rule that does not use oldSelf on a value equal to its old value is a warning.
 * Also `x-kubernetes-list-type: set|map` uniqueness.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype/validation.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/escaping.go
 */
import { Optional } from '@marcbachmann/cel-js';
import type { CRSchema } from '../../api/apiextensions/v1/customresourcedefinition/types.js';
import { duplicate, type FieldError, fieldErrorString, forbidden, invalid, required } from '../../apimachinery/field-errors.js';
import { type CelProgram, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, toCel } from '../../cel/index.js';
import { compileRule, escapeProperty } from './rule-compile.js';

/** One `x-kubernetes-validations` entry. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

interface CompiledRule {
  rule: ValidationRule;
  program?: CelProgram;
  error?: string;
  message?: CelProgram;
  usesOldSelf: boolean;
  fieldPath: string;
}

export { escapeProperty };

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A value as CEL sees it under schema `s` (upstream UnstructuredToVal). */
function celValue(v: unknown, s: CRSchema | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (s === undefined) return toCel(v);
  if (typeof v === 'number') return s.type === 'number' ? v : Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map((x) => celValue(x, s.items));
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    for (const [k, x] of Object.entries(v)) {
      const ps = s.properties?.[k];
      if (ps) {
        const name = escapeProperty(k);
        if (name !== undefined) out[name] = celValue(x, ps);
      } else if (ap) out[k] = celValue(x, ap);
      else if (s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-embedded-resource']) out[k] = toCel(x);
    }
    return out;
  }
  return v;
}

/** The resource root as CEL sees it: apiVersion, kind and metadata.name/generateName only (upstream WithTypeAndObjectMeta). */
function rootValue(v: Record<string, unknown>, s: CRSchema): unknown {
  const out = celValue(v, s) as Record<string, unknown>;
  const m = isObject(v.metadata) ? v.metadata : {};
  const meta: Record<string, unknown> = {};
  if (typeof m.name === 'string') meta.name = m.name;
  if (typeof m.generateName === 'string') meta.generateName = m.generateName;
  out.metadata = meta;
  if (v.apiVersion !== undefined) out.apiVersion = v.apiVersion;
  if (v.kind !== undefined) out.kind = v.kind;
  return out;
}

function child(p: string, name: string): string {
  return p ? `${p}.${name}` : name;
}

/** upstream ValidFieldPath's normalised form of a rule's fieldPath (`.spec.x['y']` → `spec.x[y]` or `spec.x.y`). */
function normaliseFieldPath(fp: string | undefined, s: CRSchema): string {
  if (!fp) return '';
  let out = '';
  let cur: CRSchema | undefined = s;
  const re = /\.([^.[\]]+)|\['((?:[^'\\]|\\.)*)'\]/g;
  for (const m of fp.matchAll(re)) {
    const name = m[1] ?? m[2]!.replace(/\\(.)/g, '$1');
    if (cur?.properties?.[name]) {
      out = child(out, name);
      cur = cur.properties[name];
    } else {
      out = `${out}[${name}]`;
      cur = typeof cur?.additionalProperties === 'object' ? cur.additionalProperties : undefined;
    }
  }
  return out;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function mapKey(item: unknown, keys: readonly string[]): string | undefined {
  if (!isObject(item)) return undefined;
  return JSON.stringify(keys.map((k) => item[k] ?? null));
}

/** The result of one validation: errors and the ratcheted errors (warnings). */
export interface RuleResult {
  errors: FieldError[];
  warnings: string[];
}

/** The validation rules of one schema, compiled once. */
export class RuleValidator {
  private readonly compiled = new Map<CRSchema, CompiledRule[]>();

  constructor(private readonly schema: CRSchema) {}

  /** Whether the schema has any rule or list-type constraint (cheap check at construction). */
  static needed(s: CRSchema | undefined): boolean {
    if (!s) return false;
    if ((s['x-kubernetes-validations'] ?? []).length) return true;
    if (s['x-kubernetes-list-type'] === 'set' || s['x-kubernetes-list-type'] === 'map') return true;
    if (s.items && RuleValidator.needed(s.items)) return true;
    if (typeof s.additionalProperties === 'object' && RuleValidator.needed(s.additionalProperties)) return true;
    return Object.values(s.properties ?? {}).some((p) => RuleValidator.needed(p)) || (s.allOf ?? []).some((p) => RuleValidator.needed(p));
  }

  private rulesOf(s: CRSchema): CompiledRule[] {
    let c = this.compiled.get(s);
    if (c === undefined) {
      const root = s === this.schema;
      c = ((s['x-kubernetes-validations'] ?? []) as ValidationRule[]).map((rule) => {
        const r = compileRule(rule, s, root);
        return {
          rule,
          program: r.program,
          error: r.error,
          message: r.message,
          usesOldSelf: r.usesOldSelf,
          fieldPath: normaliseFieldPath(rule.fieldPath, s),
        };
      });
      this.compiled.set(s, c);
    }
    return c;
  }

  /** Validates `obj` (and, on update, against `old`). */
  validate(obj: Record<string, unknown>, old?: Record<string, unknown>): RuleResult {
    const out: RuleResult = { errors: [], warnings: [] };
    const budget = { remaining: RUNTIME_CEL_COST_BUDGET };
    this.walk(this.schema, '', obj, old, old !== undefined, true, out, budget);
    return out;
  }

  private walk(s: CRSchema, path: string, v: unknown, old: unknown, correlated: boolean, root: boolean, out: RuleResult, budget: { remaining: number }): void {
    if (v === null || v === undefined || budget.remaining < 0) return;
    this.listType(s, path, v, out);
    this.rules(s, path, v, correlated ? old : undefined, correlated && deepEqual(v, old), root, out, budget);
    for (const sub of s.allOf ?? []) this.rules(sub, path, v, correlated ? old : undefined, false, root, out, budget);
    if (Array.isArray(v) && s.items) {
      const keys = s['x-kubernetes-list-type'] === 'map' ? (s['x-kubernetes-list-map-keys'] ?? []) : undefined;
      const olds = new Map<string, unknown>();
      if (keys && Array.isArray(old)) for (const o of old) olds.set(mapKey(o, keys) ?? '', o);
      v.forEach((x, i) => {
        const k = keys ? mapKey(x, keys) : undefined;
        const o = k !== undefined ? olds.get(k) : undefined;
        this.walk(s.items!, `${path}[${i}]`, x, o, o !== undefined, false, out, budget);
      });
    } else if (isObject(v)) {
      const oldMap = isObject(old) ? old : undefined;
      const mapCorrelatable = s['x-kubernetes-map-type'] === undefined || s['x-kubernetes-map-type'] === 'granular' || s['x-kubernetes-map-type'] === 'atomic';
      const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
      for (const [k, x] of Object.entries(v)) {
        const ps = s.properties?.[k] ?? ap;
        if (!ps || (root && k === 'metadata')) continue;
        const o = mapCorrelatable && oldMap ? oldMap[k] : undefined;
        const p = s.properties?.[k] ? child(path, k) : `${path}[${k}]`;
        this.walk(ps, p, x, o, correlated && o !== undefined, false, out, budget);
      }
    }
  }

  /** upstream listtype.ValidateListSetsAndMaps for one node. */
  private listType(s: CRSchema, path: string, v: unknown, out: RuleResult): void {
    if (!Array.isArray(v)) return;
    const lt = s['x-kubernetes-list-type'];
    if (lt === 'set') {
      const seen = new Set<string>();
      v.forEach((x, i) => {
        const k = JSON.stringify(x);
        if (seen.has(k)) out.errors.push(duplicate(`${path}[${i}]`, x));
        seen.add(k);
      });
    } else if (lt === 'map') {
      const keys = s['x-kubernetes-list-map-keys'] ?? [];
      const seen = new Set<string>();
      v.forEach((x, i) => {
        if (!isObject(x)) return;
        const k = mapKey(x, keys)!;
        if (seen.has(k)) out.errors.push(duplicate(`${path}[${i}]`, Object.fromEntries(keys.filter((kk) => x[kk] !== undefined).map((kk) => [kk, x[kk]]))));
        seen.add(k);
      });
    }
  }

  private rules(s: CRSchema, path: string, v: unknown, old: unknown, unchanged: boolean, root: boolean, out: RuleResult, budget: { remaining: number }): void {
    const rules = this.rulesOf(s);
    if (rules.length === 0) return;
    const type = s.type ?? '';
    if (budget.remaining <= 0) {
      out.errors.push(invalid(path, type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
      budget.remaining = -1;
      return;
    }
    const self = root && isObject(v) ? rootValue(v, s) : celValue(v, s);
    const oldSelf = old === undefined ? undefined : root && isObject(old) ? rootValue(old, s) : celValue(old, s);
    for (const c of rules) {
      const errorString = c.rule.message?.trim() || c.rule.rule.trim();
      if (c.error !== undefined) {
        out.errors.push(invalid(path, type, `rule compile error: ${c.error}`));
        continue;
      }
      const optional = c.rule.optionalOldSelf === true;
      if (c.usesOldSelf && oldSelf === undefined && !optional) continue;
      const act = { self, oldSelf: optional ? (oldSelf === undefined ? Optional.none() : Optional.of(oldSelf)) : (oldSelf ?? null) };
      const r = c.program!.evaluate(act, { celValues: true, costLimit: PER_CALL_LIMIT });
      if (r.cost > budget.remaining) {
        out.errors.push(invalid(path, type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
        budget.remaining = -1;
        return;
      }
      budget.remaining -= r.cost;
      if (r.error) {
        const e = r.error.detail;
        if (e.startsWith('no such overload'))
          out.errors.push(invalid(path, type, `'${e}': call arguments did not match a supported operator, function or macro signature for rule: ${errorString}`));
        else if (e.startsWith('operation cancelled: actual cost limit exceeded')) {
          out.errors.push(invalid(path, type, `'${e}': no further validation rules will be run due to call cost exceeds limit for rule: ${errorString}`));
          budget.remaining = -1;
          return;
        } else out.errors.push(invalid(path, type, `${e} evaluating rule: ${errorString}`));
        continue;
      }
      if (r.value === true) continue;
      const at = c.fieldPath ? (c.fieldPath.startsWith('[') ? `${path}${c.fieldPath}` : child(path, c.fieldPath)) : path;
      let detail: string | undefined;
      if (c.message) {
        const m = c.message.evaluate(act, { celValues: true, costLimit: PER_CALL_LIMIT });
        budget.remaining -= m.cost;
        if (!m.error && typeof m.value === 'string') {
          const t = m.value.trim();
          if (t !== '' && !t.includes('\n') && Buffer.byteLength(t) <= 5 * 1024) detail = t;
        }
      }
      detail ??= c.rule.message?.trim() || `failed rule: ${c.rule.rule.trim()}`;
      let err: FieldError;
      switch (c.rule.reason) {
        case 'FieldValueForbidden':
          err = forbidden(at, detail);
          break;
        case 'FieldValueRequired':
          err = required(at, detail);
          break;
        case 'FieldValueDuplicate':
          err = duplicate(at, type);
          break;
        default:
          err = invalid(at, type, detail);
      }
      if (!c.usesOldSelf && unchanged) out.warnings.push(fieldErrorString(err));
      else out.errors.push(err);
    }
  }
}

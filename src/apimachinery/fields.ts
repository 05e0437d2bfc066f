/**
 * Field selectors as upstream k8s.io/apimachinery/pkg/fields: `a=b`, `a==b`, `a!=b`
 * terms joined by `,`, values escaped with `\` (`\,` `\=` `\\`), matching against an
 * object's selectable fields (a flat `Record<string, string>`, missing fields read as
 * ""), exact-match extraction for indexed lookups (`spec.nodeName=x`), and the API
 * server's check of the field labels a resource supports.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/release-1.32/pkg/fields/selector.go
 * @see https://github.com/kubernetes/apimachinery/blob/release-1.32/pkg/runtime/conversion.go (DefaultMetaV1FieldSelectorConversion)
 * @see https://github.com/kubernetes/kubernetes/blob/release-1.32/pkg/apis/core/v1/conversion.go (AddFieldLabelConversionFunc)
 * @see https://kubernetes.io/docs/concepts/overview/working-with-objects/field-selectors/
 */
import { newBadRequest } from './errors.js';

/** The fields of one object a selector is matched against, e.g. `{ 'metadata.name': 'x', 'spec.nodeName': 'n1' }`. */
export type Fields = Readonly<Record<string, string>>;

/** One term: `field=value` (also written `==`) or `field!=value`. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** A compiled field selector. */
export interface FieldSelector {
  /** Does every term hold? A missing field reads as "" (so `f=` matches objects without f). */
  matches(fields: Fields | undefined | null): boolean;
  /** True when the selector does not restrict anything. */
  empty(): boolean;
  /** The terms, in the selector's (sorted) order; empty for Everything. */
  readonly requirements: readonly FieldRequirement[];
  /** Upstream String(): terms joined by `,`, values escaped. */
  toString(): string;
  /** The value an `=` term requires for `field`, if any (upstream RequiresExactMatch). */
  requiresExactMatch(field: string): string | undefined;
}

class TermsSelector implements FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}
  matches(fields: Fields | undefined | null): boolean {
    const rs = this.requirements;
    for (let i = 0; i < rs.length; i++) {
      const r = rs[i]!;
      const v = fields && Object.hasOwn(fields, r.field) ? fields[r.field] : '';
      if ((v === r.value) !== (r.operator === '=')) return false;
    }
    return true;
  }
  empty(): boolean {
    return this.requirements.length === 0;
  }
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
  requiresExactMatch(field: string): string | undefined {
    for (const r of this.requirements) if (r.operator === '=' && r.field === field) return r.value;
    return undefined;
  }
}

const everythingSelector = new TermsSelector([]);

/** The selector that matches everything (what the empty string parses to). */
export function everythingFields(): FieldSelector {
  return everythingSelector;
}

/** A selector requiring `field=value` for every entry of `set` (upstream fields.SelectorFromSet). */
export function fieldSelectorFromSet(set: Fields | undefined | null): FieldSelector {
  if (!set) return everythingSelector;
  return new TermsSelector(Object.keys(set).map((f) => ({ field: f, operator: '=' as const, value: set[f]! })));
}

/** A one-term selector `field=value` (upstream OneTermEqualSelector). */
export function oneTermEqualSelector(field: string, value: string): FieldSelector {
  return new TermsSelector([{ field, operator: '=', value }]);
}

/** Escapes `\`, `,` and `=` in a value (upstream EscapeValue). */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Undoes {@link escapeFieldValue} (upstream UnescapeValue).
 *
 * @throws StatusError 400 `invalid field selector: invalid escape sequence: \x` or
 *   `invalid field selector: unescaped character in value: 61` (Go prints the rune's number).
 */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw newBadRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') throw newBadRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw newBadRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits at commas not preceded by a backslash (upstream splitTerms). */
function splitTerms(s: string): string[] {
  if (s.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

/** The first operator position in a term, trying `!=`, `==`, `=` at each position (upstream splitTerm). */
function splitTerm(term: string): { lhs: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/**
 * Parses a field selector as upstream fields.ParseSelector: terms are sorted, empty
 * terms skipped, `==` is read as `=`.
 *
 * @throws StatusError 400 with upstream's text, e.g. `invalid selector: 'foo'; can't understand 'foo'`,
 *   which is what the API server answers for a bad `fieldSelector` query parameter.
 */
export function parseFieldSelector(selector: string): FieldSelector {
  const parts = splitTerms(selector).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw newBadRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const value = unescapeFieldValue(t.rhs);
    reqs.push({ field: t.lhs, operator: t.op === '!=' ? '!=' : '=', value });
  }
  return reqs.length ? new TermsSelector(reqs) : everythingSelector;
}

/** Maps a field label and value to the internal ones, or throws (upstream FieldLabelConversionFunc). */
export type FieldLabelConverter = (label: string, value: string) => { label: string; value: string };

/**
 * Rewrites every term with `convert`; a term converted to an empty label and value is
 * dropped (upstream Selector.Transform).
 */
export function transformFieldSelector(sel: FieldSelector, convert: FieldLabelConverter): FieldSelector {
  if (sel.requirements.length === 0) return sel;
  const out: FieldRequirement[] = [];
  for (const r of sel.requirements) {
    const c = convert(r.field, r.value);
    if (c.label === '' && c.value === '') continue;
    out.push({ field: c.label, operator: r.operator, value: c.value });
  }
  return out.length ? new TermsSelector(out) : everythingSelector;
}

/**
 * The converter of a kind that declares its selectable fields, as the kinds' registered
 * conversion functions do (Pod: `metadata.name`, `spec.nodeName`, `status.phase`, …).
 * `aliases` maps legacy labels to current ones (Pod: `spec.host` → `spec.nodeName`).
 *
 * @throws StatusError 400 `field label not supported: <label>` (what the API server answers).
 */
export function fieldLabelConverter(supported: readonly string[], aliases: Readonly<Record<string, string>> = {}): FieldLabelConverter {
  const ok = new Set(supported);
  return (label, value) => {
    if (ok.has(label)) return { label, value };
    if (Object.hasOwn(aliases, label)) return { label: aliases[label]!, value };
    throw newBadRequest(`field label not supported: ${label}`);
  };
}

/**
 * The converter for kinds that registered none: only `metadata.name` and
 * `metadata.namespace` (upstream DefaultMetaV1FieldSelectorConversion).
 *
 * @throws StatusError 400 `"foo" is not a known field selector: only "metadata.name", "metadata.namespace"`.
 */
export const defaultFieldLabelConverter: FieldLabelConverter = (label, value) => {
  if (label === 'metadata.name' || label === 'metadata.namespace') return { label, value };
  throw newBadRequest(`${JSON.stringify(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`);
};

/**
 * Parses a `fieldSelector` query value and checks it against the kind's selectable
 * fields, as the API server's list/watch handler does.
 *
 * @param supported the kind's field labels; undefined for a kind without its own list
 *   (then only metadata.name / metadata.namespace, with upstream's other message).
 * @throws StatusError 400 BadRequest for parse errors and unsupported labels.
 */
export function parseAndCheckFieldSelector(selector: string, supported?: readonly string[], aliases?: Readonly<Record<string, string>>): FieldSelector {
  const sel = parseFieldSelector(selector);
  return transformFieldSelector(sel, supported ? fieldLabelConverter(supported, aliases) : defaultFieldLabelConverter);
}

/**
 * Compiling one CRD validation rule (`x-kubernetes-validations` entry) as
 * apiextensions-apiserver's `cel.Compile` does: `self` and `oldSelf` declared
 * (`oldSelf` an optional with `optionalOldSelf`), the rule must be a bool and the
 * messageExpression a string, and every field selected from `self`/`oldSelf` must be
 * declared by the schema (cel-go's `undefined field 'x'`, reported at the selecting dot).
 * Used when a CRD is written (src/api/…/customresourcedefinition/rules.ts, through
 * {@link installRuleCompiler}) and when custom resources are validated.
 *
 * `self` is otherwise dynamic: type errors cel-go finds from the schema's types
 * (`self.replicas + 'a'`) surface at evaluation, not at compile time.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go
 */
import { CEL_RESERVED_WORDS } from '../../apimachinery/cel-reserved.js';
import { type RuleCompileResult, setRuleCompiler } from '../../api/apiextensions/v1/customresourcedefinition/rules.js';
import type { CRSchema } from '../../api/apiextensions/v1/customresourcedefinition/types.js';
import { type CelProgram, compile, type FieldType, undefinedFieldCheck } from '../../cel/index.js';

/** upstream cel.Escape: a property name as CEL sees it, or undefined when it is not accessible. */
export function escapeProperty(name: string): string | undefined {
  if (CEL_RESERVED_WORDS.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return undefined;
  return name.replace(/__|[.\-/]/g, (m) => (m === '__' ? '__underscores__' : m === '.' ? '__dot__' : m === '-' ? '__dash__' : '__slash__'));
}

/** The rule's compiled programs, or upstream's error details. */
export interface CompiledRuleProgram {
  program?: CelProgram;
  /** upstream's rule error detail (`compilation failed: …`, `cel expression must evaluate to a bool`) */
  error?: string;
  message?: CelProgram;
  /** upstream's messageExpression error detail */
  messageError?: string;
  /** whether the rule uses oldSelf (a transition rule) */
  usesOldSelf: boolean;
}

/** A CRD schema node as a CEL {@link FieldType} (`root`: the resource root, which always has apiVersion, kind, metadata.name/generateName). */
export class SchemaFieldType implements FieldType {
  constructor(
    readonly s: CRSchema,
    readonly root = false,
  ) {}
  field(name: string): FieldType | null | undefined {
    const s = this.s;
    if (this.root && (name === 'apiVersion' || name === 'kind')) return new SchemaFieldType({ type: 'string' });
    if (this.root && name === 'metadata') return new SchemaFieldType({ type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } });
    if (s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-embedded-resource'] || s['x-kubernetes-int-or-string']) return undefined;
    if (typeof s.additionalProperties === 'object') return new SchemaFieldType(s.additionalProperties);
    if (s.additionalProperties === true) return undefined;
    if (s.type !== 'object' && !s.properties) return undefined;
    for (const [k, v] of Object.entries(s.properties ?? {})) if (escapeProperty(k) === name) return new SchemaFieldType(v);
    return null;
  }
  element(): FieldType | undefined {
    if (this.s.items) return new SchemaFieldType(this.s.items);
    if (typeof this.s.additionalProperties === 'object') return new SchemaFieldType(this.s.additionalProperties);
    return undefined;
  }
}

/**
 * Compiles `rule` for the schema node `schema` (`root`: the resource's root schema).
 * Never throws.
 */
export function compileRule(rule: { rule: string; messageExpression?: string; optionalOldSelf?: boolean }, schema: CRSchema, root: boolean): CompiledRuleProgram {
  const optional = rule.optionalOldSelf === true;
  const variables = [{ name: 'self' }, { name: 'oldSelf', type: optional ? 'optional<dyn>' : 'dyn' }];
  const t = new SchemaFieldType(schema, root);
  const astCheck = undefinedFieldCheck({ self: t, oldSelf: t });
  const out: CompiledRuleProgram = { usesOldSelf: /\boldSelf\b/.test(rule.rule) };
  if (rule.rule.trim() !== '') {
    const r = compile(rule.rule, { variables, astCheck });
    if (r.error) out.error = r.error.detail;
    else if (r.program.outputType !== 'bool' && r.program.outputType !== 'dyn') out.error = 'cel expression must evaluate to a bool';
    else out.program = r.program;
  }
  if (rule.messageExpression) {
    const m = compile(rule.messageExpression, { variables, astCheck });
    if (m.error) out.messageError = `messageExpression ${m.error.detail}`;
    else if (m.program.outputType !== 'string' && m.program.outputType !== 'dyn') out.messageError = 'messageExpression must evaluate to a string';
    else out.message = m.program;
  }
  return out;
}

/** Installs {@link compileRule} as the CRD validation's rule compiler (idempotent). */
export function installRuleCompiler(): void {
  setRuleCompiler((rule, schema, root): RuleCompileResult => {
    const c = compileRule(rule, schema, root);
    return { error: c.error, messageError: c.messageError, usesOldSelf: c.usesOldSelf };
  });
}

/**
 * ValidatingAdmissionPolicy type checking (upstream validating.TypeChecker): each
 * validation's expression and messageExpression is checked against the schema of every
 * kind the policy's matchConstraints name exactly (no wildcards, no subresources; at most
 * 10 kinds, sorted by group, version, kind) with `object`/`oldObject` typed by that kind
 * and `params` by the paramKind. What does not type-check becomes an ExpressionWarning
 * (`fieldRef: spec.validations[0].expression`, `warning: "apps/v1, Kind=Deployment:
 * ERROR: <input>:1:15: undefined field 'replicas'\n | …\n | …^\n"`). Type checking never
 * changes how the policy is enforced.
 *
 * k8ts' checker finds what {@link undefinedFieldCheck} finds (fields the schema does not
 * declare) and everything the untyped compile finds; type mismatches between declared
 * field types (`object.spec.replicas > 'a'`) are not reported.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/typechecking.go
 */
import type { ExpressionWarning, ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { compile, type FieldType, undefinedFieldCheck } from '../../../../cel/index.js';
import { escapeProperty } from '../../../apiextensions/rule-compile.js';
import { POLICY_VARIABLES } from './compile.js';

/** upstream maxTypesToCheck. */
const MAX_TYPES_TO_CHECK = 10;

/** A group/version/kind. */
export interface GVK {
  group: string;
  version: string;
  kind: string;
}

/** An OpenAPI v3 schema of a kind and the document's components it refers to. */
export interface KindSchema {
  schema: Record<string, unknown>;
  components: Record<string, Record<string, unknown>>;
}

/** Where kinds and schemas come from (upstream: the RESTMapper and the OpenAPI schema resolver). */
export interface TypeResolver {
  /** the kinds a group/version/resource serves (empty when unknown) */
  kindsFor(group: string, version: string, resource: string): Promise<GVK[]>;
  /** the kind's schema, or undefined when not found */
  schemaFor(gvk: GVK): Promise<KindSchema | undefined>;
}

/** Go's schema.GroupVersionKind.String(). */
export function gvkString(g: GVK): string {
  return `${g.group}/${g.version}, Kind=${g.kind}`;
}

type S = Record<string, unknown>;

/** An OpenAPI v3 schema node as a CEL field type (`$ref` and `allOf: [{$ref}]` followed). */
export class OpenAPIFieldType implements FieldType {
  constructor(
    private readonly s: S,
    private readonly components: Record<string, S>,
    private readonly root = false,
  ) {}

  private resolve(s: S, depth = 0): S {
    if (depth > 20) return s;
    const ref = typeof s.$ref === 'string' ? s.$ref : Array.isArray(s.allOf) && s.allOf.length === 1 ? ((s.allOf[0] as S).$ref as string | undefined) : undefined;
    if (ref) {
      const target = this.components[ref.replace(/^#\/components\/schemas\//, '')];
      if (target) return this.resolve(target, depth + 1);
    }
    return s;
  }

  field(name: string): FieldType | null | undefined {
    const s = this.resolve(this.s);
    const props = (s.properties ?? undefined) as Record<string, S> | undefined;
    for (const [k, v] of Object.entries(props ?? {})) if (k === name || escapeProperty(k) === name) return new OpenAPIFieldType(v, this.components);
    if (this.root && (name === 'apiVersion' || name === 'kind' || name === 'metadata')) return undefined;
    if (s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-int-or-string'] || s['x-kubernetes-embedded-resource']) return undefined;
    const ap = s.additionalProperties;
    if (ap && typeof ap === 'object') return new OpenAPIFieldType(ap as S, this.components);
    if (ap === true || !props) return undefined;
    return null;
  }

  element(): FieldType | undefined {
    const s = this.resolve(this.s);
    if (s.items && typeof s.items === 'object') return new OpenAPIFieldType(s.items as S, this.components);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') return new OpenAPIFieldType(s.additionalProperties as S, this.components);
    return undefined;
  }
}

/** upstream typesToCheck: the exact kinds of matchConstraints.resourceRules, sorted, at most 10. */
async function typesToCheck(p: ValidatingAdmissionPolicy, r: TypeResolver): Promise<GVK[]> {
  const rules = p.spec?.matchConstraints?.resourceRules ?? [];
  const found = new Map<string, GVK>();
  outer: for (const rule of rules) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    if (groups.some((g) => g.includes('*')) || versions.some((v) => v.includes('*'))) continue;
    const resources = ((rule as { resources?: string[] }).resources ?? []).filter((x) => !/[*/]/.test(x));
    if (!groups.length || !versions.length || !resources.length) continue;
    let count = 0;
    for (const g of [...groups].sort())
      for (const v of [...versions].sort())
        for (const res of [...resources].sort())
          for (const k of await r.kindsFor(g, v, res)) {
            found.set(gvkString(k), k);
            if (++count === MAX_TYPES_TO_CHECK) break outer;
          }
  }
  return [...found.values()].sort((a, b) =>
    a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.version !== b.version ? (a.version < b.version ? -1 : 1) : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0,
  );
}

function paramsGVK(p: ValidatingAdmissionPolicy): GVK | undefined {
  const pk = p.spec?.paramKind;
  if (!pk?.apiVersion || !pk.kind) return undefined;
  const i = pk.apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: pk.apiVersion, kind: pk.kind } : { group: pk.apiVersion.slice(0, i), version: pk.apiVersion.slice(i + 1), kind: pk.kind };
}

/**
 * upstream TypeChecker.Check: the policy's expression warnings (empty when everything
 * type-checks or no kind's schema is known). Never throws for a bad policy.
 */
export async function typeCheckPolicy(p: ValidatingAdmissionPolicy, r: TypeResolver): Promise<ExpressionWarning[]> {
  const kinds: { gvk: GVK; t: FieldType }[] = [];
  for (const gvk of await typesToCheck(p, r)) {
    const s = await r.schemaFor(gvk);
    if (s) kinds.push({ gvk, t: new OpenAPIFieldType(s.schema, s.components, true) });
  }
  if (kinds.length === 0) return [];
  const pg = paramsGVK(p);
  const ps = pg ? await r.schemaFor(pg) : undefined;
  const params = ps ? new OpenAPIFieldType(ps.schema, ps.components, true) : undefined;
  // upstream declares params only when the paramKind's schema resolves
  const variables = POLICY_VARIABLES.filter((v) => v.name !== 'params' || params);
  const check = (expression: string): string => {
    const out: string[] = [];
    for (const k of kinds) {
      const res = compile(expression, { variables, astCheck: undefinedFieldCheck({ object: k.t, oldObject: k.t, params }) });
      if (res.error) out.push(`${gvkString(k.gvk)}: ${res.error.detail.replace(/^compilation failed: /, '')}\n`);
    }
    return out.join('\n');
  };
  const warnings: ExpressionWarning[] = [];
  (p.spec?.validations ?? []).forEach((v, i) => {
    const w = check(v.expression);
    if (w) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    if (!v.messageExpression) return;
    const m = check(v.messageExpression);
    if (m) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: m });
  });
  return warnings;
}

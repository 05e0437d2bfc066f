/**
 * Validation of apiextensions.k8s.io/v1 CustomResourceDefinitions as upstream's
 * ValidateCustomResourceDefinition: names (`must be spec.names.plural+"."+spec.group`),
 * group (`should be a domain with at least one dot`), scope, versions (`must have exactly
 * one version marked as storage version`, `schemas are required`), structural schemas
 * (`must not be empty for specified object fields` …), subresources, printer columns,
 * conversion (None, or Webhook with its client configuration and review versions),
 * stored versions, and the API approval annotation for protected groups.
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apis/apiextensions/validation/validation.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apiserver/schema/validation.go
 */
import { type FieldError, fieldErrorString, forbidden, invalid, notSupported, omitValue, Path, required } from '../../../../apimachinery/field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain, validateImmutableField } from '../../../../apimachinery/validation.js';
import type { CRDSpec, CRDVersion, CRSchema, CustomResourceDefinition, CustomResourceDefinitionNames } from './types.js';
import { patternError } from './pattern.js';
import { validateValidationRules } from './rules.js';
import { pruneValue, validateValue } from './values.js';

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const API_APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';

/**
 * The whole-object validation of a new CRD (ObjectMeta is validated by the store; the
 * `<plural>.<group>` name rule is checked here).
 */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition): FieldError[] {
  const errs: FieldError[] = [];
  const spec = crd.spec ?? ({} as CRDSpec);
  const name = crd.metadata?.name ?? '';
  const want = `${spec.names?.plural ?? ''}.${spec.group ?? ''}`;
  if (name !== want) errs.push(invalid(Path.root('metadata').child('name'), name, 'must be spec.names.plural+"."+spec.group'));
  errs.push(...validateSpec(spec, Path.root('spec')));
  errs.push(...validateNames(crd.status?.acceptedNames, Path.root('status').child('acceptedNames')));
  errs.push(...validateAPIApproval(crd));
  return errs;
}

/** Update validation: the create rules, immutable group and plural, and scope/kind once established. */
export function validateCustomResourceDefinitionUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  const errs = validateCustomResourceDefinition(crd);
  const p = Path.root('spec');
  const established = old.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
  if (established) {
    errs.push(...validateImmutableField(crd.spec?.scope, old.spec?.scope, p.child('scope')));
    errs.push(...validateImmutableField(crd.spec?.names?.kind, old.spec?.names?.kind, p.child('names', 'kind')));
  }
  errs.push(...validateImmutableField(crd.spec?.group, old.spec?.group, p.child('group')));
  errs.push(...validateImmutableField(crd.spec?.names?.plural, old.spec?.names?.plural, p.child('names', 'plural')));
  errs.push(...validateStoredVersions(crd.status?.storedVersions ?? [], crd.spec?.versions ?? [], Path.root('status').child('storedVersions')));
  return errs;
}

/** Status update validation (accepted names). */
export function validateCustomResourceDefinitionStatus(crd: CustomResourceDefinition): FieldError[] {
  return validateNames(crd.status?.acceptedNames, Path.root('status').child('acceptedNames'));
}

function validateAPIApproval(crd: CustomResourceDefinition): FieldError[] {
  const g = crd.spec?.group ?? '';
  const protectedGroup = g === 'k8s.io' || g.endsWith('.k8s.io') || g === 'kubernetes.io' || g.endsWith('.kubernetes.io');
  if (!protectedGroup) return [];
  const v = crd.metadata?.annotations?.[API_APPROVAL_ANNOTATION];
  if (v === undefined) {
    return [
      required(
        Path.root('metadata').child('annotations').key(API_APPROVAL_ANNOTATION),
        `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    ];
  }
  return [];
}

function validateStoredVersions(stored: string[], versions: CRDVersion[], p: Path): FieldError[] {
  if (stored.length === 0) return [invalid(p, stored, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const left = new Map(stored.map((v, i) => [v, i]));
  for (const v of versions) {
    if (v.storage && !left.has(v.name)) errs.push(invalid(p, stored, `must have the storage version ${v.name}`));
    left.delete(v.name);
  }
  for (const [v, i] of left) errs.push(invalid(p.index(i), v, 'must appear in spec.versions'));
  return errs;
}

function validateSpec(spec: CRDSpec, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const group = spec.group ?? '';
  if (!group) errs.push(required(p.child('group')));
  else {
    const msgs = isDNS1123Subdomain(group);
    if (msgs.length) errs.push(invalid(p.child('group'), group, msgs.join(',')));
    else if (group.split('.').length < 2) errs.push(invalid(p.child('group'), group, 'should be a domain with at least one dot'));
  }
  if (!spec.scope) errs.push(required(p.child('scope')));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') errs.push(notSupported(p.child('scope'), spec.scope, ['Cluster', 'Namespaced']));

  const versions = spec.versions ?? [];
  const h = hoisted(versions);
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const vp = p.child('versions').index(i);
    if (!v.schema?.openAPIV3Schema) errs.push(required(vp.child('schema').child('openAPIV3Schema'), 'schemas are required'));
  });
  versions.forEach((v, i) => {
    const vp = p.child('versions').index(i);
    if (v.storage) storageCount++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const msgs = isDNS1035Label(v.name ?? '');
    if (msgs.length) errs.push(invalid(vp.child('name'), v.name, msgs.join(',')));
    errs.push(...validateVersion(v, vp, h));
  });
  if (!unique) errs.push(invalid(p.child('versions'), omitValue, 'must contain unique version names'));
  if (storageCount !== 1) errs.push(invalid(p.child('versions'), omitValue, 'must have exactly one version marked as storage version'));

  const n = spec.names ?? ({} as CustomResourceDefinitionNames);
  if (!n.plural) errs.push(required(p.child('names', 'plural')));
  if (!n.singular) errs.push(required(p.child('names', 'singular')));
  if (!n.kind) errs.push(required(p.child('names', 'kind')));
  if (!n.listKind) errs.push(required(p.child('names', 'listKind')));
  errs.push(...validateNames(n, p.child('names')));
  errs.push(...validateHoisted(spec, p, h));

  const conv = spec.conversion;
  if (conv?.strategy !== undefined && conv.strategy !== 'None' && conv.strategy !== 'Webhook') {
    errs.push(notSupported(p.child('conversion').child('strategy'), conv.strategy, ['None', 'Webhook']));
  }
  if (conv?.strategy === 'Webhook' && !conv.webhook?.clientConfig) {
    errs.push(required(p.child('conversion').child('webhookClientConfig'), 'required when strategy is set to Webhook'));
  }
  if (conv?.strategy === 'None' && conv.webhook) {
    errs.push(forbidden(p.child('conversion').child('webhookClientConfig'), 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

/** Upstream ValidateCustomResourceDefinitionNames (spec.names and status.acceptedNames). */
function validateNames(n: CustomResourceDefinitionNames | undefined, p: Path): FieldError[] {
  if (!n) return [];
  const errs: FieldError[] = [];
  const dns = (v: string): string => isDNS1035Label(v).join(',');
  if (n.plural && dns(n.plural)) errs.push(invalid(p.child('plural'), n.plural, dns(n.plural)));
  if (n.singular && dns(n.singular)) errs.push(invalid(p.child('singular'), n.singular, dns(n.singular)));
  if (n.kind && dns(n.kind.toLowerCase())) errs.push(invalid(p.child('kind'), n.kind, `may have mixed case, but should otherwise match: ${dns(n.kind.toLowerCase())}`));
  if (n.listKind && dns(n.listKind.toLowerCase())) {
    errs.push(invalid(p.child('listKind'), n.listKind, `may have mixed case, but should otherwise match: ${dns(n.listKind.toLowerCase())}`));
  }
  (n.shortNames ?? []).forEach((s, i) => {
    if (dns(s)) errs.push(invalid(p.child('shortNames').index(i), s, dns(s)));
  });
  if (n.kind && n.kind === n.listKind) errs.push(invalid(p.child('listKind'), n.listKind, 'kind and listKind may not be the same'));
  (n.categories ?? []).forEach((c, i) => {
    if (dns(c)) errs.push(invalid(p.child('categories').index(i), c, dns(c)));
  });
  return errs;
}

/**
 * Which per-version fields are the same in every version: upstream's conversion to the
 * internal type moves those to the top level (spec.validation, spec.subresources,
 * spec.additionalPrinterColumns), so their errors carry the top-level paths.
 */
interface Hoisted {
  schema: boolean;
  subresources: boolean;
  columns: boolean;
}

function hoisted(versions: CRDVersion[]): Hoisted {
  const same = (f: (v: CRDVersion) => unknown): boolean => versions.length > 0 && versions.every((v) => JSON.stringify(f(v) ?? null) === JSON.stringify(f(versions[0]!) ?? null));
  return { schema: same((v) => v.schema), subresources: same((v) => v.subresources), columns: same((v) => v.additionalPrinterColumns) };
}

function validateVersion(v: CRDVersion, p: Path, h: Hoisted): FieldError[] {
  const errs: FieldError[] = [];
  if (!h.schema) errs.push(...validateSchema(v.schema?.openAPIV3Schema, !!v.subresources?.status, p.child('schema')));
  if (!h.subresources) errs.push(...validateSubresources(v.subresources, p.child('subresources')));
  if (!h.columns) errs.push(...validateColumns(v.additionalPrinterColumns, p.child('additionalPrinterColumns')));
  return errs;
}

/** The fields upstream validates at the top level when every version shares them. */
function validateHoisted(spec: CRDSpec, p: Path, h: Hoisted): FieldError[] {
  const v0 = spec.versions?.[0];
  if (!v0) return [];
  const errs: FieldError[] = [];
  const anyStatus = (spec.versions ?? []).some((v) => !!v.subresources?.status);
  if (h.schema) errs.push(...validateSchema(v0.schema?.openAPIV3Schema, anyStatus, p.child('validation')));
  if (h.subresources) errs.push(...validateSubresources(v0.subresources, p.child('subresources')));
  if (h.columns) errs.push(...validateColumns(v0.additionalPrinterColumns, p.child('additionalPrinterColumns')));
  return errs;
}

/** @param p the `schema` (per version) or `validation` (top-level) path */
function validateSchema(schema: CRSchema | undefined, statusEnabled: boolean, p: Path): FieldError[] {
  if (!schema) return [];
  const errs: FieldError[] = [];
  if (statusEnabled && schema.type !== undefined && schema.type !== 'object') {
    errs.push(invalid(p.child('openAPIV3Schema.type'), schema.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
  }
  if (schema.nullable) errs.push(forbidden(p.child('openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));
  const structural = validateStructural(schema, p.child('openAPIV3Schema'));
  errs.push(...structural);
  // defaults are checked once the schema is structural, as upstream
  if (structural.length === 0) validateDefaults(schema, p.child('openAPIV3Schema'), true, errs);
  // CEL rules are compiled once the schema is structural, as upstream
  if (structural.length === 0) errs.push(...validateValidationRules(schema, p.child('openAPIV3Schema')));
  return errs;
}

/**
 * Upstream's default validation: every `default:` must be pruned (`must not have unknown
 * fields`) and valid against its own schema node.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apiserver/schema/defaulting/validation.go
 */
function validateDefaults(s: CRSchema, p: Path, root: boolean, errs: FieldError[]): void {
  if (s.default !== undefined && !root) {
    const dp = p.child('default');
    const pruned = structuredClone(s.default);
    pruneValue(s, pruned);
    if (JSON.stringify(pruned) !== JSON.stringify(s.default)) errs.push(invalid(dp, s.default, 'must not have unknown fields'));
    else {
      const found: FieldError[] = [];
      validateValue(s, s.default, '', found);
      for (const e of found) errs.push({ ...e, field: e.field ? `${dp.toString()}.${e.field}` : dp.toString() });
    }
  }
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    if (root && k === 'metadata') continue;
    validateDefaults(v, p.child('properties').key(k), false, errs);
  }
  if (s.items && !Array.isArray(s.items)) validateDefaults(s.items, p.child('items'), false, errs);
  if (typeof s.additionalProperties === 'object') validateDefaults(s.additionalProperties, p.child('additionalProperties'), false, errs);
}

function validateSubresources(sub: CRDVersion['subresources'], p: Path): FieldError[] {
  const scale = sub?.scale;
  if (!scale) return [];
  const errs: FieldError[] = [];
  errs.push(...jsonPathUnder(scale.specReplicasPath, p.child('scale.specReplicasPath'), ['.spec.'], 'should be a json path under .spec', true));
  errs.push(...jsonPathUnder(scale.statusReplicasPath, p.child('scale.statusReplicasPath'), ['.status.'], 'should be a json path under .status', true));
  if (scale.labelSelectorPath) {
    errs.push(...jsonPathUnder(scale.labelSelectorPath, p.child('scale.labelSelectorPath'), ['.spec.', '.status.'], 'should be a json path under either .spec or .status', false));
  }
  return errs;
}

function validateColumns(cols: CRDVersion['additionalPrinterColumns'], p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (cols ?? []).forEach((c, i) => {
    const cp = p.index(i);
    if (!c.name) errs.push(required(cp.child('name')));
    const types = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
    if (!c.type) errs.push(required(cp.child('type'), types));
    else if (!PRINTER_COLUMN_TYPES.includes(c.type)) errs.push(invalid(cp.child('type'), c.type, types));
    if (c.format && !PRINTER_COLUMN_FORMATS.includes(c.format)) errs.push(invalid(cp.child('format'), c.format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
    if (!c.jsonPath) errs.push(required(cp.child('JSONPath')));
    else errs.push(...simpleJSONPath(c.jsonPath, cp.child('JSONPath')));
  });
  return errs;
}

function simpleJSONPath(s: string, p: Path): FieldError[] {
  if (s.length === 0) return [invalid(p, s, 'must not be empty')];
  if (s[0] !== '.') return [invalid(p, s, 'must be a simple json path starting with .')];
  return [];
}

function jsonPathUnder(s: string | undefined, p: Path, prefixes: string[], msg: string, req: boolean): FieldError[] {
  if (!s) return req ? [required(p)] : [];
  const e = simpleJSONPath(s, p);
  if (e.length) return e;
  return prefixes.some((x) => s.startsWith(x)) ? [] : [invalid(p, s, msg)];
}

type Level = 'root' | 'field' | 'item';

/**
 * Structural schema rules (upstream ValidateStructural plus the OpenAPI checks of
 * ValidateCustomResourceDefinitionOpenAPISchema), errors sorted by their text as upstream.
 */
function validateStructural(s: CRSchema, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  walkStructural(s, 'root', p, errs);
  return errs.sort((a, b) => (fieldErrorString(a) < fieldErrorString(b) ? -1 : 1));
}

/** `pattern` must be a regular expression within Go's bounds (pattern.ts). */
function checkPattern(s: CRSchema, p: Path, errs: FieldError[]): void {
  if (typeof s.pattern !== 'string') return;
  const e = patternError(s.pattern);
  if (e) errs.push(invalid(p.child('pattern'), s.pattern, `must be a valid regular expression, but isn't: ${e}`));
}

function walkStructural(s: CRSchema, lvl: Level, p: Path, errs: FieldError[]): void {
  checkPattern(s, p, errs);
  if (s.type !== undefined && !OPENAPI_TYPES.includes(s.type)) errs.push(notSupported(p.child('type'), s.type, OPENAPI_TYPES));
  if (s.uniqueItems === true) errs.push(forbidden(p.child('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if ((s as { $ref?: string }).$ref !== undefined) errs.push(forbidden(p.child('$ref'), '$ref is not supported'));
  if (s.patternProperties !== undefined) errs.push(forbidden(p.child('patternProperties'), 'patternProperties is not supported'));
  if (s.definitions !== undefined) errs.push(forbidden(p.child('definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined) errs.push(forbidden(p.child('dependencies'), 'dependencies is not supported'));
  if (s.additionalItems !== undefined) errs.push(forbidden(p.child('additionalItems'), 'additionalItems is not supported'));
  if (Array.isArray(s.items)) errs.push(forbidden(p.child('items'), 'items must be a schema object and not an array'));
  const ap = s.additionalProperties;
  if (ap !== undefined) {
    if (lvl === 'root') errs.push(forbidden(p.child('additionalProperties'), 'must not be used at the root'));
    if (s.properties && Object.keys(s.properties).length && (ap === false || typeof ap === 'object')) {
      errs.push(forbidden(p.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    if (typeof ap === 'object') walkStructural(ap, 'field', p.child('additionalProperties'), errs);
  }
  const ios = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  if (preserve === false) errs.push(invalid(p.child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  if (ios && preserve) errs.push(invalid(p.child('x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (ios && s['x-kubernetes-embedded-resource']) errs.push(invalid(p.child('x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (s.type === 'array' && !s.items) errs.push(required(p.child('items'), 'must be specified'));
  if (s.items && !Array.isArray(s.items)) walkStructural(s.items, 'item', p.child('items'), errs);
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    if (lvl === 'root' && k === 'metadata') {
      walkRootMetadata(v, p.child('properties').key('metadata'), errs);
      continue;
    }
    walkStructural(v, 'field', p.child('properties').key(k), errs);
  }
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (embedded && s.type !== 'object') {
    if (!s.type) errs.push(required(p.child('type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(invalid(p.child('type'), s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!s.type && !ios && !preserve) {
    const detail =
      lvl === 'root' ? 'must not be empty at the root' : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    errs.push(required(p.child('type'), detail));
  }
  if (embedded && ap !== undefined) errs.push(forbidden(p.child('additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  if (embedded && !preserve && !Object.keys(s.properties ?? {}).length) {
    errs.push(required(p.child('properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  if (lvl === 'root' && s.type && s.type !== 'object') errs.push(invalid(p.child('type'), s.type, 'must be object at the root'));
  // value validations (allOf/anyOf/oneOf/not) may not specify structure
  const vv: [string, CRSchema[]][] = [
    ['allOf', s.allOf ?? []],
    ['anyOf', s.anyOf ?? []],
    ['oneOf', s.oneOf ?? []],
  ];
  const intOrStringPattern = ios && (s.anyOf?.length ?? 0) === 2 && s.anyOf!.every((x) => x.type === 'integer' || x.type === 'string');
  for (const [name, list] of vv) {
    list.forEach((sub, i) => {
      if (name === 'anyOf' && intOrStringPattern) return;
      walkValueValidation(sub, p.child(name).index(i), errs);
    });
  }
  if (s.not) walkValueValidation(s.not, p.child('not'), errs);
}

function walkValueValidation(s: CRSchema, p: Path, errs: FieldError[]): void {
  checkPattern(s, p, errs);
  if (s.type !== undefined) errs.push(forbidden(p.child('type'), 'must be empty to be structural'));
  if (s.additionalProperties !== undefined) errs.push(forbidden(p.child('additionalProperties'), 'must be undefined to be structural'));
  if (s.default !== undefined) errs.push(forbidden(p.child('default'), 'must be undefined to be structural'));
  if (s.title !== undefined) errs.push(forbidden(p.child('title'), 'must be empty to be structural'));
  if (s.description !== undefined) errs.push(forbidden(p.child('description'), 'must be empty to be structural'));
  if (s.nullable) errs.push(forbidden(p.child('nullable'), 'must be false to be structural'));
  if (s['x-kubernetes-preserve-unknown-fields'] !== undefined) errs.push(forbidden(p.child('x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'));
  if (s['x-kubernetes-embedded-resource'] !== undefined) errs.push(forbidden(p.child('x-kubernetes-embedded-resource'), 'must be false to be structural'));
  if (s['x-kubernetes-int-or-string'] !== undefined) errs.push(forbidden(p.child('x-kubernetes-int-or-string'), 'must be false to be structural'));
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    if (k === 'metadata') errs.push(forbidden(p.child('properties').key('metadata'), 'must not be specified in a nested context'));
    else walkValueValidation(v, p.child('properties').key(k), errs);
  }
  if (s.items && !Array.isArray(s.items)) walkValueValidation(s.items, p.child('items'), errs);
}

/** metadata at the root may only restrict name and generateName. */
function walkRootMetadata(s: CRSchema, p: Path, errs: FieldError[]): void {
  if (s.type !== undefined && s.type !== 'object') errs.push(invalid(p.child('type'), s.type, 'must be object'));
  const keys = Object.keys(s.properties ?? {});
  const others = Object.keys(s).filter((k) => k !== 'type' && k !== 'properties' && k !== 'description' && k !== 'default');
  if (keys.some((k) => k !== 'name' && k !== 'generateName') || others.length) {
    errs.push(forbidden(p, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
}

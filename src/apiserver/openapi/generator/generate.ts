/**
 * Generates OpenAPI v3 `components.schemas` for the Kubernetes types from the
 * `kubernetes-types` declarations (`node_modules/kubernetes-types/**\/*.d.ts`), whose
 * interfaces carry upstream's field comments as JSDoc. Walks the declarations with the
 * TypeScript compiler API (syntax only, no type checker) and shapes every schema as
 * upstream's kube-openapi v3 builder does: `$ref`s with siblings wrapped in `allOf`,
 * `default: {}` on struct values, `required`, `x-kubernetes-group-version-kind` on kinds,
 * the server-side-apply list/struct markers from ./tables.ts.
 *
 * Not loaded by the API server: scripts/gen-openapi-schemas.mjs runs it and writes
 * ../generated/schemas.json, which the server reads lazily.
 *
 * @see https://github.com/kubernetes/kube-openapi/tree/master/pkg/builder3
 * @see https://github.com/kubernetes/kubernetes/tree/master/api/openapi-spec/v3
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, posix } from 'node:path';
import ts from 'typescript';
import { INT_OR_STRING, modulePrefix, splitAPIVersion, type GVK } from '../names.js';
import { ATOMIC_STRUCTS, EMBEDDED_FIELDS, BYTE_FIELDS, DOUBLE_FIELDS, INT32_EXCEPTIONS, INT64_FIELDS, INT64_FIELD_NAMES, LIST_TYPES } from './tables.js';

/** An OpenAPI v3 schema object (JSON). */
export type Schema = { [k: string]: unknown };

/** One parsed kubernetes-types module. */
interface Module {
  path: string; // 'core/v1'
  file: ts.SourceFile;
  /** local name → module path it is imported from */
  imports: Map<string, string>;
  decls: Map<string, ts.InterfaceDeclaration | ts.TypeAliasDeclaration>;
}

const IOS_DESCRIPTION =
  'IntOrString holds either an int32 or a string; in JSON it is written as whichever of the two it holds (a port number or a port name, a count or a percentage such as "25%").';

/**
 * Reads every `.d.ts` under `typesDir` and returns the schemas keyed by upstream name,
 * in sorted key order (so the JSON output is stable).
 */
export function generateSchemas(typesDir: string, extraDirs: readonly string[] = [EXTRA_TYPES_DIR]): Record<string, Schema> {
  const modules = new Map<string, Module>();
  const files = [typesDir, ...extraDirs].flatMap((dir) => listDts(dir).map((file) => ({ dir, file })));
  for (const { dir, file } of files) {
    const path = relative(dir, file)
      .replace(/\\/g, '/')
      .replace(/\.d\.ts$/, '');
    const text = readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const mod: Module = { path, file: sf, imports: new Map(), decls: new Map() };
    for (const st of sf.statements) {
      if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
        const target = posix.normalize(posix.join(posix.dirname(path), st.moduleSpecifier.text));
        const named = st.importClause?.namedBindings;
        if (named && ts.isNamedImports(named)) for (const el of named.elements) mod.imports.set(el.name.text, target);
      } else if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) {
        mod.decls.set(st.name.text, st);
      }
    }
    modules.set(path, mod);
  }

  const out: Record<string, Schema> = {};
  const g = new Generator(modules);
  for (const mod of modules.values()) {
    for (const [name, decl] of mod.decls) out[`${modulePrefix(mod.path)}.${name}`] = g.declaration(mod, name, decl);
  }
  out[INT_OR_STRING] = {
    description: IOS_DESCRIPTION,
    format: 'int-or-string',
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    'x-kubernetes-int-or-string': true,
  };
  const sorted: Record<string, Schema> = {};
  for (const k of Object.keys(out).sort()) sorted[k] = out[k]!;
  return sorted;
}

function listDts(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listDts(p));
    else if (name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The JSDoc text attached to a node (upstream's Go comment), or undefined. */
function docOf(node: ts.Node): string | undefined {
  const docs = (node as { jsDoc?: ts.JSDoc[] }).jsDoc;
  const last = docs?.[docs.length - 1];
  if (!last?.comment) return undefined;
  const text = ts.getTextOfJSDocComment(last.comment)?.trim();
  return text || undefined;
}

class Generator {
  constructor(private readonly modules: Map<string, Module>) {}

  /** Schema of one exported interface or type alias. */
  declaration(mod: Module, name: string, decl: ts.InterfaceDeclaration | ts.TypeAliasDeclaration): Schema {
    const description = docOf(decl);
    const special = this.special(mod.path, name);
    if (special) return withDescription(special, description);
    if (ts.isTypeAliasDeclaration(decl)) {
      // Union aliases (JSONSchemaPropsOrBool …) accept several JSON shapes: leave untyped.
      if (ts.isUnionTypeNode(decl.type)) return withDescription({}, description);
      return withDescription(this.typeSchema(mod, decl.type, `${mod.path}#${name}`, name), description);
    }
    const s: Schema = {};
    if (description) s.description = description;
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    let apiVersion: string | undefined;
    let kind: string | undefined;
    const members = decl.members.filter(ts.isPropertySignature);
    for (const m of members) {
      const field = propertyName(m.name);
      if (!field || !m.type) continue;
      if (!m.questionToken) required.push(field);
      if (field === 'apiVersion') apiVersion = stringLiteral(m.type);
      if (field === 'kind') kind = stringLiteral(m.type);
    }
    const isKind = apiVersion !== undefined && kind !== undefined;
    for (const m of members.slice().sort((a, b) => (propertyName(a.name) ?? '').localeCompare(propertyName(b.name) ?? ''))) {
      const field = propertyName(m.name);
      if (!field || !m.type) continue;
      const key = `${mod.path}#${name}.${field}`;
      let p = this.typeSchema(mod, m.type, key, field);
      const isRequired = !m.questionToken;
      // Non-pointer struct fields carry `default: {}` upstream: always metadata/spec/status of
      // a kind; otherwise approximated by "required".
      const structDefault = (isRequired || (isKind && (field === 'metadata' || field === 'spec' || field === 'status'))) && this.isStructRef(p);
      const doc = docOf(m);
      p = decorate(p, { description: doc, default: structDefault ? {} : undefined });
      const lt = LIST_TYPES.get(key);
      if (lt && p.type === 'array') {
        if (lt.mapKeys) p['x-kubernetes-list-map-keys'] = lt.mapKeys;
        p['x-kubernetes-list-type'] = lt.type;
      }
      properties[field] = p;
    }
    const embedded = EMBEDDED_FIELDS.get(`${mod.path}#${name}`);
    if (embedded) {
      for (const [field, p] of Object.entries(embedded)) properties[field] = structuredClone(p);
      const sorted = Object.keys(properties).sort((a, b) => a.localeCompare(b));
      for (const k of sorted) {
        const v = properties[k]!;
        delete properties[k];
        properties[k] = v;
      }
    }
    if (Object.keys(properties).length) s.properties = properties;
    if (required.length) s.required = required;
    s.type = 'object';
    if (isKind) {
      const gv = splitAPIVersion(apiVersion!);
      const gvk: GVK = { group: gv.group, kind: kind!, version: gv.version };
      s['x-kubernetes-group-version-kind'] = [gvk];
    }
    if (ATOMIC_STRUCTS.has(`${mod.path}#${name}`)) s['x-kubernetes-map-type'] = 'atomic';
    return s;
  }

  /** Hand-shaped schemas of types with custom JSON forms, as upstream defines them. */
  private special(path: string, name: string): Schema | undefined {
    const key = `${path}#${name}`;
    switch (key) {
      case 'meta/v1#Time':
      case 'meta/v1#MicroTime':
        return { type: 'string', format: 'date-time' };
      case 'api/resource#Quantity':
        return { oneOf: [{ type: 'string' }, { type: 'number' }] };
      case 'runtime#RawExtension':
      case 'meta/v1#FieldsV1':
      case 'meta/v1#Patch':
        return { type: 'object' };
      case 'apiextensions/v1#JSON':
        return { 'x-kubernetes-preserve-unknown-fields': true };
      default:
        return undefined;
    }
  }

  /** Does a property schema refer to a struct (an interface with an object schema)? */
  private isStructRef(p: Schema): boolean {
    const ref = p.$ref;
    if (typeof ref !== 'string') return false;
    const found = this.lookupByRef(ref);
    return found !== undefined && ts.isInterfaceDeclaration(found.decl) && !this.special(found.mod.path, found.name);
  }

  private lookupByRef(ref: string): { mod: Module; name: string; decl: ts.InterfaceDeclaration | ts.TypeAliasDeclaration } | undefined {
    const full = ref.slice('#/components/schemas/'.length);
    for (const mod of this.modules.values()) {
      const prefix = modulePrefix(mod.path) + '.';
      if (!full.startsWith(prefix)) continue;
      const name = full.slice(prefix.length);
      const decl = mod.decls.get(name);
      if (decl) return { mod, name, decl };
    }
    return undefined;
  }

  /** The schema of a type node; `key` (`module#Type.field`) selects table entries. */
  typeSchema(mod: Module, node: ts.TypeNode, key: string, field: string): Schema {
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return BYTE_FIELDS.has(key) ? { format: 'byte', type: 'string' } : { type: 'string' };
      case ts.SyntaxKind.BooleanKeyword:
        return { type: 'boolean' };
      case ts.SyntaxKind.NumberKeyword:
        return numberSchema(key, field);
      case ts.SyntaxKind.AnyKeyword:
      case ts.SyntaxKind.UnknownKeyword:
        return {};
    }
    if (ts.isLiteralTypeNode(node)) return { type: 'string' };
    if (ts.isParenthesizedTypeNode(node)) return this.typeSchema(mod, node.type, key, field);
    if (ts.isUnionTypeNode(node)) {
      const kinds = new Set(node.types.map((t) => t.kind));
      if (kinds.has(ts.SyntaxKind.NumberKeyword) && kinds.has(ts.SyntaxKind.StringKeyword)) return ref(INT_OR_STRING);
      if (node.types.every((t) => ts.isLiteralTypeNode(t))) return { type: 'string' };
      return {};
    }
    if (ts.isArrayTypeNode(node)) return { items: this.element(mod, node.elementType, key, field), type: 'array' };
    if (ts.isTypeLiteralNode(node)) {
      const index = node.members.find(ts.isIndexSignatureDeclaration);
      if (index) return { additionalProperties: this.element(mod, index.type, key, field), type: 'object' };
      return { type: 'object' };
    }
    if (ts.isTypeReferenceNode(node)) {
      const name = ts.isIdentifier(node.typeName) ? node.typeName.text : node.typeName.right.text;
      if ((name === 'Array' || name === 'ReadonlyArray') && node.typeArguments?.length === 1) {
        return { items: this.element(mod, node.typeArguments[0]!, key, field), type: 'array' };
      }
      const target = mod.decls.has(name) ? mod.path : mod.imports.get(name);
      if (target !== undefined) return ref(`${modulePrefix(target)}.${name}`);
      throw new Error(`${key}: cannot resolve type ${name}`);
    }
    throw new Error(`${key}: unsupported type syntax ${ts.SyntaxKind[node.kind]}`);
  }

  /** Schema of an array element or map value: struct values carry `default: {}` upstream. */
  private element(mod: Module, node: ts.TypeNode, key: string, field: string): Schema {
    const s = this.typeSchema(mod, node, key, field);
    return this.isStructRef(s) ? decorate(s, { default: {} }) : s;
  }
}

function numberSchema(key: string, field: string): Schema {
  if (DOUBLE_FIELDS.has(key)) return { format: 'double', type: 'number' };
  const int64 = INT64_FIELDS.has(key) || (INT64_FIELD_NAMES.has(field) && !INT32_EXCEPTIONS.has(key));
  return { format: int64 ? 'int64' : 'int32', type: 'integer' };
}

function ref(name: string): Schema {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * Adds description/default to a schema. A bare `$ref` with siblings moves into
 * `allOf: [{$ref}]`, since OpenAPI 3.0 ignores siblings of `$ref` (what kube-openapi does).
 */
function decorate(s: Schema, extra: { description?: string; default?: unknown }): Schema {
  const hasExtra = extra.description !== undefined || extra.default !== undefined;
  if (!hasExtra) return s;
  let out: Schema;
  if (typeof s.$ref === 'string') {
    out = { allOf: [{ $ref: s.$ref }] };
  } else out = { ...s };
  if (extra.default !== undefined) out.default = extra.default;
  if (extra.description !== undefined) out.description = extra.description;
  return sortKeys(out);
}

function withDescription(s: Schema, description: string | undefined): Schema {
  return description ? sortKeys({ description, ...s }) : s;
}

function sortKeys(s: Schema): Schema {
  const out: Schema = {};
  for (const k of Object.keys(s).sort()) out[k] = s[k];
  return out;
}

function propertyName(n: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(n) || ts.isStringLiteral(n)) return n.text;
  return undefined;
}

function stringLiteral(t: ts.TypeNode): string | undefined {
  return ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? t.literal.text : undefined;
}

const here = dirname(new URL(import.meta.url).pathname);

/** Default location of the kubernetes-types package (the repository's node_modules). */
export const DEFAULT_TYPES_DIR = join(here, '../../../../node_modules/kubernetes-types');

/**
 * Declarations of API types kubernetes-types lacks (kube-aggregator's apiregistration.k8s.io),
 * in its style, generated alongside it.
 */
export const EXTRA_TYPES_DIR = join(here, 'extra-types');

/** Where the generated schemas are committed. */
export const GENERATED_FILE = join(here, '../generated/schemas.json');

/**
 * The committed file's exact text: one compact JSON object
 * `{"source":"kubernetes-types@<version>","schemas":{…}}` and a newline.
 */
export function renderSchemasFile(typesDir: string = DEFAULT_TYPES_DIR): string {
  const pkg = JSON.parse(readFileSync(join(typesDir, 'package.json'), 'utf8')) as { version: string };
  return JSON.stringify({ source: `kubernetes-types@${pkg.version}`, schemas: generateSchemas(typesDir) }) + '\n';
}

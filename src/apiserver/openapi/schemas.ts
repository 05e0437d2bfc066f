/**
 * The built-in OpenAPI v3 schemas: the committed generated/schemas.json (made by
 * scripts/gen-openapi-schemas.mjs from kubernetes-types), read on first use — never at
 * startup — with the strategic-merge-patch markers of src/apimachinery/patch/patch-meta.ts
 * laid over it, plus lookups by ResourceDefinition and transitive closure of `$ref`s.
 *
 * @see https://github.com/kubernetes/kubernetes/tree/master/api/openapi-spec/v3
 */
import { runNow, type Steps } from '../../util/sliced.js';
import { readFileSync } from 'node:fs';
import type { ResourceDefinition } from '../../api/resource.js';
import { patchMeta, type FieldPatchMeta } from '../../apimachinery/patch/patch-meta.js';
import { schemaNameFromRef, type GVK } from './names.js';

/** An OpenAPI v3 schema object (JSON). */
export type Schema = { [k: string]: unknown };

/** The loaded built-in schemas and an index of the kinds among them. */
export interface SchemaSet {
  /** upstream definition name → schema */
  schemas: Record<string, Schema>;
  /** `group/version/kind` → definition name, from `x-kubernetes-group-version-kind` */
  byGVK: Map<string, string>;
}

const REF_PREFIX = '#/components/schemas/';

/**
 * Candidate locations of schemas.json: beside this module (tsx, tests) and, for a
 * bundle in dist/, the source tree one level up.
 */
const CANDIDATES = [new URL('./generated/schemas.json', import.meta.url), new URL('../src/apiserver/openapi/generated/schemas.json', import.meta.url)];

let loaded: SchemaSet | undefined;

/**
 * The built-in schemas, loaded and indexed on the first call (about 1 MB of JSON,
 * ~10 ms), then cached for the process. Callers must not mutate the result.
 * @throws Error if generated/schemas.json cannot be found
 */
export function builtinSchemas(): SchemaSet {
  if (loaded) return loaded;
  let text: string | undefined;
  for (const url of CANDIDATES) {
    try {
      text = readFileSync(url, 'utf8');
      break;
    } catch {
      // try the next location
    }
  }
  if (text === undefined) throw new Error('openapi: generated/schemas.json not found (run node --import tsx scripts/gen-openapi-schemas.mjs)');
  const file = JSON.parse(text) as { schemas: Record<string, Schema> };
  applyPatchMeta(file.schemas, patchMeta);
  addSchemaExtensions(file.schemas);
  loaded = { schemas: file.schemas, byGVK: indexByGVK(file.schemas) };
  return loaded;
}

const APIEXT = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';

/**
 * Adds the `x-kubernetes-*` properties of CRD schemas to JSONSchemaProps (mutates):
 * kubernetes-types leaves them out, and without them strict field validation would
 * reject every CRD that uses `x-kubernetes-preserve-unknown-fields` and the like.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apis/apiextensions/v1/types_jsonschema.go
 */
export function addSchemaExtensions(schemas: Record<string, Schema>): void {
  const props = schemas[`${APIEXT}JSONSchemaProps`]?.properties as Record<string, Schema> | undefined;
  if (!props) return;
  const bool = (description: string): Schema => ({ description, type: 'boolean' });
  props['x-kubernetes-embedded-resource'] ??= bool(
    'x-kubernetes-embedded-resource marks an embedded Kubernetes object (apiVersion, kind and metadata are validated); type must be object.',
  );
  props['x-kubernetes-int-or-string'] ??= bool('x-kubernetes-int-or-string allows an integer or a string at this position.');
  props['x-kubernetes-preserve-unknown-fields'] ??= bool('x-kubernetes-preserve-unknown-fields stops the pruning of fields the schema does not specify below this node.');
  props['x-kubernetes-list-map-keys'] ??= {
    description: 'x-kubernetes-list-map-keys names the item fields that identify an item of a list of type map.',
    items: { default: '', type: 'string' },
    type: 'array',
    'x-kubernetes-list-type': 'atomic',
  };
  props['x-kubernetes-list-type'] ??= { description: 'x-kubernetes-list-type: atomic, set or map.', type: 'string' };
  props['x-kubernetes-map-type'] ??= { description: 'x-kubernetes-map-type: granular or atomic.', type: 'string' };
  if (schemas[`${APIEXT}ValidationRule`]) {
    props['x-kubernetes-validations'] ??= {
      description: 'x-kubernetes-validations are CEL validation rules (stored; k8ts does not evaluate them).',
      items: { allOf: [{ $ref: `${REF_PREFIX}${APIEXT}ValidationRule` }], default: {} },
      type: 'array',
      'x-kubernetes-list-map-keys': ['rule'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'rule',
      'x-kubernetes-patch-strategy': 'merge',
    };
  }
}

/**
 * Lays strategic-merge-patch metadata onto the schemas (mutates): for each definition
 * and field in `meta`, sets `x-kubernetes-patch-strategy` and, if given,
 * `x-kubernetes-patch-merge-key` on the property. Unknown definitions or fields are skipped.
 */
export function applyPatchMeta(schemas: Record<string, Schema>, meta: Record<string, Record<string, FieldPatchMeta>>): void {
  for (const [defName, fields] of Object.entries(meta)) {
    const props = schemas[defName]?.properties as Record<string, Schema> | undefined;
    if (!props) continue;
    for (const [field, pm] of Object.entries(fields)) {
      const p = props[field];
      if (!p) continue;
      if (pm.mergeKey) p['x-kubernetes-patch-merge-key'] = pm.mergeKey;
      p['x-kubernetes-patch-strategy'] = pm.strategy;
    }
  }
}

function gvkKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

function indexByGVK(schemas: Record<string, Schema>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, s] of Object.entries(schemas)) {
    const gvks = s['x-kubernetes-group-version-kind'] as GVK[] | undefined;
    if (gvks) for (const g of gvks) out.set(gvkKey(g.group, g.version, g.kind), name);
  }
  return out;
}

/**
 * The built-in schema name of a definition's kind: its `schemaRef` when that names a
 * known schema, else the schema carrying its group/version/kind. Undefined for kinds
 * without a built-in schema (custom resources).
 */
export function builtinSchemaName(def: Pick<ResourceDefinition, 'group' | 'version' | 'kind' | 'schemaRef'>, set: SchemaSet = builtinSchemas()): string | undefined {
  if (def.schemaRef) {
    const n = schemaNameFromRef(def.schemaRef);
    if (n && set.schemas[n]) return n;
  }
  return set.byGVK.get(gvkKey(def.group, def.version, def.kind));
}

/** Name of the list kind's schema (`…PodList`) for a built-in kind's schema name. */
export function builtinListSchemaName(def: Pick<ResourceDefinition, 'group' | 'version' | 'listKind'>, set: SchemaSet = builtinSchemas()): string | undefined {
  return set.byGVK.get(gvkKey(def.group, def.version, def.listKind));
}

function standardProperties(apiVersion: string, metadataDescription: string, metaRef: string): Record<string, Schema> {
  return {
    apiVersion: { description: `APIVersion defines the versioned schema of this representation of an object (here ${apiVersion}).`, type: 'string' },
    kind: { description: 'Kind is a string value representing the REST resource this object represents.', type: 'string' },
    metadata: { allOf: [{ $ref: REF_PREFIX + metaRef }], description: metadataDescription },
  };
}

/**
 * A list schema for a kind that has none among the built-in schemas (custom kinds, or
 * built-in kinds kubernetes-types has no list type for): `items` of `itemSchema`.
 */
export function listSchema(def: Pick<ResourceDefinition, 'group' | 'version' | 'kind' | 'listKind'>, itemSchema: string): Schema {
  const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  return {
    description: `${def.listKind} is a list of ${def.kind}.`,
    properties: {
      ...standardProperties(apiVersion, 'Standard list metadata.', 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta'),
      items: { description: `List of ${def.kind} objects.`, items: { $ref: REF_PREFIX + itemSchema }, type: 'array' },
    },
    required: ['items'],
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: def.group, kind: def.listKind, version: def.version }],
  };
}

/**
 * The schema for a custom kind without a built-in schema: an object with the standard
 * `apiVersion`/`kind`/`metadata` and any further fields (`x-kubernetes-preserve-unknown-fields`),
 * named as upstream names CRD schemas (`com.example.v1.Widget`).
 */
export function customKindSchema(def: Pick<ResourceDefinition, 'group' | 'version' | 'kind'>): Schema {
  const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  return {
    description: `${def.kind} is a custom resource of ${apiVersion}; its fields are not described.`,
    properties: standardProperties(apiVersion, "Standard object's metadata.", 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'),
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: def.group, kind: def.kind, version: def.version }],
    'x-kubernetes-preserve-unknown-fields': true,
  };
}

/** Every `$ref` target name inside a schema (recursively). */
export function refsOf(s: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(s)) {
    for (const x of s) refsOf(x, out);
  } else if (s !== null && typeof s === 'object') {
    for (const [k, v] of Object.entries(s)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(REF_PREFIX)) out.add(v.slice(REF_PREFIX.length));
      else if (typeof v === 'object') refsOf(v, out);
    }
  }
  return out;
}

/**
 * The named schemas `roots` need, closed under `$ref`, in sorted name order. Names
 * found in neither `extra` nor `schemas` are left out.
 */
export function closure(roots: Iterable<string>, schemas: Record<string, Schema>, extra: Record<string, Schema> = {}): Record<string, Schema> {
  return runNow(closureSteps(roots, schemas, extra));
}

/** {@link closure} as steps (src/util/sliced.ts): a step after every 16 schemas walked. */
export function* closureSteps(roots: Iterable<string>, schemas: Record<string, Schema>, extra: Record<string, Schema> = {}): Steps<Record<string, Schema>> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    const s = extra[n] ?? schemas[n];
    if (!s) continue;
    seen.add(n);
    for (const r of refsOf(s)) if (!seen.has(r)) stack.push(r);
    if (seen.size % 16 === 0) yield;
  }
  const out: Record<string, Schema> = {};
  for (const n of [...seen].sort()) out[n] = (extra[n] ?? schemas[n])!;
  return out;
}

/**
 * Type information server-side apply needs (structured-merge-diff schema atoms), derived
 * from the built-in OpenAPI schemas: structs (known fields), maps (granular, or atomic
 * with `x-kubernetes-map-type: atomic`), lists (`x-kubernetes-list-type` atomic / set /
 * map with `x-kubernetes-list-map-keys`; lists without a list type but with
 * `x-kubernetes-patch-strategy: merge` are associative by their patch merge key, as
 * upstream's schema conversion does; other lists are atomic) and scalars. Kinds without a
 * schema (custom resources) are "deduced": maps granular, lists atomic.
 *
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/schemaconv/smd.go
 * @see https://kubernetes.io/docs/reference/using-api/server-side-apply/#merge-strategy
 */
import type { ResourceDefinition } from '../../api/resource.js';
import { builtinSchemaName, builtinSchemas, type Schema } from '../openapi/schemas.js';

/** A scalar, or anything replaced as a whole. */
export interface ScalarType {
  kind: 'scalar';
}

/** An object: named fields (struct) and/or arbitrary keys (map) of `elem` type. */
export interface MapType {
  kind: 'map';
  /** declared fields (structs); undefined for plain maps */
  fields?: Map<string, TypeNode>;
  /** type of keys that are not declared fields (plain maps, preserve-unknown) */
  elem?: TypeNode;
  /** replaced as a whole (`x-kubernetes-map-type: atomic`) */
  atomic: boolean;
  /** fields present in the zero value of the Go type (non-pointer structs, non-omitempty lists) */
  zero?: ReadonlyMap<string, 'struct' | 'null'>;
}

/** A list: atomic, a set of scalars, or a map keyed by `keys`. */
export interface ListType {
  kind: 'list';
  rel: 'atomic' | 'set' | 'map';
  keys?: readonly string[];
  /** defaults of key fields missing in an item (e.g. protocol TCP of ports) */
  keyDefaults?: Readonly<Record<string, string>>;
  elem: TypeNode;
}

/** Type of a value whose shape is unknown: maps granular, lists atomic. */
export interface DeducedType {
  kind: 'deduced';
}

export type TypeNode = ScalarType | MapType | ListType | DeducedType;

export const SCALAR: ScalarType = { kind: 'scalar' };
export const DEDUCED: DeducedType = { kind: 'deduced' };

/**
 * Key fields with defaults (upstream `+default` markers on list-map keys): items that omit
 * them are keyed with the default.
 */
const KEY_DEFAULTS: Record<string, Record<string, string>> = {
  'io.k8s.api.core.v1.ContainerPort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.ServicePort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.EndpointPort': { protocol: 'TCP' },
  'io.k8s.api.discovery.v1.EndpointPort': { protocol: 'TCP' },
};

/**
 * Fields present in the zero value of upstream's Go types (what an empty object of the
 * kind serializes to): non-pointer struct fields are `{}`, non-omitempty slices `null`.
 * Only matters on create, where upstream compares against the empty object.
 */
const ZERO_FIELDS: Record<string, Record<string, 'struct' | 'null'>> = {
  'io.k8s.api.apps.v1.DeploymentSpec': { template: 'struct', strategy: 'struct', selector: 'null' },
  'io.k8s.api.apps.v1.ReplicaSetSpec': { template: 'struct', selector: 'null' },
  'io.k8s.api.apps.v1.DaemonSetSpec': { template: 'struct', updateStrategy: 'struct', selector: 'null' },
  'io.k8s.api.apps.v1.StatefulSetSpec': { template: 'struct', updateStrategy: 'struct', selector: 'null' },
  'io.k8s.api.batch.v1.JobSpec': { template: 'struct' },
  'io.k8s.api.batch.v1.CronJobSpec': { jobTemplate: 'struct' },
  'io.k8s.api.batch.v1.JobTemplateSpec': { metadata: 'struct', spec: 'struct' },
  'io.k8s.api.core.v1.PodTemplateSpec': { metadata: 'struct', spec: 'struct' },
  'io.k8s.api.core.v1.PodTemplate': { template: 'struct' },
  'io.k8s.api.core.v1.PodSpec': { containers: 'null' },
  'io.k8s.api.rbac.v1.Role': { rules: 'null' },
  'io.k8s.api.rbac.v1.ClusterRole': { rules: 'null' },
};

/** Top-level fields every kind's zero value has (ObjectMeta, and Spec/Status structs). */
const ROOT_ZERO: Record<string, 'struct'> = { metadata: 'struct', spec: 'struct', status: 'struct' };

const REF = '#/components/schemas/';
const byName = new Map<string, TypeNode>();

function refName(s: Schema): string | undefined {
  const r = s.$ref as string | undefined;
  if (r?.startsWith(REF)) return r.slice(REF.length);
  const all = s.allOf as Schema[] | undefined;
  if (all?.length === 1) return refName(all[0]!);
  return undefined;
}

function named(name: string, schemas: Record<string, Schema>): TypeNode {
  let t = byName.get(name);
  if (t) return t;
  const s = schemas[name];
  if (!s) return DEDUCED;
  if (s.properties && typeof s.properties === 'object') {
    // register before descending: schemas are recursive (JSONSchemaProps)
    const m: MapType = { kind: 'map', atomic: s['x-kubernetes-map-type'] === 'atomic', fields: new Map() };
    const z = ZERO_FIELDS[name];
    if (z) m.zero = new Map(Object.entries(z));
    byName.set(name, m);
    fillStruct(m, s, schemas, name);
    return m;
  }
  t = convert(s, schemas, name);
  byName.set(name, t);
  return t;
}

function fillStruct(m: MapType, s: Schema, schemas: Record<string, Schema>, name: string): void {
  const props = s.properties as Record<string, Schema>;
  for (const [k, p] of Object.entries(props)) m.fields!.set(k, convert(p, schemas, name));
  if (s['x-kubernetes-preserve-unknown-fields'] === true) m.elem = DEDUCED;
  else if (s.additionalProperties && typeof s.additionalProperties === 'object') m.elem = convert(s.additionalProperties as Schema, schemas, name);
}

function convert(s: Schema, schemas: Record<string, Schema>, owner: string): TypeNode {
  const r = refName(s);
  if (r) return named(r, schemas);
  if (s['x-kubernetes-int-or-string'] || s.oneOf || s.anyOf) return SCALAR;
  switch (s.type) {
    case 'array': {
      const items = (s.items ?? {}) as Schema;
      const elem = convert(items, schemas, owner);
      const lt = s['x-kubernetes-list-type'] as string | undefined;
      const list: ListType = { kind: 'list', rel: 'atomic', elem };
      if (lt === 'set') list.rel = 'set';
      else if (lt === 'map') {
        const keys = s['x-kubernetes-list-map-keys'] as string[] | undefined;
        if (keys?.length) {
          list.rel = 'map';
          list.keys = keys;
        }
      } else if (lt === undefined && typeof s['x-kubernetes-patch-strategy'] === 'string' && (s['x-kubernetes-patch-strategy'] as string).split(',').includes('merge')) {
        const key = s['x-kubernetes-patch-merge-key'] as string | undefined;
        if (key) {
          list.rel = 'map';
          list.keys = [key];
        } else list.rel = 'set';
      }
      if (list.rel === 'map') {
        const itemName = refName(items);
        const d = itemName ? KEY_DEFAULTS[itemName] : undefined;
        if (d) list.keyDefaults = d;
      }
      return list;
    }
    case 'object': {
      if (s.properties) {
        const m: MapType = { kind: 'map', atomic: s['x-kubernetes-map-type'] === 'atomic', fields: new Map() };
        fillStruct(m, s, schemas, owner);
        return m;
      }
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        return { kind: 'map', atomic: s['x-kubernetes-map-type'] === 'atomic', elem: convert(s.additionalProperties as Schema, schemas, owner) };
      }
      return s['x-kubernetes-map-type'] === 'atomic' ? SCALAR : DEDUCED;
    }
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return SCALAR;
    default:
      return DEDUCED;
  }
}

const rootCache = new WeakMap<object, MapType>();
let objectMeta: TypeNode | undefined;

/**
 * A resource as the field manager sees it: a built-in kind (schema found by group,
 * version, kind or `schemaRef`), or a custom resource carrying its CRD version's
 * structural `openAPIV3Schema` (list types and map types are read from it).
 */
export type TypedDefinition = Pick<ResourceDefinition, 'group' | 'version' | 'kind' | 'schemaRef'> & { openAPIV3Schema?: unknown };

/**
 * The type of a resource's objects: the built-in schema of its kind with the zero-value
 * fields of the root (metadata, spec, status); for custom resources their structural
 * schema when the definition carries it, else deduced fields (maps granular, lists
 * atomic); metadata is always ObjectMeta.
 */
export function typeOfDefinition(def: TypedDefinition): MapType {
  let t = rootCache.get(def);
  if (t) return t;
  let name: string | undefined;
  let schemas: Record<string, Schema> = {};
  try {
    const set = builtinSchemas();
    schemas = set.schemas;
    name = builtinSchemaName(def, set);
  } catch {
    name = undefined;
  }
  let base = name ? named(name, schemas) : undefined;
  const crd = def.openAPIV3Schema;
  if (!base && crd && typeof crd === 'object' && (crd as Schema).properties) {
    const c = convert(crd as Schema, schemas, '');
    if (c.kind === 'map' && c.fields) {
      objectMeta ??= schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'] ? named('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', schemas) : DEDUCED;
      c.fields.set('metadata', objectMeta);
      c.fields.set('apiVersion', SCALAR);
      c.fields.set('kind', SCALAR);
      base = c;
    }
  }
  if (base && base.kind === 'map' && base.fields) {
    const zero = new Map<string, 'struct' | 'null'>(base.zero ?? []);
    for (const [k, v] of Object.entries(ROOT_ZERO)) if (base.fields.has(k)) zero.set(k, v);
    t = { ...base, zero };
  } else {
    objectMeta ??= schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'] ? named('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', schemas) : DEDUCED;
    t = {
      kind: 'map',
      atomic: false,
      fields: new Map<string, TypeNode>([
        ['apiVersion', SCALAR],
        ['kind', SCALAR],
        ['metadata', objectMeta],
      ]),
      elem: DEDUCED,
      zero: new Map([['metadata', 'struct']]),
    };
  }
  rootCache.set(def, t);
  return t;
}

/** The type of field/key `k` of an object of type `t`, and whether it is a declared field. */
export function fieldType(t: TypeNode, k: string): { type: TypeNode; named: boolean } {
  if (t.kind === 'map') {
    const f = t.fields?.get(k);
    if (f) return { type: f, named: true };
    return { type: t.elem ?? DEDUCED, named: false };
  }
  return { type: DEDUCED, named: false };
}

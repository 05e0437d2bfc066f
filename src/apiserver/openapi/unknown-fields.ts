/**
 * Unknown-field detection for server-side field validation: the paths of fields in a
 * request object that the kind's OpenAPI schema does not declare, spelled as upstream's
 * strict JSON decoder spells them (`spec.bogusField`, `spec.containers[0].imagePullPolice`).
 *
 * Each schema is compiled once into a small node tree (declared properties → child
 * node), so checking an object allocates only for the unknown fields it finds. Custom
 * resources use the schema their CRD registered (custom.ts).
 *
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation
 * @see https://github.com/kubernetes-sigs/json (strict decoding errors)
 */
import type { KObject, ResourceDefinition } from '../../api/resource.js';
import { builtinSchemaName, builtinSchemas, type Schema, type SchemaSet } from './schemas.js';
import { customResourceSchema } from './custom.js';

const REF_PREFIX = '#/components/schemas/';

/** Compiled validation node: what a JSON value at this position may contain. */
interface Node {
  /** declared properties (object schemas); undefined = any keys (free-form or map) */
  props?: Map<string, Node>;
  /** map values (additionalProperties) */
  values?: Node;
  /** array items */
  items?: Node;
}

/** Leaf: anything goes below (scalars, free-form objects, preserve-unknown-fields). */
const ANY: Node = {};

const compiled = new Map<string, Node>();

/** The node of a named schema, compiled on first use. Recursive schemas share nodes. */
function named(name: string, set: SchemaSet): Node {
  let n = compiled.get(name);
  if (n) return n;
  const s = set.schemas[name];
  if (!s) return ANY;
  n = {};
  compiled.set(name, n); // before recursing, for self-referencing schemas
  Object.assign(n, compile(s, set));
  return n;
}

function compile(s: Schema, set: SchemaSet): Node {
  if (typeof s.$ref === 'string') return named(s.$ref.slice(REF_PREFIX.length), set);
  const allOf = s.allOf as Schema[] | undefined;
  if (allOf?.length === 1) return compile(allOf[0]!, set);
  if (s['x-kubernetes-preserve-unknown-fields'] === true) return ANY;
  if (s.type === 'array' && s.items) {
    const items = compile(s.items as Schema, set);
    return items === ANY ? ANY : { items };
  }
  const props = s.properties as Record<string, Schema> | undefined;
  if (props) {
    const m = new Map<string, Node>();
    for (const [k, v] of Object.entries(props)) m.set(k, compile(v, set));
    return { props: m };
  }
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    const values = compile(s.additionalProperties as Schema, set);
    return values === ANY ? ANY : { values };
  }
  return ANY;
}

function walk(v: unknown, node: Node, path: string, out: string[]): void {
  if (node === ANY || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    if (node.items) for (let i = 0; i < v.length; i++) walk(v[i], node.items, `${path}[${i}]`, out);
    return;
  }
  const obj = v as Record<string, unknown>;
  if (node.props) {
    for (const k in obj) {
      const child = node.props.get(k);
      const p = path ? `${path}.${k}` : k;
      if (!child) out.push(p);
      else walk(obj[k], child, p, out);
    }
  } else if (node.values) {
    for (const k in obj) walk(obj[k], node.values, path ? `${path}.${k}` : k, out);
  }
}

/**
 * Field paths of `obj` its kind's schema does not declare, in document order, e.g.
 * `["spec.bogusField", "spec.containers[0].imagePullPolice"]`. Custom resources are checked
 * against the schema registered for their definition; kinds with neither a built-in nor
 * a registered schema report none. Loads the built-in schemas on first use.
 */
export function unknownFields(def: Pick<ResourceDefinition, 'group' | 'version' | 'kind' | 'schemaRef'>, obj: KObject): string[] {
  const set = builtinSchemas();
  const custom = customResourceSchema(def);
  let node: Node | undefined;
  if (custom) {
    node = compiledCustom.get(custom.schema);
    if (!node) compiledCustom.set(custom.schema, (node = compile(custom.schema, set)));
  } else {
    let b = builtinNode.get(def);
    if (b === undefined) {
      const name = builtinSchemaName(def, set);
      b = name ? named(name, set) : null;
      builtinNode.set(def, b);
    }
    if (b === null) return [];
    node = b;
  }
  const out: string[] = [];
  walk(obj, node, '', out);
  return out;
}

/** the compiled built-in schema per definition object (null: none), so a request costs one lookup */
const builtinNode = new WeakMap<object, Node | null>();

/** compiled custom resource schemas (registered at runtime, see custom.ts) */
const compiledCustom = new WeakMap<Schema, Node>();

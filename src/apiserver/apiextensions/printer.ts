/**
 * Server-side printing of custom resources: a `Name` column, then the CRD version's
 * `additionalPrinterColumns` (or, when it has none, `Age` from
 * `.metadata.creationTimestamp`), each cell read with a JSONPath
 * (`.spec.cronSpec`, `.status.conditions[0].type`, `.metadata.labels.app`,
 * `.status.conditions[?(@.type=="Ready")].status`).
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/registry/customresource/tableconvertor/tableconvertor.go
 */
import type { CustomResourceColumnDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { KObject, Obj, TableColumnDefinition, TablePrinter } from '../../api/resource.js';
import { translateTimestampSince } from '../../api/core/v1/shared/printing.js';

/** One step of a parsed path: a field name or an array index. */
type Step = string | number;

/**
 * Parses the simple JSONPath subset CRD columns use: `.a.b[0].c`, optionally wrapped in
 * `{…}`. Returns undefined for anything else (filters, wildcards, recursive descent).
 */
export function parseSimpleJSONPath(path: string): Step[] | undefined {
  const steps = parseColumnPath(path);
  return steps?.every((x): x is Step => typeof x === 'string' || typeof x === 'number') ? steps : undefined;
}

/** The value at `steps` inside `obj`, or undefined when a step is missing. */
export function valueAt(obj: unknown, steps: readonly Step[]): unknown {
  let cur: unknown = obj;
  for (const s of steps) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[s];
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** A step of a printer-column path: a simple step, `[*]`, or a filter `[?(@.type=="Ready")]`. */
type ColumnStep = Step | { wildcard: true } | { filter: Step[]; equals: unknown };

/**
 * Parses a printer column's JSONPath: the simple subset plus `[*]` and equality filters
 * (`.status.conditions[?(@.type=="Ready")].status`), which many CRDs use. Printing takes
 * the first match, as upstream's convertor prints `results[0][0]`.
 * @returns undefined for unsupported expressions (the cell stays empty)
 */
export function parseColumnPath(path: string): ColumnStep[] | undefined {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1).trim();
  if (!p.startsWith('.')) return undefined;
  const steps: ColumnStep[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\['([^']+)'\]|\[\*\]|\[\?\(@((?:\.[^.=!<>()\s]+)+)\s*==\s*("[^"]*"|'[^']*'|[^)\s]+)\s*\)\]/y;
  let i = 0;
  while (i < p.length) {
    re.lastIndex = i;
    const m = re.exec(p);
    if (!m) return undefined;
    if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(Number(m[2]));
    else if (m[3] !== undefined) steps.push(m[3]);
    else if (m[4] !== undefined) {
      const lit = m[5]!;
      let equals: unknown;
      if (/^["']/.test(lit)) equals = lit.slice(1, -1);
      else if (lit === 'true' || lit === 'false') equals = lit === 'true';
      else if (!Number.isNaN(Number(lit))) equals = Number(lit);
      else equals = lit;
      steps.push({ filter: m[4].slice(1).split('.'), equals });
    } else steps.push({ wildcard: true });
    i = re.lastIndex;
  }
  return steps;
}

/** The first value `steps` select inside `obj`, or undefined. */
export function columnValueAt(obj: unknown, steps: readonly ColumnStep[]): unknown {
  let cur: unknown = obj;
  for (const s of steps) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (typeof s === 'string' || typeof s === 'number') cur = (cur as Record<string | number, unknown>)[s];
    else if ('wildcard' in s) cur = Array.isArray(cur) ? cur[0] : Object.values(cur)[0];
    else {
      if (!Array.isArray(cur)) return undefined;
      cur = cur.find((el) => valueAt(el, s.filter) === s.equals);
    }
    if (cur === undefined) return undefined;
  }
  return cur;
}

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

/** Upstream's default when a version declares no columns. */
const DEFAULT_COLUMNS: CustomResourceColumnDefinition[] = [
  {
    name: 'Age',
    type: 'date',
    jsonPath: '.metadata.creationTimestamp',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  },
];

/**
 * A cell as upstream's convertor renders it: `string` columns print the value (JSON for
 * objects and arrays), `integer`/`number`/`boolean` keep values of their type, `date`
 * becomes an age (`5m`), anything that does not fit is null.
 */
function cell(v: unknown, type: string, now: Date): unknown {
  if (v === undefined || v === null) return null;
  switch (type) {
    case 'string':
      return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date':
      if (typeof v !== 'string') return null;
      return Number.isNaN(Date.parse(v)) ? '<invalid>' : translateTimestampSince(v, now);
    default:
      return null;
  }
}

/**
 * The table printer for one CRD version's columns.
 * @param columns `additionalPrinterColumns` of the version (empty/undefined = the Age column)
 */
export function customResourcePrinter(columns: readonly CustomResourceColumnDefinition[] | undefined): TablePrinter<KObject> {
  const cols = columns && columns.length ? columns : DEFAULT_COLUMNS;
  const defs: TableColumnDefinition[] = [{ name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 }];
  const paths: (ColumnStep[] | undefined)[] = [];
  const types: string[] = [];
  for (const c of cols) {
    defs.push({
      name: c.name,
      type: c.type as TableColumnDefinition['type'],
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    });
    paths.push(parseColumnPath(c.jsonPath));
    types.push(c.type);
  }
  return {
    columns: defs,
    cells(obj: Obj<KObject>, now: Date): unknown[] {
      const out: unknown[] = new Array(paths.length + 1);
      out[0] = obj.metadata.name ?? '';
      for (let i = 0; i < paths.length; i++) {
        const p = paths[i];
        out[i + 1] = p ? cell(columnValueAt(obj, p), types[i]!, now) : null;
      }
      return out;
    },
  };
}

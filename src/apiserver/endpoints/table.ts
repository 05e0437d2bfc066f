/**
 * Server-side printing: converts objects into a meta.k8s.io/v1 Table using the
 * resource's printer (upstream pkg/printers/internalversion via TableConvertor), or
 * the default Name / Created At columns.
 *
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#receiving-resources-as-tables
 */
import type { Obj, ResourceDefinition, TableColumnDefinition } from '../../api/resource.js';
import type { CachedObject } from '../registry/cached-object.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

const defaultColumns: TableColumnDefinition[] = [
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description:
      'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
    priority: 0,
  },
  {
    name: 'Created At',
    type: 'date',
    format: '',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
    priority: 0,
  },
];

export function tableColumns(def: ResourceDefinition): TableColumnDefinition[] {
  return def.table?.columns ?? defaultColumns;
}

function rowObject(o: CachedObject | Obj, include: IncludeObject): unknown {
  const obj = 'obj' in o && 'rv' in o ? (o as CachedObject).obj : (o as Obj);
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

/** Cells for one object. */
export function tableCells(def: ResourceDefinition, obj: Obj, now: Date): unknown[] {
  if (def.table) return def.table.cells(obj, now);
  return [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? null];
}

export interface TableOptions {
  includeObject: IncludeObject;
  noHeaders?: boolean;
  now: Date;
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** Builds a Table for a list of objects (or one object). */
export function toTable(def: ResourceDefinition, items: (CachedObject | Obj)[], opts: TableOptions): Record<string, unknown> {
  const objOf = (o: CachedObject | Obj): Obj => ('obj' in o && 'rv' in o ? (o as CachedObject).obj : (o as Obj));
  const order = def.table?.listOrder;
  if (order && items.length > 1) items = [...items].sort((a, b) => order(objOf(a), objOf(b)));
  const rows = items.map((o) => {
    const obj = objOf(o);
    const row: Record<string, unknown> = { cells: tableCells(def, obj, opts.now) };
    const ro = rowObject(o, opts.includeObject);
    if (ro !== undefined) row.object = ro;
    return row;
  });
  const metadata: Record<string, unknown> = {};
  if (opts.resourceVersion) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continue) metadata.continue = opts.continue;
  if (opts.remainingItemCount !== undefined) metadata.remainingItemCount = opts.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: opts.noHeaders ? null : tableColumns(def),
    rows,
  };
}

/** includeObject query parameter (default Metadata, as upstream). */
export function parseIncludeObject(v: string | null): IncludeObject {
  if (v === 'None' || v === 'Object' || v === 'Metadata') return v;
  return 'Metadata';
}

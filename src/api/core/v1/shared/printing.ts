/**
 * Table-printing helpers shared by the core resources: column definitions with upstream's
 * names and formats, the AGE cell, label and access-mode formatting.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/printers/internalversion/printers.go
 */
import { humanDuration } from '../../../../apimachinery/duration.js';
import type { TableColumnDefinition } from '../../../resource.js';

/** A column definition; `priority` 1 = shown only with `-o wide`. */
export function column(name: string, type: TableColumnDefinition['type'], description: string, priority = 0, format = ''): TableColumnDefinition {
  return { name, type, format, description, priority };
}

const NAME_DESC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const AGE_DESC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The `Name` column (format "name", as upstream). */
export const NAME_COLUMN: TableColumnDefinition = column('Name', 'string', NAME_DESC, 0, 'name');
/** The `Age` column. */
export const AGE_COLUMN: TableColumnDefinition = column('Age', 'string', AGE_DESC);

/**
 * Elapsed time since an RFC 3339 timestamp as upstream translateTimestampSince:
 * `<unknown>` when unset or unparsable, else duration.HumanDuration ("5m", "3d").
 *
 * @param ts RFC 3339 / MicroTime string
 * @param now the table's clock
 */
export function translateTimestampSince(ts: string | undefined | null, now: Date): string {
  if (!ts) return '<unknown>';
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now.getTime() - t);
}

/** `k1=v1,k2=v2` sorted by key, `<none>` when empty (upstream labels.FormatLabels). */
export function formatLabels(m: Record<string, string> | undefined | null): string {
  if (!m) return '<none>';
  const keys = Object.keys(m).sort();
  if (keys.length === 0) return '<none>';
  let s = '';
  for (let i = 0; i < keys.length; i++) {
    if (i > 0) s += ',';
    s += `${keys[i]}=${m[keys[i]!]}`;
  }
  return s;
}

/** `RWO,ROX,RWX,RWOP` in that fixed order, duplicates removed (upstream GetAccessModesAsString). */
export function accessModesString(modes: string[] | undefined | null): string {
  if (!modes || modes.length === 0) return '';
  const set = new Set(modes);
  const out: string[] = [];
  if (set.has('ReadWriteOnce')) out.push('RWO');
  if (set.has('ReadOnlyMany')) out.push('ROX');
  if (set.has('ReadWriteMany')) out.push('RWX');
  if (set.has('ReadWriteOncePod')) out.push('RWOP');
  return out.join(',');
}

/**
 * Label and field selector filtering for list and watch (upstream SelectionPredicate):
 * labels from metadata.labels, fields from metadata.name, metadata.namespace and the
 * resource's own field attributes (ResourceDefinition.fieldSelectorAttrs).
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/selection_predicate.go
 */
import type { Obj, ResourceDefinition } from '../../api/resource.js';
import { parseSelector } from '../../apimachinery/labels.js';
import { parseAndCheckFieldSelector } from '../../apimachinery/fields.js';
import type { CachedObject } from './cached-object.js';

export interface ObjectFilter {
  /** true when nothing is filtered */
  readonly empty: boolean;
  /** the exact value the selector requires for the definition's `watchIndexField` (lets watches use the index) */
  readonly indexValue?: string;
  matches(o: CachedObject | Obj): boolean;
}

const matchAll: ObjectFilter = { empty: true, matches: () => true };

/** Field attributes of an object: metadata.name, metadata.namespace plus the resource's own. */
export function fieldAttrs(def: ResourceDefinition, obj: Obj): Record<string, string> {
  const base: Record<string, string> = {
    'metadata.name': obj.metadata.name ?? '',
    'metadata.namespace': def.namespaced ? (obj.metadata.namespace ?? '') : '',
  };
  return def.fieldSelectorAttrs ? Object.assign(base, def.fieldSelectorAttrs(obj)) : base;
}

const allowedCache = new WeakMap<ResourceDefinition, Set<string>>();
function allowedFields(def: ResourceDefinition): Set<string> {
  let s = allowedCache.get(def);
  if (!s) {
    let extra: string[] = [];
    try {
      extra = Object.keys(def.fieldSelectorAttrs?.({ metadata: {} } as Obj) ?? {});
    } catch {
      extra = [];
    }
    s = new Set(['metadata.name', 'metadata.namespace', ...extra]);
    allowedCache.set(def, s);
  }
  return s;
}

/**
 * Compiles selectors into a filter.
 * @throws StatusError 400 BadRequest for unparsable selectors or unsupported field labels
 */
export function buildFilter(def: ResourceDefinition, labelSelector?: string, fieldSelector?: string): ObjectFilter {
  const lsel = labelSelector?.trim() ? parseSelector(labelSelector) : undefined;
  const fsel = fieldSelector?.trim() ? parseAndCheckFieldSelector(fieldSelector, [...allowedFields(def)]) : undefined;
  const ls = lsel && !lsel.empty() ? lsel : undefined;
  const fs = fsel && !fsel.empty() ? fsel : undefined;
  if (!ls && !fs) return matchAll;
  const indexValue = def.watchIndexField ? fs?.requiresExactMatch(def.watchIndexField) : undefined;
  return {
    empty: false,
    indexValue,
    matches(o: CachedObject | Obj): boolean {
      const obj = 'obj' in o ? (o as CachedObject).obj : (o as Obj);
      if (ls && !ls.matches(obj.metadata.labels ?? {})) return false;
      if (fs && !fs.matches(fieldAttrs(def, obj))) return false;
      return true;
    },
  };
}

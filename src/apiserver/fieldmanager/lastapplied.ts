/**
 * Client-side → server-side apply migration, for the `kubectl` field manager only (as
 * upstream): conflicts on fields the `kubectl.kubernetes.io/last-applied-configuration`
 * annotation lists are allowed (the user is taking over what they applied client-side),
 * and when the object carries that annotation a server-side apply rewrites it to the
 * newly applied configuration, so a later client-side apply diffs against it.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/util/managedfields/internal/lastappliedmanager.go
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/util/managedfields/internal/lastappliedupdater.go
 */
import type { KObject } from '../../api/resource.js';
import type { Conflict } from './conflict.js';
import type { FieldSet } from './fieldset.js';
import type { TypeNode } from './types.js';
import { toFieldSet } from './walk.js';

/** The annotation client-side apply keeps its last configuration in. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The manager whose applies take part in the migration. */
export const KUBECTL_MANAGER = 'kubectl';
/** Upstream's limit on the total size of annotations (bytes). */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/**
 * The fields of `live`'s last-applied configuration, or undefined when it has none (or
 * it does not parse).
 */
export function lastAppliedFields(live: KObject | undefined, t: TypeNode): FieldSet | undefined {
  const text = (live?.metadata?.annotations as Record<string, string> | undefined)?.[LAST_APPLIED_ANNOTATION];
  if (!text) return undefined;
  try {
    return toFieldSet(JSON.parse(text), t);
  } catch {
    return undefined;
  }
}

/** Conflicts whose path is not in `allowed`. */
export function disallowedConflicts(conflicts: readonly Conflict[], allowed: FieldSet): Conflict[] {
  return conflicts.filter((c) => !allowed.has(c.path));
}

/**
 * Rewrites the last-applied annotation of `result` (when it has one) to `applied`
 * without that annotation; removes it when the annotations would exceed 256 KiB.
 */
export function updateLastApplied(result: KObject, applied: KObject): void {
  const ann = result.metadata?.annotations as Record<string, string> | undefined;
  if (!ann || ann[LAST_APPLIED_ANNOTATION] === undefined) return;
  const copy = structuredClone(applied);
  const ca = copy.metadata?.annotations as Record<string, string> | undefined;
  if (ca) {
    delete ca[LAST_APPLIED_ANNOTATION];
    if (Object.keys(ca).length === 0) delete copy.metadata!.annotations;
  }
  ann[LAST_APPLIED_ANNOTATION] = JSON.stringify(copy);
  let total = 0;
  for (const [k, v] of Object.entries(ann)) total += k.length + v.length;
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) delete ann[LAST_APPLIED_ANNOTATION];
}

/**
 * The 409 of a server-side apply that would change fields other managers own, worded as
 * upstream's: `Apply failed with 1 conflict: conflict with "kubectl" using apps/v1:
 * .spec.replicas`, one `FieldManagerConflict` cause per field.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/util/managedfields/internal/conflict.go
 */
import { failureStatus, StatusError, type StatusCause } from '../../apimachinery/errors.js';
import { pathString, type PE } from './fieldset.js';
import { managerId, type ManagerFields } from './managed.js';

/** A field another manager owns. */
export interface Conflict {
  manager: Pick<ManagerFields, 'manager' | 'operation' | 'apiVersion' | 'subresource'>;
  path: PE[];
}

/**
 * A manager as conflict messages name it: `"name"`, `"name" with subresource "status"`,
 * and for Update managers ` using <apiVersion>`.
 */
export function printManager(m: Conflict['manager']): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}

function idOf(m: Conflict['manager']): string {
  return managerId(m.manager, m.operation, m.apiVersion, m.subresource);
}

/** The conflict message (one conflict inline; several grouped by manager in identifier order). */
export function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  }
  const byManager = new Map<string, Conflict[]>();
  for (const c of conflicts) {
    const id = idOf(c.manager);
    let l = byManager.get(id);
    if (!l) byManager.set(id, (l = []));
    l.push(c);
  }
  const lines: string[] = [];
  for (const id of [...byManager.keys()].sort()) {
    const l = byManager.get(id)!;
    lines.push(`conflicts with ${printManager(l[0]!.manager)}:`);
    for (const c of l) lines.push(`- ${pathString(c.path)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/**
 * 409 Conflict (upstream errors.NewApplyConflict): reason Conflict, the message above,
 * causes `{reason: FieldManagerConflict, message: 'conflict with <manager>', field: <path>}`.
 */
export function newApplyConflict(conflicts: readonly Conflict[]): StatusError {
  const sorted = [...conflicts].sort((a, b) => (idOf(a.manager) < idOf(b.manager) ? -1 : idOf(a.manager) > idOf(b.manager) ? 1 : 0));
  const causes: StatusCause[] = sorted.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) }));
  return new StatusError(failureStatus(409, 'Conflict', conflictMessage(sorted), { causes }));
}

/**
 * The options object of a write as admission webhooks receive it (AdmissionRequest
 * `options`): meta.k8s.io/v1 CreateOptions / UpdateOptions for creates, updates and
 * patches (a patch's PatchOptions become the options of the operation it performs, as
 * upstream's patchToUpdateOptions), DeleteOptions for deletes; members in Go's order.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/endpoints/handlers/patch.go (patchToUpdateOptions)
 */
import type { Operation } from './types.js';

/** The query parameters a write carries. */
export interface WriteOptionValues {
  dryRun: boolean;
  fieldManager?: string;
  fieldValidation?: string;
}

/** What a delete was asked with. */
export interface DeleteOptionValues {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
}

/** @returns the options object for `op`, or undefined for CONNECT */
export function operationOptions(op: Operation, w: WriteOptionValues, del?: DeleteOptionValues): Record<string, unknown> | undefined {
  if (op === 'CONNECT') return undefined;
  if (op === 'DELETE') {
    const o: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' };
    if (del?.gracePeriodSeconds !== undefined) o.gracePeriodSeconds = del.gracePeriodSeconds;
    if (del?.preconditions && (del.preconditions.uid || del.preconditions.resourceVersion)) o.preconditions = del.preconditions;
    if (del?.propagationPolicy) o.propagationPolicy = del.propagationPolicy;
    if (w.dryRun) o.dryRun = ['All'];
    return o;
  }
  const o: Record<string, unknown> = { kind: op === 'CREATE' ? 'CreateOptions' : 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' };
  if (w.dryRun) o.dryRun = ['All'];
  if (w.fieldManager) o.fieldManager = w.fieldManager;
  if (w.fieldValidation) o.fieldValidation = w.fieldValidation;
  return o;
}

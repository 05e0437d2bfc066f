/**
 * Strategy pieces the workload resources share: generation handling (1 on create, +1 on
 * spec changes), status kept on spec updates and spec kept on status updates, and the
 * status validators for replica counts.
 *
 * @see https://github.com/kubernetes/kubernetes/tree/v1.32.0/pkg/registry/apps
 */
import { type FieldError, invalid, Path } from '../../../../apimachinery/field-errors.js';
import { jsonEqual, validateNonnegativeField } from '../../../../apimachinery/validation.js';
import { dropDisabledPodFields } from '../../../core/v1/pod/strategy.js';
import { AGE_COLUMN, column, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import type { TableColumnDefinition } from '../../../resource.js';
import { layoutContainerCells } from './template.js';

interface WithSpecStatus {
  metadata: object;
  spec?: unknown;
  status?: unknown;
}

type Meta = { generation?: number; labels?: Record<string, string>; annotations?: Record<string, string> };

/** Create: status cleared, generation 1. */
export function prepareWorkloadCreate(obj: WithSpecStatus): void {
  obj.status = {};
  (obj.metadata as Meta).generation = 1;
}

/**
 * Update: the old status is kept; generation +1 when the spec changed (and, for
 * Deployments, when annotations changed: they are copied to ReplicaSets).
 */
export function prepareWorkloadUpdate(obj: WithSpecStatus, old: WithSpecStatus, bumpOnAnnotations = false): void {
  obj.status = old.status === undefined ? undefined : structuredClone(old.status);
  if (obj.status === undefined) delete obj.status;
  const om = old.metadata as Meta;
  const nm = obj.metadata as Meta;
  const gen = om.generation ?? 1;
  const changed = !jsonEqual(obj.spec ?? null, old.spec ?? null) || (bumpOnAnnotations && !jsonEqual(nm.annotations ?? {}, om.annotations ?? {}));
  nm.generation = changed ? gen + 1 : gen;
}

/** Status update: spec (and optionally labels) come from the old object. */
export function keepSpec(obj: WithSpecStatus, old: WithSpecStatus, keepLabels = false): void {
  obj.spec = structuredClone(old.spec);
  if (keepLabels) {
    const om = old.metadata as Meta;
    const nm = obj.metadata as Meta;
    if (om.labels) nm.labels = structuredClone(om.labels);
    else delete nm.labels;
  }
}

/** Each named status count is non-negative. */
export function nonNegativeCounts(status: Record<string, unknown> | undefined, names: string[], p: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const n of names) {
    const v = status?.[n];
    if (typeof v === 'number') errs.push(...validateNonnegativeField(v, p.child(n)));
  }
  return errs;
}

/** `cannot be greater than status.replicas` for each named count above `replicas`. */
export function notAboveReplicas(status: Record<string, unknown> | undefined, names: string[], p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const replicas = (status?.replicas as number | undefined) ?? 0;
  for (const n of names) {
    const v = (status?.[n] as number | undefined) ?? 0;
    if (v > replicas) errs.push(invalid(p.child(n), v, 'cannot be greater than status.replicas'));
  }
  return errs;
}

/** `collisionCount` may not go down (upstream IsDecremented). */
export function collisionCountNotDecremented(n: number | undefined, o: number | undefined): FieldError[] {
  if (o === undefined || o === null) return [];
  if (n === undefined || n === null || n < o) return [invalid(Path.root('status').child('collisionCount'), n ?? 0, 'cannot be decremented')];
  return [];
}

/** The -o wide columns every workload printer ends with. */
export const CONTAINERS_COLUMN: TableColumnDefinition = column('Containers', 'string', 'Names of each container in the template.', 1);
export const IMAGES_COLUMN: TableColumnDefinition = column('Images', 'string', 'Images referenced by each container in the template.', 1);
/** The Selector (-o wide) column. */
export function selectorColumn(description: string): TableColumnDefinition {
  return column('Selector', 'string', description, 1);
}

/**
 * The replica counts of a workload's status, as upstream's Validate<Kind>Status: each of
 * `counts` non-negative, each of `capped` not above `replicas`, and `availableReplicas`
 * not above `readyReplicas` (upstream words the last one `readyReplicas` for ReplicaSets
 * and Deployments, `status.readyReplicas` for StatefulSets: `readyName`).
 */
export function validateReplicaCounts(
  st: { availableReplicas?: number; readyReplicas?: number } | undefined,
  counts: string[],
  capped: string[],
  readyName = 'readyReplicas',
): FieldError[] {
  const p = Path.root('status');
  const s = (st ?? {}) as Record<string, unknown>;
  const errs = nonNegativeCounts(s, counts, p);
  errs.push(...notAboveReplicas(s, capped, p));
  if ((st?.availableReplicas ?? 0) > (st?.readyReplicas ?? 0)) errs.push(invalid(p.child('availableReplicas'), st?.availableReplicas ?? 0, `cannot be greater than ${readyName}`));
  return errs;
}

/**
 * prepareForCreate / prepareForUpdate of a workload with a pod template, the same in every
 * upstream workload strategy: {@link prepareWorkloadCreate} / {@link prepareWorkloadUpdate},
 * then the pod fields of disabled features dropped from the template.
 * @param podSpecOf where the template's pod spec sits (`spec.template.spec`; a CronJob's
 *   `spec.jobTemplate.spec.template.spec`)
 * @param bumpOnAnnotations Deployments: annotation changes bump the generation too
 */
export function podTemplatePrepare<T extends WithSpecStatus>(
  podSpecOf: (obj: T) => unknown,
  bumpOnAnnotations = false,
): { prepareForCreate(obj: T): void; prepareForUpdate(obj: T, old: T): void } {
  return {
    prepareForCreate(obj) {
      prepareWorkloadCreate(obj);
      dropDisabledPodFields(podSpecOf(obj) as never, undefined);
    },
    prepareForUpdate(obj, old) {
      prepareWorkloadUpdate(obj, old, bumpOnAnnotations);
      dropDisabledPodFields(podSpecOf(obj) as never, podSpecOf(old) as never);
    },
  };
}

/**
 * A workload's status subresource: the spec (with `keepLabels`, the labels too) comes
 * from the stored object, `validateUpdate` checks the new status.
 */
export function workloadStatusStrategy<T extends WithSpecStatus>(
  validateUpdate: (obj: T, old: T) => FieldError[],
  keepLabels = false,
): { prepareForUpdate(obj: T, old: T): void; validateUpdate(obj: T, old: T): FieldError[] } {
  return {
    prepareForUpdate(obj, old) {
      keepSpec(obj, old, keepLabels);
    },
    validateUpdate,
  };
}

/**
 * The columns a workload printer ends with: AGE, then the -o wide CONTAINERS, IMAGES and
 * (with a description) SELECTOR.
 */
export function workloadTailColumns(selectorDescription?: string): TableColumnDefinition[] {
  return [AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, ...(selectorDescription === undefined ? [] : [selectorColumn(selectorDescription)])];
}

/**
 * The cells for {@link workloadTailColumns}: the age, the template's container names and
 * images, and (when given) the selector text.
 */
export function workloadTailCells(
  creationTimestamp: string | undefined,
  containers: { name: string; image?: string }[] | undefined,
  now: Date,
  selector?: string,
): (string | number)[] {
  const [names, images] = layoutContainerCells(containers);
  return [translateTimestampSince(creationTimestamp, now), names, images, ...(selector === undefined ? [] : [selector])];
}

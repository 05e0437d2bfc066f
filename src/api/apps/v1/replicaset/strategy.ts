/**
 * apps/v1 ReplicaSet: replicas default 1, validation as upstream ValidateReplicaSetSpec
 * (selector immutable in apps/v1), generation on spec changes, status and scale
 * subresources, printer NAME DESIRED CURRENT READY AGE, field selector
 * `status.replicas`, short name `rs`, category `all`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/apps/replicaset/strategy.go
 */
import type { ReplicaSet, ReplicaSetSpec, ReplicaSetStatus } from 'kubernetes-types/apps/v1.js';
import { type FieldError, invalid, Path } from '../../../../apimachinery/field-errors.js';
import { formatLabelSelector } from '../../../../apimachinery/labels.js';
import { validateImmutableField } from '../../../../apimachinery/validation.js';
import { dropDisabledPodFields } from '../../../core/v1/pod/strategy.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { CONTAINERS_COLUMN, IMAGES_COLUMN, keepSpec, nonNegativeCounts, notAboveReplicas, prepareWorkloadCreate, prepareWorkloadUpdate, selectorColumn } from '../shared/strategy.js';
import { layoutContainerCells, type PodTemplate, setPodTemplateDefaults, validateOptionalNonnegative, validateTemplateForController, validateWorkloadSelector } from '../shared/template.js';

const SPEC = Path.root('spec');

/** Upstream SetDefaults_ReplicaSet plus the template defaults. */
export function setReplicaSetDefaults(rs: ReplicaSet): void {
  const spec = (rs.spec ??= {} as ReplicaSetSpec);
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  setPodTemplateDefaults(spec.template as PodTemplate);
}

/** Upstream ValidateReplicaSetSpec. */
export function validateReplicaSetSpec(spec: ReplicaSetSpec | undefined): FieldError[] {
  const s = spec ?? ({} as ReplicaSetSpec);
  const errs: FieldError[] = [];
  errs.push(...validateOptionalNonnegative(s.replicas, SPEC.child('replicas')));
  errs.push(...validateOptionalNonnegative(s.minReadySeconds, SPEC.child('minReadySeconds')));
  errs.push(...validateWorkloadSelector(s.selector, SPEC.child('selector'), 'deployment'));
  errs.push(...validateTemplateForController(s.template as PodTemplate, s.selector, SPEC.child('template'), 'ReplicaSet'));
  return errs;
}

/** Upstream ValidateReplicaSetStatus. */
export function validateReplicaSetStatus(st: ReplicaSetStatus | undefined): FieldError[] {
  const p = Path.root('status');
  const s = (st ?? {}) as Record<string, unknown>;
  const errs = nonNegativeCounts(s, ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'], p);
  errs.push(...notAboveReplicas(s, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'], p));
  if ((st?.availableReplicas ?? 0) > (st?.readyReplicas ?? 0)) errs.push(invalid(p.child('availableReplicas'), st?.availableReplicas ?? 0, 'cannot be greater than readyReplicas'));
  return errs;
}

/** apps/v1 replicasets. */
export const replicaSetDefinition: ResourceDefinition<K<ReplicaSet>> = {
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
  listKind: 'ReplicaSetList',
  resource: 'replicasets',
  singular: 'replicaset',
  namespaced: true,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  shortNames: ['rs'],
  categories: ['all'],
  schemaRef: 'apps/v1#ReplicaSet',

  defaults(obj) {
    setReplicaSetDefaults(obj);
  },
  prepareForCreate(obj) {
    prepareWorkloadCreate(obj);
    dropDisabledPodFields(obj.spec?.template?.spec as never, undefined);
  },
  prepareForUpdate(obj, old) {
    prepareWorkloadUpdate(obj, old);
    dropDisabledPodFields(obj.spec?.template?.spec as never, old.spec?.template?.spec as never);
  },
  validate(obj: O<ReplicaSet>) {
    return validateReplicaSetSpec(obj.spec);
  },
  validateUpdate(obj: O<ReplicaSet>, old: O<ReplicaSet>) {
    const errs = validateReplicaSetSpec(obj.spec);
    errs.push(...validateImmutableField(obj.spec?.selector, old.spec?.selector, SPEC.child('selector')));
    return errs;
  },
  fieldSelectorAttrs(obj) {
    return { 'status.replicas': String(obj.status?.replicas ?? 0) };
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Desired', 'integer', 'Replicas is the number of desired pods.'),
      column('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
      column('Ready', 'integer', 'The number of ready replicas for this replica set.'),
      AGE_COLUMN,
      CONTAINERS_COLUMN,
      IMAGES_COLUMN,
      selectorColumn('Selector is a label query over pods that should match the replica count.'),
    ],
    cells(obj, now) {
      const [names, images] = layoutContainerCells(obj.spec?.template?.spec?.containers);
      return [
        obj.metadata.name ?? '',
        obj.spec?.replicas ?? 0,
        obj.status?.replicas ?? 0,
        obj.status?.readyReplicas ?? 0,
        translateTimestampSince(obj.metadata.creationTimestamp, now),
        names,
        images,
        formatLabelSelector(obj.spec?.selector),
      ];
    },
  },
  status: {
    prepareForUpdate(obj, old) {
      keepSpec(obj, old);
    },
    validateUpdate(obj) {
      return validateReplicaSetStatus(obj.status);
    },
  },
};

/**
 * apps/v1 ReplicaSet: replicas default 1, validation as upstream ValidateReplicaSetSpec
 * (selector immutable in apps/v1), generation on spec changes, status and scale
 * subresources, printer NAME DESIRED CURRENT READY AGE, field selector
 * `status.replicas`, short name `rs`, category `all`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/apps/replicaset/strategy.go
 */
import type { ReplicaSet, ReplicaSetSpec, ReplicaSetStatus } from 'kubernetes-types/apps/v1.js';
import { type FieldError, Path } from '../../../../apimachinery/field-errors.js';
import { formatLabelSelector } from '../../../../apimachinery/labels.js';
import { validateImmutableField } from '../../../../apimachinery/validation.js';
import { column, NAME_COLUMN } from '../../../core/v1/shared/printing.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { podTemplatePrepare, validateReplicaCounts, workloadStatusStrategy, workloadTailCells, workloadTailColumns } from '../shared/strategy.js';
import { type PodTemplate, setPodTemplateDefaults, validateOptionalNonnegative, validateTemplateForController, validateWorkloadSelector } from '../shared/template.js';

const SPEC = Path.root('spec');

/** Upstream SetDefaults_ReplicaSet plus the template defaults. */
function setReplicaSetDefaults(rs: ReplicaSet): void {
  const spec = (rs.spec ??= {} as ReplicaSetSpec);
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  setPodTemplateDefaults(spec.template as PodTemplate);
}

/** Upstream ValidateReplicaSetSpec. */
function validateReplicaSetSpec(spec: ReplicaSetSpec | undefined): FieldError[] {
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
  return validateReplicaCounts(
    st,
    ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
    ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'],
  );
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
  ...podTemplatePrepare<O<ReplicaSet>>((o) => o.spec?.template?.spec),
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
      ...workloadTailColumns('Selector is a label query over pods that should match the replica count.'),
    ],
    cells(obj, now) {
      return [
        obj.metadata.name ?? '',
        obj.spec?.replicas ?? 0,
        obj.status?.replicas ?? 0,
        obj.status?.readyReplicas ?? 0,
        ...workloadTailCells(obj.metadata.creationTimestamp, obj.spec?.template?.spec?.containers, now, formatLabelSelector(obj.spec?.selector)),
      ];
    },
  },
  status: workloadStatusStrategy<O<ReplicaSet>>((obj) => validateReplicaSetStatus(obj.status)),
};

/**
 * core/v1 ReplicationController: the map-selector ancestor of ReplicaSets. Defaults as
 * upstream SetDefaults_ReplicationController (selector and labels from the template
 * labels, replicas 1), validation as upstream ValidateReplicationControllerSpec, the
 * selector is mutable (unlike apps/v1), generation on spec changes, status and scale
 * subresources, printer NAME DESIRED CURRENT READY AGE, field selector `status.replicas`,
 * short name `rc`, category `all`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/replicationcontroller/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/v1/defaults.go (SetDefaults_ReplicationController)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go (ValidateReplicationControllerSpec)
 */
import type { ReplicationController, ReplicationControllerSpec, ReplicationControllerStatus } from 'kubernetes-types/core/v1.js';
import { type FieldError, Path, required } from '../../../../apimachinery/field-errors.js';
import { validateLabels } from '../../../../apimachinery/validation.js';
import { validateReplicaSetStatus } from '../../../apps/v1/replicaset/strategy.js';
import { podTemplatePrepare, workloadStatusStrategy, workloadTailCells, workloadTailColumns } from '../../../apps/v1/shared/strategy.js';
import { type PodTemplate, setPodTemplateDefaults, validateOptionalNonnegative, validateTemplateForController } from '../../../apps/v1/shared/template.js';
import type { ResourceDefinition } from '../../../resource.js';
import { column, formatLabels, NAME_COLUMN } from '../shared/printing.js';
import type { K, O } from '../shared/types.js';

const SPEC = Path.root('spec');

/**
 * Upstream SetDefaults_ReplicationController plus the template defaults: an empty
 * selector and empty object labels take the template labels; replicas default to 1.
 */
function setReplicationControllerDefaults(rc: O<ReplicationController>): void {
  const spec = (rc.spec ??= {} as ReplicationControllerSpec);
  const labels = spec.template?.metadata?.labels;
  if (labels) {
    if (!spec.selector || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
    if (!rc.metadata.labels || Object.keys(rc.metadata.labels).length === 0) rc.metadata.labels = { ...labels };
  }
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  setPodTemplateDefaults(spec.template as PodTemplate | undefined);
}

/** Upstream ValidateReplicationControllerSpec (with ValidateNonEmptySelector and ValidatePodTemplateSpecForRC). */
function validateReplicationControllerSpec(spec: ReplicationControllerSpec | undefined): FieldError[] {
  const s = spec ?? ({} as ReplicationControllerSpec);
  const errs: FieldError[] = [];
  errs.push(...validateOptionalNonnegative(s.minReadySeconds, SPEC.child('minReadySeconds')));
  const selPath = SPEC.child('selector');
  if (!s.selector || Object.keys(s.selector).length === 0) errs.push(required(selPath, ''));
  errs.push(...validateLabels(s.selector, selPath));
  if (s.replicas === undefined || s.replicas === null) errs.push(required(SPEC.child('replicas'), ''));
  else errs.push(...validateOptionalNonnegative(s.replicas, SPEC.child('replicas')));
  const sel = s.selector && Object.keys(s.selector).length ? { matchLabels: s.selector } : undefined;
  errs.push(...validateTemplateForController(s.template as PodTemplate | undefined, sel, SPEC.child('template'), 'ReplicationController'));
  return errs;
}

/** Upstream ValidateReplicationControllerStatus: the same rules as a ReplicaSet's status. */
function validateReplicationControllerStatus(st: ReplicationControllerStatus | undefined): FieldError[] {
  return validateReplicaSetStatus(st);
}

/** core/v1 replicationcontrollers. */
export const replicationControllerDefinition: ResourceDefinition<K<ReplicationController>> = {
  group: '',
  version: 'v1',
  kind: 'ReplicationController',
  listKind: 'ReplicationControllerList',
  resource: 'replicationcontrollers',
  singular: 'replicationcontroller',
  namespaced: true,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  shortNames: ['rc'],
  categories: ['all'],
  schemaRef: 'core/v1#ReplicationController',

  defaults(obj) {
    setReplicationControllerDefaults(obj);
  },
  ...podTemplatePrepare<O<ReplicationController>>((o) => o.spec?.template?.spec),
  validate(obj) {
    return validateReplicationControllerSpec(obj.spec);
  },
  validateUpdate(obj) {
    return validateReplicationControllerSpec(obj.spec);
  },
  fieldSelectorAttrs(obj) {
    return { 'status.replicas': String(obj.status?.replicas ?? 0) };
  },
  table: {
    columns: [
      NAME_COLUMN,
      column(
        'Desired',
        'integer',
        'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
      ),
      column(
        'Current',
        'integer',
        'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
      ),
      column('Ready', 'integer', 'The number of ready replicas for this replication controller.'),
      ...workloadTailColumns(
        'Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
      ),
    ],
    cells(obj, now) {
      return [
        obj.metadata.name ?? '',
        obj.spec?.replicas ?? 0,
        obj.status?.replicas ?? 0,
        obj.status?.readyReplicas ?? 0,
        ...workloadTailCells(obj.metadata.creationTimestamp, obj.spec?.template?.spec?.containers, now, formatLabels(obj.spec?.selector)),
      ];
    },
  },
  status: workloadStatusStrategy<O<ReplicationController>>((obj) => validateReplicationControllerStatus(obj.status)),
};

/**
 * apps/v1 Deployment: defaults (replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit
 * 10, progressDeadlineSeconds 600), validation with upstream's messages, generation
 * bumped on spec or annotation changes, status kept by spec updates, spec and labels
 * kept by status updates, printer NAME READY UP-TO-DATE AVAILABLE AGE, short name
 * `deploy`, category `all`. The scale subresource is served by
 * src/apiserver/subresources/scale.ts.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/apps/deployment/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/apps/v1/defaults.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/apps/validation/validation.go
 */
import type { Deployment, DeploymentSpec, DeploymentStatus } from 'kubernetes-types/apps/v1.js';
import { type FieldError, forbidden, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { formatLabelSelector } from '../../../../apimachinery/labels.js';
import { validateImmutableField } from '../../../../apimachinery/validation.js';
import { column, NAME_COLUMN } from '../../../core/v1/shared/printing.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { collisionCountNotDecremented, podTemplatePrepare, validateReplicaCounts, workloadStatusStrategy, workloadTailCells, workloadTailColumns } from '../shared/strategy.js';
import {
  intOrPercentValue,
  isNotMoreThan100Percent,
  type PodTemplate,
  setPodTemplateDefaults,
  validateOptionalNonnegative,
  validatePositiveIntOrPercent,
  validateTemplateForController,
  validateWorkloadSelector,
} from '../shared/template.js';

const SPEC = Path.root('spec');

/** Upstream SetDefaults_Deployment plus the template defaults. */
export function setDeploymentDefaults(d: Deployment): void {
  const spec = (d.spec ??= {} as DeploymentSpec);
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  const strategy = (spec.strategy ??= {});
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = (strategy.rollingUpdate ??= {});
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = '25%';
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = '25%';
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  if (spec.progressDeadlineSeconds === undefined || spec.progressDeadlineSeconds === null) spec.progressDeadlineSeconds = 600;
  setPodTemplateDefaults(spec.template as PodTemplate);
}

function validateStrategy(spec: DeploymentSpec, p: Path): FieldError[] {
  const s = spec.strategy ?? {};
  switch (s.type) {
    case 'Recreate':
      return s.rollingUpdate ? [forbidden(p.child('rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'")] : [];
    case 'RollingUpdate': {
      const ru = s.rollingUpdate;
      if (!ru) return [required(p.child('rollingUpdate'), 'this should be defaulted and never be nil')];
      const rp = p.child('rollingUpdate');
      const errs = [...validatePositiveIntOrPercent(ru.maxUnavailable, rp.child('maxUnavailable')), ...validatePositiveIntOrPercent(ru.maxSurge, rp.child('maxSurge'))];
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
        errs.push(invalid(rp.child('maxUnavailable'), ru.maxUnavailable ?? 0, 'may not be 0 when `maxSurge` is 0'));
      }
      errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, rp.child('maxUnavailable')));
      return errs;
    }
    default:
      return [notSupported(p, s, ['Recreate', 'RollingUpdate'])];
  }
}

/** Upstream ValidateDeploymentSpec. */
export function validateDeploymentSpec(spec: DeploymentSpec | undefined): FieldError[] {
  const s = spec ?? ({} as DeploymentSpec);
  const errs: FieldError[] = [];
  errs.push(...validateOptionalNonnegative(s.replicas, SPEC.child('replicas')));
  errs.push(...validateWorkloadSelector(s.selector, SPEC.child('selector'), 'deployment'));
  errs.push(...validateTemplateForController(s.template as PodTemplate, s.selector, SPEC.child('template'), 'ReplicaSet'));
  errs.push(...validateStrategy(s, SPEC.child('strategy')));
  errs.push(...validateOptionalNonnegative(s.minReadySeconds, SPEC.child('minReadySeconds')));
  errs.push(...validateOptionalNonnegative(s.revisionHistoryLimit, SPEC.child('revisionHistoryLimit')));
  if (s.progressDeadlineSeconds !== undefined && s.progressDeadlineSeconds !== null) {
    errs.push(...validateOptionalNonnegative(s.progressDeadlineSeconds, SPEC.child('progressDeadlineSeconds')));
    if (s.progressDeadlineSeconds <= (s.minReadySeconds ?? 0)) {
      errs.push(invalid(SPEC.child('progressDeadlineSeconds'), s.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
    }
  }
  return errs;
}

/** Upstream ValidateDeploymentStatus. */
export function validateDeploymentStatus(st: DeploymentStatus | undefined): FieldError[] {
  return validateReplicaCounts(
    st,
    ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount'],
    ['updatedReplicas', 'readyReplicas', 'availableReplicas'],
  );
}

/** apps/v1 deployments. */
export const deploymentDefinition: ResourceDefinition<K<Deployment>> = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  listKind: 'DeploymentList',
  resource: 'deployments',
  singular: 'deployment',
  namespaced: true,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  shortNames: ['deploy'],
  categories: ['all'],
  schemaRef: 'apps/v1#Deployment',

  defaults(obj) {
    setDeploymentDefaults(obj);
  },
  ...podTemplatePrepare<O<Deployment>>((o) => o.spec?.template?.spec, true),
  validate(obj: O<Deployment>) {
    return validateDeploymentSpec(obj.spec);
  },
  validateUpdate(obj: O<Deployment>, old: O<Deployment>) {
    const errs = validateDeploymentSpec(obj.spec);
    errs.push(...validateImmutableField(obj.spec?.selector, old.spec?.selector, SPEC.child('selector')));
    return errs;
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Ready', 'string', 'Number of the pod with ready state'),
      column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
      column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
      ...workloadTailColumns('Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.'),
    ],
    cells(obj, now) {
      const st = obj.status ?? {};
      return [
        obj.metadata.name ?? '',
        `${st.readyReplicas ?? 0}/${obj.spec?.replicas ?? 0}`,
        st.updatedReplicas ?? 0,
        st.availableReplicas ?? 0,
        ...workloadTailCells(obj.metadata.creationTimestamp, obj.spec?.template?.spec?.containers, now, formatLabelSelector(obj.spec?.selector)),
      ];
    },
  },
  status: workloadStatusStrategy<O<Deployment>>(
    (obj, old) => [...validateDeploymentStatus(obj.status), ...collisionCountNotDecremented(obj.status?.collisionCount, old.status?.collisionCount)],
    true,
  ),
};

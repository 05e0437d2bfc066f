/**
 * apps/v1 StatefulSet: defaults (OrderedReady, RollingUpdate partition 0, Retain/Retain
 * PVC retention, replicas 1, revisionHistoryLimit 10, volumeClaimTemplates defaulted as
 * PVCs), validation with upstream's messages (only replicas, ordinals, template,
 * updateStrategy, PVC retention and minReadySeconds may change), status and scale
 * subresources, printer NAME READY AGE, short name `sts`, category `all`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/apps/statefulset/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/apps/validation/validation.go
 */
import type { StatefulSet, StatefulSetSpec, StatefulSetStatus } from 'kubernetes-types/apps/v1.js';
import { type FieldError, forbidden, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { jsonEqual, nameIsDNSLabel, validateAnnotations, validateLabels } from '../../../../apimachinery/validation.js';
import type { PodSpec } from '../../../core/v1/pod/types.js';
import { validatePodSpecificAnnotations } from '../../../core/v1/pod/validation.js';
import { column, NAME_COLUMN } from '../../../core/v1/shared/printing.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { collisionCountNotDecremented, podTemplatePrepare, validateReplicaCounts, workloadStatusStrategy, workloadTailCells, workloadTailColumns } from '../shared/strategy.js';
import {
  compileSelector,
  intOrPercentValue,
  isNotMoreThan100Percent,
  type PodTemplate,
  setPodTemplateDefaults,
  validateOptionalNonnegative,
  validatePositiveIntOrPercent,
  validateWorkloadSelector,
} from '../shared/template.js';

const SPEC = Path.root('spec');

/** Upstream SetDefaults_StatefulSet plus template and claim-template defaults. */
export function setStatefulSetDefaults(s: StatefulSet): void {
  const spec = (s.spec ??= {} as StatefulSetSpec);
  if (!spec.podManagementPolicy) spec.podManagementPolicy = 'OrderedReady';
  const us = (spec.updateStrategy ??= {});
  if (!us.type) {
    us.type = 'RollingUpdate';
    us.rollingUpdate ??= {};
  }
  if (us.type === 'RollingUpdate' && us.rollingUpdate && (us.rollingUpdate.partition === undefined || us.rollingUpdate.partition === null)) {
    us.rollingUpdate.partition = 0;
  }
  const ret = (spec.persistentVolumeClaimRetentionPolicy ??= {});
  if (!ret.whenDeleted) ret.whenDeleted = 'Retain';
  if (!ret.whenScaled) ret.whenScaled = 'Retain';
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  for (const pvc of spec.volumeClaimTemplates ?? []) {
    const ps = (pvc.spec ??= {});
    if (!ps.volumeMode) ps.volumeMode = 'Filesystem';
    const st = ((pvc as { status?: { phase?: string } }).status ??= {});
    if (!st.phase) st.phase = 'Pending';
  }
  setPodTemplateDefaults(spec.template as PodTemplate);
}

function validateUpdateStrategy(spec: StatefulSetSpec, p: Path): FieldError[] {
  const us = spec.updateStrategy ?? {};
  switch (us.type ?? '') {
    case '':
      return [required(p, '')];
    case 'OnDelete':
      return us.rollingUpdate ? [invalid(p.child('rollingUpdate'), us.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'")] : [];
    case 'RollingUpdate': {
      const ru = us.rollingUpdate;
      if (!ru) return [];
      const rp = p.child('rollingUpdate');
      const errs = validateOptionalNonnegative(ru.partition, rp.child('partition'));
      if (ru.maxUnavailable !== undefined && ru.maxUnavailable !== null) {
        errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, rp.child('maxUnavailable')));
        if (intOrPercentValue(ru.maxUnavailable) === 0) errs.push(invalid(rp.child('maxUnavailable'), ru.maxUnavailable, 'cannot be 0'));
        errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, rp.child('maxUnavailable')));
      }
      return errs;
    }
    default:
      return [invalid(p, us, "must be 'RollingUpdate' or 'OnDelete'")];
  }
}

function validateRetention(v: string | undefined, p: Path): FieldError[] {
  return v === 'Retain' || v === 'Delete' ? [] : [notSupported(p, v ?? '', ['Retain', 'Delete'])];
}

/** Upstream ValidateStatefulSetSpec. */
export function validateStatefulSetSpec(spec: StatefulSetSpec | undefined): FieldError[] {
  const s = spec ?? ({} as StatefulSetSpec);
  const errs: FieldError[] = [];
  const pmp = s.podManagementPolicy ?? '';
  if (!pmp) errs.push(required(SPEC.child('podManagementPolicy'), ''));
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel') errs.push(invalid(SPEC.child('podManagementPolicy'), pmp, "must be 'OrderedReady' or 'Parallel'"));
  errs.push(...validateUpdateStrategy(s, SPEC.child('updateStrategy')));
  const ret = s.persistentVolumeClaimRetentionPolicy;
  if (ret) {
    const rp = SPEC.child('persistentVolumeClaimRetentionPolicy');
    errs.push(...validateRetention(ret.whenDeleted, rp.child('whenDeleted')), ...validateRetention(ret.whenScaled, rp.child('whenScaled')));
  }
  errs.push(...validateOptionalNonnegative(s.replicas, SPEC.child('replicas')));
  errs.push(...validateOptionalNonnegative(s.minReadySeconds, SPEC.child('minReadySeconds')));
  if (s.ordinals) errs.push(...validateOptionalNonnegative(s.ordinals.start, SPEC.child('ordinals.start')));
  errs.push(...validateWorkloadSelector(s.selector, SPEC.child('selector'), 'statefulset'));
  const t = s.template as PodTemplate | undefined;
  const tp = SPEC.child('template');
  if (!t) errs.push(required(tp, ''));
  else {
    const sel = compileSelector(s.selector);
    if (sel && !sel.empty() && !sel.matches(t.metadata?.labels ?? {})) {
      errs.push(invalid(tp.child('metadata', 'labels'), t.metadata?.labels ?? {}, '`selector` does not match template `labels`'));
    }
    errs.push(...validateLabels(t.metadata?.labels, tp.child('labels')));
    errs.push(...validateAnnotations(t.metadata?.annotations, tp.child('annotations')));
    errs.push(...validatePodSpecificAnnotations(t.metadata?.annotations, (t.spec ?? { containers: [] }) as PodSpec, tp.child('annotations')));
  }
  const rp = t?.spec?.restartPolicy ?? '';
  if (rp !== 'Always') errs.push(notSupported(tp.child('spec', 'restartPolicy'), rp, ['Always']));
  if (t?.spec?.activeDeadlineSeconds !== undefined && t.spec.activeDeadlineSeconds !== null) {
    errs.push(forbidden(tp.child('spec', 'activeDeadlineSeconds'), 'activeDeadlineSeconds in StatefulSet is not Supported'));
  }
  return errs;
}

/** Upstream ValidateStatefulSetStatus. */
export function validateStatefulSetStatus(st: StatefulSetStatus | undefined): FieldError[] {
  return validateReplicaCounts(
    st,
    ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount'],
    ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'],
    'status.readyReplicas',
  );
}

const UPDATABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'] as const;

/** apps/v1 statefulsets. */
export const statefulSetDefinition: ResourceDefinition<K<StatefulSet>> = {
  group: 'apps',
  version: 'v1',
  kind: 'StatefulSet',
  listKind: 'StatefulSetList',
  resource: 'statefulsets',
  singular: 'statefulset',
  namespaced: true,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  shortNames: ['sts'],
  categories: ['all'],
  schemaRef: 'apps/v1#StatefulSet',
  validateName: nameIsDNSLabel,

  defaults(obj) {
    setStatefulSetDefaults(obj);
  },
  ...podTemplatePrepare<O<StatefulSet>>((o) => o.spec?.template?.spec),
  validate(obj: O<StatefulSet>) {
    return validateStatefulSetSpec(obj.spec);
  },
  validateUpdate(obj: O<StatefulSet>, old: O<StatefulSet>) {
    const errs = validateStatefulSetSpec(obj.spec);
    const a = { ...(obj.spec ?? {}) } as Record<string, unknown>;
    const b = { ...(old.spec ?? {}) } as Record<string, unknown>;
    for (const k of UPDATABLE) {
      delete a[k];
      delete b[k];
    }
    if (!jsonEqual(a, b)) {
      errs.push(
        forbidden(
          SPEC,
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ),
      );
    }
    return errs;
  },
  table: {
    columns: [NAME_COLUMN, column('Ready', 'string', 'Number of the pod with ready state'), ...workloadTailColumns()],
    cells(obj, now) {
      return [
        obj.metadata.name ?? '',
        `${obj.status?.readyReplicas ?? 0}/${obj.spec?.replicas ?? 0}`,
        ...workloadTailCells(obj.metadata.creationTimestamp, obj.spec?.template?.spec?.containers, now),
      ];
    },
  },
  status: workloadStatusStrategy<O<StatefulSet>>((obj, old) => [
    ...validateStatefulSetStatus(obj.status),
    ...collisionCountNotDecremented(obj.status?.collisionCount, old.status?.collisionCount),
  ]),
};

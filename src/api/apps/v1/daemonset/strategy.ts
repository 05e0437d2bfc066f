/**
 * apps/v1 DaemonSet: defaults (RollingUpdate maxUnavailable 1 / maxSurge 0,
 * revisionHistoryLimit 10), validation with upstream's messages (selector immutable),
 * the template generation kept in the `deprecated.daemonset.template.generation`
 * annotation as upstream's v1 conversion shows it (1 on create, +1 when the template
 * changes), status subresource, printer NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE
 * NODE SELECTOR AGE, short name `ds`, category `all`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/apps/daemonset/strategy.go
 */
import type { DaemonSet, DaemonSetSpec, DaemonSetStatus } from 'kubernetes-types/apps/v1.js';
import { type FieldError, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { formatLabels, formatLabelSelector } from '../../../../apimachinery/labels.js';
import { jsonEqual, validateImmutableField } from '../../../../apimachinery/validation.js';
import { dropDisabledPodFields } from '../../../core/v1/pod/strategy.js';
import { column, NAME_COLUMN } from '../../../core/v1/shared/printing.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { collisionCountNotDecremented, nonNegativeCounts, prepareWorkloadCreate, workloadStatusStrategy, workloadTailCells, workloadTailColumns } from '../shared/strategy.js';
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
/** The annotation upstream's v1 conversion carries the internal templateGeneration in. */
const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/** Upstream SetDefaults_DaemonSet plus the template defaults. */
function setDaemonSetDefaults(ds: DaemonSet): void {
  const spec = (ds.spec ??= {} as DaemonSetSpec);
  const us = (spec.updateStrategy ??= {});
  if (!us.type) us.type = 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    const ru = (us.rollingUpdate ??= {});
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = 1;
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = 0;
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  setPodTemplateDefaults(spec.template as PodTemplate);
}

function validateUpdateStrategy(spec: DaemonSetSpec, p: Path): FieldError[] {
  const us = spec.updateStrategy ?? {};
  switch (us.type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate': {
      const ru = us.rollingUpdate;
      if (!ru) return [required(p.child('rollingUpdate'), '')];
      const rp = p.child('rollingUpdate');
      const errs = [...validatePositiveIntOrPercent(ru.maxUnavailable, rp.child('maxUnavailable')), ...validatePositiveIntOrPercent(ru.maxSurge, rp.child('maxSurge'))];
      errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, rp.child('maxUnavailable')), ...isNotMoreThan100Percent(ru.maxSurge, rp.child('maxSurge')));
      const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
      if (hasUnavailable && hasSurge) errs.push(invalid(rp.child('maxSurge'), ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
      else if (!hasUnavailable && !hasSurge) errs.push(required(rp.child('maxUnavailable'), 'cannot be 0 when maxSurge is 0'));
      return errs;
    }
    default:
      return [notSupported(p, us, ['RollingUpdate', 'OnDelete'])];
  }
}

/** Upstream ValidateDaemonSetSpec. */
function validateDaemonSetSpec(spec: DaemonSetSpec | undefined): FieldError[] {
  const s = spec ?? ({} as DaemonSetSpec);
  const errs: FieldError[] = [];
  errs.push(...validateWorkloadSelector(s.selector, SPEC.child('selector'), 'daemonset'));
  errs.push(...validateTemplateForController(s.template as PodTemplate, s.selector, SPEC.child('template'), 'DaemonSet'));
  errs.push(...validateOptionalNonnegative(s.minReadySeconds, SPEC.child('minReadySeconds')));
  errs.push(...validateUpdateStrategy(s, SPEC.child('updateStrategy')));
  errs.push(...validateOptionalNonnegative(s.revisionHistoryLimit, SPEC.child('revisionHistoryLimit')));
  return errs;
}

/** Upstream validateDaemonSetStatus. */
function validateDaemonSetStatus(st: DaemonSetStatus | undefined): FieldError[] {
  return nonNegativeCounts(
    (st ?? {}) as Record<string, unknown>,
    [
      'currentNumberScheduled',
      'numberMisscheduled',
      'desiredNumberScheduled',
      'numberReady',
      'observedGeneration',
      'updatedNumberScheduled',
      'numberAvailable',
      'numberUnavailable',
      'collisionCount',
    ],
    Path.root('status'),
  );
}

function templateGeneration(ds: { metadata: { annotations?: Record<string, string> } }): number {
  const v = Number(ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION]);
  return Number.isInteger(v) && v > 0 ? v : 0;
}

/** apps/v1 daemonsets. */
export const daemonSetDefinition: ResourceDefinition<K<DaemonSet>> = {
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  listKind: 'DaemonSetList',
  resource: 'daemonsets',
  singular: 'daemonset',
  namespaced: true,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  shortNames: ['ds'],
  categories: ['all'],
  schemaRef: 'apps/v1#DaemonSet',

  defaults(obj) {
    setDaemonSetDefaults(obj);
  },
  prepareForCreate(obj) {
    prepareWorkloadCreate(obj);
    dropDisabledPodFields(obj.spec?.template?.spec as never, undefined);
    const gen = Math.max(templateGeneration(obj), 1);
    obj.metadata.annotations = { ...obj.metadata.annotations, [TEMPLATE_GENERATION_ANNOTATION]: String(gen) };
  },
  prepareForUpdate(obj, old) {
    (obj as { status?: unknown }).status = structuredClone(old.status);
    dropDisabledPodFields(obj.spec?.template?.spec as never, old.spec?.template?.spec as never);
    const meta = obj.metadata as { generation?: number };
    const oldGen = (old.metadata as { generation?: number }).generation ?? 1;
    let tg = Math.max(templateGeneration(old), 1);
    if (!jsonEqual(obj.spec?.template ?? null, old.spec?.template ?? null)) {
      tg++;
      meta.generation = oldGen + 1;
    } else meta.generation = jsonEqual(obj.spec ?? null, old.spec ?? null) ? oldGen : oldGen + 1;
    obj.metadata.annotations = { ...obj.metadata.annotations, [TEMPLATE_GENERATION_ANNOTATION]: String(tg) };
  },
  validate(obj: O<DaemonSet>) {
    return validateDaemonSetSpec(obj.spec);
  },
  validateUpdate(obj: O<DaemonSet>, old: O<DaemonSet>) {
    const errs = validateDaemonSetSpec(obj.spec);
    errs.push(...validateImmutableField(obj.spec?.selector, old.spec?.selector, SPEC.child('selector')));
    return errs;
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod).'),
      column('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.'),
      column('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
      column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
      column(
        'Available',
        'integer',
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
      ),
      column(
        'Node Selector',
        'string',
        "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node.",
      ),
      ...workloadTailColumns('A label query over pods that are managed by the daemon set.'),
    ],
    cells(obj, now) {
      const st = obj.status ?? ({} as DaemonSetStatus);
      return [
        obj.metadata.name ?? '',
        st.desiredNumberScheduled ?? 0,
        st.currentNumberScheduled ?? 0,
        st.numberReady ?? 0,
        st.updatedNumberScheduled ?? 0,
        st.numberAvailable ?? 0,
        formatLabels(obj.spec?.template?.spec?.nodeSelector),
        ...workloadTailCells(obj.metadata.creationTimestamp, obj.spec?.template?.spec?.containers, now, formatLabelSelector(obj.spec?.selector)),
      ];
    },
  },
  status: workloadStatusStrategy<O<DaemonSet>>((obj, old) => [
    ...validateDaemonSetStatus(obj.status),
    ...collisionCountNotDecremented(obj.status?.collisionCount, old.status?.collisionCount),
  ]),
};

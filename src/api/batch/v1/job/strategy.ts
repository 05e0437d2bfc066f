/**
 * batch/v1 Job: defaults (completions/parallelism 1, backoffLimit 6, NonIndexed,
 * suspend false, podReplacementPolicy), the generated selector
 * `batch.kubernetes.io/controller-uid=<uid>` with the job-name/controller-uid labels on
 * the template (copied to the Job's own labels when it has none, as upstream's
 * defaulting does once the object is read back), generation on spec changes, status
 * subresource, printer NAME STATUS COMPLETIONS DURATION AGE, field selector
 * `status.successful`, category `all`.
 *
 * Deleting a batch/v1 Job without a propagation policy orphans its pods (upstream's
 * DefaultGarbageCollectionPolicy for batch/v1 is OrphanDependents).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/batch/job/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/batch/v1/defaults.go
 */
import type { Job, JobSpec, JobStatus } from 'kubernetes-types/batch/v1.js';
import { humanDuration } from '../../../../apimachinery/duration.js';
import { Path } from '../../../../apimachinery/field-errors.js';
import { formatLabelSelector } from '../../../../apimachinery/labels.js';
import { nameIsDNSSubdomain } from '../../../../apimachinery/validation.js';
import { nonNegativeCounts, podTemplatePrepare, workloadStatusStrategy, workloadTailCells, workloadTailColumns } from '../../../apps/v1/shared/strategy.js';
import { type PodTemplate, setPodTemplateDefaults } from '../../../apps/v1/shared/template.js';
import { column, NAME_COLUMN } from '../../../core/v1/shared/printing.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { CONTROLLER_UID_LABEL, JOB_NAME_LABEL, LEGACY_CONTROLLER_UID_LABEL, LEGACY_JOB_NAME_LABEL, validateJob, validateJobUpdate } from './validation.js';

const MAX_INT32 = 2147483647;

/** Upstream SetDefaults_Job on the Job spec (also used for CronJob job templates' pod specs). */
function setJobDefaults(job: Job): void {
  const spec = (job.spec ??= {} as JobSpec);
  if ((spec.completions === undefined || spec.completions === null) && (spec.parallelism === undefined || spec.parallelism === null)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (spec.parallelism === undefined || spec.parallelism === null) spec.parallelism = 1;
  if (spec.backoffLimit === undefined || spec.backoffLimit === null) {
    spec.backoffLimit = spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null ? MAX_INT32 : 6;
  }
  const tl = spec.template?.metadata?.labels;
  const meta = (job.metadata ??= {});
  if (tl && Object.keys(meta.labels ?? {}).length === 0) meta.labels = { ...tl };
  if (!spec.completionMode) spec.completionMode = 'NonIndexed';
  if (spec.suspend === undefined || spec.suspend === null) spec.suspend = false;
  for (const r of spec.podFailurePolicy?.rules ?? []) for (const c of r.onPodConditions ?? []) if (!c.status) c.status = 'True';
  if (!spec.podReplacementPolicy) spec.podReplacementPolicy = spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  setPodTemplateDefaults(spec.template as PodTemplate);
}

/** Upstream generateSelector: job-name and controller-uid labels on the template, controller-uid in the selector. */
function generateJobSelector(job: O<Job>): void {
  const spec = job.spec!;
  const tmeta = ((spec.template ??= {} as JobSpec['template']).metadata ??= {});
  const labels = (tmeta.labels ??= {});
  const name = job.metadata.name ?? '';
  const uid = job.metadata.uid ?? '';
  for (const k of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!(k in labels)) labels[k] = name;
  for (const k of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) if (!(k in labels)) labels[k] = uid;
  const sel = (spec.selector ??= {});
  const ml = (sel.matchLabels ??= {});
  if (!(CONTROLLER_UID_LABEL in ml)) ml[CONTROLLER_UID_LABEL] = uid;
}

function hasCondition(st: JobStatus | undefined, type: string): boolean {
  const c = st?.conditions?.find((x) => x.type === type);
  return c?.status === 'True';
}

/** The STATUS cell (upstream printJob). */
function jobStatusText(job: O<Job>): string {
  const st = job.status;
  if (hasCondition(st, 'Complete')) return 'Complete';
  if (hasCondition(st, 'Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp) return 'Terminating';
  if (hasCondition(st, 'Suspended')) return 'Suspended';
  if (hasCondition(st, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

/** The COMPLETIONS cell: `1/1`, `0/1 of 3` (upstream printJob). */
function jobCompletionsText(job: O<Job>): string {
  const succeeded = job.status?.succeeded ?? 0;
  if (job.spec?.completions !== undefined && job.spec.completions !== null) return `${succeeded}/${job.spec.completions}`;
  const par = job.spec?.parallelism ?? 0;
  return par > 1 ? `${succeeded}/1 of ${par}` : `${succeeded}/1`;
}

function jobDuration(job: O<Job>, now: Date): string {
  const start = job.status?.startTime;
  if (!start) return '';
  const end = job.status?.completionTime;
  return humanDuration((end ? Date.parse(end) : now.getTime()) - Date.parse(start));
}

/** batch/v1 jobs. */
export const jobDefinition: ResourceDefinition<K<Job>> = {
  group: 'batch',
  version: 'v1',
  kind: 'Job',
  listKind: 'JobList',
  resource: 'jobs',
  singular: 'job',
  namespaced: true,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  categories: ['all'],
  schemaRef: 'batch/v1#Job',
  validateName: nameIsDNSSubdomain,

  defaults(obj) {
    setJobDefaults(obj);
  },
  ...podTemplatePrepare<O<Job>>((o) => o.spec?.template?.spec),
  hooks: {
    // the selector needs the UID, which the store assigns after prepareForCreate
    async beforeCreate(obj) {
      if (!obj.spec?.manualSelector) generateJobSelector(obj);
      const tl = obj.spec?.template?.metadata?.labels;
      if (tl && Object.keys(obj.metadata.labels ?? {}).length === 0) obj.metadata.labels = { ...tl };
    },
  },
  validate(obj) {
    return validateJob(obj);
  },
  validateUpdate(obj, old) {
    return validateJobUpdate(obj, old);
  },
  fieldSelectorAttrs(obj) {
    return { 'status.successful': String(obj.status?.succeeded ?? 0) };
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Status', 'string', 'Status of the job.'),
      column('Completions', 'string', 'The number of pods which reached phase Succeeded.'),
      column('Duration', 'string', 'Time required to complete the job.'),
      ...workloadTailColumns('A label query over pods that should match the pod count.'),
    ],
    cells(obj, now) {
      return [
        obj.metadata.name ?? '',
        jobStatusText(obj),
        jobCompletionsText(obj),
        jobDuration(obj, now),
        ...workloadTailCells(obj.metadata.creationTimestamp, obj.spec?.template?.spec?.containers, now, formatLabelSelector(obj.spec?.selector)),
      ];
    },
  },
  status: workloadStatusStrategy<O<Job>>((obj) =>
    nonNegativeCounts((obj.status ?? {}) as Record<string, unknown>, ['active', 'succeeded', 'failed', 'ready', 'terminating'], Path.root('status')),
  ),
};

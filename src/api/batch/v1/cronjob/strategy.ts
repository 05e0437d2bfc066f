/**
 * batch/v1 CronJob: defaults (concurrencyPolicy Allow, suspend false, history limits 3
 * and 1), validation with upstream's messages (robfig cron schedule, no TZ in the
 * schedule, IANA timeZone, job template without selector, name at most 52 characters),
 * status subresource, printer NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE,
 * short name `cj`, category `all`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/batch/cronjob/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/batch/validation/validation.go
 */
import type { CronJob, CronJobSpec, JobSpec } from 'kubernetes-types/batch/v1.js';
import { type FieldError, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { formatLabelSelector } from '../../../../apimachinery/labels.js';
import { CONTAINERS_COLUMN, IMAGES_COLUMN, keepSpec, podTemplatePrepare, selectorColumn } from '../../../apps/v1/shared/strategy.js';
import { layoutContainerCells, type PodTemplate, setPodTemplateDefaults, validateOptionalNonnegative } from '../../../apps/v1/shared/template.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import type { ResourceDefinition } from '../../../resource.js';
import { validateJobSpecFields } from '../job/validation.js';
import { isKnownZone, parseSchedule, ScheduleError } from './schedule.js';

const SPEC = Path.root('spec');

/** Upstream SetDefaults_CronJob plus the job template's pod template defaults. */
function setCronJobDefaults(cj: CronJob): void {
  const spec = (cj.spec ??= {} as CronJobSpec);
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  if (spec.suspend === undefined || spec.suspend === null) spec.suspend = false;
  if (spec.successfulJobsHistoryLimit === undefined || spec.successfulJobsHistoryLimit === null) spec.successfulJobsHistoryLimit = 3;
  if (spec.failedJobsHistoryLimit === undefined || spec.failedJobsHistoryLimit === null) spec.failedJobsHistoryLimit = 1;
  setPodTemplateDefaults(spec.jobTemplate?.spec?.template as PodTemplate);
}

const TZ_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateTimeZone(tz: string | undefined | null, p: Path): FieldError[] {
  if (tz === undefined || tz === null) return [];
  if (tz.length === 0) return [invalid(p, tz, 'timeZone must be nil or non-empty string')];
  for (const part of tz.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !TZ_PART.test(part)) return [invalid(p, tz, `unknown time zone ${tz}`)];
  }
  const errs: FieldError[] = [];
  if (tz.toLowerCase() === 'local') errs.push(invalid(p, tz, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  else if (!isKnownZone(tz)) errs.push(invalid(p, tz, `unknown time zone ${tz}`));
  return errs;
}

/** Upstream validateCronJobSpec. */
function validateCronJobSpec(spec: CronJobSpec | undefined, old: CronJobSpec | undefined): FieldError[] {
  const s = spec ?? ({} as CronJobSpec);
  const errs: FieldError[] = [];
  const sp = SPEC.child('schedule');
  if (!s.schedule) errs.push(required(sp, ''));
  else {
    try {
      parseSchedule(s.schedule);
    } catch (e) {
      if (e instanceof ScheduleError) errs.push(invalid(sp, s.schedule, e.message));
      else throw e;
    }
    const allowTZ = !!old?.schedule?.includes('TZ');
    if (allowTZ && s.schedule.includes('TZ') && s.timeZone !== undefined && s.timeZone !== null) {
      errs.push(invalid(sp, s.schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
    } else if (!allowTZ && s.schedule.includes('TZ')) errs.push(invalid(sp, s.schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  errs.push(...validateOptionalNonnegative(s.startingDeadlineSeconds, SPEC.child('startingDeadlineSeconds')));
  if (!old || old.timeZone !== s.timeZone) errs.push(...validateTimeZone(s.timeZone, SPEC.child('timeZone')));
  const cp = s.concurrencyPolicy ?? '';
  if (!cp) errs.push(required(SPEC.child('concurrencyPolicy'), ''));
  else if (!['Allow', 'Forbid', 'Replace'].includes(cp)) errs.push(notSupported(SPEC.child('concurrencyPolicy'), cp, ['Allow', 'Forbid', 'Replace']));
  const jt = SPEC.child('jobTemplate');
  const js = (s.jobTemplate?.spec ?? {}) as JobSpec;
  errs.push(...validateJobSpecFields(js, jt.child('spec')));
  if (js.selector) errs.push(invalid(jt.child('spec', 'selector'), js.selector, '`selector` will be auto-generated'));
  if (js.manualSelector) errs.push(notSupported(jt.child('spec', 'manualSelector'), js.manualSelector, ['nil', 'false']));
  errs.push(...validateOptionalNonnegative(s.successfulJobsHistoryLimit, SPEC.child('successfulJobsHistoryLimit')));
  errs.push(...validateOptionalNonnegative(s.failedJobsHistoryLimit, SPEC.child('failedJobsHistoryLimit')));
  return errs;
}

/** batch/v1 cronjobs. */
export const cronJobDefinition: ResourceDefinition<K<CronJob>> = {
  group: 'batch',
  version: 'v1',
  kind: 'CronJob',
  listKind: 'CronJobList',
  resource: 'cronjobs',
  singular: 'cronjob',
  namespaced: true,
  allowUnconditionalUpdate: true, // upstream AllowUnconditionalUpdate
  shortNames: ['cj'],
  categories: ['all'],
  schemaRef: 'batch/v1#CronJob',

  defaults(obj) {
    setCronJobDefaults(obj);
  },
  ...podTemplatePrepare<O<CronJob>>((o) => o.spec?.jobTemplate?.spec?.template?.spec),
  validate(obj: O<CronJob>) {
    const errs = validateCronJobSpec(obj.spec, undefined);
    const name = obj.metadata.name ?? '';
    if (name.length > 52) errs.push(invalid(Path.root('metadata').child('name'), name, 'must be no more than 52 characters'));
    return errs;
  },
  validateUpdate(obj: O<CronJob>, old: O<CronJob>) {
    return validateCronJobSpec(obj.spec, old.spec);
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
      column('Timezone', 'string', 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.'),
      column('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.'),
      column('Active', 'integer', 'A list of pointers to currently running jobs.'),
      column('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
      AGE_COLUMN,
      CONTAINERS_COLUMN,
      IMAGES_COLUMN,
      selectorColumn('A label query over pods that should match the pod count.'),
    ],
    cells(obj, now) {
      const s = obj.spec;
      const [names, images] = layoutContainerCells(s?.jobTemplate?.spec?.template?.spec?.containers);
      const last = obj.status?.lastScheduleTime;
      return [
        obj.metadata.name ?? '',
        s?.schedule ?? '',
        s?.timeZone ?? '<none>',
        s?.suspend === undefined || s.suspend === null ? '<unset>' : s.suspend ? 'True' : 'False',
        obj.status?.active?.length ?? 0,
        last ? translateTimestampSince(last, now) : '<none>',
        translateTimestampSince(obj.metadata.creationTimestamp, now),
        names,
        images,
        formatLabelSelector(s?.jobTemplate?.spec?.selector),
      ];
    },
  },
  status: {
    prepareForUpdate(obj, old) {
      keepSpec(obj, old);
    },
  },
};

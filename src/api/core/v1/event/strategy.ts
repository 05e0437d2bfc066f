/**
 * core/v1 Event: legacy validation, the field selectors upstream supports
 * (involvedObject.*, reason, reportingComponent, source, type), printer LAST SEEN TYPE
 * REASON OBJECT MESSAGE (+ wide SUBOBJECT SOURCE FIRST SEEN COUNT NAME), short name `ev`.
 * Stored at /registry/events/<ns>/<name>, shared with events.k8s.io/v1 (see
 * src/api/events/v1/event/). Upstream keeps events for `--event-ttl` (1h) only.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/event/strategy.go
 */
import type { Event } from 'kubernetes-types/core/v1.js';
import type { ResourceDefinition, TablePrinter } from '../../../resource.js';
import { column, translateTimestampSince } from '../shared/printing.js';
import type { K, O } from '../shared/types.js';
import { validateEventCreate, validateEventUpdate } from './validation.js';

/**
 * Upstream path.ValidatePathSegmentName: the only name rule for core/v1 events (the
 * generic store's), no DNS format.
 */
export function validatePathSegmentName(name: string, prefix: boolean): string[] {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  const errs: string[] = [];
  if (name.includes('/')) errs.push("may not contain '/'");
  if (name.includes('%')) errs.push("may not contain '%'");
  return errs;
}

/** Upstream ToSelectableFields for events (core field names). */
function eventSelectableFields(e: O<Event>): Record<string, string> {
  const io = e.involvedObject ?? {};
  return {
    'involvedObject.kind': io.kind ?? '',
    'involvedObject.namespace': io.namespace ?? '',
    'involvedObject.name': io.name ?? '',
    'involvedObject.uid': io.uid ?? '',
    'involvedObject.apiVersion': io.apiVersion ?? '',
    'involvedObject.resourceVersion': io.resourceVersion ?? '',
    'involvedObject.fieldPath': io.fieldPath ?? '',
    reason: e.reason ?? '',
    reportingComponent: e.reportingComponent ?? '',
    source: e.source?.component || e.reportingComponent || '',
    type: e.type ?? '',
  };
}

/** `component, host` with reportingComponent / reportingInstance as fallbacks (upstream formatEventSource). */
function formatEventSource(e: O<Event>): string {
  const component = e.source?.component || e.reportingComponent || '';
  const instance = e.source?.host || e.reportingInstance || '';
  return instance ? `${component}, ${instance}` : component;
}

/** The event printer (upstream printEvent); the events.k8s.io printer converts and reuses it. */
export const eventTable: TablePrinter<K<Event>> = {
  columns: [
    column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    column('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    column('Object', 'string', 'The object that this event is about.'),
    column('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.', 1),
    column('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', 1),
    column('Message', 'string', 'A human-readable description of the status of this operation.'),
    column('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
    column('Count', 'string', 'The number of times this event has occurred.', 1),
    column('Name', 'string', 'Name must be unique within a namespace.', 1, 'name'),
  ],
  cells(e, now) {
    let first = translateTimestampSince(e.firstTimestamp, now);
    if (!e.firstTimestamp) first = translateTimestampSince(e.eventTime, now);
    let last = e.lastTimestamp ? translateTimestampSince(e.lastTimestamp, now) : first;
    let count = e.count ?? 0;
    if (e.series) {
      last = translateTimestampSince(e.series.lastObservedTime, now);
      count = e.series.count ?? 0;
    } else if (count === 0) {
      count = 1; // singleton events of the new API carry no count
    }
    const io = e.involvedObject ?? {};
    const kind = (io.kind ?? '').toLowerCase();
    const target = io.name ? `${kind}/${io.name}` : kind;
    return [last, e.type ?? '', e.reason ?? '', target, io.fieldPath ?? '', formatEventSource(e), (e.message ?? '').trim(), first, count, e.metadata.name ?? ''];
  },
};

/** core/v1 events (short name `ev`). */
export const eventDefinition: ResourceDefinition<K<Event>> = {
  group: '',
  version: 'v1',
  kind: 'Event',
  listKind: 'EventList',
  resource: 'events',
  singular: 'event',
  namespaced: true,
  shortNames: ['ev'],
  schemaRef: 'core/v1#Event',
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  validateName: validatePathSegmentName,

  validate(obj) {
    return validateEventCreate(obj, false);
  },
  validateUpdate(obj, old) {
    return validateEventUpdate(obj, old, false);
  },
  fieldSelectorAttrs: eventSelectableFields,
  table: eventTable,
};

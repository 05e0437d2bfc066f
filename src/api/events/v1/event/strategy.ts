/**
 * events.k8s.io/v1 Event: the same stored objects as core/v1 events, seen through
 * {@link coreEventToEventsV1}. Strategies here receive events.k8s.io/v1-shaped objects,
 * convert them to core/v1 and apply upstream's strict validation (requests through this
 * group get it; core/v1 requests do not). Printer and field selectors are those of the
 * internal event (field selectors under this group's names: regarding.*, reportingController,
 * reason, type).
 *
 * How the store serves it: one storage prefix (/registry/events) for both definitions,
 * objects persisted in core/v1 form. For this group, convert stored objects with
 * coreEventToEventsV1 on every read/list/watch event, and incoming bodies with
 * eventsV1ToCoreEvent before persisting (after this strategy's prepare/validate ran).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/events/rest/storage_events.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/events/v1/conversion.go
 */
import type { Event as CoreEvent } from 'kubernetes-types/core/v1.js';
import type { Event } from 'kubernetes-types/events/v1.js';
import { nameIsDNSSubdomain } from '../../../../apimachinery/validation.js';
import type { ResourceDefinition } from '../../../resource.js';
import { eventTable } from '../../../core/v1/event/strategy.js';
import { validateEventCreate, validateEventUpdate } from '../../../core/v1/event/validation.js';
import type { K, O } from '../../../core/v1/shared/types.js';
import { coreEventToEventsV1, eventsV1ToCoreEvent } from './conversion.js';

const toCore = (e: O<Event>): O<CoreEvent> => eventsV1ToCoreEvent(e) as O<CoreEvent>;

/** Upstream's field label conversions for events.k8s.io/v1 (values from the internal event). */
function selectableFields(e: O<Event>): Record<string, string> {
  const r = e.regarding ?? {};
  return {
    'regarding.kind': r.kind ?? '',
    'regarding.namespace': r.namespace ?? '',
    'regarding.name': r.name ?? '',
    'regarding.uid': r.uid ?? '',
    'regarding.apiVersion': r.apiVersion ?? '',
    'regarding.resourceVersion': r.resourceVersion ?? '',
    'regarding.fieldPath': r.fieldPath ?? '',
    reportingController: e.reportingController ?? '',
    reason: e.reason ?? '',
    type: e.type ?? '',
  };
}

/** events.k8s.io/v1 events (short name `ev`). */
export const eventsV1EventDefinition: ResourceDefinition<K<Event>> = {
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  listKind: 'EventList',
  resource: 'events',
  singular: 'event',
  namespaced: true,
  shortNames: ['ev'],
  schemaRef: 'events/v1#Event',
  storagePrefix: '/registry/events/',
  storageConversion: {
    fromStored: (o) => coreEventToEventsV1(o as unknown as CoreEvent) as unknown as O<Event>,
    toStored: (o) => eventsV1ToCoreEvent(o) as unknown as O<CoreEvent> as never,
  },
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  validateName: nameIsDNSSubdomain,

  validate(obj) {
    return validateEventCreate(toCore(obj), true);
  },
  validateUpdate(obj, old) {
    return validateEventUpdate(toCore(obj), toCore(old), true);
  },
  fieldSelectorAttrs: selectableFields,
  table: {
    columns: eventTable.columns,
    cells(obj, now) {
      return eventTable.cells(toCore(obj) as O<CoreEvent> & K<CoreEvent>, now);
    },
  },
};

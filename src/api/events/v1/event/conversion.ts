/**
 * Conversion between core/v1 Event and events.k8s.io/v1 Event, field for field as
 * upstream's (generated + hand-written) conversions through the internal type:
 * involvedObject ⇄ regarding, message ⇄ note, reportingComponent ⇄ reportingController,
 * source / firstTimestamp / lastTimestamp / count ⇄ deprecated*. Both are views of the
 * same stored object (/registry/events/<ns>/<name>).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/events/v1/conversion.go
 */
import type { Event as CoreEvent } from 'kubernetes-types/core/v1.js';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
import { clone } from '../../../core/v1/shared/types.js';

type Mutable<T> = { -readonly [P in keyof T]?: T[P] };

function put<T extends object, K extends keyof T>(out: T, key: K, v: T[K] | undefined): void {
  if (v !== undefined) out[key] = v;
}

/**
 * core/v1 → events.k8s.io/v1 (a new object; the input is not modified). A missing
 * eventTime becomes `null`, as Go serialises the zero MicroTime.
 */
export function coreEventToEventsV1(e: CoreEvent): EventsV1Event {
  const out: Mutable<EventsV1Event> = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };
  put(out, 'metadata', clone(e.metadata));
  out.eventTime = (e.eventTime ?? null) as unknown as string;
  if (e.series) out.series = { count: e.series.count ?? 0, lastObservedTime: e.series.lastObservedTime as string };
  put(out, 'reportingController', e.reportingComponent);
  put(out, 'reportingInstance', e.reportingInstance);
  put(out, 'action', e.action);
  put(out, 'reason', e.reason);
  put(out, 'regarding', clone(e.involvedObject));
  put(out, 'related', clone(e.related));
  put(out, 'note', e.message);
  put(out, 'type', e.type);
  put(out, 'deprecatedSource', clone(e.source));
  put(out, 'deprecatedFirstTimestamp', e.firstTimestamp);
  put(out, 'deprecatedLastTimestamp', e.lastTimestamp);
  put(out, 'deprecatedCount', e.count);
  return out as EventsV1Event;
}

/** events.k8s.io/v1 → core/v1 (a new object; the input is not modified). */
export function eventsV1ToCoreEvent(e: EventsV1Event): CoreEvent {
  const out: Mutable<CoreEvent> = { apiVersion: 'v1', kind: 'Event' };
  out.metadata = clone(e.metadata) ?? {};
  out.involvedObject = clone(e.regarding) ?? {};
  put(out, 'reason', e.reason);
  put(out, 'message', e.note);
  put(out, 'source', clone(e.deprecatedSource));
  put(out, 'firstTimestamp', e.deprecatedFirstTimestamp);
  put(out, 'lastTimestamp', e.deprecatedLastTimestamp);
  put(out, 'count', e.deprecatedCount);
  put(out, 'type', e.type);
  if (e.eventTime !== undefined && e.eventTime !== null) out.eventTime = e.eventTime;
  if (e.series) out.series = { count: e.series.count, lastObservedTime: e.series.lastObservedTime };
  put(out, 'action', e.action);
  put(out, 'related', clone(e.related));
  put(out, 'reportingComponent', e.reportingController);
  put(out, 'reportingInstance', e.reportingInstance);
  return out as CoreEvent;
}

/**
 * Event validation as upstream pkg/apis/core/validation/events.go. Requests through
 * core/v1 get the legacy checks only; events.k8s.io/v1 requests also get the strict
 * checks (reported with the internal/core field names, as upstream does).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/events.go
 */
import type { Event } from 'kubernetes-types/core/v1.js';
import { type FieldError, invalid, required } from '../../../../apimachinery/field-errors.js';
import { isDNS1123Subdomain, isQualifiedName, validateImmutableField, jsonEqual } from '../../../../apimachinery/validation.js';
import type { O } from '../shared/types.js';

/** Limits of the events.k8s.io API. */
const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
const ACTION_LENGTH_LIMIT = 128;
const REASON_LENGTH_LIMIT = 128;
const NOTE_LENGTH_LIMIT = 1024;

const len = (s: string | undefined): number => Buffer.byteLength(s ?? '', 'utf8');

/** Upstream legacyValidateEvent: namespace agreement, and the new-style fields when eventTime is set. */
function legacyValidateEvent(e: O<Event>): FieldError[] {
  const errs: FieldError[] = [];
  const ns = e.metadata.namespace ?? '';
  const ioNs = e.involvedObject?.namespace ?? '';
  if (!e.eventTime) {
    if (!ioNs) {
      if (ns !== '' && ns !== 'default') errs.push(invalid('involvedObject.namespace', ioNs, 'does not match event.namespace'));
    } else if (ns !== ioNs) {
      errs.push(invalid('involvedObject.namespace', ioNs, 'does not match event.namespace'));
    }
  } else {
    if (!ioNs && ns !== 'default' && ns !== 'kube-system') errs.push(invalid('involvedObject.namespace', ioNs, 'does not match event.namespace'));
    const rc = e.reportingComponent ?? '';
    if (!rc) errs.push(required('reportingController', ''));
    for (const m of isQualifiedName(rc)) errs.push(invalid('reportingController', rc, m));
    if (!e.reportingInstance) errs.push(required('reportingInstance', ''));
    if (len(e.reportingInstance) > REPORTING_INSTANCE_LENGTH_LIMIT) {
      errs.push(invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LENGTH_LIMIT} characters`));
    }
    if (!e.action) errs.push(required('action', ''));
    if (len(e.action) > ACTION_LENGTH_LIMIT) errs.push(invalid('action', '', `can have at most ${ACTION_LENGTH_LIMIT} characters`));
    if (!e.reason) errs.push(required('reason', ''));
    if (len(e.reason) > REASON_LENGTH_LIMIT) errs.push(invalid('reason', '', `can have at most ${REASON_LENGTH_LIMIT} characters`));
    if (len(e.message) > NOTE_LENGTH_LIMIT) errs.push(invalid('message', '', `can have at most ${NOTE_LENGTH_LIMIT} characters`));
  }
  for (const m of isDNS1123Subdomain(ns)) errs.push(invalid('namespace', ns, m));
  return errs;
}

function validateV1EventSeries(e: O<Event>): FieldError[] {
  const errs: FieldError[] = [];
  if (e.series) {
    if ((e.series.count ?? 0) < 2) errs.push(invalid('series.count', '', 'should be at least 2'));
    if (!e.series.lastObservedTime) errs.push(required('series.lastObservedTime', ''));
  }
  return errs;
}

/**
 * Upstream ValidateEventCreate. `strict` = the request came through events.k8s.io/v1.
 * ObjectMeta (name as a DNS subdomain for strict requests) is validated by the store.
 */
export function validateEventCreate(e: O<Event>, strict: boolean): FieldError[] {
  const errs = legacyValidateEvent(e);
  if (!strict) return errs;
  errs.push(...validateV1EventSeries(e));
  if (!e.eventTime) errs.push(required('eventTime', ''));
  if (e.type !== 'Normal' && e.type !== 'Warning') errs.push(invalid('type', '', `has invalid value: ${e.type ?? ''}`));
  if (e.firstTimestamp) errs.push(invalid('firstTimestamp', '', 'needs to be unset'));
  if (e.lastTimestamp) errs.push(invalid('lastTimestamp', '', 'needs to be unset'));
  if (e.count) errs.push(invalid('count', '', 'needs to be unset'));
  if (e.source?.component || e.source?.host) errs.push(invalid('source', '', 'needs to be unset'));
  return errs;
}

/** Upstream ValidateEventUpdate: strict requests may not change what the event says. */
export function validateEventUpdate(e: O<Event>, old: O<Event>, strict: boolean): FieldError[] {
  const errs = legacyValidateEvent(e);
  if (!strict) return errs;
  if (!jsonEqual(e.series ?? null, old.series ?? null)) errs.push(...validateV1EventSeries(e));
  const imm = (a: unknown, b: unknown, p: string): void => {
    errs.push(...validateImmutableField(a ?? null, b ?? null, p));
  };
  imm(e.involvedObject, old.involvedObject, 'involvedObject');
  imm(e.reason ?? '', old.reason ?? '', 'reason');
  imm(e.message ?? '', old.message ?? '', 'message');
  imm(e.source ?? {}, old.source ?? {}, 'source');
  imm(e.firstTimestamp, old.firstTimestamp, 'firstTimestamp');
  imm(e.lastTimestamp, old.lastTimestamp, 'lastTimestamp');
  imm(e.count ?? 0, old.count ?? 0, 'count');
  imm(e.reason ?? '', old.reason ?? '', 'reason');
  imm(e.type ?? '', old.type ?? '', 'type');
  imm(e.eventTime, old.eventTime, 'eventTime');
  imm(e.action ?? '', old.action ?? '', 'action');
  imm(e.related, old.related, 'related');
  imm(e.reportingComponent ?? '', old.reportingComponent ?? '', 'reportingController');
  imm(e.reportingInstance ?? '', old.reportingInstance ?? '', 'reportingInstance');
  return errs;
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event as CoreEvent } from 'kubernetes-types/core/v1.js';
import type { Event } from 'kubernetes-types/events/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../../../core/v1/shared/types.js';
import { coreEventToEventsV1, eventsV1ToCoreEvent } from './conversion.js';
import { eventsV1EventDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);

const core: CoreEvent = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'p.1', namespace: 'default' },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' },
  reason: 'Scheduled',
  message: 'Successfully assigned default/p to n1',
  source: { component: 'default-scheduler' },
  firstTimestamp: '2024-01-01T00:00:00Z',
  lastTimestamp: '2024-01-01T00:00:00Z',
  count: 1,
  type: 'Normal',
  reportingComponent: 'default-scheduler',
  reportingInstance: 'default-scheduler-n1',
  action: 'Binding',
  related: { kind: 'Node', name: 'n1' },
};

test('conversion core -> events.k8s.io/v1 -> core round-trips', () => {
  const v1 = coreEventToEventsV1(core);
  assert.equal(v1.apiVersion, 'events.k8s.io/v1');
  assert.deepEqual(v1.regarding, core.involvedObject);
  assert.equal(v1.note, core.message);
  assert.equal(v1.reportingController, 'default-scheduler');
  assert.deepEqual(v1.deprecatedSource, { component: 'default-scheduler' });
  assert.equal(v1.deprecatedCount, 1);
  assert.equal(v1.deprecatedFirstTimestamp, '2024-01-01T00:00:00Z');
  assert.equal(v1.eventTime, null);
  assert.deepEqual(eventsV1ToCoreEvent(v1), core);
  const withSeries: CoreEvent = { ...core, eventTime: '2024-01-01T00:00:00.000000Z', series: { count: 2, lastObservedTime: '2024-01-01T00:01:00.000000Z' } };
  assert.deepEqual(eventsV1ToCoreEvent(coreEventToEventsV1(withSeries)), withSeries);
  assert.deepEqual(coreEventToEventsV1(withSeries).series, { count: 2, lastObservedTime: '2024-01-01T00:01:00.000000Z' });
});

const v1ev = (o: Partial<Event> = {}): O<Event> =>
  ({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'p.2', namespace: 'default' },
    eventTime: '2024-01-01T00:00:00.000000Z',
    regarding: { kind: 'Pod', namespace: 'default', name: 'p' },
    reason: 'Started',
    note: 'Started container c',
    type: 'Normal',
    action: 'Start',
    reportingController: 'kubelet',
    reportingInstance: 'n1',
    ...o,
  }) as O<Event>;

test('strict validation for events.k8s.io/v1 requests', () => {
  assert.deepEqual(msgs(def.validate!(v1ev(), ctx)), []);
  assert.deepEqual(msgs(def.validate!(v1ev({ type: 'Bad', deprecatedCount: 3, deprecatedSource: { component: 'x' }, series: { count: 1, lastObservedTime: '' } }), ctx)), [
    'series.count: Invalid value: "": should be at least 2',
    'series.lastObservedTime: Required value',
    'type: Invalid value: "": has invalid value: Bad',
    'count: Invalid value: "": needs to be unset',
    'source: Invalid value: "": needs to be unset',
  ]);
  assert.deepEqual(msgs(def.validate!(v1ev({ eventTime: null as unknown as string }), ctx)), ['eventTime: Required value']);
  assert.equal(def.validateName!('Not_DNS', false).length, 1);
});

test('strict update: what the event says is immutable', () => {
  const old = v1ev();
  assert.deepEqual(msgs(def.validateUpdate!(v1ev(), old, ctx)), []);
  assert.deepEqual(msgs(def.validateUpdate!(v1ev({ note: 'changed', reportingController: 'other' }), old, ctx)), [
    'message: Invalid value: "changed": field is immutable',
    'reportingController: Invalid value: "other": field is immutable',
  ]);
  // series may change (that is how repeats are recorded)
  assert.deepEqual(msgs(def.validateUpdate!(v1ev({ series: { count: 2, lastObservedTime: '2024-01-01T00:01:00.000000Z' } }), old, ctx)), []);
});

test('field selectors under events.k8s.io names and the shared printer', () => {
  const e = v1ev();
  assert.equal(def.fieldSelectorAttrs!(e)['regarding.name'], 'p');
  assert.equal(def.fieldSelectorAttrs!(e).reportingController, 'kubelet');
  const cells = def.table!.cells(e, new Date('2024-01-01T00:00:05Z'));
  assert.deepEqual(cells.slice(0, 7), ['5s', 'Normal', 'Started', 'pod/p', '', 'kubelet, n1', 'Started container c']);
  assert.equal(def.group, 'events.k8s.io');
  assert.deepEqual(def.shortNames, ['ev']);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from 'kubernetes-types/core/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { eventDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);
const ev = (o: Partial<Event> = {}): O<Event> =>
  ({
    metadata: { name: 'nginx.17a', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'nginx', uid: 'u1', apiVersion: 'v1', resourceVersion: '12', fieldPath: 'spec.containers{nginx}' },
    reason: 'Pulled',
    message: 'Successfully pulled image "nginx"\n',
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2024-01-01T00:00:00Z',
    lastTimestamp: '2024-01-01T00:09:00Z',
    count: 3,
    type: 'Normal',
    ...o,
  }) as O<Event>;

test('legacy validation: involvedObject namespace must match', () => {
  assert.deepEqual(msgs(def.validate!(ev(), ctx)), []);
  const e = ev({ involvedObject: { kind: 'Pod', name: 'x', namespace: 'other' } });
  assert.deepEqual(msgs(def.validate!(e, ctx)), ['involvedObject.namespace: Invalid value: "other": does not match event.namespace']);
  // cluster-scoped objects may have events in "default"
  assert.deepEqual(msgs(def.validate!(ev({ involvedObject: { kind: 'Node', name: 'n1' } }), ctx)), []);
});

test('legacy validation of new-style events (eventTime set)', () => {
  const e = ev({ eventTime: '2024-01-01T00:00:00.000000Z', reason: '', reportingComponent: '', reportingInstance: '' } as Partial<Event>);
  assert.deepEqual(msgs(def.validate!(e, ctx)), [
    'reportingController: Required value',
    'reportingController: Invalid value: "": name part must be non-empty',
    `reportingController: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    'reportingInstance: Required value',
    'action: Required value',
    'reason: Required value',
  ]);
  const long = ev({ eventTime: '2024-01-01T00:00:00.000000Z', reportingComponent: 'kubelet', reportingInstance: 'n', action: 'Pull', message: 'x'.repeat(1025) } as Partial<Event>);
  assert.deepEqual(msgs(def.validate!(long, ctx)), ['message: Invalid value: "": can have at most 1024 characters']);
});

test('names: only path-segment rules for core/v1 events', () => {
  assert.deepEqual(def.validateName!('Weird_Name.123', false), []);
  assert.deepEqual(def.validateName!('..', false), ["may not be '..'"]);
  assert.deepEqual(def.validateName!('a/b%', false), ["may not contain '/'", "may not contain '%'"]);
});

test('field selectors', () => {
  assert.deepEqual(def.fieldSelectorAttrs!(ev()), {
    'involvedObject.kind': 'Pod',
    'involvedObject.namespace': 'default',
    'involvedObject.name': 'nginx',
    'involvedObject.uid': 'u1',
    'involvedObject.apiVersion': 'v1',
    'involvedObject.resourceVersion': '12',
    'involvedObject.fieldPath': 'spec.containers{nginx}',
    reason: 'Pulled',
    reportingComponent: '',
    source: 'kubelet',
    type: 'Normal',
  });
  assert.equal(def.fieldSelectorAttrs!(ev({ source: {}, reportingComponent: 'default-scheduler' } as Partial<Event>)).source, 'default-scheduler');
});

test('table: LAST SEEN TYPE REASON OBJECT MESSAGE (+wide)', () => {
  const now = new Date('2024-01-01T00:10:00Z');
  assert.deepEqual(
    def.table!.columns.filter((c) => c.priority === 0).map((c) => c.name),
    ['Last Seen', 'Type', 'Reason', 'Object', 'Message'],
  );
  assert.deepEqual(def.table!.cells(ev(), now), [
    '60s',
    'Normal',
    'Pulled',
    'pod/nginx',
    'spec.containers{nginx}',
    'kubelet, node-1',
    'Successfully pulled image "nginx"',
    '10m',
    3,
    'nginx.17a',
  ]);
  // new-style event: eventTime, series, reporting fields
  const series = ev({
    firstTimestamp: undefined,
    lastTimestamp: undefined,
    count: undefined,
    source: undefined,
    eventTime: '2024-01-01T00:00:00.000000Z',
    series: { count: 5, lastObservedTime: '2024-01-01T00:08:00.000000Z' },
    reportingComponent: 'default-scheduler',
    reportingInstance: 'sched-1',
  } as Partial<Event>);
  const cells = def.table!.cells(series, now);
  assert.deepEqual([cells[0], cells[5], cells[7], cells[8]], ['2m', 'default-scheduler, sched-1', '10m', 5]);
  const single = ev({ firstTimestamp: undefined, lastTimestamp: undefined, count: undefined, eventTime: '2024-01-01T00:09:30.000000Z' } as Partial<Event>);
  const c2 = def.table!.cells(single, now);
  assert.deepEqual([c2[0], c2[8]], ['30s', 1]);
});

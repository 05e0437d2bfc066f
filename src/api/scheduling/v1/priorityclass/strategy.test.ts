import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../../../core/v1/shared/types.js';
import { priorityClassDefinition as def, SYSTEM_PRIORITY_CLASSES } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: '', now: () => new Date() };
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);
const pc = (name: string, value: number, extra: Partial<PriorityClass> = {}): O<PriorityClass> =>
  ({ metadata: { name, creationTimestamp: '2024-01-01T00:00:00Z' }, value, ...extra }) as O<PriorityClass>;

test('built-in classes validate; defaults; generation', () => {
  assert.deepEqual(
    SYSTEM_PRIORITY_CLASSES.map((c) => [c.metadata?.name, c.value]),
    [
      ['system-node-critical', 2000001000],
      ['system-cluster-critical', 2000000000],
    ],
  );
  for (const c of SYSTEM_PRIORITY_CLASSES) assert.deepEqual(msgs(def.validate!(structuredClone(c) as O<PriorityClass>, ctx)), []);
  const p = pc('high', 1000);
  def.defaults!(p);
  def.prepareForCreate!(p, ctx);
  assert.equal(p.preemptionPolicy, 'PreemptLowerPriority');
  assert.equal(p.metadata.generation, 1);
});

test('validation messages', () => {
  assert.deepEqual(msgs(def.validate!(pc('high', 1000000000), ctx)), []);
  assert.deepEqual(msgs(def.validate!(pc('high', 1000000001), ctx)), ['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']);
  assert.deepEqual(msgs(def.validate!(pc('system-mine', 5), ctx)), [
    "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
  ]);
  assert.deepEqual(msgs(def.validate!(pc('system-node-critical', 5), ctx)), [
    "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000",
  ]);
  assert.deepEqual(msgs(def.validate!(pc('p', 1, { preemptionPolicy: 'Sometimes' }), ctx)), [
    'preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
  ]);
  assert.deepEqual(msgs(def.validateUpdate!(pc('p', 2, { preemptionPolicy: 'Never' }), pc('p', 1, { preemptionPolicy: 'PreemptLowerPriority' }), ctx)), [
    'value: Forbidden: may not be changed in an update.',
    'preemptionPolicy: Invalid value: "Never": field is immutable',
  ]);
});

test('table NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY', () => {
  assert.deepEqual(
    def.table!.columns.map((c) => c.name),
    ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy'],
  );
  const p = pc('high', 1000, { globalDefault: true, preemptionPolicy: 'Never' });
  assert.deepEqual(def.table!.cells(p, new Date('2024-01-02T00:00:00Z')), ['high', 1000, true, '24h', 'Never']);
  assert.deepEqual(def.shortNames, ['pc']);
});

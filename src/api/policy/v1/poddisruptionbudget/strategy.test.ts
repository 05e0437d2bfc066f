import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../../../core/v1/shared/types.js';
import { podDisruptionBudgetDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);
const pdb = (spec: PodDisruptionBudget['spec']): O<PodDisruptionBudget> =>
  ({ metadata: { name: 'p', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' }, spec }) as O<PodDisruptionBudget>;

test('validation', () => {
  assert.deepEqual(msgs(def.validate!(pdb({ minAvailable: 2, selector: { matchLabels: { app: 'a' } } }), ctx)), []);
  assert.deepEqual(msgs(def.validate!(pdb({ maxUnavailable: '50%' }), ctx)), []);
  assert.deepEqual(msgs(def.validate!(pdb({ minAvailable: -1 }), ctx)), ['spec.minAvailable: Invalid value: -1: must be greater than or equal to 0']);
  assert.deepEqual(msgs(def.validate!(pdb({ maxUnavailable: '150%' }), ctx)), ['spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%']);
  assert.match(msgs(def.validate!(pdb({ minAvailable: 1, maxUnavailable: 1 }), ctx))[0]!, /^spec: Invalid value: .*minAvailable and maxUnavailable cannot be both set$/);
  assert.deepEqual(msgs(def.validate!(pdb({ minAvailable: 'x' }), ctx)), [
    `spec.minAvailable: Invalid value: "x": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
  ]);
});

test('strategy: status cleared on create, kept on update, generation on spec change', () => {
  const p = pdb({ minAvailable: 1 });
  (p as { status?: unknown }).status = { disruptionsAllowed: 5 };
  def.prepareForCreate!(p, ctx);
  assert.deepEqual(p.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
  assert.equal(p.metadata.generation, 1);
  const old = { ...p, status: { ...p.status!, disruptionsAllowed: 1 } } as O<PodDisruptionBudget>;
  const upd = pdb({ minAvailable: 2 });
  def.prepareForUpdate!(upd, old, ctx);
  assert.equal(upd.metadata.generation, 2);
  assert.equal(upd.status?.disruptionsAllowed, 1);
  assert.deepEqual(def.table!.cells(upd, new Date('2024-01-01T00:00:05Z')), ['p', '2', 'N/A', 1, '5s']);
});

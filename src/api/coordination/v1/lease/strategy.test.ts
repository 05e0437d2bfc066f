import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../../../core/v1/shared/types.js';
import { type Lease, leaseDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'kube-node-lease', now: () => new Date() };
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);
const lease = (spec: Lease['spec']): O<Lease> => ({ metadata: { name: 'n1', namespace: 'kube-node-lease', creationTimestamp: '2024-01-01T00:00:00Z' }, spec }) as O<Lease>;

test('validation', () => {
  assert.deepEqual(msgs(def.validate!(lease({ holderIdentity: 'n1', leaseDurationSeconds: 40 }), ctx)), []);
  assert.deepEqual(msgs(def.validate!(lease({ leaseDurationSeconds: 0, leaseTransitions: -1 }), ctx)), [
    'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
  ]);
  assert.deepEqual(msgs(def.validate!(lease({ preferredHolder: 'x' }), ctx)), ['spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined']);
});

test('alpha fields are dropped unless already in use', () => {
  const l = lease({ holderIdentity: 'a', strategy: 'OldestEmulationVersion', preferredHolder: 'b' });
  def.prepareForCreate!(l, ctx);
  assert.deepEqual(l.spec, { holderIdentity: 'a' });
  const old = lease({ strategy: 'OldestEmulationVersion' });
  const u = lease({ strategy: 'OldestEmulationVersion' });
  def.prepareForUpdate!(u, old, ctx);
  assert.equal(u.spec?.strategy, 'OldestEmulationVersion');
});

test('table NAME HOLDER AGE', () => {
  assert.deepEqual(
    def.table!.columns.map((c) => c.name),
    ['Name', 'Holder', 'Age'],
  );
  assert.deepEqual(def.table!.cells(lease({ holderIdentity: 'n1' }), new Date('2024-01-01T00:00:10Z')), ['n1', 'n1', '10s']);
  assert.deepEqual(def.table!.cells(lease({}), new Date('2024-01-01T00:00:10Z'))[1], '');
});

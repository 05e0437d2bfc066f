import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { serviceAccountDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };

test('secret references keep only the name', () => {
  const sa = { metadata: { name: 'build' }, secrets: [{ name: 'tok', namespace: 'x', uid: '1', kind: 'Secret' }] } as O<ServiceAccount>;
  def.prepareForCreate!(sa, ctx);
  assert.deepEqual(sa.secrets, [{ name: 'tok' }]);
});

test('deprecated enforce-mountable-secrets annotation warns', () => {
  const sa = { metadata: { name: 'build', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } } } as O<ServiceAccount>;
  assert.deepEqual(def.warningsOnCreate!(sa, ctx), [
    'metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets',
  ]);
  assert.deepEqual(def.warningsOnCreate!({ metadata: { name: 'b' } } as O<ServiceAccount>, ctx), []);
});

test('table NAME SECRETS AGE, short name sa', () => {
  const sa = { metadata: { name: 'default', creationTimestamp: '2024-01-01T00:00:00Z' }, secrets: [{ name: 'a' }] } as O<ServiceAccount>;
  assert.deepEqual(
    def.table!.columns.map((c) => c.name),
    ['Name', 'Secrets', 'Age'],
  );
  assert.deepEqual(def.table!.cells(sa, new Date('2024-01-01T03:00:00Z')), ['default', 1, '3h']);
  assert.deepEqual(def.shortNames, ['sa']);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Namespace } from 'kubernetes-types/core/v1.js';
import { fieldErrorString } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { namespaceDefinition as def, namespaceDeleteStep, namespaceFinalizeStrategy, namespaceStatusStrategy, shouldDeleteNamespaceDuringUpdate } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'admin', groups: [] }, namespace: '', now: () => new Date('2024-05-01T00:00:00Z') };
const ns = (o: Partial<Namespace> = {}): O<Namespace> => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' }, ...o }) as O<Namespace>;
const msgs = (errs: ReturnType<NonNullable<typeof def.validate>>): string[] => errs.map(fieldErrorString);

test('defaults: name label and phase Active', () => {
  const o = ns();
  def.defaults!(o);
  assert.deepEqual(o.metadata.labels, { 'kubernetes.io/metadata.name': 'demo' });
  assert.equal(o.status?.phase, 'Active');
});

test('prepareForCreate adds the kubernetes finalizer and resets status', () => {
  const o = ns({ spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } });
  def.prepareForCreate!(o, ctx);
  assert.deepEqual(o.spec?.finalizers, ['example.com/x', 'kubernetes']);
  assert.deepEqual(o.status, { phase: 'Active' });
  const o2 = ns({ spec: { finalizers: ['kubernetes'] } });
  def.prepareForCreate!(o2, ctx);
  assert.deepEqual(o2.spec?.finalizers, ['kubernetes']);
});

test('prepareForUpdate keeps spec.finalizers and status; canonicalize restores the name label', () => {
  const old = ns({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  const o = ns({ metadata: { name: 'demo', labels: { 'kubernetes.io/metadata.name': 'other' } }, spec: { finalizers: [] }, status: { phase: 'Terminating' } });
  def.prepareForUpdate!(o, old, ctx);
  assert.deepEqual(o.spec?.finalizers, ['kubernetes']);
  assert.equal(o.status?.phase, 'Active');
  def.canonicalize!(o);
  assert.equal(o.metadata.labels!['kubernetes.io/metadata.name'], 'demo');
});

test('validate: finalizer names', () => {
  assert.deepEqual(msgs(def.validate!(ns({ spec: { finalizers: ['kubernetes', 'example.com/ok'] } }), ctx)), []);
  assert.deepEqual(msgs(def.validate!(ns({ spec: { finalizers: ['foo'] } }), ctx)), [
    'spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
  ]);
  const bad = msgs(def.validate!(ns({ spec: { finalizers: ['a/b/c'] } }), ctx));
  assert.equal(bad.length, 1);
  assert.match(bad[0]!, /^spec\.finalizers: Invalid value: "a\/b\/c": a qualified name must consist of/);
});

test('namespace names are DNS labels', () => {
  assert.deepEqual(def.validateName!('ok-name', false), []);
  assert.equal(def.validateName!('a.b', false).length, 1);
});

test('status strategy: keeps spec, phase must match deletionTimestamp', () => {
  const old = ns({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  const o = ns({ spec: {}, status: { phase: 'Terminating' } });
  namespaceStatusStrategy.prepareForUpdate(o, old, ctx);
  assert.deepEqual(o.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(msgs(namespaceStatusStrategy.validateUpdate!(o, old, ctx)), [
    'status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty',
  ]);
  const d = ns({ metadata: { name: 'demo', deletionTimestamp: '2024-01-01T00:00:00Z' }, status: { phase: 'Active' } });
  assert.deepEqual(msgs(namespaceStatusStrategy.validateUpdate!(d, old, ctx)), [
    'status.Phase: Invalid value: "Active": may only be \'Terminating\' if `deletionTimestamp` is not empty',
  ]);
});

test('finalize strategy: keeps status, validates indexed finalizer names', () => {
  const old = ns({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating' } });
  const o = ns({ spec: { finalizers: ['bad'] }, status: { phase: 'Active' } });
  namespaceFinalizeStrategy.prepareForUpdate(o, old, ctx);
  assert.equal(o.status?.phase, 'Terminating');
  assert.deepEqual(msgs(namespaceFinalizeStrategy.validateUpdate!(o, old, ctx)), [
    'spec.finalizers[0]: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified',
  ]);
});

test('delete: first DELETE terminates, then keep while spec finalizers remain, then delete', () => {
  const now = new Date('2024-05-01T10:00:00.123Z');
  const live = ns({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  const s1 = namespaceDeleteStep(live, {}, now);
  assert.equal(s1.kind, 'update');
  if (s1.kind !== 'update') return;
  assert.equal(s1.obj.metadata.deletionTimestamp, '2024-05-01T10:00:00Z');
  assert.equal(s1.obj.status?.phase, 'Terminating');
  assert.equal(s1.obj.metadata.finalizers, undefined);
  assert.equal(live.metadata.deletionTimestamp, undefined, 'input not mutated');
  assert.deepEqual(namespaceDeleteStep(s1.obj, {}, now), { kind: 'keep' });
  const finalized = { ...s1.obj, spec: { finalizers: [] } } as O<Namespace>;
  assert.deepEqual(namespaceDeleteStep(finalized, {}, now), { kind: 'delete' });
  const orphan = namespaceDeleteStep(live, { propagationPolicy: 'Orphan' }, now);
  assert.ok(orphan.kind === 'update' && orphan.obj.metadata.finalizers?.includes('orphan'));
  assert.equal(def.checkGracefulDelete!(live, {}), 0);
  assert.equal(def.checkGracefulDelete!(finalized, {}), undefined);
});

test('shouldDeleteNamespaceDuringUpdate', () => {
  const old = ns({ metadata: { name: 'demo', deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['example.com/f'] }, spec: { finalizers: [] } });
  const cleared = ns({ metadata: { name: 'demo', deletionTimestamp: '2024-01-01T00:00:00Z' }, spec: { finalizers: [] } });
  assert.equal(shouldDeleteNamespaceDuringUpdate(cleared, old), true);
  assert.equal(shouldDeleteNamespaceDuringUpdate({ ...cleared, spec: { finalizers: ['kubernetes'] } } as O<Namespace>, old), false);
});

test('field selectors and table row', () => {
  const o = ns({ metadata: { name: 'demo', creationTimestamp: '2024-04-30T23:55:00Z' }, status: { phase: 'Active' } });
  assert.deepEqual(def.fieldSelectorAttrs!(o), { 'status.phase': 'Active', name: 'demo' });
  assert.deepEqual(
    def.table!.columns.map((c) => c.name),
    ['Name', 'Status', 'Age'],
  );
  assert.deepEqual(def.table!.cells(o, new Date('2024-05-01T00:00:00Z')), ['demo', 'Active', '5m']);
});

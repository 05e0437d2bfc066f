import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import { fieldErrorString, type FieldError } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { replicationControllerDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };
const msgs = (e: FieldError[]): string[] => e.map(fieldErrorString);
const rc = (spec: ReplicationController['spec'], labels?: Record<string, string>): O<ReplicationController> =>
  ({ metadata: { name: 'r', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z', labels }, spec }) as O<ReplicationController>;
const template = (labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...extra },
});

test('defaults: selector and labels from the template, replicas 1, template defaults', () => {
  const o = rc({ template: template({ app: 'a' }) } as never);
  def.defaults!(o);
  assert.deepEqual(o.spec?.selector, { app: 'a' });
  assert.deepEqual(o.metadata.labels, { app: 'a' });
  assert.equal(o.spec?.replicas, 1);
  assert.equal(o.spec?.template?.spec?.restartPolicy, 'Always');
  assert.equal(o.spec!.template!.spec!.containers[0]!.terminationMessagePath, '/dev/termination-log');
  assert.deepEqual(msgs(def.validate!(o, ctx)), []);

  const keep = rc({ replicas: 0, selector: { app: 'a', tier: 'x' }, template: template({ app: 'a', tier: 'x' }) } as never, { own: 'l' });
  def.defaults!(keep);
  assert.deepEqual(keep.spec?.selector, { app: 'a', tier: 'x' });
  assert.deepEqual(keep.metadata.labels, { own: 'l' });
  assert.equal(keep.spec?.replicas, 0);
});

test('validation as upstream ValidateReplicationControllerSpec', () => {
  const noSel = rc({ replicas: 1, template: template({}) } as never);
  def.defaults!(noSel);
  assert.ok(msgs(def.validate!(noSel, ctx)).includes('spec.selector: Required value'));

  const mismatch = rc({ replicas: -1, selector: { app: 'b' }, template: template({ app: 'a' }) } as never);
  def.defaults!(mismatch);
  assert.deepEqual(msgs(def.validate!(mismatch, ctx)), [
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    'spec.template.metadata.labels: Invalid value: {"app":"a"}: `selector` does not match template `labels`',
  ]);

  const bad = rc({ selector: { app: 'a' }, template: template({ app: 'a' }, { restartPolicy: 'Never', activeDeadlineSeconds: 5 }) } as never);
  def.defaults!(bad);
  assert.deepEqual(msgs(def.validate!(bad, ctx)), [
    'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is not Supported',
  ]);

  assert.deepEqual(msgs(def.validate!(rc({ replicas: 1, selector: { app: 'a' } }), ctx)), ['spec.template: Required value']);
});

test('strategy: generation, status kept, status validation, printer', () => {
  const o = rc({ replicas: 3, selector: { app: 'a' }, template: template({ app: 'a' }) } as never);
  (o as { status?: unknown }).status = { replicas: 9 };
  def.prepareForCreate!(o, ctx);
  assert.deepEqual(o.status, {});
  assert.equal(o.metadata.generation, 1);
  const old = { ...o, status: { replicas: 2, readyReplicas: 1 } } as O<ReplicationController>;
  const upd = rc({ replicas: 4, selector: { app: 'a' }, template: template({ app: 'a' }) } as never);
  def.prepareForUpdate!(upd, old, ctx);
  assert.equal(upd.metadata.generation, 2);
  assert.deepEqual(upd.status, { replicas: 2, readyReplicas: 1 });
  assert.deepEqual(
    def.table!.columns.filter((c) => c.priority === 0).map((c) => c.name),
    ['Name', 'Desired', 'Current', 'Ready', 'Age'],
  );
  assert.deepEqual(def.table!.cells(upd, new Date('2024-01-01T00:01:00Z')), ['r', 4, 2, 1, '60s', 'c', 'nginx', 'app=a']);
  const st = rc({ replicas: 1 });
  (st as { status?: unknown }).status = { replicas: 1, readyReplicas: 2 };
  assert.deepEqual(msgs(def.status!.validateUpdate!(st, st, ctx)), ['status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas']);
  assert.deepEqual(def.fieldSelectorAttrs!(st), { 'status.replicas': '1' });
});

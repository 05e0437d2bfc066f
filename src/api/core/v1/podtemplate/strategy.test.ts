import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PodTemplate } from 'kubernetes-types/core/v1.js';
import { fieldErrorString } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../shared/types.js';
import { podTemplateDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: 'default', now: () => new Date() };

test('podtemplates: defaults, validation under template., printer, generation', () => {
  const t = {
    metadata: { name: 'pt', namespace: 'default' },
    template: {
      metadata: { labels: { app: 'a' } },
      spec: {
        containers: [
          { name: 'c', image: 'nginx' },
          { name: 'd', image: 'busybox' },
        ],
      },
    },
  } as O<PodTemplate>;
  def.defaults!(t);
  assert.equal(t.template?.spec?.restartPolicy, 'Always');
  assert.deepEqual(def.validate!(t, ctx).map(fieldErrorString), []);
  def.prepareForCreate!(t, ctx);
  assert.equal(t.metadata.generation, 1);
  assert.deepEqual(
    def.table!.columns.map((c) => c.name),
    ['Name', 'Containers', 'Images', 'Pod Labels'],
  );
  assert.deepEqual(def.table!.cells(t, new Date()), ['pt', 'c,d', 'nginx,busybox', 'app=a']);

  const bad = { metadata: { name: 'pt', namespace: 'default' }, template: { spec: { containers: [{ name: 'C', image: 'nginx' }] } } } as O<PodTemplate>;
  def.defaults!(bad);
  assert.ok(
    def.validate!(bad, ctx)
      .map(fieldErrorString)
      .some((m) => m.startsWith('template.spec.containers[0].name: Invalid value: "C"')),
  );

  const upd = structuredClone(t);
  upd.template!.spec!.containers[0]!.image = 'nginx:2';
  def.prepareForUpdate!(upd, t, ctx);
  assert.equal(upd.metadata.generation, 2);
});

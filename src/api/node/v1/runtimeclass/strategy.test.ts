import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import { fieldErrorString } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../../../core/v1/shared/types.js';
import { runtimeClassDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: '', now: () => new Date() };
const rc = (extra: object): O<RuntimeClass> => ({ metadata: { name: 'gvisor', creationTimestamp: '2024-01-01T00:00:00Z' }, handler: 'runsc', ...extra }) as O<RuntimeClass>;
const msgs = (o: O<RuntimeClass>): string[] => def.validate!(o, ctx).map(fieldErrorString);

test('RuntimeClass: handler a DNS label and immutable, overhead quantities, tolerations unique, HANDLER column', () => {
  const ok = rc({ overhead: { podFixed: { cpu: '250m', memory: '120Mi' } }, scheduling: { nodeSelector: { 'runtime/gvisor': 'true' } } });
  def.prepareForCreate!(ok, ctx);
  assert.deepEqual(msgs(ok), []);
  assert.deepEqual(msgs(rc({ handler: 'Run_SC' })), [
    "handler: Invalid value: \"Run_SC\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
  assert.deepEqual(msgs(rc({ overhead: { podFixed: { cpu: '-1' } } })), ['overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0']);
  const t = { key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' };
  assert.deepEqual(
    msgs(rc({ scheduling: { tolerations: [t, t] } })).map((m) => m.split(':')[0]),
    ['scheduling.tolerations[1]'],
  );
  assert.deepEqual(def.validateUpdate!(rc({ handler: 'kata' }), rc({}), ctx).map(fieldErrorString), ['handler: Invalid value: "kata": field is immutable']);
  assert.deepEqual(def.table!.cells(ok, new Date('2024-01-01T00:01:00Z')), ['gvisor', 'runsc', '60s']);
});

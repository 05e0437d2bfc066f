import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import { fieldErrorString } from '../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../resource.js';
import type { O } from '../../core/v1/shared/types.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from './bootstrap.js';
import { compareFlowSchemas, flowSchemaDefinition as fs } from './flowschema/strategy.js';
import { priorityLevelConfigurationDefinition as plc } from './prioritylevelconfiguration/strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: '', now: () => new Date() };

test('bootstrap objects: valid, unchanged by defaulting, every FlowSchema names an existing level', () => {
  const levels = new Set<string>();
  for (const p of [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]) {
    const o = structuredClone(p) as O<PriorityLevelConfiguration>;
    plc.defaults!(o);
    assert.deepEqual(o, p, `${p.metadata?.name} is already defaulted`);
    assert.deepEqual(plc.validate!(o, ctx).map(fieldErrorString), [], p.metadata?.name);
    levels.add(p.metadata!.name!);
  }
  const schemas = [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS];
  for (const f of schemas) {
    const o = structuredClone(f) as O<FlowSchema>;
    fs.defaults!(o);
    assert.deepEqual(o, f, `${f.metadata?.name} is already defaulted`);
    assert.deepEqual(fs.validate!(o, ctx).map(fieldErrorString), [], f.metadata?.name);
    assert.ok(levels.has(f.spec!.priorityLevelConfiguration.name), f.metadata?.name);
    assert.equal(f.metadata?.annotations?.['apf.kubernetes.io/autoupdate-spec'], 'true');
  }
  assert.deepEqual(
    [...schemas].sort(compareFlowSchemas).map((f) => `${f.metadata!.name}:${f.spec!.matchingPrecedence}`),
    [
      'exempt:1',
      'probes:2',
      'system-leader-election:100',
      'endpoint-controller:150',
      'workload-leader-election:200',
      'system-node-high:400',
      'system-nodes:500',
      'kube-controller-manager:800',
      'kube-scheduler:800',
      'kube-system-service-accounts:900',
      'service-accounts:9000',
      'global-default:9900',
      'catch-all:10000',
    ],
  );
});

test('FlowSchema and PriorityLevelConfiguration: defaults and validation messages', () => {
  const f = {
    metadata: { name: 'x' },
    spec: { priorityLevelConfiguration: { name: '' }, distinguisherMethod: { type: 'ByHost' }, rules: [{ subjects: [] }] },
  } as unknown as O<FlowSchema>;
  fs.defaults!(f);
  assert.equal(f.spec!.matchingPrecedence, 1000);
  f.spec!.matchingPrecedence = 20000;
  assert.deepEqual(fs.validate!(f, ctx).map(fieldErrorString), [
    'spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000',
    'spec.distinguisherMethod.type: Unsupported value: "ByHost": supported values: "ByNamespace", "ByUser"',
    'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
    'spec.rules[0].subjects: Required value: subjects must contain at least one value',
    'spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty',
  ]);
  const p = {
    metadata: { name: 'mine' },
    spec: { type: 'Limited', limited: { lendablePercent: 120, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 9 } } } },
  } as unknown as O<PriorityLevelConfiguration>;
  plc.defaults!(p);
  assert.equal(p.spec!.limited!.nominalConcurrencyShares, 30);
  assert.equal(p.spec!.limited!.limitResponse?.queuing?.queueLengthLimit, 50);
  assert.deepEqual(plc.validate!(p, ctx).map(fieldErrorString), [
    'spec.limited.lendablePercent: Invalid value: 120: must be between 0 and 100, inclusive',
    'spec.limited.limitResponse.queuing.handSize: Invalid value: 9: should not be greater than queues (4)',
  ]);
  assert.deepEqual(
    plc.validate!({ metadata: { name: 'exempt' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } } as unknown as O<PriorityLevelConfiguration>, ctx).map(
      fieldErrorString,
    ),
    ["spec.type: Invalid value: \"Limited\": type must be 'Exempt' if and only if name is 'exempt'"],
  );
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../../apimachinery/field-errors.js';
import type { StrategyContext } from '../../../resource.js';
import type { O } from '../../../core/v1/shared/types.js';
import { apiServiceDefinition as def, type APIService } from './strategy.js';
import { localAPIService, localAvailableCondition } from './local.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: '', now: () => new Date() };
const NOW = new Date('2024-01-01T00:05:00Z');
const msgs = (o: O<APIService>): string[] => def.validate!(o, ctx).map(fieldErrorString);

test('local APIServices: names, priorities, Available=True Local, printer Local/True', () => {
  const core = localAPIService('', 'v1')!;
  assert.equal(core.metadata!.name, 'v1.');
  assert.deepEqual(core.spec, { group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
  assert.deepEqual(localAPIService('autoscaling', 'v2')!.spec, { group: 'autoscaling', version: 'v2', groupPriorityMinimum: 17500, versionPriority: 30 });
  assert.equal(localAPIService('example.com', 'v1'), undefined);
  const apps = { ...localAPIService('apps', 'v1')!, metadata: { name: 'v1.apps', creationTimestamp: '2024-01-01T00:00:00Z' } } as O<APIService>;
  assert.deepEqual(msgs(apps), []);
  assert.deepEqual(msgs({ ...localAPIService('', 'v1')!, metadata: { name: 'v1.' } } as O<APIService>), []);
  apps.status = { conditions: [localAvailableCondition(NOW)] };
  assert.deepEqual(apps.status.conditions![0], {
    type: 'Available',
    status: 'True',
    lastTransitionTime: '2024-01-01T00:05:00Z',
    reason: 'Local',
    message: 'Local APIServices are always available',
  });
  assert.deepEqual(def.table!.cells(apps, NOW), ['v1.apps', 'Local', 'True', '5m']);
});

test('APIService validation and the SERVICE/AVAILABLE cells of a remote service', () => {
  const a = {
    metadata: { name: 'v1beta1.metrics.k8s.io' },
    spec: {
      group: 'metrics.k8s.io',
      version: 'v1beta1',
      groupPriorityMinimum: 100,
      versionPriority: 100,
      insecureSkipTLSVerify: true,
      service: { name: 'metrics-server', namespace: 'kube-system' },
    },
  } as O<APIService>;
  def.defaults!(a);
  def.prepareForCreate!(a, ctx);
  assert.deepEqual(msgs(a), []);
  assert.equal(a.spec!.service!.port, 443);
  a.status = { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] };
  assert.deepEqual(def.table!.cells(a, NOW).slice(1, 3), ['kube-system/metrics-server', 'False (MissingEndpoints)']);
  assert.deepEqual(
    msgs({ metadata: { name: 'v1.wrong' }, spec: { group: '', version: 'v2', groupPriorityMinimum: 0, versionPriority: 2000, insecureSkipTLSVerify: true } } as O<APIService>),
    [
      'metadata.name: Invalid value: "v1.wrong": must be `spec.version+"."+spec.group`: "v2."',
      'spec.group: Required value: only v1 may have an empty group and it better be legacy kube',
      'spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000',
      'spec.versionPriority: Invalid value: 2000: must be positive and less than 1000',
      'spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify',
    ],
  );
});

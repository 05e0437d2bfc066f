import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IngressClass } from 'kubernetes-types/networking/v1.js';
import { fieldErrorString } from '../../../../apimachinery/field-errors.js';
import type { O } from '../../../core/v1/shared/types.js';
import type { StrategyContext } from '../../../resource.js';
import { ingressClassDefinition as def } from './strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: '', now: () => new Date() };
const ic = (spec: IngressClass['spec']): O<IngressClass> => ({ metadata: { name: 'nginx', creationTimestamp: '2024-01-01T00:00:00Z' }, spec }) as O<IngressClass>;
const errs = (o: O<IngressClass>): string[] => def.validate!(o, ctx).map(fieldErrorString);

test('ingressclasses: defaults, validation, immutability, printer', () => {
  assert.equal(def.namespaced, false);
  const o = ic({ controller: 'k8s.io/ingress-nginx', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'p' } });
  def.defaults!(o);
  assert.equal(o.spec?.parameters?.scope, 'Cluster');
  assert.deepEqual(errs(o), []);
  assert.deepEqual(def.table!.cells(o, new Date('2024-01-01T00:00:05Z')), ['nginx', 'k8s.io/ingress-nginx', 'IngressParameters.k8s.example.com/p', '5s']);
  assert.deepEqual(def.table!.cells(ic({ controller: 'a.io/b' }), new Date('2024-01-01T00:00:05Z'))[2], '<none>');

  assert.deepEqual(errs(ic({})), ['spec.controller: Required value']);
  assert.deepEqual(errs(ic({ controller: 'nginx' })), ['spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']);
  assert.deepEqual(errs(ic({ controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'Namespace' } })), [
    "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'",
  ]);
  assert.deepEqual(errs(ic({ controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'Cluster', namespace: 'x' } })), [
    "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'",
  ]);
  const upd = ic({ controller: 'other.io/c' });
  assert.deepEqual(def.validateUpdate!(upd, o, ctx).map(fieldErrorString), ['spec.controller: Invalid value: "other.io/c": field is immutable']);
});

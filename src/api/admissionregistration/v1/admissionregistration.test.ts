import { test } from 'node:test';
import assert from 'node:assert/strict';
import type {
  MutatingWebhookConfiguration,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingWebhookConfiguration,
} from 'kubernetes-types/admissionregistration/v1.js';
import { fieldErrorString } from '../../../apimachinery/field-errors.js';
import type { KObject, Obj, ResourceDefinition, StrategyContext } from '../../resource.js';
import type { O } from '../../core/v1/shared/types.js';
import { mutatingWebhookConfigurationDefinition as mwc } from './mutatingwebhookconfiguration/strategy.js';
import { validatingWebhookConfigurationDefinition as vwc } from './validatingwebhookconfiguration/strategy.js';
import { validatingAdmissionPolicyDefinition as vap } from './validatingadmissionpolicy/strategy.js';
import { goLabelSelectorString, validatingAdmissionPolicyBindingDefinition as vapb } from './validatingadmissionpolicybinding/strategy.js';

const ctx: StrategyContext = { user: { username: 'u', groups: [] }, namespace: '', now: () => new Date() };
const NOW = new Date('2024-01-01T00:05:00Z');
const meta = (name: string) => ({ name, creationTimestamp: '2024-01-01T00:00:00Z' });

function create<T extends KObject>(def: ResourceDefinition<T>, obj: T): string[] {
  const o = obj as Obj<T>;
  def.defaults?.(o);
  def.prepareForCreate?.(o, ctx);
  return (def.validate?.(o, ctx) ?? []).map(fieldErrorString);
}

const hook = {
  name: 'pod-policy.example.com',
  rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
  clientConfig: { service: { namespace: 'example-namespace', name: 'example-service' } },
  admissionReviewVersions: ['v1'],
  sideEffects: 'None',
};

test('webhook configurations: v1 defaults, generation, WEBHOOKS column', () => {
  const v = { metadata: meta('pod-policy.example.com'), webhooks: [structuredClone(hook)] } as O<ValidatingWebhookConfiguration>;
  assert.deepEqual(create(vwc, v), []);
  const w = v.webhooks![0]!;
  assert.equal(w.failurePolicy, 'Fail');
  assert.equal(w.matchPolicy, 'Equivalent');
  assert.deepEqual(w.namespaceSelector, {});
  assert.deepEqual(w.objectSelector, {});
  assert.equal(w.timeoutSeconds, 10);
  assert.equal((w.rules![0] as { scope?: string }).scope, '*');
  assert.equal(w.clientConfig.service!.port, 443);
  assert.equal(v.metadata.generation, 1);
  const m = { metadata: meta('m'), webhooks: [structuredClone(hook)] } as O<MutatingWebhookConfiguration>;
  assert.deepEqual(create(mwc, m), []);
  assert.equal(m.webhooks![0]!.reinvocationPolicy, 'Never');
  assert.deepEqual(vwc.table!.cells(v, NOW), ['pod-policy.example.com', 1, '5m']);
  assert.deepEqual(mwc.categories, ['api-extensions']);
});

test('webhook validation: upstream messages for typical mistakes', () => {
  const bad = {
    metadata: meta('bad'),
    webhooks: [
      { ...structuredClone(hook), name: 'short', sideEffects: 'Some', admissionReviewVersions: ['v2'], timeoutSeconds: 60, clientConfig: { url: 'http://example.com/x?y=1' } },
      { ...structuredClone(hook), name: 'dup.example.com', sideEffects: undefined, admissionReviewVersions: [], clientConfig: {} },
      { ...structuredClone(hook), name: 'dup.example.com', rules: [{ apiGroups: ['*', 'apps'], apiVersions: ['v1'], operations: ['CREATE', 'PATCH'], resources: ['*', 'pods'] }] },
    ],
  } as unknown as O<ValidatingWebhookConfiguration>;
  assert.deepEqual(create(vwc, bad), [
    'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
    'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    'webhooks[0].timeoutSeconds: Invalid value: 60: the timeout value must be between 1 and 30 seconds',
    'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
    'webhooks[0].clientConfig.url: Invalid value: "y=1": query parameters are not permitted in the URL',
    'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
    'webhooks[1].sideEffects: Required value: must specify one of None, NoneOnDryRun',
    'webhooks[1].clientConfig: Required value: exactly one of url or service is required',
    'webhooks[1].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    'webhooks[2].rules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
    'webhooks[2].rules[0].apiGroups: Invalid value: []string{"*", "apps"}: if \'*\' is present, must not specify other API groups',
    'webhooks[2].rules[0].resources: Invalid value: []string{"*", "pods"}: if \'*\' is present, must not specify other resources without subresources',
    'webhooks[2].name: Duplicate value: "dup.example.com"',
  ]);
});

test('ValidatingAdmissionPolicy: defaults, required pieces, printer', () => {
  const p = {
    metadata: meta('demo-policy.example.com'),
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] },
      validations: [{ expression: 'object.spec.replicas <= 5' }],
    },
  } as unknown as O<ValidatingAdmissionPolicy>;
  assert.deepEqual(create(vap, p), []);
  assert.equal(p.spec!.failurePolicy, 'Fail');
  assert.equal(p.spec!.matchConstraints!.matchPolicy, 'Equivalent');
  assert.deepEqual(vap.table!.cells(p, NOW), ['demo-policy.example.com', 1, '<unset>', '5m']);
  assert.deepEqual(
    create(vap, { metadata: meta('x'), spec: { failurePolicy: 'Maybe', paramKind: { apiVersion: 'a/b/c', kind: 'Foo_Bar' } } } as unknown as O<ValidatingAdmissionPolicy>),
    [
      'spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      'spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      "spec.paramKind.kind: Invalid value: \"Foo_Bar\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      'spec.matchConstraints: Required value',
      'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
      'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
    ],
  );
});

test('ValidatingAdmissionPolicyBinding: paramRef rules, actions, PARAMREF column', () => {
  const b = {
    metadata: meta('demo-binding'),
    spec: { policyName: 'demo-policy.example.com', validationActions: ['Deny'], paramRef: { name: 'params', namespace: 'default' } },
  } as O<ValidatingAdmissionPolicyBinding>;
  assert.deepEqual(create(vapb, b), []);
  assert.equal(b.spec!.paramRef!.parameterNotFoundAction, 'Deny');
  assert.deepEqual(vapb.table!.cells(b, NOW), ['demo-binding', 'demo-policy.example.com', 'default/params', '5m']);
  const bad = {
    metadata: meta('x'),
    spec: { validationActions: ['Deny', 'Warn'], paramRef: { name: 'p', selector: {}, parameterNotFoundAction: 'Ignore' } },
  } as O<ValidatingAdmissionPolicyBinding>;
  assert.deepEqual(create(vapb, bad), [
    'spec.policyName: Required value',
    'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
    'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
    'spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"',
    'spec.validationActions: Invalid value: []string{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
  ]);
  assert.equal(
    goLabelSelectorString({ matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['x', 'y'] }] }),
    '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}',
  );
});

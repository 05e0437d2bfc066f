/**
 * Policy matching, matchConditions and ValidatingAdmissionPolicy evaluation with
 * upstream's decisions and texts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import type { AdmissionAttributes } from '../types.js';
import { compileMatchConditions, evaluateMatchConditions } from './match-conditions.js';
import { ruleMatches } from './matching.js';
import { compilePolicy } from './validating/compile.js';
import { validatePolicy } from './validating/validate.js';
import { toCel } from '../../../cel/index.js';

function attrs(over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE',
    resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    subresource: '',
    namespace: 'ns',
    name: 'd',
    user: { username: 'u', groups: [] },
    dryRun: false,
    warnings: [],
    ...over,
  };
}

describe('policy rules', () => {
  it('match operations, groups, versions, resources with subresources, scope and names', () => {
    const rule = { operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] };
    assert.equal(ruleMatches(rule, attrs()), true);
    assert.equal(ruleMatches(rule, attrs({ operation: 'UPDATE' })), false);
    assert.equal(ruleMatches(rule, attrs({ subresource: 'scale' })), false);
    assert.equal(ruleMatches({ ...rule, resources: ['deployments/scale'] }, attrs({ subresource: 'scale' })), true);
    assert.equal(ruleMatches({ ...rule, resources: ['*/*'] }, attrs({ subresource: 'status' })), true);
    assert.equal(ruleMatches({ ...rule, resources: ['*'] }, attrs({ subresource: 'status' })), false);
    assert.equal(ruleMatches({ ...rule, scope: 'Cluster' }, attrs()), false);
    assert.equal(ruleMatches({ ...rule, scope: 'Namespaced' }, attrs()), true);
    assert.equal(ruleMatches({ ...rule, resourceNames: ['other'] }, attrs()), false);
  });
});

describe('matchConditions', () => {
  const mc = compileMatchConditions([
    { name: 'is-labelled', expression: "has(object.metadata.labels) && 'team' in object.metadata.labels" },
    { name: 'broken', expression: 'object.spec.nope == 1' },
  ]);
  it('a false condition skips; errors fail under Fail and skip under Ignore', () => {
    assert.deepEqual(evaluateMatchConditions(mc, { object: { metadata: {}, spec: {} } }), { matches: false, failedConditionName: 'is-labelled' });
    assert.deepEqual(evaluateMatchConditions(mc, { object: { metadata: { labels: { team: 'a' } }, spec: {} } }), {
      matches: true,
      error: "expression 'object.spec.nope == 1' resulted in error: no such key: nope",
    });
    assert.deepEqual(evaluateMatchConditions(mc, { object: { metadata: { labels: { team: 'a' } }, spec: {} } }, 'Ignore'), { matches: false });
  });
  it('a condition that does not compile carries the compiler text', () => {
    const bad = compileMatchConditions([{ name: 'x', expression: 'object.' }]);
    assert.match(bad[0]!.error!.detail, /^compilation error: compilation failed: ERROR: <input>:1:8: /);
  });
});

describe('ValidatingAdmissionPolicy evaluation', () => {
  const policy: ValidatingAdmissionPolicy = {
    metadata: { name: 'p' },
    spec: {
      variables: [{ name: 'max', expression: 'params == null ? 5 : int(params.data.max)' }],
      validations: [
        { expression: 'object.spec.replicas <= variables.max', messageExpression: "'too many: ' + string(object.spec.replicas)", reason: 'Forbidden' },
        { expression: "object.metadata.name != 'bad'", message: ' no bad names ' },
        { expression: 'object.spec.replicas > 0' },
      ],
      auditAnnotations: [{ key: 'replicas', valueExpression: "'r=' + string(object.spec.replicas)" }],
    },
  };
  const c = compilePolicy(policy);
  const act = (replicas: number, name = 'd', params: unknown = null) => ({
    object: toCel({ metadata: { name }, spec: { replicas } }),
    oldObject: null,
    request: {},
    params: toCel(params),
    namespaceObject: null,
    authorizer: null,
  });
  it('admits, denies with messageExpression and reason, message, or the expression', () => {
    const ok = validatePolicy(c, act(3), 'Fail');
    assert.deepEqual(
      ok.decisions.map((d) => d.action),
      ['Admit', 'Admit', 'Admit'],
    );
    assert.deepEqual(ok.auditAnnotations, [{ key: 'replicas', action: 'Publish', value: 'r=3' }]);
    const bad = validatePolicy(c, act(0, 'bad', { data: { max: '-1' } }), 'Fail');
    assert.deepEqual(bad.decisions, [
      { action: 'Deny', evaluation: 'Deny', message: 'too many: 0', reason: 'Forbidden' },
      { action: 'Deny', evaluation: 'Deny', message: 'no bad names', reason: 'Invalid' },
      { action: 'Deny', evaluation: 'Deny', message: 'failed expression: object.spec.replicas > 0', reason: 'Invalid' },
    ]);
  });
  it('turns evaluation errors into decisions by the failure policy', () => {
    const broken = compilePolicy({ metadata: { name: 'b' }, spec: { validations: [{ expression: 'object.spec.missing > 1' }] } });
    assert.deepEqual(validatePolicy(broken, act(1), 'Fail').decisions, [
      { action: 'Deny', evaluation: 'Error', message: "expression 'object.spec.missing > 1' resulted in error: no such key: missing" },
    ]);
    assert.equal(validatePolicy(broken, act(1), 'Ignore').decisions[0]!.action, 'Admit');
  });
});

describe('ValidatingAdmissionPolicy expressions compiled when written', () => {
  it('refuses expressions that do not compile with upstream field errors', async () => {
    const { installExpressionCompiler } = await import('./expressions.js');
    const { policyExpressionErrors } = await import('../../../api/admissionregistration/v1/expressions.js');
    const { Path, fieldErrorString } = await import('../../../apimachinery/field-errors.js');
    installExpressionCompiler();
    const errs = policyExpressionErrors(
      {
        validations: [{ expression: 'object.spec.replicas <=' }, { expression: 'params.max > 1' }, { expression: "'x'" }],
        auditAnnotations: [{ key: 'k', valueExpression: "'name ' + object.metadata.name" }],
      },
      Path.root('spec'),
    ).map(fieldErrorString);
    assert.equal(errs.length, 3);
    assert.match(errs[0]!, /^spec\.validations\[0\]\.expression: Invalid value: "object\.spec\.replicas <=": compilation failed: ERROR: <input>:1:/);
    assert.equal(
      errs[1],
      `spec.validations[1].expression: Invalid value: "params.max > 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.max > 1\n | ^`,
    );
    assert.equal(errs[2], `spec.validations[2].expression: Invalid value: "'x'": must evaluate to bool but got string`);
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileMatchConditions, evaluateMatchConditions } from './match-conditions.js';

const pod = (labels: Record<string, string>) => ({
  object: { metadata: { name: 'p', labels } },
  oldObject: null,
  request: { operation: 'CREATE', userInfo: { username: 'alice' } },
});

test('all conditions true: the webhook is called; one false: skipped', () => {
  const c = compileMatchConditions([
    { name: 'not-exempt', expression: "!('exempt' in object.metadata.labels)" },
    { name: 'not-admin', expression: "request.userInfo.username != 'admin'" },
  ]);
  assert.deepEqual(evaluateMatchConditions(c, pod({ app: 'x' }), 'Fail'), { matches: true });
  assert.deepEqual(evaluateMatchConditions(c, pod({ exempt: 'yes' }), 'Fail'), { matches: false });
});

test('a false condition wins over an error; errors fail closed (Fail) or skip (Ignore)', () => {
  const c = compileMatchConditions([
    { name: 'broken', expression: "object.metadata.labels.missing == 'x'" },
    { name: 'op', expression: "request.operation == 'UPDATE'" },
  ]);
  assert.deepEqual(evaluateMatchConditions(c, pod({}), 'Fail'), { matches: false });
  const only = compileMatchConditions([{ name: 'broken', expression: "object.metadata.labels.missing == 'x'" }]);
  assert.deepEqual(evaluateMatchConditions(only, pod({}), 'Fail'), { error: "expression 'object.metadata.labels.missing == 'x'' resulted in error: no such key: missing" });
  assert.deepEqual(evaluateMatchConditions(only, pod({}), 'Ignore'), { matches: false });
});

test('an expression that does not compile is an error with the compiler text', () => {
  const c = compileMatchConditions([{ name: 'authz', expression: "authorizer.group('').resource('pods').check('get').allowed()" }]);
  const r = evaluateMatchConditions(c, pod({}), 'Fail');
  assert.match(r.error ?? '', /^compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer'/);
});

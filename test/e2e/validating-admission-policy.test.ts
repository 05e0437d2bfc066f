/**
 * ValidatingAdmissionPolicy through the real kubectl: the documentation's basic example
 * (`object.spec.replicas <= 5`, bound to namespaces labelled environment=test) refuses a
 * 6-replica Deployment with upstream's exact text, admits one with 5 replicas and one in
 * an unlabelled namespace; a Warn binding with messageExpression and a ConfigMap param
 * warns instead of refusing.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Cluster, eventually, MANIFESTS, startCluster } from './harness.js';

function deployment(name: string, ns: string, replicas: number): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: nginx
        image: nginx
`;
}

describe('e2e: ValidatingAdmissionPolicy', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('denies a 6-replica Deployment with the documentation example, with upstream text', async () => {
    for (const f of ['vap-basic-example-policy.yaml', 'vap-basic-example-binding.yaml']) {
      const r = c.kubectl(['apply', '-f', '-'], { input: readFileSync(join(MANIFESTS, f), 'utf8') });
      assert.equal(r.code, 0, r.stderr);
    }
    assert.equal(c.kubectl(['create', 'namespace', 'test']).code, 0);
    assert.equal(c.kubectl(['label', 'namespace', 'test', 'environment=test']).code, 0);
    assert.equal(c.kubectl(['create', 'namespace', 'other']).code, 0);

    const denied = c.kubectl(['apply', '-f', '-'], { input: deployment('nginx', 'test', 6) });
    assert.equal(denied.code, 1);
    assert.equal(
      denied.stderr.trim(),
      `The deployments "nginx" is invalid: : ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5`,
    );
    const raw = c.kubectl(['create', '-f', '-', '-o', 'json'], { input: deployment('nginx', 'test', 6) });
    assert.equal(raw.code, 1);
    assert.match(raw.stderr, /^The deployments "nginx" is invalid: : ValidatingAdmissionPolicy 'demo-policy\.example\.com'/);

    assert.equal(c.kubectl(['apply', '-f', '-'], { input: deployment('small', 'test', 5) }).code, 0);
    assert.equal(c.kubectl(['apply', '-f', '-'], { input: deployment('nginx', 'other', 6) }).code, 0);
    // an update that breaks the rule is refused too
    const up = c.kubectl(['apply', '-f', '-'], { input: deployment('small', 'test', 7) });
    assert.equal(up.code, 1);
    assert.match(
      up.stderr,
      /The deployments "small" is invalid: : ValidatingAdmissionPolicy 'demo-policy\.example\.com' with binding 'demo-binding-test\.example\.com' denied request: failed expression: object\.spec\.replicas <= 5/,
    );
  });

  it('warns with a Warn binding, a param and messageExpression', async () => {
    const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  variables:
  - {name: limit, expression: "int(params.data.maxReplicas)"}
  validations:
  - expression: "object.spec.replicas <= variables.limit"
    messageExpression: "'replicas ' + string(object.spec.replicas) + ' is over ' + string(variables.limit)"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas-warn}
spec:
  policyName: max-replicas
  validationActions: [Warn]
  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: warned}}
`;
    assert.equal(c.kubectl(['create', 'namespace', 'warned']).code, 0);
    const p = c.kubectl(['apply', '-f', '-'], { input: policy });
    assert.equal(p.code, 0, p.stderr);
    // without the param the binding's parameterNotFoundAction Deny refuses (failurePolicy Fail)
    await eventually(() => {
      const r = c.kubectl(['apply', '-f', '-'], { input: deployment('w1', 'warned', 3) });
      return r.code === 1 && r.stderr.includes('failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction') ? r : undefined;
    });
    assert.equal(c.kubectl(['create', 'configmap', 'limits', '-n', 'default', '--from-literal=maxReplicas=2']).code, 0);
    const w = c.kubectl(['apply', '-f', '-'], { input: deployment('w1', 'warned', 3) });
    assert.equal(w.code, 0, w.stderr);
    assert.equal(w.stderr.trim(), "Warning: Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-warn': replicas 3 is over 2");
  });
});

/**
 * CEL through the real kubectl: a CRD whose rule does not compile is refused when
 * written with upstream's text; rules with messageExpression, reason, fieldPath,
 * optionalOldSelf, transition rules and the url/format libraries act on update; a
 * ValidatingAdmissionPolicy using the authorizer library decides with the requesting
 * user's RBAC permissions (kubectl --as); status.typeChecking reports an expression that
 * does not type-check against the matched kind's schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Cluster, eventually, startCluster } from './harness.js';

function crd(rules: string): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
${rules}
            properties:
              replicas: {type: integer}
              endpoint: {type: string}
              owner: {type: string}
`;
}

const GOOD_RULES = `            - rule: "self.replicas <= 10"
              messageExpression: "'replicas ' + string(self.replicas) + ' is more than 10'"
              reason: FieldValueForbidden
              fieldPath: .replicas
            - rule: "!has(self.endpoint) || (isURL(self.endpoint) && url(self.endpoint).getScheme() == 'https')"
              message: endpoint must be an https URL
            - rule: "!has(self.owner) || !format.dns1123Label().validate(self.owner).hasValue()"
              messageExpression: "format.dns1123Label().validate(self.owner).value()[0]"
            - rule: "oldSelf.hasValue() ? self.replicas >= oldSelf.value().replicas : true"
              optionalOldSelf: true
              message: replicas may not decrease`;

function widget(spec: string): string {
  return `apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, namespace: default}
spec:
${spec}`;
}

describe('e2e: CEL libraries, CRD rule compilation, VAP authorizer and typeChecking', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('refuses a CRD whose rule does not compile; evaluates messageExpression, reason, fieldPath, optionalOldSelf on update', async () => {
    const bad = c.kubectl(['apply', '-f', '-'], { input: crd('            - rule: "self.replica <= 10"') });
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stderr.trim(),
      `The CustomResourceDefinition "widgets.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.replica <= 10", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'replica'\n | self.replica <= 10\n | ....^`,
    );
    const ok = c.kubectl(['apply', '-f', '-'], { input: crd(GOOD_RULES) });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(c.kubectl(['wait', '--for', 'condition=established', 'crd/widgets.example.com', '--timeout=30s']).code, 0);

    const tooMany = await eventually(() => {
      const r = c.kubectl(['apply', '-f', '-'], { input: widget('  replicas: 11\n') });
      return r.code === 1 && r.stderr.includes('is invalid') ? r : undefined;
    });
    assert.equal(tooMany.stderr.trim(), 'The Widget "w1" is invalid: spec.replicas: Forbidden: replicas 11 is more than 10');
    const http = c.kubectl(['apply', '-f', '-'], { input: widget('  replicas: 2\n  endpoint: http://example.com/\n') });
    assert.equal(http.stderr.trim(), 'The Widget "w1" is invalid: spec: Invalid value: "object": endpoint must be an https URL');
    const owner = c.kubectl(['apply', '-f', '-'], { input: widget('  replicas: 2\n  owner: Not_A_Label\n') });
    assert.equal(
      owner.stderr.trim(),
      `The Widget "w1" is invalid: spec: Invalid value: "object": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    );
    const created = c.kubectl(['apply', '-f', '-'], { input: widget('  replicas: 3\n  endpoint: https://example.com:8443/x\n  owner: team-a\n') });
    assert.equal(created.code, 0, created.stderr);
    const down = c.kubectl(['apply', '-f', '-'], { input: widget('  replicas: 2\n  endpoint: https://example.com:8443/x\n  owner: team-a\n') });
    assert.equal(down.stderr.trim(), 'The Widget "w1" is invalid: spec: Invalid value: "object": replicas may not decrease');
    assert.equal(c.kubectl(['apply', '-f', '-'], { input: widget('  replicas: 4\n  endpoint: https://example.com:8443/x\n  owner: team-a\n') }).code, 0);
  });

  it('decides with the authorizer library as the requesting user, and reports typeChecking warnings', async () => {
    const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: configmap-deleters}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "authorizer.group('').resource('configmaps').namespace(object.metadata.namespace).check('delete').allowed()"
    messageExpression: "'user ' + request.userInfo.username + ' may not delete configmaps'"
  - expression: "authorizer.requestResource.check('create').allowed()"
  - expression: "object.dataa == null || true"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: configmap-deleters}
spec:
  policyName: configmap-deleters
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels: {cel-e2e: "true"}
---
apiVersion: v1
kind: Namespace
metadata: {name: celns, labels: {cel-e2e: "true"}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-create, namespace: celns}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [create]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-cm-create, namespace: celns}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-create}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
`;
    const r = c.kubectl(['apply', '-f', '-'], { input: policy });
    assert.equal(r.code, 0, r.stderr);
    const denied = await eventually(() => {
      const x = c.kubectl(['create', 'configmap', 'a1', '-n', 'celns', '--as=alice']);
      return x.code === 1 && x.stderr.includes('ValidatingAdmissionPolicy') ? x : undefined;
    });
    assert.equal(
      denied.stderr.trim(),
      `error: failed to create configmap: configmaps "a1" is forbidden: ValidatingAdmissionPolicy 'configmap-deleters' with binding 'configmap-deleters' denied request: user alice may not delete configmaps`,
    );
    // the admin (system:masters) may delete configmaps: admitted
    assert.equal(c.kubectl(['create', 'configmap', 'a2', '-n', 'celns']).code, 0);

    const warning = await eventually(() => {
      const x = c.kubectl([
        'get',
        'validatingadmissionpolicy',
        'configmap-deleters',
        '-o',
        'jsonpath={.status.observedGeneration} {.status.typeChecking.expressionWarnings[*].fieldRef}|{.status.typeChecking.expressionWarnings[0].warning}',
      ]);
      return x.stdout.startsWith('1 ') ? x.stdout : undefined;
    }, 30_000);
    assert.equal(warning, "1 spec.validations[2].expression|/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'dataa'\n | object.dataa == null || true\n | ......^\n");
  });
});

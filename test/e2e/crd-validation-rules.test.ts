/**
 * CRD validation rules through the real kubectl: the documentation's CronTab rules
 * (`self.minReplicas <= self.replicas`, `self.replicas <= self.maxReplicas`) refuse a bad
 * object with the rule's message in upstream's form; a transition rule keeps a field
 * immutable on update; a list-type set refuses duplicates.
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Cluster, eventually, startCluster } from './harness.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
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
              - rule: "self.minReplicas <= self.replicas"
                message: "replicas should be greater than or equal to minReplicas."
              - rule: "self.replicas <= self.maxReplicas"
                message: "replicas should be smaller than or equal to maxReplicas."
            properties:
              minReplicas: {type: integer}
              replicas: {type: integer}
              maxReplicas: {type: integer}
              cronSpec:
                type: string
                x-kubernetes-validations:
                - rule: "self == oldSelf"
                  message: "Value is immutable"
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
            required: [minReplicas, replicas, maxReplicas]
`;

function cr(name: string, spec: string): string {
  return `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: ${name}
spec:
${spec}`;
}

describe('e2e: CRD x-kubernetes-validations', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('rejects bad objects with the rule message, keeps transition rules on update', async () => {
    assert.equal(c.kubectl(['apply', '-f', '-'], { input: CRD }).code, 0);
    assert.equal(c.kubectl(['wait', '--for', 'condition=established', 'crd/crontabs.stable.example.com', '--timeout=30s']).code, 0);
    const bad = await eventually(() => {
      const r = c.kubectl(['apply', '-f', '-'], { input: cr('my-new-cron-object', '  minReplicas: 0\n  replicas: 20\n  maxReplicas: 10\n') });
      return r.code === 1 && !r.stderr.includes('the server could not find') && !r.stderr.includes('no matches') ? r : undefined;
    });
    assert.equal(bad.stderr.trim(), 'The CronTab "my-new-cron-object" is invalid: spec: Invalid value: "object": replicas should be smaller than or equal to maxReplicas.');

    const two = c.kubectl(['apply', '-f', '-'], { input: cr('two', '  minReplicas: 25\n  replicas: 20\n  maxReplicas: 10\n') });
    assert.equal(
      two.stderr.trim(),
      'The CronTab "two" is invalid: \n* spec: Invalid value: "object": replicas should be greater than or equal to minReplicas.\n* spec: Invalid value: "object": replicas should be smaller than or equal to maxReplicas.',
    );

    const good = c.kubectl(['apply', '-f', '-'], { input: cr('good', '  minReplicas: 1\n  replicas: 2\n  maxReplicas: 3\n  cronSpec: "* * * * */5"\n') });
    assert.equal(good.code, 0, good.stderr);
    const changed = c.kubectl(['apply', '-f', '-'], { input: cr('good', '  minReplicas: 1\n  replicas: 2\n  maxReplicas: 3\n  cronSpec: "* * * * */6"\n') });
    assert.equal(changed.code, 1);
    assert.equal(changed.stderr.trim(), 'The CronTab "good" is invalid: spec.cronSpec: Invalid value: "string": Value is immutable');

    const dup = c.kubectl(['apply', '-f', '-'], { input: cr('dup', '  minReplicas: 1\n  replicas: 2\n  maxReplicas: 3\n  tags: [a, b, a]\n') });
    assert.equal(dup.stderr.trim(), 'The CronTab "dup" is invalid: spec.tags[2]: Duplicate value: "a"');
  });
});

/**
 * ValidatingAdmissionPolicy type checking against the built-in OpenAPI schemas, with
 * upstream's warning format.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { builtinSchemas } from '../../../openapi/index.js';
import { type GVK, typeCheckPolicy, type TypeResolver } from './typecheck.js';

const KINDS: Record<string, string> = { 'apps/v1/deployments': 'Deployment', '/v1/configmaps': 'ConfigMap', '/v1/pods': 'Pod' };

const resolver: TypeResolver = {
  async kindsFor(g, v, r) {
    const k = KINDS[`${g}/${v}/${r}`];
    return k ? [{ group: g, version: v, kind: k }] : [];
  },
  async schemaFor(gvk: GVK) {
    const set = builtinSchemas();
    const name = set.byGVK.get(`${gvk.group}/${gvk.version}/${gvk.kind}`);
    return name ? { schema: set.schemas[name]!, components: set.schemas } : undefined;
  },
};

function policy(
  validations: { expression: string; messageExpression?: string }[],
  resources = ['deployments'],
  paramKind?: { apiVersion: string; kind: string },
): ValidatingAdmissionPolicy {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'p' },
    spec: {
      ...(paramKind ? { paramKind } : {}),
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources } as never] },
      validations,
    },
  };
}

describe('ValidatingAdmissionPolicy status.typeChecking', () => {
  it('has no warnings when every expression type-checks', async () => {
    const p = policy([
      { expression: 'object.spec.replicas <= 5', messageExpression: "'replicas: ' + string(object.spec.replicas)" },
      { expression: "object.spec.template.spec.containers.all(c, c.image != '') && object.metadata.labels['app'] == 'x'" },
      { expression: "object.spec.template.spec.containers[0].image.startsWith('a') && has(object.metadata.namespace)" },
    ]);
    assert.deepEqual(await typeCheckPolicy(p, resolver), []);
  });

  it("warns about undefined fields with upstream's text", async () => {
    const p = policy([{ expression: 'object.replicas > 1' }, { expression: 'true', messageExpression: "object.spec.template.spec.containers[0].imagee + ''" }]);
    assert.deepEqual(await typeCheckPolicy(p, resolver), [
      { fieldRef: 'spec.validations[0].expression', warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^\n" },
      {
        fieldRef: 'spec.validations[1].messageExpression',
        warning:
          "apps/v1, Kind=Deployment: ERROR: <input>:1:40: undefined field 'imagee'\n | object.spec.template.spec.containers[0].imagee + ''\n | .......................................^\n",
      },
    ]);
  });

  it('types params by paramKind, skips wildcards and unknown kinds', async () => {
    const withParams = policy([{ expression: 'object.spec.replicas <= int(params.data.max) && params.dataa == null' }], ['deployments'], { apiVersion: 'v1', kind: 'ConfigMap' });
    const w = await typeCheckPolicy(withParams, resolver);
    assert.equal(w.length, 1);
    assert.match(w[0]!.warning, /^apps\/v1, Kind=Deployment: ERROR: <input>:1:55: undefined field 'dataa'\n/);
    assert.deepEqual(await typeCheckPolicy(policy([{ expression: 'object.nope' }], ['*']), resolver), []);
    assert.deepEqual(await typeCheckPolicy(policy([{ expression: 'object.nope' }], ['widgets']), resolver), []);
  });
});

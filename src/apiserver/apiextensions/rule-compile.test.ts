/**
 * CRD validation rules compiled when the CRD is written, with upstream's texts.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { CRSchema, CustomResourceDefinition } from '../../api/apiextensions/v1/customresourcedefinition/types.js';
import { validateCustomResourceDefinition } from '../../api/apiextensions/v1/customresourcedefinition/validation.js';
import { fieldErrorString } from '../../apimachinery/field-errors.js';
import { installRuleCompiler } from './rule-compile.js';

function crd(specs: CRSchema[]): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: specs.map((spec, i) => ({ name: `v${i + 1}`, served: true, storage: i === 0, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } })),
    },
  };
}

const errors = (...specs: CRSchema[]) => validateCustomResourceDefinition(crd(specs)).map(fieldErrorString);
const RULE = (rule: string, extra = '') =>
  `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:${extra ? JSON.stringify(extra) : '""'}, Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;

describe('CRD x-kubernetes-validations compiled on write', () => {
  before(() => installRuleCompiler());

  it('accepts rules that compile', () => {
    const s: CRSchema = {
      type: 'object',
      properties: { replicas: { type: 'integer' }, maxReplicas: { type: 'integer' }, labels: { type: 'object', additionalProperties: { type: 'string' } } },
      'x-kubernetes-validations': [
        { rule: 'self.replicas <= self.maxReplicas', messageExpression: "'replicas ' + string(self.replicas)" },
        { rule: "self.labels.all(k, self.labels[k] != '') && self.labels.anything == 'x'" },
        { rule: 'self.replicas >= oldSelf.replicas', reason: 'FieldValueForbidden' },
      ],
    };
    assert.deepEqual(errors(s), []);
  });

  it("refuses an undefined field with upstream's text (hoisted path when every version shares the schema)", () => {
    const s: CRSchema = { type: 'object', properties: { replicas: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.replica > 1' }] };
    assert.deepEqual(errors(s), [
      `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ${RULE('self.replica > 1')}: compilation failed: ERROR: <input>:1:5: undefined field 'replica'\n | self.replica > 1\n | ....^`,
    ]);
    const other: CRSchema = { type: 'object', properties: { replicas: { type: 'integer' } } };
    assert.deepEqual(errors(other, s), [
      `spec.versions[1].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ${RULE('self.replica > 1')}: compilation failed: ERROR: <input>:1:5: undefined field 'replica'\n | self.replica > 1\n | ....^`,
    ]);
  });

  it('refuses syntax errors, undeclared names, non-bool rules and bad messageExpressions', () => {
    const s: CRSchema = {
      type: 'object',
      properties: { replicas: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'self.replicas >' }, { rule: 'foo > 1' }, { rule: "'a'" }, { rule: 'true', messageExpression: '1 + 1' }],
    };
    const e = errors(s);
    assert.equal(e.length, 4, e.join('\n'));
    assert.match(
      e[0]!,
      /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*: compilation failed: ERROR: <input>:1:16: /,
    );
    assert.equal(
      e[1],
      `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: Invalid value: ${RULE('foo > 1')}: compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo > 1\n | ^`,
    );
    assert.equal(e[2], `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[2].rule: Invalid value: ${RULE("'a'")}: cel expression must evaluate to a bool`);
    assert.equal(
      e[3],
      `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[3].messageExpression: Invalid value: ${RULE('true', '1 + 1')}: messageExpression must evaluate to a string`,
    );
  });

  it('refuses oldSelf under uncorrelatable list items, unknown reasons and empty rules', () => {
    const s: CRSchema = {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'self.name == oldSelf.name' }] },
        },
      },
      'x-kubernetes-validations': [{ rule: ' ', reason: 'Nope' }],
    };
    assert.deepEqual(errors(s), [
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Required value: rule is not specified',
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
      'spec.validation.openAPIV3Schema.properties[spec].properties[tags].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[tags]',
    ]);
  });
});

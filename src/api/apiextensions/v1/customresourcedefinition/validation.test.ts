import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../../apimachinery/field-errors.js';
import type { Obj } from '../../../resource.js';
import { customResourceDefinitionDefinition as def, defaultCustomResourceDefinition } from './strategy.js';
import type { CustomResourceDefinition } from './types.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate } from './validation.js';

function crd(mut: (c: CustomResourceDefinition) => void = () => undefined): Obj<CustomResourceDefinition> {
  const c: Obj<CustomResourceDefinition> = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
        },
      ],
    },
  };
  defaultCustomResourceDefinition(c);
  mut(c);
  return c;
}

const errs = (c: CustomResourceDefinition): string[] => validateCustomResourceDefinition(c).map(fieldErrorString);

describe('CustomResourceDefinition defaults and validation', () => {
  it('defaults singular, listKind and conversion', () => {
    const c = crd();
    assert.equal(c.spec.names.singular, 'widget');
    assert.equal(c.spec.names.listKind, 'WidgetList');
    assert.deepEqual(c.spec.conversion, { strategy: 'None' });
    assert.deepEqual(errs(c), []);
  });

  const cases: [string, (c: CustomResourceDefinition) => void, string][] = [
    ['name must be plural.group', (c) => (c.metadata!.name = 'widget.example.com'), 'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group'],
    [
      'group needs a dot',
      (c) => ((c.spec.group = 'example'), (c.metadata!.name = 'widgets.example')),
      'spec.group: Invalid value: "example": should be a domain with at least one dot',
    ],
    ['scope required', (c) => (c.spec.scope = ''), 'spec.scope: Required value'],
    ['scope supported', (c) => (c.spec.scope = 'Global'), 'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'],
    ['exactly one storage version', (c) => (c.spec.versions[0]!.storage = false), 'spec.versions: Invalid value: must have exactly one version marked as storage version'],
    ['schema required', (c) => delete c.spec.versions[0]!.schema, 'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'],
    ['plural required', (c) => ((c.spec.names.plural = ''), (c.metadata!.name = '.example.com')), 'spec.names.plural: Required value'],
    [
      'kind lower-case DNS label',
      (c) => (c.spec.names.kind = 'Wid_get'),
      "spec.names.kind: Invalid value: \"Wid_get\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ],
    ['kind and listKind differ', (c) => (c.spec.names.listKind = 'Widget'), 'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same'],
    [
      'structural: type of fields',
      (c) => (c.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.properties!.size = { description: 'no type' }),
      'spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Required value: must not be empty for specified object fields',
    ],
    [
      'structural: root type',
      (c) => delete c.spec.versions[0]!.schema!.openAPIV3Schema!.type,
      'spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root',
    ],
    [
      'structural: array items',
      (c) => (c.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.properties!.size = { type: 'array' }),
      'spec.validation.openAPIV3Schema.properties[spec].properties[size].items: Required value: must be specified',
    ],
    [
      'scale paths',
      (c) => (c.spec.versions[0]!.subresources = { scale: { specReplicasPath: '.status.x', statusReplicasPath: '.status.y' } }),
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.x": should be a json path under .spec',
    ],
    [
      'printer column type',
      (c) => (c.spec.versions[0]!.additionalPrinterColumns = [{ name: 'X', type: 'text', jsonPath: '.spec.size' }]),
      'spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
    ],
    [
      'per-version paths when versions differ',
      (c) => {
        c.spec.versions.push({ name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { description: 'untyped' } } } } });
      },
      'spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    ],
    [
      'defaults must validate',
      (c) => (c.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.properties!.size = { type: 'integer', default: 'big' }),
      'spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: "string":  in body must be of type integer: "string"',
    ],
    [
      'defaults must be pruned',
      (c) => (c.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.default = { size: 1, color: 'red' }),
      'spec.validation.openAPIV3Schema.properties[spec].default: Invalid value: {"size":1,"color":"red"}: must not have unknown fields',
    ],
    [
      'protected groups need approval',
      (c) => ((c.spec.group = 'widgets.k8s.io'), (c.metadata!.name = 'widgets.widgets.k8s.io')),
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ],
  ];
  for (const [name, mut, want] of cases) {
    it(name, () => {
      assert.ok(errs(crd(mut)).includes(want), `${want}\n  not in\n${errs(crd(mut)).join('\n')}`);
    });
  }

  it('group and plural are immutable; scope and kind once established', () => {
    const old = crd((c) => (c.status = { acceptedNames: { kind: 'Widget', plural: 'widgets' }, storedVersions: ['v1'], conditions: [{ type: 'Established', status: 'True' }] }));
    const next = crd((c) => ((c.spec.scope = 'Cluster'), (c.status = structuredClone(old.status))));
    const out = validateCustomResourceDefinitionUpdate(next, old).map(fieldErrorString);
    assert.deepEqual(out, ['spec.scope: Invalid value: "Cluster": field is immutable']);
  });
});

describe('CustomResourceDefinition strategy', () => {
  const ctx = { user: { username: 'u', groups: [] }, namespace: '', now: () => new Date('2026-01-01T00:00:00Z') };
  it('clears status on create and records the storage version', () => {
    const c = crd((x) => (x.status = { acceptedNames: { kind: 'Bogus', plural: 'bogus' }, storedVersions: ['v9'], conditions: [{ type: 'Established', status: 'True' }] }));
    def.prepareForCreate!(c, ctx);
    assert.deepEqual(c.status, { acceptedNames: { kind: '', plural: '' }, storedVersions: ['v1'] });
    assert.equal(c.metadata.generation, 1);
  });

  it('bumps generation on spec changes only and adds new storage versions', () => {
    const old = crd((x) => ((x.metadata!.generation = 1), (x.status = { acceptedNames: { kind: 'Widget', plural: 'widgets' }, storedVersions: ['v1'] })));
    const same = structuredClone(old);
    def.prepareForUpdate!(same, old, ctx);
    assert.equal(same.metadata.generation, 1);
    const changed = structuredClone(old);
    changed.spec.versions[0]!.storage = false;
    changed.spec.versions.push({ name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } });
    def.prepareForUpdate!(changed, old, ctx);
    assert.equal(changed.metadata.generation, 2);
    assert.deepEqual(changed.status?.storedVersions, ['v1', 'v2']);
  });

  it('the first delete adds the cleanup finalizer and the Terminating condition', () => {
    const c = crd();
    const step = def.deleteStep!(c, {}, new Date('2026-01-01T00:00:00Z'));
    assert.equal(step.kind, 'update');
    const o = (step as { obj: Obj<CustomResourceDefinition> }).obj;
    assert.deepEqual(o.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    assert.equal(o.metadata.deletionTimestamp, '2026-01-01T00:00:00Z');
    assert.deepEqual(
      o.status?.conditions?.map((x) => [x.type, x.status, x.reason]),
      [['Terminating', 'True', 'InstanceDeletionPending']],
    );
    assert.equal(def.deleteStep!(o, {}, new Date()).kind, 'delete');
  });
});

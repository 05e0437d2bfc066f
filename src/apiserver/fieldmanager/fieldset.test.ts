import { test } from 'node:test';
import assert from 'node:assert/strict';
import { comparePE, FieldSet, fieldPE, keyPE, pathString, valuePE } from './fieldset.js';

const P = (...pes: string[]) => pes;

test('fieldsV1: members without children are {}, members with children carry "."', () => {
  const s = new FieldSet();
  s.insert(P('f:metadata', 'f:labels'));
  s.insert(P('f:metadata', 'f:labels', 'f:app'));
  s.insert(P('f:spec', 'f:replicas'));
  assert.deepEqual(s.toFieldsV1(), {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': { 'f:replicas': {} },
  });
  assert.equal(JSON.stringify(s.toFieldsV1()), '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{}}}');
});

test('fieldsV1 round trip', () => {
  const v = {
    'f:spec': {
      'f:template': {
        'f:spec': {
          'f:containers': {
            'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} },
          },
        },
      },
    },
    'f:metadata': { 'f:finalizers': { '.': {}, 'v:"example.com/x"': {} } },
  };
  const s = FieldSet.fromFieldsV1(v);
  assert.ok(s.has(P('f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"nginx"}')));
  assert.ok(s.has(P('f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:image')));
  assert.ok(!s.has(P('f:spec', 'f:template')));
  assert.ok(s.has(P('f:metadata', 'f:finalizers', 'v:"example.com/x"')));
  // re-encoded in upstream order: metadata before spec
  assert.deepEqual(Object.keys(s.toFieldsV1()), ['f:metadata', 'f:spec']);
  assert.deepEqual(FieldSet.fromFieldsV1(s.toFieldsV1()).toFieldsV1(), s.toFieldsV1());
  assert.throws(() => FieldSet.fromFieldsV1({ 'x:y': {} }), /unknown path element/);
});

test('path element order: fields, keys, values, indices; keys and values by value', () => {
  const pes = ['i:10', 'v:"b"', 'k:{"containerPort":443,"protocol":"TCP"}', 'f:b', 'i:9', 'k:{"containerPort":80,"protocol":"TCP"}', 'v:2', 'f:a'];
  assert.deepEqual([...pes].sort(comparePE), ['f:a', 'f:b', 'k:{"containerPort":80,"protocol":"TCP"}', 'k:{"containerPort":443,"protocol":"TCP"}', 'v:2', 'v:"b"', 'i:9', 'i:10']);
});

test('key path elements sort fields by name and escape as Go does', () => {
  assert.equal(
    keyPE([
      ['protocol', 'TCP'],
      ['containerPort', 80],
    ]),
    'k:{"containerPort":80,"protocol":"TCP"}',
  );
  assert.equal(valuePE('a<b'), 'v:"a\\u003cb"');
  assert.equal(fieldPE('app.kubernetes.io/name'), 'f:app.kubernetes.io/name');
});

test('set algebra', () => {
  const a = new FieldSet();
  a.insert(P('f:spec', 'f:replicas'));
  a.insert(P('f:spec', 'f:paused'));
  const b = new FieldSet();
  b.insert(P('f:spec', 'f:replicas'));
  b.insert(P('f:metadata', 'f:labels', 'f:x'));
  assert.deepEqual(a.intersection(b).toFieldsV1(), { 'f:spec': { 'f:replicas': {} } });
  assert.deepEqual(a.difference(b).toFieldsV1(), { 'f:spec': { 'f:paused': {} } });
  assert.equal(a.union(b).size(), 3);
  assert.ok(a.difference(a).isEmpty());
});

test('paths print as upstream conflict messages do', () => {
  assert.equal(pathString(P('f:spec', 'f:replicas')), '.spec.replicas');
  assert.equal(pathString(P('f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:image')), '.spec.containers[name="nginx"].image');
  assert.equal(pathString(P('f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}')), '.spec.ports[port=80,protocol="TCP"]');
  assert.equal(pathString(P('f:metadata', 'f:finalizers', 'v:"a/b"')), '.metadata.finalizers[="a/b"]');
  assert.equal(pathString(P('f:x', 'i:3')), '.x[3]');
});

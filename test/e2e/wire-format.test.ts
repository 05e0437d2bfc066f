/**
 * The bytes of JSON replies through the real kubectl (`get --raw`): upstream's member
 * order (kind, apiVersion, metadata in ObjectMeta's order), Go's trailing newline,
 * `?pretty=true` indentation, and status counters Go writes even when zero.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';

const RC = `apiVersion: v1
kind: ReplicationController
metadata:
  name: idle
spec:
  replicas: 0
  selector:
    app: idle
  template:
    metadata:
      labels:
        app: idle
    spec:
      containers:
        - name: c
          image: nginx:1.27
`;

describe('JSON wire format', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it("objects come in Go field order with Go's trailing newline", () => {
    assert.equal(c.kubectl(['create', 'configmap', 'wire', '--from-literal=a=b']).code, 0);
    const r = c.kubectl(['get', '--raw', '/api/v1/namespaces/default/configmaps/wire']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^\{"kind":"ConfigMap","apiVersion":"v1","metadata":\{"name":"wire","namespace":"default","uid":"[0-9a-f-]+","resourceVersion":"\d+","creationTimestamp":"[^"]+","managedFields":\[\{"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"[^"]+","fieldsType":"FieldsV1","fieldsV1":/,
    );
    assert.ok(r.stdout.endsWith('},"data":{"a":"b"}}\n'), JSON.stringify(r.stdout.slice(-40)));
    const list = c.kubectl(['get', '--raw', '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dwire']);
    assert.match(list.stdout, /^\{"kind":"ConfigMapList","apiVersion":"v1","metadata":\{"resourceVersion":"\d+"\},"items":\[\{"kind":"ConfigMap",/);
    assert.ok(list.stdout.endsWith(']}\n'));
  });

  it('?pretty=true indents by two spaces, without the newline', () => {
    const r = c.kubectl(['get', '--raw', '/api/v1/namespaces/default/configmaps/wire?pretty=true']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\{\n {2}"kind": "ConfigMap",\n {2}"apiVersion": "v1",\n {2}"metadata": \{\n {4}"name": "wire",\n/);
    assert.ok(r.stdout.endsWith('  "data": {\n    "a": "b"\n  }\n}'), JSON.stringify(r.stdout.slice(-40)));
  });

  it('a ReplicationController scaled to zero reports status.replicas 0 (no omitempty upstream)', async () => {
    const created = c.kubectl(['apply', '-f', '-'], { input: RC });
    assert.equal(created.code, 0, created.stderr);
    const raw = await eventually(() => {
      const r = c.kubectl(['get', '--raw', '/api/v1/namespaces/default/replicationcontrollers/idle']);
      return r.code === 0 ? r.stdout : undefined;
    });
    assert.match(raw, /"status":\{"replicas":0[,}]/);
    assert.ok(raw.indexOf('"spec":') < raw.indexOf('"status":'));
  });
});

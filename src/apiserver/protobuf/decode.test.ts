import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { StatusError } from '../../apimachinery/errors.js';
import { decodeProtobufObject, PROTOBUF_MAGIC, protobufRoot } from './index.js';

const TESTDATA = new URL('./testdata/', import.meta.url);

/** Go's JSON writes zero Times as null (`creationTimestamp: null`); the decoder omits them. */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
  }
  return v;
}

const fixtures = readdirSync(TESTDATA).filter((f) => f.endsWith('.pb')).map((f) => f.slice(0, -3)).sort();

test('the captured kubectl 1.32 bodies cover the create and auth commands', () => {
  assert.ok(fixtures.length >= 29, `only ${fixtures.length} fixtures`);
  for (const name of ['configmap', 'secret', 'namespace', 'deployment', 'job', 'cronjob', 'service', 'selfsubjectaccessreview', 'selfsubjectrulesreview', 'selfsubjectreview']) {
    assert.ok(fixtures.includes(name), name);
  }
  for (const name of fixtures) {
    const req = JSON.parse(readFileSync(new URL(`${name}.request.json`, TESTDATA), 'utf8')) as { contentType: string };
    assert.equal(req.contentType, 'application/vnd.kubernetes.protobuf', name);
  }
});

for (const name of fixtures) {
  test(`fixture ${name}: decodes to the JSON kubectl sends for the same object`, () => {
    const body = readFileSync(new URL(`${name}.pb`, TESTDATA));
    const want = dropNulls(JSON.parse(readFileSync(new URL(`${name}.expected.json`, TESTDATA), 'utf8'))) as Record<string, unknown>;
    const got = decodeProtobufObject(body);
    assert.equal(got.apiVersion, want.apiVersion);
    assert.equal(got.kind, want.kind);
    assert.deepStrictEqual(got.object, want);
  });
}

test('fixture details: replicas 0 kept, bytes as base64, IntOrString as number or name', () => {
  const dec = (n: string) => decodeProtobufObject(readFileSync(new URL(`${n}.pb`, TESTDATA))).object as any;
  assert.equal(dec('deployment_zero').spec.replicas, 0);
  assert.deepEqual(dec('configmap_file').binaryData, { blob: Buffer.from([0, 1, 2, 0xfe, 0xff, 0x80, 0x7f]).toString('base64') });
  assert.equal(Buffer.from(dec('secret').data.user, 'base64').toString(), 'admin');
  const ports = dec('service').spec.ports;
  assert.equal(ports[0].targetPort, 8080);
  assert.equal(ports[1].targetPort, 'https');
  assert.equal(dec('pdb').spec.minAvailable, '50%');
  assert.equal(dec('selfsubjectaccessreview').status.allowed, false);
});

/** Encodes `k8s\0` + runtime.Unknown around a typed message built from a JSON-like object. */
function encode(apiVersion: string, kind: string, typeName: string, obj: Record<string, unknown>): Buffer {
  const root = protobufRoot();
  const T = root.lookupType(typeName);
  const err = T.verify(obj);
  assert.equal(err, null);
  const raw = T.encode(T.fromObject(obj)).finish();
  const U = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const env = U.encode(U.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' })).finish();
  return Buffer.concat([PROTOBUF_MAGIC, env]);
}

test('Pod: times, inline structs, quantities, pointer zeros, IntOrString, owner references', () => {
  const body = encode('v1', 'Pod', 'k8s.io.api.core.v1.Pod', {
    metadata: {
      name: 'p',
      namespace: 'default',
      generation: 3,
      creationTimestamp: { seconds: 1700000000 },
      deletionTimestamp: {},
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
      managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: { seconds: 0 }, fieldsType: 'FieldsV1', fieldsV1: { Raw: Buffer.from('{"f:spec":{}}') } }],
      labels: { app: 'x' },
    },
    spec: {
      volumes: [{ name: 'scratch', volumeSource: { emptyDir: {} } }, { name: 'cfg', volumeSource: { configMap: { localObjectReference: { name: 'cm' }, defaultMode: 420 } } }],
      containers: [
        {
          name: 'c',
          image: 'nginx',
          stdin: false, // non-pointer bool with omitempty: omitted when false
          env: [{ name: 'K', valueFrom: { configMapKeyRef: { localObjectReference: { name: 'cm' }, key: 'k' } } }],
          resources: { limits: { cpu: { string: '500m' }, memory: { string: '1Gi' } } },
          livenessProbe: { handler: { httpGet: { path: '/healthz', port: { type: 1, strVal: 'http' } } }, periodSeconds: 0 },
          readinessProbe: { handler: { tcpSocket: { port: { type: 0, intVal: 8080 } } } },
          securityContext: { runAsUser: 0, privileged: false },
        },
      ],
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
      hostNetwork: false,
    },
  });
  const { object } = decodeProtobufObject(body);
  assert.deepStrictEqual(object, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'default',
      generation: 3,
      creationTimestamp: '2023-11-14T22:13:20Z',
      labels: { app: 'x' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
      managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '1970-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }],
    },
    spec: {
      volumes: [{ name: 'scratch', emptyDir: {} }, { name: 'cfg', configMap: { name: 'cm', defaultMode: 420 } }],
      containers: [
        {
          name: 'c',
          image: 'nginx',
          env: [{ name: 'K', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }],
          resources: { limits: { cpu: '500m', memory: '1Gi' } },
          livenessProbe: { httpGet: { path: '/healthz', port: 'http' } },
          readinessProbe: { tcpSocket: { port: 8080 } },
          securityContext: { runAsUser: 0, privileged: false },
        },
      ],
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
    },
  });
});

test('SelfSubjectReview status: ExtraValue maps become string arrays', () => {
  const body = encode('authentication.k8s.io/v1', 'SelfSubjectReview', 'k8s.io.api.authentication.v1.SelfSubjectReview', {
    metadata: {},
    status: { userInfo: { username: 'alice', groups: ['devs'], extra: { scopes: { items: ['a', 'b'] } } } },
  });
  assert.deepStrictEqual(decodeProtobufObject(body).object, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
    metadata: {},
    status: { userInfo: { username: 'alice', groups: ['devs'], extra: { scopes: ['a', 'b'] } } },
  });
});

function assertBadRequest(fn: () => unknown, message: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError, String(e));
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    if (typeof message === 'string') assert.equal(e.status.message, message);
    else assert.match(e.status.message ?? '', message);
    return true;
  });
}

test('malformed bodies and unsupported kinds are 400 BadRequest in upstream wording', () => {
  assertBadRequest(() => decodeProtobufObject(Buffer.from('{"kind":"Pod"}')), 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  assertBadRequest(() => decodeProtobufObject(Buffer.from([0x6b, 0x38])), /expected prefix/);
  assertBadRequest(
    () => decodeProtobufObject(encode('example.com/v1', 'Widget', 'k8s.io.api.core.v1.ConfigMap', {})),
    'no kind "Widget" is registered for version "example.com/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
  );
  assertBadRequest(() => decodeProtobufObject(encode('v1', '', 'k8s.io.api.core.v1.ConfigMap', {})), /^Object 'Kind' is missing in /);
  // envelope cut short
  const good = readFileSync(new URL('deployment.pb', TESTDATA));
  assertBadRequest(() => decodeProtobufObject(good.subarray(0, 20)), /unexpected EOF|unrecognized/);
  // a valid envelope whose object is truncated
  const U = protobufRoot().lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const env = U.decode(good.subarray(4)) as unknown as { raw: Uint8Array };
  const cut = Buffer.concat([PROTOBUF_MAGIC, U.encode(U.fromObject({ typeMeta: { apiVersion: 'apps/v1', kind: 'Deployment' }, raw: env.raw.subarray(0, 40) })).finish()]);
  assertBadRequest(() => decodeProtobufObject(cut), 'Deployment in version "v1" cannot be handled as a Deployment: unexpected EOF');
});

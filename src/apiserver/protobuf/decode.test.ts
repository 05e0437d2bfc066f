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
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null)
        .map(([k, x]) => [k, dropNulls(x)]),
    );
  }
  return v;
}

const fixtures = readdirSync(TESTDATA)
  .filter((f) => f.endsWith('.pb'))
  .map((f) => f.slice(0, -3))
  .sort();

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
      volumes: [
        { name: 'scratch', volumeSource: { emptyDir: {} } },
        { name: 'cfg', volumeSource: { configMap: { localObjectReference: { name: 'cm' }, defaultMode: 420 } } },
      ],
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
      volumes: [
        { name: 'scratch', emptyDir: {} },
        { name: 'cfg', configMap: { name: 'cm', defaultMode: 420 } },
      ],
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

/** protobuf wire helpers: a tag, a varint, a length-delimited field (hand-built, not from the .proto files). */
const varint = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const vfield = (num: number, v: number): number[] => [(num << 3) | 0, ...varint(v)];
const lfield = (num: number, bytes: number[] | string): number[] => {
  const b = typeof bytes === 'string' ? [...Buffer.from(bytes)] : bytes;
  return [(num << 3) | 2, ...varint(b.length), ...b];
};
/** `k8s\0` + runtime.Unknown{typeMeta(1){apiVersion(1), kind(2)}, raw(2)} */
const envelope = (apiVersion: string, kind: string, raw: number[]): Buffer =>
  Buffer.concat([PROTOBUF_MAGIC, Buffer.from([...lfield(1, [...lfield(1, apiVersion), ...lfield(2, kind)]), ...lfield(2, raw)])]);

test('DeleteOptions: upstream field numbers (gracePeriodSeconds 1, preconditions 2 {uid 1, resourceVersion 2}, orphanDependents 3, propagationPolicy 4, dryRun 5)', () => {
  const raw = [...vfield(1, 30), ...lfield(2, [...lfield(1, 'uid-1'), ...lfield(2, '42')]), ...vfield(3, 0), ...lfield(4, 'Foreground'), ...lfield(5, 'All')];
  assert.deepStrictEqual(decodeProtobufObject(envelope('v1', 'DeleteOptions', raw)).object, {
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    gracePeriodSeconds: 30,
    preconditions: { uid: 'uid-1', resourceVersion: '42' },
    orphanDependents: false,
    propagationPolicy: 'Foreground',
    dryRun: ['All'],
  });
  // every group version registers DeleteOptions; meta.k8s.io/v1 too
  for (const gv of ['apps/v1', 'meta.k8s.io/v1', 'batch/v1']) {
    const d = decodeProtobufObject(envelope(gv, 'DeleteOptions', vfield(1, 0)));
    assert.deepStrictEqual(d.object, { apiVersion: gv, kind: 'DeleteOptions', gracePeriodSeconds: 0 }, gv);
  }
  // an empty DeleteOptions (kubectl drain without flags) has no fields
  assert.deepStrictEqual(decodeProtobufObject(envelope('v1', 'DeleteOptions', [])).object, { apiVersion: 'v1', kind: 'DeleteOptions' });
});

test('Eviction (policy/v1 and v1beta1): metadata 1, deleteOptions 2', () => {
  const raw = [...lfield(1, [...lfield(1, 'web-0'), ...lfield(3, 'default')]), ...lfield(2, [...vfield(1, 5), ...lfield(2, [...lfield(1, 'u')])])];
  for (const gv of ['policy/v1', 'policy/v1beta1']) {
    assert.deepStrictEqual(decodeProtobufObject(envelope(gv, 'Eviction', raw)).object, {
      apiVersion: gv,
      kind: 'Eviction',
      metadata: { name: 'web-0', namespace: 'default' },
      deleteOptions: { gracePeriodSeconds: 5, preconditions: { uid: 'u' } },
    });
  }
  // kinds other than the per-version meta kinds are still looked up by group version
  assertBadRequest(
    () => decodeProtobufObject(envelope('apps/v1', 'Eviction', raw)),
    'no kind "Eviction" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
  );
});

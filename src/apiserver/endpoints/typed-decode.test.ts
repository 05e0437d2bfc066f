/**
 * Typed decoding of built-in objects: wrong JSON types are refused with upstream's decoder
 * texts on create, update and every patch type, and nothing malformed is stored.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResourceDefinition } from '../../api/resource.js';
import { configMapDefinition } from '../../api/core/v1/configmap/strategy.js';
import { namespaceDefinition } from '../../api/core/v1/namespace/strategy.js';
import { podDefinition } from '../../api/core/v1/pod/strategy.js';
import { secretDefinition } from '../../api/core/v1/secret/strategy.js';
import { createServiceDefinition } from '../../api/core/v1/service/strategy.js';
import { deploymentDefinition } from '../../api/apps/v1/deployment/strategy.js';
import { openStorage } from '../../storage/index.js';
import type { Storage } from '../../storage/interface.js';
import { APIServer } from '../apiserver.js';
import type { ApiRequest, ResponseWriter } from '../http/types.js';
import { base64Error, timeError } from '../openapi/typecheck.js';
import { MAX_JSON_DEPTH } from '../http/json-syntax.js';

interface Reply {
  status: number;
  body: any;
}

async function call(api: APIServer, method: string, url: string, body?: unknown, contentType = 'application/json'): Promise<Reply> {
  let status = 0;
  const chunks: Buffer[] = [];
  let closed = false;
  const res: ResponseWriter = {
    writeHead(s) {
      status = s;
    },
    write(c) {
      chunks.push(Buffer.from(c));
    },
    end(c) {
      if (c !== undefined) chunks.push(Buffer.from(c));
      closed = true;
    },
    onClose() {},
    get closed() {
      return closed;
    },
  };
  const raw = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const req: ApiRequest = {
    method,
    url,
    headers: raw ? { 'content-type': contentType } : {},
    body: raw,
    user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
  };
  await api.handle(req, res);
  const text = Buffer.concat(chunks).toString('utf8');
  return { status, body: text ? JSON.parse(text) : undefined };
}

const CMS = '/api/v1/namespaces/default/configmaps';
const PODS = '/api/v1/namespaces/default/pods';

describe('typed decoding of built-in kinds', () => {
  let dir: string;
  let storage: Storage;
  let api: APIServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-typed-'));
    storage = await openStorage({ kind: 'sqlite', dataDir: dir });
    api = new APIServer({
      storage,
      definitions: [configMapDefinition, namespaceDefinition, podDefinition, secretDefinition, createServiceDefinition(), deploymentDefinition] as ResourceDefinition[],
      serverAddress: '127.0.0.1:6443',
    });
    await api.start();
    assert.equal((await call(api, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } })).status, 201);
  });

  after(async () => {
    api.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const badRequest = (r: Reply, message: string): void => {
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.deepEqual(r.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
  };

  it('refuses wrong-typed create bodies with the Go struct field, its owner and its Go type', async () => {
    badRequest(
      await call(api, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: [[1]] } }),
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string',
    );
    badRequest(
      await call(api, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', annotations: 5 } }),
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.annotations of type map[string]string',
    );
    badRequest(
      await call(api, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: 'x' }),
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string',
    );
    badRequest(
      await call(api, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { x: 1 } } }),
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    );
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'nginx' }], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [] } } },
    };
    badRequest(
      await call(api, 'POST', PODS, pod),
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal array into Go struct field NodeAffinity.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution of type v1.NodeSelector',
    );
    badRequest(
      await call(api, 'POST', PODS, { ...pod, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: '80' }] }] } }),
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
    );
    badRequest(
      await call(api, 'POST', PODS, { ...pod, spec: { containers: [5] } }),
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field PodSpec.spec.containers of type v1.Container',
    );
    badRequest(
      await call(api, 'POST', PODS, { ...pod, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 1.5 }] }] } }),
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number 1.5 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
    );
    badRequest(
      await call(api, 'POST', PODS, { ...pod, spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: 'lots' } } }] } }),
      'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
    );
    badRequest(
      await call(api, 'POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'no!' } }),
      'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 2',
    );
    badRequest(
      await call(api, 'POST', '/api/v1/namespaces/default/services', {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's' },
        spec: { ports: [{ port: 80, targetPort: true }] },
      }),
      'Service in version "v1" cannot be handled as a Service: json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32',
    );
    badRequest(
      await call(api, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', creationTimestamp: 'yesterday' } }),
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    );
    badRequest(
      await call(api, 'POST', '/apis/apps/v1/namespaces/default/deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 'three' } }),
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    // nothing was stored
    assert.equal((await call(api, 'GET', CMS)).body.items.length, 0);
    assert.equal((await call(api, 'GET', PODS)).body.items.length, 0);
  });

  it('accepts null anywhere, numbers as quantities, strings and ints as int-or-string', async () => {
    const r = await call(api, 'POST', PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'ok', labels: null, creationTimestamp: null },
      spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: 1, memory: '1Gi' } }, ports: [{ containerPort: 80 }] }] },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  });

  it('refuses wrongly-typed results of every patch type, each with its decoding path wording', async () => {
    assert.equal((await call(api, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 't', labels: { a: 'b' } } })).status, 201);
    const smp = await call(api, 'PATCH', `${CMS}/t`, { metadata: { labels: 'invalid' } }, 'application/strategic-merge-patch+json');
    assert.equal(smp.status, 422, JSON.stringify(smp.body));
    assert.equal(smp.body.reason, 'Invalid');
    assert.equal(smp.body.message, ' "" is invalid: patch: Invalid value: "map[metadata:map[labels:invalid]]": cannot restore map from string');
    assert.deepEqual(smp.body.details.causes, [
      { reason: 'FieldValueInvalid', message: 'Invalid value: "map[metadata:map[labels:invalid]]": cannot restore map from string', field: 'patch' },
    ]);

    const merge = await call(api, 'PATCH', `${CMS}/t`, { data: 5 }, 'application/merge-patch+json');
    assert.equal(merge.status, 422, JSON.stringify(merge.body));
    assert.match(
      merge.body.message,
      /^ "" is invalid: patch: Invalid value: "\{.*\}": json: cannot unmarshal number into Go struct field ConfigMap\.data of type map\[string\]string$/,
    );

    const json = await call(api, 'PATCH', `${CMS}/t`, [{ op: 'add', path: '/metadata/labels/x', value: ['y'] }], 'application/json-patch+json');
    assert.equal(json.status, 422, JSON.stringify(json.body));
    assert.match(json.body.message, /json: cannot unmarshal array into Go struct field ObjectMeta\.metadata\.labels of type string$/);

    const apply = await call(
      api,
      'PATCH',
      `${CMS}/t?fieldManager=test`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 't' }, data: 'x' },
      'application/apply-patch+yaml',
    );
    badRequest(apply, 'failed to create typed patch object (/v1, Kind=ConfigMap): .data: expected map, got string');

    const got = await call(api, 'GET', `${CMS}/t`);
    assert.deepEqual(got.body.metadata.labels, { a: 'b' });
    assert.equal(got.body.data, undefined);
  });

  it('refuses wrong types on update', async () => {
    const cur = (await call(api, 'GET', `${CMS}/t`)).body;
    badRequest(
      await call(api, 'PUT', `${CMS}/t`, { ...cur, binaryData: { k: 7 } }),
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.binaryData of type []uint8',
    );
  });

  it("answers undecodable bodies with upstream's 'the object provided is unrecognized' wording", async () => {
    badRequest(
      await call(api, 'POST', CMS, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":'),
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Con ...)',
    );
    badRequest(
      await call(api, 'POST', CMS, '42'),
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (3432)',
    );
  });

  it('refuses bodies nested deeper than the limit with a 400, and patches that nest deeper on what is stored with a 422; within the limit no overflow', async () => {
    const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    const over = await call(api, 'POST', CMS, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${deep(MAX_JSON_DEPTH)}}`);
    assert.equal(over.status, 400, JSON.stringify(over.body).slice(0, 300));
    assert.match(
      over.body.message,
      /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: invalid character '\[' exceeded max depth \(/,
    );
    const yaml = await call(api, 'POST', CMS, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deepy\nx: ${deep(MAX_JSON_DEPTH + 1)}\n`, 'application/yaml');
    assert.equal(yaml.status, 400, JSON.stringify(yaml.body).slice(0, 300));
    // within the limit: an unknown field is not decoded into anything (Warn: a warning), the object stored
    const within = await call(api, 'POST', CMS, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${deep(MAX_JSON_DEPTH - 2)}}`);
    assert.equal(within.status, 201, JSON.stringify(within.body).slice(0, 300));
    // a patch body over the limit is refused as it is decoded
    for (const ct of ['application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/json-patch+json']) {
      const r = await call(
        api,
        'PATCH',
        `${CMS}/deep`,
        ct.includes('json-patch') ? `[{"op":"add","path":"/x","value":${deep(MAX_JSON_DEPTH)}}]` : `{"x":${deep(MAX_JSON_DEPTH)}}`,
        ct,
      );
      assert.equal(r.status, 400, JSON.stringify(r.body).slice(0, 300));
    }
    // a small JSON patch that nests deeper on what is stored: the result is refused
    const chain = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    assert.equal((await call(api, 'POST', CMS, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"chain"},"y":${chain(MAX_JSON_DEPTH - 3)}}`)).status, 201);
    const path = '/y' + '/a'.repeat(MAX_JSON_DEPTH - 4) + '/b';
    const r = await call(api, 'PATCH', `${CMS}/chain`, `[{"op":"add","path":"${path}","value":[[[1]]]}]`, 'application/json-patch+json');
    assert.equal(r.status, 422, JSON.stringify(r.body).slice(0, 300));
    assert.match(r.body.message, /exceeded max depth/);
  });
});

describe('Go decoder details', () => {
  it('base64: the offset of the first illegal byte, as encoding/base64 reports it', () => {
    assert.equal(base64Error('aGVsbG8='), undefined);
    assert.equal(base64Error('aGVs\nbG8='), undefined);
    assert.equal(base64Error(''), undefined);
    assert.equal(base64Error('no!'), 2);
    assert.equal(base64Error('abc'), 0);
    assert.equal(base64Error('abcde'), 4);
    assert.equal(base64Error('a==='), 1);
    assert.equal(base64Error('ab==cd'), 4);
  });

  it('RFC 3339 times, as time.Parse reports them', () => {
    assert.equal(timeError('2024-01-02T03:04:05Z'), undefined);
    assert.equal(timeError('2024-01-02T03:04:05.123456+02:00'), undefined);
    assert.equal(timeError('2024-01-02'), 'parsing time "2024-01-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"');
    assert.equal(timeError('2024-13-02T03:04:05Z'), 'parsing time "2024-13-02T03:04:05Z": month out of range');
  });
});

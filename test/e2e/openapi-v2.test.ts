/**
 * /openapi/v2 through the real kubectl 1.32: the JSON document, the protobuf form
 * kubectl decodes (`explain --output=plaintext-openapiv2`), client-side validation of
 * a kind the server no longer serves (batch/v1beta1 CronJob → kubectl's own "no matches
 * for kind" error, not a failed OpenAPI download), revalidation by ETag from kubectl's
 * HTTP cache, and a CRD's schema appearing in and leaving the document.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startCluster, eventually, manifestFile, type Cluster } from './harness.js';

const CRONJOB_V1BETA1 = `apiVersion: batch/v1beta1
kind: CronJob
metadata:
  name: hello
spec:
  schedule: "*/1 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: hello
            image: busybox
          restartPolicy: OnFailure
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.v2test.example.com
spec:
  group: v2test.example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoList}
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
              description: What the gizmo should do.
              properties:
                speed:
                  type: integer
                  description: Revolutions per minute.
                label:
                  type: string
                  nullable: true
`;

describe('openapi v2', () => {
  let c: Cluster;
  let dir: string;
  before(async () => {
    c = await startCluster();
    dir = mkdtempSync(join(tmpdir(), 'k8ts-openapi-v2-'));
  });
  after(async () => {
    await c?.stop();
  });

  it('kubectl get --raw /openapi/v2 is the Swagger 2.0 document with paths and definitions', () => {
    const r = c.kubectl(['get', '--raw', '/openapi/v2']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.startsWith('{"swagger":"2.0","info":{"title":"Kubernetes","version":"v1.32.0"},"paths":{'), r.stdout.slice(0, 200));
    const doc = JSON.parse(r.stdout) as {
      paths: Record<string, Record<string, { 'x-kubernetes-group-version-kind'?: unknown }>>;
      definitions: Record<string, { 'x-kubernetes-group-version-kind'?: unknown }>;
    };
    assert.deepEqual(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']!.patch!['x-kubernetes-group-version-kind'], {
      group: 'apps',
      kind: 'Deployment',
      version: 'v1',
    });
    assert.deepEqual(doc.definitions['io.k8s.api.batch.v1.CronJob']!['x-kubernetes-group-version-kind'], [{ group: 'batch', kind: 'CronJob', version: 'v1' }]);
  });

  it('kubectl explain --output=plaintext-openapiv2 reads the protobuf document', () => {
    const r = c.kubectl(['explain', 'deployments.spec.strategy', '--output=plaintext-openapiv2', '-v=6']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /GET https:\/\/127\.0\.0\.1:\d+\/openapi\/v2\?timeout=32s 200 OK/);
    assert.match(r.stdout, /^KIND:\s+Deployment\nVERSION:\s+apps\/v1\n\nRESOURCE: strategy <Object>/);
    assert.match(r.stdout, /\n {3}rollingUpdate\t<Object>\n/);
    assert.match(r.stdout, /\n {3}type\t<string>\n/);
    // the second run revalidates kubectl's cached copy (no max-age: always stale) by
    // ETag; the 304 makes its HTTP cache serve the copy it holds
    const again = c.kubectl(['explain', 'pods.spec.containers', '--output=plaintext-openapiv2', '-v=8']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /X-From-Cache: 1/);
    assert.match(again.stdout, /RESOURCE: containers <\[\]Object>/);
  });

  it("kubectl apply of a removed API version fails with kubectl's no-matches error", () => {
    const f = manifestFile(dir, 'cronjob-v1beta1.yaml', CRONJOB_V1BETA1);
    const r = c.kubectl(['apply', '-f', f]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `error: resource mapping not found for name: "hello" namespace: "" from "${f}": no matches for kind "CronJob" in version "batch/v1beta1"\nensure CRDs are installed first\n`,
    );
  });

  it("a CRD's schema enters the document when the CRD is established and leaves with it", async () => {
    const f = manifestFile(dir, 'crd.yaml', CRD);
    const created = c.kubectl(['apply', '-f', f]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(c.kubectl(['wait', '--for=condition=Established', 'crd/gizmos.v2test.example.com', '--timeout=30s']).code, 0);
    const explained = await eventually(() => {
      const r = c.kubectl(['explain', 'gizmos.spec', '--output=plaintext-openapiv2']);
      return r.code === 0 ? r.stdout : undefined;
    });
    assert.match(explained, /KIND:\s+Gizmo\nVERSION:\s+v2test\.example\.com\/v1/);
    assert.match(explained, /\n {3}speed\t<integer>\n {5}Revolutions per minute\.\n/);
    const doc = JSON.parse(c.kubectl(['get', '--raw', '/openapi/v2']).stdout) as {
      definitions: Record<string, { properties?: Record<string, { properties?: Record<string, unknown> }> }>;
    };
    assert.deepEqual(doc.definitions['com.example.v2test.v1.Gizmo']!.properties!.spec!.properties!.label, {}, 'nullable: untyped in v2');

    assert.equal(c.kubectl(['delete', '-f', f]).code, 0);
    await eventually(() => {
      const raw = c.kubectl(['get', '--raw', '/openapi/v2']);
      return raw.code === 0 && !raw.stdout.includes('com.example.v2test.v1.Gizmo');
    });
  });
});

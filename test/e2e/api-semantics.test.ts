/**
 * Write and read semantics of the generic REST store through the real kubectl:
 *  - a no-op patch, label or PUT writes nothing (same resourceVersion; kubectl prints
 *    `patched (no change)` / `not labeled`), as upstream's GuaranteedUpdate skips writes
 *    whose bytes equal the stored ones;
 *  - `resourceVersion: "0"` in a PUT is no version: unconditional where the strategy allows
 *    it (Nodes, Deployments), 422 `must be specified for an update` where it does not
 *    (PodDisruptionBudgets);
 *  - boolean query parameters decode as upstream's parameter codec: `watch=True` watches,
 *    `watch=0` / `watch=FALSE` list;
 *  - `kubectl certificate approve|deny` (a protobuf PUT to certificatesigningrequests/approval)
 *    is decoded and applied;
 *  - `/metrics` serves upstream's apiserver metrics to users bound to system:monitoring;
 *  - a CronJob whose schedule never fires gets the cronjob-controller's InvalidSchedule warning;
 *  - a get or list at a future resourceVersion waits (3 s) and answers 504 Timeout, not older data;
 *  - a deleted ServiceAccount's token is refused at once (401), though it was just used;
 *  - the kubelet's Node carries managedFields: its registration and its status writes.
 */
import { describe, it, before, after } from 'node:test';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { parse as parseYAML } from 'yaml';
import assert from 'node:assert/strict';
import { eventually, startCluster, type Cluster } from './harness.js';
import { createCSR } from '../../src/controllers/csr/sign.js';

interface Meta {
  metadata: { resourceVersion?: string; labels?: Record<string, string> } & Record<string, unknown>;
  [k: string]: unknown;
}

describe('api semantics (e2e)', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  const ok = (args: string[], input?: string): string => {
    const r = c.kubectl(args, { input });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const getJSON = (kind: string, name: string): Meta => JSON.parse(ok(['get', kind, name, '-o', 'json'])) as Meta;

  it('a no-op patch, label or update does not write', () => {
    ok(['create', 'configmap', 'noop', '--from-literal=x=1']);
    const rv = getJSON('configmap', 'noop').metadata.resourceVersion;
    assert.equal(ok(['patch', 'configmap', 'noop', '-p', '{"data":{"x":"1"}}']).trim(), 'configmap/noop patched (no change)');
    assert.equal(ok(['patch', 'configmap', 'noop', '--type=merge', '-p', '{"data":{"x":"1"}}']).trim(), 'configmap/noop patched (no change)');
    assert.equal(ok(['patch', 'configmap', 'noop', '--type=json', '-p', '[{"op":"replace","path":"/data/x","value":"1"}]']).trim(), 'configmap/noop patched (no change)');
    assert.equal(getJSON('configmap', 'noop').metadata.resourceVersion, rv);
    // a real change is written
    assert.equal(ok(['label', 'configmap', 'noop', 'a=b']).trim(), 'configmap/noop labeled');
    const rv2 = getJSON('configmap', 'noop').metadata.resourceVersion;
    assert.notEqual(rv2, rv);
    assert.equal(ok(['label', 'configmap', 'noop', 'a=b', '--overwrite']).trim(), 'configmap/noop not labeled');
    // PUT of the object as read
    const raw = ok(['get', '--raw', '/api/v1/namespaces/default/configmaps/noop']);
    const put = JSON.parse(ok(['replace', '--raw', '/api/v1/namespaces/default/configmaps/noop', '-f', '-'], raw)) as Meta;
    assert.equal(put.metadata.resourceVersion, rv2);
    assert.equal(getJSON('configmap', 'noop').metadata.resourceVersion, rv2);
  });

  it('resourceVersion "0" in an update is unconditional where upstream allows it', () => {
    const node = getJSON('node', 'e2e-node');
    node.metadata.resourceVersion = '0';
    node.metadata.labels = { ...node.metadata.labels, 'semantics.example/unconditional': 'yes' };
    assert.equal(ok(['replace', '-f', '-'], JSON.stringify(node)).trim(), 'node/e2e-node replaced');
    assert.equal(getJSON('node', 'e2e-node').metadata.labels?.['semantics.example/unconditional'], 'yes');

    ok(['create', 'deployment', 'uncond', '--image=nginx']);
    const d = getJSON('deployment', 'uncond');
    delete d.metadata.resourceVersion;
    (d.spec as { replicas: number }).replicas = 2;
    assert.equal(ok(['replace', '-f', '-'], JSON.stringify(d)).trim(), 'deployment.apps/uncond replaced');

    // PodDisruptionBudgets need a resourceVersion (upstream AllowUnconditionalUpdate false)
    ok(['create', 'poddisruptionbudget', 'cond', '--selector=a=b', '--min-available=1']);
    const p = getJSON('pdb', 'cond');
    p.metadata.resourceVersion = '0';
    const r = c.kubectl(['replace', '-f', '-'], { input: JSON.stringify(p) });
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'The poddisruptionbudgets "cond" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update');
  });

  it('an object invalid in its metadata and its body: metadata errors first, as upstream strategies validate', () => {
    const r = c.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' }, data: { 'bad key!': 'x' } }) });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr.trim(),
      [
        'The ConfigMap "Bad_Name" is invalid: ',
        `* metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        `* data[bad key!]: Invalid value: "bad key!": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      ].join('\n'),
    );
  });

  it('boolean query parameters: anything but 0/false is true (upstream Convert_Slice_string_To_bool)', () => {
    ok(['create', 'configmap', 'boolq', '--from-literal=x=1']);
    for (const v of ['True', 'TRUE', '1', 't', 'yes']) {
      const out = ok(['get', '--raw', `/api/v1/namespaces/default/configmaps?watch=${v}&timeoutSeconds=1&fieldSelector=metadata.name=boolq`]);
      const ev = JSON.parse(out.trim().split('\n')[0]!) as { type: string; object: Meta };
      assert.equal(ev.type, 'ADDED', `watch=${v}`);
      assert.equal(ev.object.metadata.name, 'boolq');
    }
    for (const v of ['0', 'false', 'FALSE']) {
      const out = JSON.parse(ok(['get', '--raw', `/api/v1/namespaces/default/configmaps?watch=${v}&fieldSelector=metadata.name=boolq`])) as { kind: string };
      assert.equal(out.kind, 'ConfigMapList', `watch=${v}`);
    }
  });

  it('kubectl certificate approve and deny (protobuf bodies on the approval subresource)', async () => {
    for (const name of ['approve-me', 'deny-me']) {
      const { csr } = await createCSR(name);
      const obj = {
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { name },
        spec: { request: Buffer.from(csr).toString('base64'), signerName: 'example.com/semantics', usages: ['client auth'] },
      };
      ok(['create', '-f', '-'], JSON.stringify(obj));
    }
    assert.equal(ok(['certificate', 'approve', 'approve-me']).trim(), 'certificatesigningrequest.certificates.k8s.io/approve-me approved');
    assert.equal(ok(['certificate', 'deny', 'deny-me']).trim(), 'certificatesigningrequest.certificates.k8s.io/deny-me denied');
    type CSR = Meta & { status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } };
    const a = getJSON('csr', 'approve-me') as CSR;
    assert.deepEqual(
      a.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [['Approved', 'True', 'KubectlApprove', 'This CSR was approved by kubectl certificate approve.']],
    );
    const d = getJSON('csr', 'deny-me') as CSR;
    assert.deepEqual(
      d.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [['Denied', 'True', 'KubectlDeny', 'This CSR was denied by kubectl certificate deny.']],
    );
    assert.match(ok(['get', 'csr', 'approve-me', 'deny-me']), /approve-me\s.*Approved\n[\s\S]*deny-me\s.*Denied\n/);
  });

  it('/metrics: apiserver_request_total and friends, for system:monitoring only', async () => {
    ok(['get', 'configmaps', '-n', 'default']);
    const text = ok(['get', '--raw', '/metrics']);
    assert.match(
      text,
      /^apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="200"\} [1-9]\d*$/m,
    );
    assert.match(text, /^# TYPE apiserver_request_duration_seconds histogram$/m);
    assert.match(text, /^apiserver_storage_objects\{resource="configmaps"\} [1-9]\d*$/m);
    assert.match(text, /^apiserver_current_inflight_requests\{request_kind="mutating"\} \d+$/m);

    ok(['create', 'serviceaccount', 'scraper']);
    const token = ok(['create', 'token', 'scraper']).trim();
    const kc = parseYAML(readFileSync(c.kubeconfig, 'utf8')) as { clusters: { cluster: { server: string; 'certificate-authority-data': string } }[] };
    const get = (): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const req = request(
          new URL('/metrics', kc.clusters[0]!.cluster.server),
          { ca: Buffer.from(kc.clusters[0]!.cluster['certificate-authority-data'], 'base64'), headers: { Authorization: `Bearer ${token}` } },
          (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const denied = await get();
    assert.equal(denied.status, 403);
    assert.equal((JSON.parse(denied.body) as { message: string }).message, 'forbidden: User "system:serviceaccount:default:scraper" cannot get path "/metrics"');
    ok(['create', 'clusterrolebinding', 'scraper-monitoring', '--clusterrole=system:monitoring', '--serviceaccount=default:scraper']);
    let allowed = await get();
    for (let i = 0; i < 50 && allowed.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100)); // the authorizer's informer sees the new binding
      allowed = await get();
    }
    assert.equal(allowed.status, 200);
    assert.match(allowed.body, /^# TYPE apiserver_request_total counter$/m);
  });

  it('a CronJob that never fires (0 0 31 2 *) gets an InvalidSchedule warning event', async () => {
    assert.equal(ok(['create', 'cronjob', 'never', '--image=busybox', '--schedule=0 0 31 2 *']).trim(), 'cronjob.batch/never created');
    const line = await eventually(() => {
      const out = ok([
        'get',
        'events',
        '--field-selector',
        'involvedObject.name=never,reason=InvalidSchedule',
        '-o',
        'jsonpath={range .items[*]}{.type} {.source.component}: {.message}{"\\n"}{end}',
      ]);
      return out.trim().split('\n')[0];
    }, 20_000);
    assert.equal(line, 'Warning cronjob-controller: invalid schedule: 0 0 31 2 * : time difference between two schedules is less than 1 second');
    assert.equal(ok(['get', 'jobs', '-o', 'name']).trim(), '');
  });

  it('get and list at a future resourceVersion: 504 Too large resource version after waiting', async () => {
    ok(['create', 'configmap', 'future', '--from-literal=a=b']);
    const kc = parseYAML(readFileSync(c.kubeconfig, 'utf8')) as {
      clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
      users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
    };
    const b64 = (x: string): Buffer => Buffer.from(x, 'base64');
    // plain HTTPS: client-go would retry on Retry-After
    const get = (path: string): Promise<{ status: number; body: string; retryAfter?: string }> =>
      new Promise((resolve, reject) => {
        const u = kc.users[0]!.user;
        const req = request(
          new URL(path, kc.clusters[0]!.cluster.server),
          { ca: b64(kc.clusters[0]!.cluster['certificate-authority-data']), cert: b64(u['client-certificate-data']), key: b64(u['client-key-data']) },
          (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body, retryAfter: res.headers['retry-after'] as string | undefined }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const current = Number((JSON.parse(ok(['get', '--raw', '/api/v1/namespaces/default/configmaps'])) as Meta).metadata.resourceVersion);
    const future = current + 1_000_000;
    for (const path of [`/api/v1/namespaces/default/configmaps?resourceVersion=${future}`, `/api/v1/namespaces/default/configmaps/future?resourceVersion=${future}`]) {
      const t0 = Date.now();
      const r = await get(path);
      assert.ok(Date.now() - t0 >= 2900, `${path} waited ${Date.now() - t0} ms`);
      assert.equal(r.status, 504, path);
      assert.equal(r.retryAfter, '1');
      const st = JSON.parse(r.body) as { reason: string; message: string; code: number; details: { causes: { reason: string; message: string }[]; retryAfterSeconds: number } };
      assert.equal(st.reason, 'Timeout');
      assert.match(st.message, new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`));
      assert.deepEqual(st.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
    }
    // a current or past resourceVersion is served at once
    assert.equal((await get(`/api/v1/namespaces/default/configmaps/future?resourceVersion=${current}`)).status, 200);
  });

  it("a deleted ServiceAccount's token stops working at once", async () => {
    ok(['create', 'serviceaccount', 'shortlived']);
    const token = ok(['create', 'token', 'shortlived']).trim();
    const kc = parseYAML(readFileSync(c.kubeconfig, 'utf8')) as { clusters: { cluster: { server: string; 'certificate-authority-data': string } }[] };
    const get = (): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const req = request(
          new URL('/api', kc.clusters[0]!.cluster.server),
          { ca: Buffer.from(kc.clusters[0]!.cluster['certificate-authority-data'], 'base64'), headers: { Authorization: `Bearer ${token}` } },
          (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    assert.equal((await get()).status, 200);
    assert.equal((await get()).status, 200); // now cached
    ok(['delete', 'serviceaccount', 'shortlived']);
    const r = await get();
    assert.equal(r.status, 401);
    assert.equal((JSON.parse(r.body) as { message: string }).message, 'Unauthorized');
  });

  it("the kubelet's Node records managedFields for its registration and its status writes", () => {
    const n = JSON.parse(ok(['get', 'node', 'e2e-node', '-o', 'json', '--show-managed-fields'])) as Meta & {
      metadata: { managedFields?: { manager: string; operation: string; subresource?: string; fieldsV1?: Record<string, unknown> }[] };
    };
    const entries = n.metadata.managedFields ?? [];
    const main = entries.find((e) => e.manager === 'kubelet' && e.operation === 'Update' && !e.subresource);
    const status = entries.find((e) => e.manager === 'kubelet' && e.operation === 'Update' && e.subresource === 'status');
    assert.ok(main?.fieldsV1?.['f:metadata'], JSON.stringify(entries));
    assert.ok(status?.fieldsV1?.['f:status'], JSON.stringify(entries));
  });
});

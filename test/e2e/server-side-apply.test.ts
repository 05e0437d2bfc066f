/**
 * Server-side apply with field ownership, through the real kubectl:
 *  - `kubectl apply --server-side` creates, records an Apply entry, and a re-apply
 *    without an env var removes it;
 *  - an Update by another manager (`kubectl scale`, `kubectl patch`) takes
 *    spec.replicas, so applying another value with another --field-manager fails with
 *    upstream's conflict text, and `--force-conflicts` takes the field;
 *  - `kubectl get -o yaml` hides managedFields, `--show-managed-fields` shows them;
 *  - client-side `kubectl apply` keeps working (last-applied annotation, strategic merge).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { parse } from 'yaml';
import { startCluster, manifestFile, type Cluster } from './harness.js';

const deploy = (env: string[], replicas?: number): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
${replicas === undefined ? '' : `  replicas: ${replicas}\n`}  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
${env.length ? `        env:\n${env.map((e) => `        - {name: ${e}, value: "1"}`).join('\n')}\n` : ''}`;

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

describe('server-side apply', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  const managed = (kind: string, name: string): Entry[] => {
    // kubectl drops managedFields from every output format unless asked
    const r = c.kubectl(['get', kind, name, '-o', 'json', '--show-managed-fields']);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { metadata: { managedFields?: Entry[] } }).metadata.managedFields ?? [];
  };

  it('applies, records the Apply entry and removes fields dropped from the configuration', () => {
    const f = manifestFile(c.dir, 'web.yaml', deploy(['A', 'B'], 2));
    const a = c.kubectl(['apply', '--server-side', '-f', f]);
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, /deployment\.apps\/web serverside-applied/);
    const mf = managed('deployment', 'web');
    const mine = mf.find((e) => e.manager === 'kubectl' && e.operation === 'Apply');
    assert.ok(mine, JSON.stringify(mf));
    assert.equal(mine.apiVersion, 'apps/v1');
    assert.equal(mine.fieldsType, 'FieldsV1');
    assert.match(mine.time ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const spec = mine.fieldsV1['f:spec'] as Record<string, Record<string, Record<string, Record<string, Record<string, unknown>>>>>;
    assert.deepEqual(Object.keys(spec['f:template']!['f:spec']!['f:containers']!['k:{"name":"nginx"}']!), ['.', 'f:env', 'f:image', 'f:name', 'f:ports']);

    const again = c.kubectl(['apply', '--server-side', '-f', manifestFile(c.dir, 'web.yaml', deploy(['A'], 2))]);
    assert.equal(again.code, 0, again.stderr);
    const env = c.kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].env[*].name}']);
    assert.equal(env.stdout, 'A');
    // defaults nobody applied stay
    const pol = c.kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].imagePullPolicy}']);
    assert.equal(pol.stdout, 'IfNotPresent');
  });

  it('conflicts with the manager that changed spec.replicas, and --force-conflicts takes it', () => {
    const s = c.kubectl(['scale', 'deployment', 'web', '--replicas=3']);
    assert.equal(s.code, 0, s.stderr);
    const f = manifestFile(c.dir, 'web-other.yaml', deploy(['A'], 5));
    const afterScale = c.kubectl(['apply', '--server-side', '--field-manager=other', '-f', f]);
    assert.notEqual(afterScale.code, 0);
    assert.match(afterScale.stderr, /Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps\/v1: \.spec\.replicas/);

    const p = c.kubectl(['patch', 'deployment', 'web', '--type=merge', '-p', '{"spec":{"replicas":4}}']);
    assert.equal(p.code, 0, p.stderr);
    const patcher = managed('deployment', 'web').find((e) => e.manager === 'kubectl-patch');
    assert.deepEqual(patcher?.operation, 'Update');
    assert.deepEqual(patcher?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });

    const conflict = c.kubectl(['apply', '--server-side', '--field-manager=other', '-f', f]);
    assert.notEqual(conflict.code, 0);
    assert.match(conflict.stderr, /error: Apply failed with 1 conflict: conflict with "kubectl-patch" using apps\/v1: \.spec\.replicas\n/);
    assert.match(conflict.stderr, /--force-conflicts/, 'kubectl explains how to resolve it');
    assert.equal(c.kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}']).stdout, '4');

    const forced = c.kubectl(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', f]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(c.kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}']).stdout, '5');
    const mf = managed('deployment', 'web');
    assert.equal(
      mf.find((e) => e.manager === 'kubectl-patch'),
      undefined,
      'the patcher lost its only field',
    );
    const other = mf.find((e) => e.manager === 'other')!;
    assert.equal(other.operation, 'Apply');
    assert.ok((other.fieldsV1['f:spec'] as Record<string, unknown>)['f:replicas']);
  });

  it('rejects a field manager over 128 bytes as upstream validates PatchOptions', () => {
    const r = c.kubectl(['apply', '--server-side', `--field-manager=${'m'.repeat(129)}`, '-f', manifestFile(c.dir, 'web-long.yaml', deploy(['A'], 5))]);
    assert.notEqual(r.code, 0);
    // kubectl prints 422s as `The <details.kind> "<name>" is invalid: …`
    assert.match(r.stderr, /The PatchOptions "" is invalid: fieldManager: Too long: may not be more than 128 bytes/);
  });

  it('kubectl get -o yaml hides managedFields unless --show-managed-fields', () => {
    const plain = c.kubectl(['get', 'deployment', 'web', '-o', 'yaml']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.doesNotMatch(plain.stdout, /managedFields/);
    const shown = c.kubectl(['get', 'deployment', 'web', '-o', 'yaml', '--show-managed-fields']);
    assert.equal(shown.code, 0, shown.stderr);
    const obj = parse(shown.stdout) as { metadata: { managedFields: Entry[] } };
    const names = obj.metadata.managedFields.map((e) => `${e.manager}/${e.operation}`);
    assert.ok(names.includes('kubectl/Apply') && names.includes('other/Apply'), names.join(' '));
    // Apply entries come first
    assert.equal(obj.metadata.managedFields[0]!.operation, 'Apply');
    assert.match(shown.stdout, /f:replicas: \{\}/);
    // the deployment controller writes status through the status subresource, as
    // kube-controller-manager (its User-Agent names the manager)
    let status: Entry | undefined;
    for (let i = 0; i < 50 && !status; i++) {
      const g = c.kubectl(['get', 'deployment', 'web', '-o', 'yaml', '--show-managed-fields']);
      status = (parse(g.stdout) as { metadata: { managedFields: Entry[] } }).metadata.managedFields.find((e) => e.subresource === 'status');
      if (!status) execFileSync('sleep', ['0.2']);
    }
    assert.ok(status, 'a status entry');
    assert.equal(status.manager, 'kube-controller-manager');
    assert.ok(status.fieldsV1['f:status'], JSON.stringify(status));
  });

  it('client-side kubectl apply still uses the last-applied annotation and records its manager', () => {
    const cm = (v: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csa\ndata:\n  k: "${v}"\n`;
    const a = c.kubectl(['apply', '-f', manifestFile(c.dir, 'csa.yaml', cm('1'))]);
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, /configmap\/csa created/);
    const b = c.kubectl(['apply', '-f', manifestFile(c.dir, 'csa.yaml', cm('2'))]);
    assert.equal(b.code, 0, b.stderr);
    assert.match(b.stdout, /configmap\/csa configured/);
    const r = c.kubectl(['get', 'configmap', 'csa', '-o', 'json', '--show-managed-fields']);
    const o = JSON.parse(r.stdout) as { data: Record<string, string>; metadata: { annotations: Record<string, string>; managedFields: Entry[] } };
    assert.equal(o.data.k, '2');
    assert.match(o.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']!, /"k":"2"/);
    const csa = o.metadata.managedFields.find((e) => e.manager === 'kubectl-client-side-apply');
    assert.equal(csa?.operation, 'Update');
    assert.ok((csa!.fieldsV1['f:data'] as Record<string, unknown>)['f:k']);
  });
});

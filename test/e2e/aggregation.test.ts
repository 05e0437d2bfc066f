/**
 * The aggregation layer through the real kubectl: an APIService backed by a small
 * extension API server in this test (HTTPS on 127.0.0.1, its own CA as caBundle, an
 * ExternalName Service naming 127.0.0.1) becomes Available (Passed), `kubectl get --raw`
 * is proxied with the front-proxy client certificate and the caller in X-Remote-User /
 * X-Remote-Group, `kubectl api-resources` and `kubectl get` see its kind through merged
 * discovery, a watch streams through; once the server stops, Available goes False with
 * FailedDiscoveryCheck and requests get 503. Misconfigured APIServices report
 * ServiceNotFound and MissingEndpoints with upstream's messages.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, manifestFile, type Cluster, type KubectlResult } from './harness.js';
import { startExtensionServer, GROUP, VERSION, type ExtensionServer } from '../support/extension-apiserver.js';

const APISERVICE = `v1alpha1.${GROUP}`;

describe('e2e: aggregation layer (APIService proxy, availability, discovery)', () => {
  let c: Cluster;
  let ext: ExtensionServer;
  before(async () => {
    c = await startCluster();
    const cm = JSON.parse(c.kubectl(['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication', '-o', 'json']).stdout) as { data: Record<string, string> };
    ext = await startExtensionServer({
      frontProxyCA: cm.data['requestheader-client-ca-file']!,
      allowedNames: JSON.parse(cm.data['requestheader-allowed-names']!) as string[],
      serviceName: 'wardle',
      namespace: 'default',
    });
  });
  after(async () => {
    await ext?.close();
    await c?.stop();
  });

  // kubectl runs asynchronously: the extension server answers from this very process
  let files = 0;
  const run = (args: string[], input?: string): Promise<KubectlResult> =>
    c.kubectlAsync(input === undefined ? args : [...args.filter((a) => a !== '-'), manifestFile(c.dir, `m${files++}.yaml`, input)], { timeoutMs: 30_000 });
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await run(args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const condition = async (name: string): Promise<{ status?: string; reason?: string; message?: string }> => {
    const r = await run(['get', 'apiservice', name, '-o', 'jsonpath={.status.conditions[?(@.type=="Available")]}']);
    return r.stdout ? (JSON.parse(r.stdout) as { status?: string; reason?: string; message?: string }) : {};
  };

  it('publishes kube-system/extension-apiserver-authentication as upstream', async () => {
    const cm = JSON.parse(await ok(['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication', '-o', 'json'])) as { data: Record<string, string> };
    assert.deepEqual(Object.keys(cm.data).sort(), [
      'client-ca-file',
      'requestheader-allowed-names',
      'requestheader-client-ca-file',
      'requestheader-extra-headers-prefix',
      'requestheader-group-headers',
      'requestheader-username-headers',
    ]);
    assert.equal(cm.data['requestheader-allowed-names'], '["front-proxy-client"]');
    assert.equal(cm.data['requestheader-username-headers'], '["X-Remote-User"]');
    assert.equal(cm.data['requestheader-group-headers'], '["X-Remote-Group"]');
    assert.equal(cm.data['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
    assert.match(cm.data['requestheader-client-ca-file']!, /^-----BEGIN CERTIFICATE-----/);
    assert.notEqual(cm.data['requestheader-client-ca-file'], cm.data['client-ca-file'], 'the front-proxy CA is not the cluster CA');
  });

  it('an APIService with a Service becomes Available and its API is proxied with the front-proxy identity', async () => {
    await ok(
      ['apply', '-f', '-'],
      `apiVersion: v1
kind: Service
metadata: {name: wardle, namespace: default}
spec: {type: ExternalName, externalName: 127.0.0.1}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: ${APISERVICE}}
spec:
  group: ${GROUP}
  version: ${VERSION}
  groupPriorityMinimum: 1000
  versionPriority: 15
  caBundle: ${Buffer.from(ext.ca.cert).toString('base64')}
  service: {namespace: default, name: wardle, port: ${ext.port}}
`,
    );
    await eventually(async () => (await condition(APISERVICE)).status === 'True', 20_000, 200);
    assert.deepEqual((({ status, reason, message }) => ({ status, reason, message }))(await condition(APISERVICE)), {
      status: 'True',
      reason: 'Passed',
      message: 'all checks passed',
    });
    const row = (await ok(['get', 'apiservice', APISERVICE]))
      .trim()
      .split('\n')[1]!
      .split(/\s{2,}/);
    assert.deepEqual(row.slice(0, 3), [APISERVICE, 'default/wardle', 'True']);

    const before = ext.seen.length;
    const raw = JSON.parse(await ok(['get', '--raw', `/apis/${GROUP}/${VERSION}`])) as { groupVersion: string; resources: { name: string }[] };
    assert.equal(raw.groupVersion, `${GROUP}/${VERSION}`);
    assert.deepEqual(
      raw.resources.map((r) => r.name),
      ['flunders'],
    );
    const proxied = ext.seen.slice(before).find((s) => s.url === `/apis/${GROUP}/${VERSION}`);
    assert.ok(proxied, 'the extension server saw the request');
    assert.equal(proxied.user, 'kubernetes-admin');
    assert.deepEqual(proxied.groups, ['system:masters', 'system:authenticated']);
    assert.equal(proxied.clientCN, 'front-proxy-client');
    assert.equal(ext.refused, 0);

    // impersonation: the backend sees the impersonated user, not the caller
    const n = ext.seen.length;
    await ok(['get', '--raw', `/apis/${GROUP}/${VERSION}/namespaces/default/flunders`, '--as', 'jane', '--as-group', 'system:masters']);
    const imp = ext.seen.slice(n).find((s) => s.url.startsWith(`/apis/${GROUP}/${VERSION}/namespaces/default/flunders`));
    assert.equal(imp?.user, 'jane');
    assert.deepEqual(imp?.groups, ['system:masters', 'system:authenticated']);
  });

  it('merged discovery: api-resources lists the kind, kubectl get and a watch go through the proxy', async () => {
    const rows = await eventually(
      async () => {
        const r = await run(['api-resources', '--api-group', GROUP]);
        return r.code === 0 && r.stdout.includes('flunders') ? r.stdout : undefined;
      },
      20_000,
      300,
    );
    assert.deepEqual(
      rows
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/)),
      [
        ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'],
        ['flunders', 'fl', `${GROUP}/${VERSION}`, 'true', 'Flunder'],
      ],
    );
    const group = JSON.parse(await ok(['get', '--raw', `/apis/${GROUP}`])) as { name: string; preferredVersion: { groupVersion: string } };
    assert.equal(group.name, GROUP);
    assert.equal(group.preferredVersion.groupVersion, `${GROUP}/${VERSION}`);
    const legacy = JSON.parse(await ok(['get', '--raw', '/apis'])) as { groups: { name: string }[] };
    assert.ok(legacy.groups.some((g) => g.name === GROUP));

    assert.equal((await ok(['get', 'flunders', '-o', 'name'])).trim(), `flunder.${GROUP}/alpha`);
    assert.equal(await ok(['get', 'fl', 'alpha', '-o', 'jsonpath={.spec.reference}']), 'x');
    const nf = await run(['get', 'flunder', 'nope']);
    assert.equal(nf.stderr.trim(), `Error from server (NotFound): flunders.${GROUP} "nope" not found`);

    const w = await c.kubectlAsync(['get', 'flunders', '--watch', '-o', 'name', '--request-timeout=4s'], { timeoutMs: 4_000 });
    assert.deepEqual(w.stdout.trim().split('\n'), [`flunder.${GROUP}/alpha`, `flunder.${GROUP}/beta`]);
  });

  it('the extension server OpenAPI joins /openapi/v3 and /openapi/v2: kubectl explain knows its kind', async () => {
    const index = await eventually(
      async () => {
        const r = await run(['get', '--raw', '/openapi/v3']);
        const paths = r.code === 0 ? (JSON.parse(r.stdout) as { paths: Record<string, { serverRelativeURL: string }> }).paths : {};
        return paths[`apis/${GROUP}/${VERSION}`];
      },
      20_000,
      200,
    );
    assert.match(index.serverRelativeURL, new RegExp(`^/openapi/v3/apis/${GROUP.replace(/\./g, '\\.')}/${VERSION}\\?hash=[0-9A-F]{128}$`));
    assert.ok((JSON.parse(await ok(['get', '--raw', '/openapi/v3'])) as { paths: Record<string, unknown> }).paths['api/v1'], 'the own documents stay');
    const explain = await ok(['explain', 'flunders.spec']);
    assert.match(explain, /^KIND:\s+Flunder$/m);
    assert.match(explain, /^VERSION:\s+v1alpha1$/m);
    assert.match(explain, /FlunderSpec is what a flunder wants\./);
    assert.match(explain, /reference\s+<string>\n\s+Reference names another flunder\./);
    const swagger = JSON.parse(await ok(['get', '--raw', '/openapi/v2'])) as { definitions: Record<string, { description?: string }> };
    assert.equal(swagger.definitions['com.example.wardle.v1alpha1.Flunder']?.description, 'Flunder is the kind the test extension server serves.');
    assert.ok(swagger.definitions['io.k8s.api.core.v1.Pod'], 'the own definitions stay');
    const v2 = await ok(['explain', 'flunders', '--output=plaintext-openapiv2']);
    assert.match(v2, /Flunder is the kind the test extension server serves\./);
  });

  it('ServiceNotFound and MissingEndpoints with upstream messages', async () => {
    await ok(
      ['apply', '-f', '-'],
      `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.missing.example.com}
spec: {group: missing.example.com, version: v1, groupPriorityMinimum: 100, versionPriority: 10, insecureSkipTLSVerify: true, service: {namespace: default, name: nosuch}}
---
apiVersion: v1
kind: Service
metadata: {name: noeps, namespace: default}
spec: {selector: {app: nothing-matches}, ports: [{port: 443, targetPort: 8443}]}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.noeps.example.com}
spec: {group: noeps.example.com, version: v1, groupPriorityMinimum: 100, versionPriority: 10, insecureSkipTLSVerify: true, service: {namespace: default, name: noeps}}
`,
    );
    const missing = await eventually(
      async () => {
        const x = await condition('v1.missing.example.com');
        return x.reason ? x : undefined;
      },
      15_000,
      200,
    );
    assert.deepEqual((({ status, reason, message }) => ({ status, reason, message }))(missing), {
      status: 'False',
      reason: 'ServiceNotFound',
      message: 'service/nosuch in "default" is not present',
    });
    const noeps = await eventually(
      async () => {
        const x = await condition('v1.noeps.example.com');
        return x.reason === 'MissingEndpoints' ? x : undefined;
      },
      15_000,
      200,
    );
    assert.equal(noeps.status, 'False');
    assert.equal(noeps.message, 'endpoints for service/noeps in "default" have no addresses with port name ""');
    const rows = (await ok(['get', 'apiservices', 'v1.missing.example.com', 'v1.noeps.example.com']))
      .trim()
      .split('\n')
      .slice(1)
      .map((l: string) => l.split(/\s{2,}/).slice(0, 3));
    assert.deepEqual(rows, [
      ['v1.missing.example.com', 'default/nosuch', 'False (ServiceNotFound)'],
      ['v1.noeps.example.com', 'default/noeps', 'False (MissingEndpoints)'],
    ]);
    const r = await run(['get', '--raw', '/apis/noeps.example.com/v1']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), 'Error from server (ServiceUnavailable): the server is currently unable to handle the request');
    await ok(['delete', 'apiservice', 'v1.missing.example.com', 'v1.noeps.example.com']);
  });

  it('when the extension server stops: FailedDiscoveryCheck, 503, and the group-version is stale in discovery', async () => {
    await ext.close();
    // the Service changing requeues its APIServices at once (otherwise the 30 s resync finds it)
    await ok(['annotate', 'service', 'wardle', 'touched=1']);
    const cond = await eventually(
      async () => {
        const x = await condition(APISERVICE);
        return x.status === 'False' ? x : undefined;
      },
      20_000,
      200,
    );
    assert.equal(cond.reason, 'FailedDiscoveryCheck');
    const url = `https://127.0.0.1:${ext.port}/apis/${GROUP}/${VERSION}`;
    assert.equal(cond.message, `failing or missing response from ${url}: Get "${url}": dial tcp 127.0.0.1:${ext.port}: connect: connection refused`);
    const row = (await ok(['get', 'apiservice', APISERVICE]))
      .trim()
      .split('\n')[1]!
      .split(/\s{2,}/);
    assert.equal(row[2], 'False (FailedDiscoveryCheck)');

    const raw = await run(['get', '--raw', `/apis/${GROUP}/${VERSION}`]);
    assert.equal(raw.stderr.trim(), 'Error from server (ServiceUnavailable): the server is currently unable to handle the request');
    // the discovery manager marks the group-version Stale (its fetch through the proxy got
    // 503): kubectl 1.32 leaves stale group-versions out of aggregated discovery silently
    const ar = await eventually(
      async () => {
        const r = await run(['api-resources']);
        return r.code === 0 && !r.stdout.includes('flunders') ? r : undefined;
      },
      20_000,
      300,
    );
    assert.equal(ar.stderr, '');
    const get = await run(['get', 'flunders']);
    assert.equal(get.stderr.trim(), 'error: the server doesn\'t have a resource type "flunders"');
    // the legacy group list still names it (upstream lists every APIService's group)
    const legacy = JSON.parse(await ok(['get', '--raw', `/apis/${GROUP}`])) as { name: string };
    assert.equal(legacy.name, GROUP);
  });
});

/**
 * ServiceAccount tokens end to end on real containers: the real `k8ts server` (full
 * authn/authz/admission stack) with a kubelet on a private containerd (test/support/
 * containerd.ts, stand-in images from a local registry), driven with the real kubectl.
 *
 * A `hostNetwork: true` pod (it shares the host's network namespace, so it reaches the
 * API server on 127.0.0.1; pod-network pods have no route to it without kube-proxy)
 * gets the `kube-api-access-*` volume from ServiceAccount admission and a bound token
 * from the kubelet (TokenRequest with the pod as bound object). Inside the pod the real
 * kubectl (a static binary added to the busybox stand-in) runs with client-go's
 * in-cluster config — the mounted token, ca.crt and namespace, and
 * KUBERNETES_SERVICE_HOST/PORT pointed at 127.0.0.1:<port> — and is allowed what a
 * RoleBinding grants and refused the rest (403 naming `system:serviceaccount:<ns>:default`);
 * `kubectl auth whoami` shows the SA user with upstream's extra; once the pod is deleted
 * the token is refused (401).
 *
 * (busybox wget cannot be the in-pod client: without an `openssl` binary it falls back
 * to its own TLS, whose ClientHello has no signature_algorithms extension, so any
 * OpenSSL 3 server, Node's included, can only offer SHA-1 signatures, which security
 * level 1 forbids: handshake failure. On the host, wget hands TLS to `openssl s_client`.)
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:tls';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parse } from 'yaml';
import { publishTestImages } from '../support/images.js';
import { pushBusyboxPlus } from './containerd-images.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestContainerd, type TestContainerd } from '../support/containerd.js';
import { eventually, kubectlPath, startCluster, type Cluster, type KubectlResult } from './harness.js';

const NS = 'sa-e2e';
const POD = 'api-client';
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

interface Claims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': {
    namespace: string;
    serviceaccount: { name: string; uid: string };
    pod: { name: string; uid: string };
    node: { name: string; uid: string };
    warnafter: number;
  };
}

describe('e2e: ServiceAccount token in a pod on containerd', () => {
  let registry: TestRegistry | undefined;
  let ctrd: TestContainerd | undefined;
  let c: Cluster | undefined;
  let caPEM = '';
  let token = '';

  const ok = (r: KubectlResult, what: string): string => {
    assert.equal(r.code, 0, `${what}: ${r.stderr}`);
    return r.stdout;
  };
  const kubectl = (...args: string[]): string => ok(c!.kubectl(args, { timeoutMs: 150_000 }), `kubectl ${args.join(' ')}`);
  /** kubectl authenticating with nothing but `tok` (a kubeconfig without client certificate) */
  const kubectlWithToken = (tok: string, args: string[]): KubectlResult => {
    const cfg = join(c!.dir, 'token-kubeconfig.yaml');
    writeFileSync(
      cfg,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'k8ts', cluster: { server: `https://127.0.0.1:${c!.port}`, 'certificate-authority-data': Buffer.from(caPEM).toString('base64') } }],
        users: [{ name: 'sa', user: { token: tok } }],
        contexts: [{ name: 'sa', context: { cluster: 'k8ts', user: 'sa' } }],
        'current-context': 'sa',
      }),
    );
    const r = spawnSync(kubectlPath(), ['--kubeconfig', cfg, '--cache-dir', join(c!.dir, 'kube-cache-sa'), ...args], { encoding: 'utf8', timeout: 60_000 });
    return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  };
  /** an HTTPS request from the host, verifying the server against the cluster CA */
  const api = (path: string, tok: string): Promise<{ status: number; body: Record<string, unknown> }> =>
    new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: c!.port, path, ca: caPEM, servername: 'localhost', headers: { authorization: `Bearer ${tok}`, accept: 'application/json' } },
        (res) => {
          let b = '';
          res.on('data', (d: Buffer) => (b += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(b) as Record<string, unknown> }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  const exec = (...cmd: string[]): KubectlResult => c!.kubectl(['exec', '-n', NS, POD, '--', ...cmd], { timeoutMs: 90_000 });
  /** the real kubectl inside the pod, configured by nothing but its in-cluster config */
  const kubectlInPod = (...args: string[]): KubectlResult => exec('kubectl', ...args);

  before(async () => {
    registry = await startRegistry();
    await publishTestImages(registry.host);
    // the busybox stand-in plus this machine's kubectl (a static Go binary), as docker.io/k8ts/kubectl-e2e:1.32 on the mirror
    await pushBusyboxPlus(registry.host, 'k8ts/kubectl-e2e:1.32', { 'usr/local/bin/kubectl': [0o755, readFileSync(realpathSync(kubectlPath()))] } as never, ['sh']);
    ctrd = await startTestContainerd({ mirror: registry.host });
    // --disable-kube-proxy: this cluster's node is the host itself; its iptables and routes are not the test's to change
    c = await startCluster({ args: ['--runtime', 'remote', '--container-runtime-endpoint', ctrd.endpoint, '--cgroup-root', ctrd.cgroupParent, '--disable-kube-proxy'] });
    const kc = parse(readFileSync(c.kubeconfig, 'utf8')) as { clusters: { cluster: { 'certificate-authority-data': string } }[] };
    caPEM = Buffer.from(kc.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString('utf8');
    kubectl('create', 'namespace', NS);
    kubectl('create', 'role', 'pod-reader', '-n', NS, '--verb=get,list', '--resource=pods');
    kubectl('create', 'rolebinding', 'default-reads-pods', '-n', NS, '--role=pod-reader', `--serviceaccount=${NS}:default`);
    // the namespace's default ServiceAccount and kube-root-ca.crt come from controllers
    await eventually(() => c!.kubectl(['get', 'serviceaccount/default', 'configmap/kube-root-ca.crt', '-n', NS]).code === 0, 30_000);
    const manifest = join(c.dir, 'pod.yaml');
    writeFileSync(
      manifest,
      `apiVersion: v1
kind: Pod
metadata:
  name: ${POD}
  namespace: ${NS}
spec:
  hostNetwork: true
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: k8ts/kubectl-e2e:1.32
    command: [sleep, '3600']
    env:
    # what kube-proxy would make of the kubernetes Service's ClusterIP: the API server itself
    - {name: KUBERNETES_SERVICE_HOST, value: 127.0.0.1}
    - {name: KUBERNETES_SERVICE_PORT, value: '${c.port}'}
`,
    );
    kubectl('apply', '-f', manifest);
    const w = c.kubectl(['wait', '-n', NS, '--for=condition=Ready', `pod/${POD}`, '--timeout=150s'], { timeoutMs: 160_000 });
    assert.equal(w.code, 0, `pod never Ready: ${w.stderr}\n${c.kubectl(['describe', 'pod', '-n', NS, POD]).stdout}\n${c.log().slice(-4000)}`);
  });

  after(async () => {
    try {
      c?.kubectl(['delete', 'pod', '-n', NS, POD, '--ignore-not-found', '--wait=false']);
      await c?.stop();
    } finally {
      await ctrd?.stop();
      await registry?.stop();
    }
  });

  it('admission adds the kube-api-access volume as upstream: token (3607 s), ca.crt from kube-root-ca.crt, namespace', () => {
    const p = JSON.parse(kubectl('get', 'pod', '-n', NS, POD, '-o', 'json')) as Pod;
    assert.equal(p.spec?.serviceAccountName, 'default');
    const vol = p.spec?.volumes?.find((v) => /^kube-api-access-[a-z0-9]{5}$/.test(v.name));
    assert.ok(vol, JSON.stringify(p.spec?.volumes));
    assert.deepEqual(vol.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    assert.deepEqual(p.spec?.containers[0]?.volumeMounts, [{ name: vol.name, readOnly: true, mountPath: SA_DIR }]);
  });

  it(`${SA_DIR} holds token, ca.crt (the cluster CA, which verifies the API server) and namespace`, async () => {
    assert.deepEqual(ok(exec('ls', SA_DIR), 'ls').trim().split(/\s+/).sort(), ['ca.crt', 'namespace', 'token']);
    assert.equal(ok(exec('cat', `${SA_DIR}/namespace`), 'cat namespace'), NS);
    // defaultMode 420: the token file is 0644 (no runAsUser / fsGroup)
    assert.equal(ok(exec('stat', '-L', '-c', '%a', `${SA_DIR}/token`), 'stat').trim(), '644');
    const ca = ok(exec('cat', `${SA_DIR}/ca.crt`), 'cat ca.crt');
    assert.equal(ca.trim(), caPEM.trim());
    const served = await new Promise<X509Certificate>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port: c!.port, servername: 'localhost', rejectUnauthorized: false }, () => {
        resolve(new X509Certificate(s.getPeerX509Certificate()!.raw));
        s.end();
      });
      s.on('error', reject);
    });
    assert.ok(served.verify(new X509Certificate(ca).publicKey), 'ca.crt signed the API server certificate');
    token = ok(exec('cat', `${SA_DIR}/token`), 'cat token');
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('the token carries upstream’s claims: issuer, audience, the pod, its node and service account; a year with warnafter at 3607 s', () => {
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Claims;
    const p = JSON.parse(kubectl('get', 'pod', '-n', NS, POD, '-o', 'json')) as Pod;
    const saUID = kubectl('get', 'serviceaccount', 'default', '-n', NS, '-o', 'jsonpath={.metadata.uid}');
    const nodeUID = kubectl('get', 'node', 'e2e-node', '-o', 'jsonpath={.metadata.uid}');
    assert.equal(claims.iss, ISSUER);
    assert.deepEqual(claims.aud, [ISSUER]);
    assert.equal(claims.sub, `system:serviceaccount:${NS}:default`);
    assert.ok(Math.abs(claims.iat - Date.now() / 1000) < 600, `iat ${claims.iat} is recent`);
    assert.equal(claims.nbf, claims.iat);
    // --service-account-extend-token-expiration (default on): 3607 s → one year, warnafter at 3607 s
    assert.equal(claims['kubernetes.io'].warnafter, claims.iat + 3607);
    assert.equal(claims.exp, claims.iat + 365 * 24 * 3600);
    assert.match(claims.jti, /^[0-9a-f-]{36}$/);
    assert.deepEqual(claims['kubernetes.io'], {
      namespace: NS,
      serviceaccount: { name: 'default', uid: saUID },
      pod: { name: POD, uid: p.metadata!.uid! },
      node: { name: 'e2e-node', uid: nodeUID },
      warnafter: claims.iat + 3607,
    });
  });

  it('from inside the pod (in-cluster config): what the RoleBinding grants is allowed (200), the rest is forbidden (403)', async () => {
    // -v=6 logs each request with its status; the default namespace comes from the mounted namespace file
    const get = kubectlInPod('get', 'pod', POD, '-o', 'json', '-v=6');
    const got = JSON.parse(ok(get, 'in-pod kubectl get pod')) as Pod;
    assert.equal(got.metadata?.name, POD);
    assert.equal(got.metadata?.namespace, NS);
    assert.match(get.stderr, new RegExp(`GET https://127\\.0\\.0\\.1:${c!.port}/api/v1/namespaces/${NS}/pods/${POD} 200 OK`));
    assert.match(ok(kubectlInPod('get', 'pods', '--no-headers'), 'in-pod kubectl get pods'), new RegExp(`^${POD}\\s+1/1\\s+Running`, 'm'));
    const denied = kubectlInPod('get', 'secrets', '-n', 'kube-system', '-v=6');
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /GET https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/kube-system\/secrets\?limit=500 403 Forbidden/);
    const message = `secrets is forbidden: User "system:serviceaccount:${NS}:default" cannot list resource "secrets" in API group "" in the namespace "kube-system"`;
    assert.ok(denied.stderr.includes(`Error from server (Forbidden): ${message}`), denied.stderr);
    // the same token from the host: the Status body, and kubectl with nothing but the token
    const r = await api('/api/v1/namespaces/kube-system/secrets', token);
    assert.equal(r.status, 403);
    assert.equal(r.body.reason, 'Forbidden');
    assert.equal(r.body.message, message);
    const k = kubectlWithToken(token, ['get', 'secrets', '-n', 'kube-system']);
    assert.equal(k.code, 1);
    assert.ok(k.stderr.includes(`Error from server (Forbidden): ${message}`), k.stderr);
    // and the RBAC answer the pod gets for itself
    assert.equal(kubectlInPod('auth', 'can-i', 'list', 'pods').stdout.trim(), 'yes');
    assert.equal(kubectlInPod('auth', 'can-i', 'list', 'secrets', '-n', 'kube-system').stdout.trim(), 'no');
  });

  it('kubectl auth whoami --token shows the ServiceAccount user with upstream’s extra', () => {
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Claims;
    const r = kubectlWithToken(token, ['auth', 'whoami', '-o', 'json']);
    const u = (JSON.parse(ok(r, 'auth whoami')) as { status: { userInfo: Record<string, unknown> } }).status.userInfo;
    assert.deepEqual(u, {
      username: `system:serviceaccount:${NS}:default`,
      uid: claims['kubernetes.io'].serviceaccount.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${NS}`, 'system:authenticated'],
      extra: {
        'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`],
        'authentication.kubernetes.io/node-name': ['e2e-node'],
        'authentication.kubernetes.io/node-uid': [claims['kubernetes.io'].node.uid],
        'authentication.kubernetes.io/pod-name': [POD],
        'authentication.kubernetes.io/pod-uid': [claims['kubernetes.io'].pod.uid],
      },
    });
    // the same from inside the pod, and the table kubectl prints
    const inPod = JSON.parse(ok(kubectlInPod('auth', 'whoami', '-o', 'json'), 'in-pod auth whoami')) as { status: { userInfo: Record<string, unknown> } };
    assert.deepEqual(inPod.status.userInfo, u);
    const t = ok(kubectlWithToken(token, ['auth', 'whoami']), 'auth whoami');
    assert.match(t, new RegExp(`Username\\s+system:serviceaccount:${NS}:default`));
    assert.match(t, new RegExp(`Extra: authentication.kubernetes.io/pod-name\\s+\\[${POD}\\]`));
  });

  it('a pod whose ServiceAccount is gone by the time it reaches the kubelet: FailedMount with the TokenRequest error', async () => {
    kubectl('create', 'serviceaccount', 'temp', '-n', NS);
    // a scheduling gate holds the pod until the account has been deleted
    const manifest = join(c!.dir, 'gated.yaml');
    writeFileSync(
      manifest,
      `apiVersion: v1
kind: Pod
metadata:
  name: gated
  namespace: ${NS}
spec:
  serviceAccountName: temp
  schedulingGates: [{name: example.com/wait}]
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: busybox:1.36
    command: [sleep, '3600']
`,
    );
    kubectl('apply', '-f', manifest);
    kubectl('delete', 'serviceaccount', 'temp', '-n', NS);
    kubectl('patch', 'pod', 'gated', '-n', NS, '--type=json', '-p', '[{"op":"remove","path":"/spec/schedulingGates"}]');
    const ev = await eventually(
      () => {
        const out = c!.kubectl(['get', 'events', '-n', NS, '--field-selector', 'involvedObject.name=gated,reason=FailedMount', '-o', 'json']).stdout;
        const items = out ? (JSON.parse(out) as { items: { message: string; type: string; source?: { component?: string } }[] }).items : [];
        return items[0];
      },
      60_000,
      500,
    );
    assert.equal(ev.type, 'Warning');
    assert.equal(ev.source?.component, 'kubelet');
    assert.match(ev.message, /^MountVolume\.SetUp failed for volume "kube-api-access-[a-z0-9]{5}" : failed to fetch token: serviceaccounts "temp" not found$/);
    const p = JSON.parse(kubectl('get', 'pod', 'gated', '-n', NS, '-o', 'json')) as Pod;
    assert.equal(p.status?.phase, 'Pending');
    assert.equal(p.status?.containerStatuses?.[0]?.state?.waiting?.reason, 'ContainerCreating');
    kubectl('delete', 'pod', 'gated', '-n', NS, '--wait=false');
  });

  it('once the pod is deleted the same token is refused with 401', async () => {
    assert.equal((await api(`/api/v1/namespaces/${NS}/pods`, token)).status, 200);
    kubectl('delete', 'pod', '-n', NS, POD, '--timeout=60s');
    // successful authentications are cached for 10 s, as upstream's token cache
    const r = await eventually(
      async () => {
        const x = await api(`/api/v1/namespaces/${NS}/pods`, token);
        return x.status === 401 ? x : undefined;
      },
      30_000,
      500,
    );
    assert.equal(r!.body.reason, 'Unauthorized');
    assert.equal(r!.body.message, 'Unauthorized');
    const k = kubectlWithToken(token, ['get', 'pods', '-n', NS]);
    assert.equal(k.code, 1);
    // kubectl 1.32's words for a 401: the Status message, or client-go's when discovery (not cached) fails first
    assert.match(k.stderr, /error: You must be logged in to the server \((Unauthorized|the server has asked for the client to provide credentials)\)/);
  });
});

/**
 * The front door end to end, through the real kubectl as several users (client
 * certificates issued by the test CA, static tokens, ServiceAccount tokens, a bootstrap
 * token): the can-i matrix of the bootstrap roles, RoleBinding grant and revoke,
 * escalation prevention, the Node authorizer and NodeRestriction, Pod Security
 * enforce/warn on the example manifests, quotas, LimitRange defaults, Priority,
 * TokenRequest, the bootstrap-token CSR flow, anonymous access and the audit log.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { createCSR } from '../../src/controllers/csr/sign.js';
import { requestNodeClientCertificate } from '../../src/controllers/csr/request.js';
import { bootstrapTokenSecret } from '../../src/apiserver/authn/bootstrap-token.js';
import { eventually, MANIFESTS } from './harness.js';
import { startSecureCluster, type SecureCluster } from './security-harness.js';

const TOKENS = ['tok-alice,alice,1001', 'tok-bob,bob,1002', 'tok-carol,carol,1003,"devs,qa"', 'tok-viewer,viewer,1004', 'tok-editor,editor,1005'].join('\n');

function raw(c: SecureCluster, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request(`${c.url}${path}`, { ca: c.ca.cert, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    r.on('error', reject);
    r.end();
  });
}

describe('security e2e (kubectl, several users)', { timeout: 300_000 }, () => {
  let c: SecureCluster;
  let alice: string;
  let bob: string;
  let viewer: string;
  let editor: string;
  const k = (cfg: string, ...args: string[]) => c.kubectl(cfg, args);
  const apply = (cfg: string, yaml: string, ...args: string[]) => c.kubectl(cfg, ['apply', '-f', '-', ...args], yaml);

  before(async () => {
    c = await startSecureCluster({ tokens: TOKENS });
    alice = c.tokenUser('alice', 'tok-alice');
    bob = c.tokenUser('bob', 'tok-bob');
    viewer = c.tokenUser('viewer', 'tok-viewer');
    editor = c.tokenUser('editor', 'tok-editor');
    for (const ns of ['team', 'restricted', 'baseline', 'warned', 'quota', 'limits']) assert.equal((await k(c.admin, 'create', 'namespace', ns)).code, 0);
    await k(c.admin, 'label', 'namespace', 'restricted', 'pod-security.kubernetes.io/enforce=restricted');
    await k(c.admin, 'label', 'namespace', 'baseline', 'pod-security.kubernetes.io/enforce=baseline');
    await k(c.admin, 'label', 'namespace', 'warned', 'pod-security.kubernetes.io/warn=restricted');
    assert.equal((await k(c.admin, 'create', 'rolebinding', 'viewer', '--clusterrole=view', '--user=viewer', '-n', 'team')).code, 0);
    assert.equal((await k(c.admin, 'create', 'rolebinding', 'editor', '--clusterrole=edit', '--user=editor', '-n', 'team')).code, 0);
    assert.equal((await k(c.admin, 'create', 'rolebinding', 'bob-admin', '--clusterrole=admin', '--user=bob', '-n', 'team')).code, 0);
  });
  after(async () => {
    await c?.stop();
  });

  it('anonymous requests get 401 except the public health and version endpoints; bad tokens get 401', async () => {
    const pods = await raw(c, '/api/v1/pods');
    assert.equal(pods.status, 401);
    assert.deepEqual(JSON.parse(pods.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    assert.equal((await raw(c, '/healthz')).body, 'ok');
    assert.equal((await raw(c, '/version')).status, 200);
    assert.equal((await raw(c, '/healthz', { Authorization: 'Bearer not-a-token' })).status, 401);
    const r = await k(c.tokenUser('nobody', 'wrong'), 'get', 'pods');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
  });

  it('kubectl auth whoami shows certificate and token identities', async () => {
    const carol = await k(c.tokenUser('carol', 'tok-carol'), 'auth', 'whoami', '-o', 'json');
    assert.equal(carol.code, 0, carol.stderr);
    assert.deepEqual(JSON.parse(carol.stdout).status.userInfo, { username: 'carol', uid: '1003', groups: ['devs', 'qa', 'system:authenticated'] });
    const me = await k(await c.certUser('dave', ['ops']), 'auth', 'whoami', '-o', 'json');
    assert.deepEqual(JSON.parse(me.stdout).status.userInfo, { username: 'dave', groups: ['ops', 'system:authenticated'] });
  });

  it('can-i matrix of the bootstrap roles', async () => {
    const yes = async (cfg: string, ...args: string[]) => {
      const r = await k(cfg, 'auth', 'can-i', ...args);
      return r.stdout.trim();
    };
    const matrix: [string, string, string[], 'yes' | 'no'][] = [
      ['viewer', viewer, ['get', 'pods', '-n', 'team'], 'yes'],
      ['viewer', viewer, ['list', 'configmaps', '-n', 'team'], 'yes'],
      ['viewer', viewer, ['create', 'pods', '-n', 'team'], 'no'],
      ['viewer', viewer, ['get', 'secrets', '-n', 'team'], 'no'],
      ['viewer', viewer, ['get', 'pods', '-n', 'default'], 'no'],
      ['editor', editor, ['create', 'pods', '-n', 'team'], 'yes'],
      ['editor', editor, ['get', 'secrets', '-n', 'team'], 'yes'],
      ['editor', editor, ['create', 'serviceaccounts', '--subresource=token', '-n', 'team'], 'yes'],
      ['editor', editor, ['create', 'rolebindings', '-n', 'team'], 'no'],
      ['editor', editor, ['create', 'resourcequotas', '-n', 'team'], 'no'],
      ['bob(admin)', bob, ['create', 'rolebindings', '-n', 'team'], 'yes'],
      ['bob(admin)', bob, ['create', 'roles', '-n', 'team'], 'yes'],
      ['bob(admin)', bob, ['create', 'localsubjectaccessreviews', '-n', 'team'], 'yes'],
      ['bob(admin)', bob, ['delete', 'namespaces'], 'no'],
      ['bob(admin)', bob, ['list', 'nodes'], 'no'],
      ['alice', alice, ['get', 'pods'], 'no'],
      ['alice', alice, ['create', 'selfsubjectaccessreviews'], 'yes'],
      ['admin', c.admin, ['*', '*'], 'yes'],
      ['scheduler', c.admin, ['create', 'pods', '--subresource=binding', '--as=system:kube-scheduler'], 'yes'],
      ['scheduler', c.admin, ['get', 'nodes', '--as=system:kube-scheduler'], 'yes'],
      ['scheduler', c.admin, ['create', 'pods', '--as=system:kube-scheduler'], 'no'],
      ['controller-manager', c.admin, ['list', 'secrets', '-A', '--as=system:kube-controller-manager'], 'yes'],
      ['controller-manager', c.admin, ['delete', 'pods', '--as=system:kube-controller-manager'], 'no'],
      ['namespace-controller', c.admin, ['deletecollection', 'pods', '--as=system:serviceaccount:kube-system:namespace-controller'], 'yes'],
    ];
    const got: string[] = [];
    for (const [who, cfg, args, want] of matrix) got.push(`${who} ${args.join(' ')}: ${await yes(cfg, ...args)}${want === 'yes' ? '' : ''}`);
    assert.deepEqual(
      got,
      matrix.map(([who, , args, want]) => `${who} ${args.join(' ')}: ${want}`),
    );
  });

  it('can-i --list shows the rules of the bindings in the namespace', async () => {
    const r = await k(viewer, 'auth', 'can-i', '--list', '-n', 'team');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n').map((l) => l.trim().split(/\s+/).join(' '));
    assert.equal(lines[0], 'Resources Non-Resource URLs Resource Names Verbs');
    assert.ok(lines.includes('pods [] [] [get list watch]'), r.stdout);
    assert.ok(lines.includes('deployments.apps [] [] [get list watch]'), r.stdout);
    assert.ok(lines.includes('selfsubjectaccessreviews.authorization.k8s.io [] [] [create]'), r.stdout);
    assert.ok(!lines.some((l) => l.startsWith('secrets ')), r.stdout);
  });

  it('403 carries upstream message; a RoleBinding grants, deleting it revokes', async () => {
    const denied = await k(alice, 'get', 'pods', '-n', 'team');
    assert.equal(denied.code, 1);
    assert.equal(denied.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "team"');
    assert.equal((await k(c.admin, 'create', 'rolebinding', 'alice-view', '--clusterrole=view', '--user=alice', '-n', 'team')).code, 0);
    await eventually(async () => (await k(alice, 'get', 'pods', '-n', 'team')).code === 0, 10_000);
    assert.equal((await k(alice, 'auth', 'can-i', 'list', 'pods', '-n', 'team')).stdout.trim(), 'yes');
    assert.equal((await k(c.admin, 'delete', 'rolebinding', 'alice-view', '-n', 'team')).code, 0);
    await eventually(async () => (await k(alice, 'get', 'pods', '-n', 'team')).code === 1, 10_000);
    assert.equal((await k(alice, 'auth', 'can-i', 'list', 'pods', '-n', 'team')).stdout.trim(), 'no');
  });

  it('refuses RBAC escalation: a namespace admin cannot grant what they do not hold', async () => {
    const role = await k(bob, 'create', 'role', 'node-reader', '--verb=get', '--resource=nodes', '-n', 'team');
    assert.equal(role.code, 1);
    assert.equal(
      role.stderr.trim(),
      'Error from server (Forbidden): roles.rbac.authorization.k8s.io "node-reader" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}',
    );
    const bind = await k(bob, 'create', 'rolebinding', 'bob-root', '--clusterrole=cluster-admin', '--user=bob', '-n', 'team');
    assert.equal(bind.code, 1);
    assert.match(
      bind.stderr,
      /rolebindings\.rbac\.authorization\.k8s\.io "bob-root" is forbidden: user "bob" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}/,
    );
    // what bob holds he may grant
    assert.equal((await k(bob, 'create', 'rolebinding', 'alice-edit', '--clusterrole=edit', '--user=alice', '-n', 'team')).code, 0);
    assert.equal((await k(bob, 'create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods', '-n', 'team')).code, 0);
    assert.equal((await k(alice, 'delete', 'rolebinding', 'alice-edit', '-n', 'team')).code, 1);
  });

  it('a kubelet identity reads only what its pods need and may not touch another node', async () => {
    for (const n of ['n1', 'n2']) {
      const r = await apply(c.admin, `{"apiVersion":"v1","kind":"Node","metadata":{"name":"${n}"}}`);
      assert.equal(r.code, 0, r.stderr);
    }
    await apply(c.admin, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1","namespace":"team"},"stringData":{"k":"v"}}`);
    await apply(c.admin, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s2","namespace":"team"},"stringData":{"k":"v"}}`);
    const pod = (name: string, node: string, secret: string) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'team' },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 's', secret: { secretName: secret } }] },
      });
    assert.equal((await apply(c.admin, pod('p1', 'n1', 's1'))).code, 0);
    assert.equal((await apply(c.admin, pod('p2', 'n2', 's2'))).code, 0);
    const kubelet = await c.certUser('system:node:n1', ['system:nodes']);
    await eventually(async () => (await k(kubelet, 'get', 'pod', 'p1', '-n', 'team')).code === 0, 10_000);
    assert.equal((await k(kubelet, 'get', 'secret', 's1', '-n', 'team')).code, 0);
    const other = await k(kubelet, 'get', 'pod', 'p2', '-n', 'team');
    assert.equal(
      other.stderr.trim(),
      `Error from server (Forbidden): pods "p2" is forbidden: User "system:node:n1" cannot get resource "pods" in API group "" in the namespace "team": no relationship found between node 'n1' and this object`,
    );
    const secret = await k(kubelet, 'get', 'secret', 's2', '-n', 'team');
    assert.match(
      secret.stderr,
      /secrets "s2" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "team": no relationship found between node 'n1' and this object/,
    );
    // the kubelet writes status without reading it first (kubectl would GET pods/status, which nodes may not)
    const node1 = c.clientFor({ username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] });
    const R_PODS = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } as const;
    await assert.rejects(node1.patch(R_PODS, 'team', 'p2', 'merge', { status: { message: 'x' } }, { subresource: 'status' }), {
      message: 'pods "p2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself',
    });
    const own = await node1.patch<{ status?: { message?: string } }>(R_PODS, 'team', 'p1', 'merge', { status: { message: 'ok' } }, { subresource: 'status' });
    assert.equal(own.status?.message, 'ok');
    const label = await k(kubelet, 'label', 'node', 'n2', 'x=y');
    assert.equal(label.stderr.trim(), 'Error from server (Forbidden): nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    assert.equal((await k(kubelet, 'label', 'node', 'n1', 'x=y')).code, 0);
    const del = await k(kubelet, 'delete', 'pod', 'p2', '-n', 'team');
    assert.equal(del.stderr.trim(), 'Error from server (Forbidden): pods "p2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
  });

  it('restricted namespace rejects each non-compliant field of the example manifests, accepts a compliant pod', async () => {
    const simple = join(MANIFESTS, 'simple-pod.yaml');
    const r1 = await k(c.admin, 'apply', '-f', simple, '-n', 'restricted');
    assert.equal(r1.code, 1);
    assert.equal(
      r1.stderr.trim(),
      `Error from server (Forbidden): error when creating "${simple}": pods "nginx" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`,
    );
    const sc = join(MANIFESTS, 'security-context.yaml');
    const r2 = await k(c.admin, 'apply', '-f', sc, '-n', 'restricted');
    assert.equal(
      r2.stderr.trim(),
      `Error from server (Forbidden): error when creating "${sc}": pods "security-context-demo" is forbidden: violates PodSecurity "restricted:latest": unrestricted capabilities (container "sec-ctx-demo" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "sec-ctx-demo" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "sec-ctx-demo" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`,
    );
    // fixing the fields one by one removes exactly that violation
    const base = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'security-context-demo' },
      spec: {
        securityContext: { runAsUser: 1000, fsGroup: 2000 } as Record<string, unknown>,
        volumes: [{ name: 'sec-ctx-vol', emptyDir: {} }],
        containers: [
          {
            name: 'sec-ctx-demo',
            image: 'gcr.io/google-samples/node-hello:1.0',
            volumeMounts: [{ name: 'sec-ctx-vol', mountPath: '/data/demo' }],
            securityContext: { allowPrivilegeEscalation: false } as Record<string, unknown>,
          },
        ],
      },
    };
    const reasons = async (): Promise<string> => {
      const r = await apply(c.admin, JSON.stringify(base), '-n', 'restricted', '--dry-run=server');
      if (r.code === 0) return 'admitted';
      return [...r.stderr.matchAll(/(?:: |\), )([a-zA-Z!=0 ]+?) \(/g)].map((m) => m[1]).join('|');
    };
    assert.equal(await reasons(), 'unrestricted capabilities|runAsNonRoot != true|seccompProfile');
    base.spec.containers[0]!.securityContext.capabilities = { drop: ['ALL'] };
    assert.equal(await reasons(), 'runAsNonRoot != true|seccompProfile');
    base.spec.securityContext.runAsNonRoot = true;
    assert.equal(await reasons(), 'seccompProfile');
    base.spec.securityContext.seccompProfile = { type: 'RuntimeDefault' };
    assert.equal(await reasons(), 'admitted');
    base.spec.securityContext.runAsUser = 0;
    assert.equal(await reasons(), 'runAsUser=0');
    base.spec.securityContext.runAsUser = 1000;
    const ok = await apply(c.admin, JSON.stringify(base), '-n', 'restricted');
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout.trim(), 'pod/security-context-demo created');
  });

  it('baseline namespace rejects privileged, host namespaces, host ports and hostPath', async () => {
    const pod = (spec: Record<string, unknown>, c0: Record<string, unknown> = {}) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad' }, spec: { ...spec, containers: [{ name: 'app', image: 'nginx', ...c0 }] } });
    const msg = async (y: string) => (await apply(c.admin, y, '-n', 'baseline')).stderr.trim().replace(/^.*violates PodSecurity "baseline:latest": /, '');
    assert.equal(await msg(pod({}, { securityContext: { privileged: true } })), 'privileged (container "app" must not set securityContext.privileged=true)');
    assert.equal(await msg(pod({ hostNetwork: true, hostPID: true })), 'host namespaces (hostNetwork=true, hostPID=true)');
    assert.equal(await msg(pod({}, { ports: [{ containerPort: 80, hostPort: 8080 }] })), 'hostPort (container "app" uses hostPort 8080)');
    assert.equal(await msg(pod({ volumes: [{ name: 'root', hostPath: { path: '/' } }] })), 'hostPath volumes (volume "root")');
    assert.equal(
      await msg(pod({}, { securityContext: { capabilities: { add: ['NET_ADMIN', 'CHOWN'] } } })),
      'non-default capabilities (container "app" must not include "NET_ADMIN" in securityContext.capabilities.add)',
    );
    assert.equal((await apply(c.admin, pod({}), '-n', 'baseline')).code, 0);
  });

  it('warn mode admits the pod and prints the Pod Security warning', async () => {
    const r = await k(c.admin, 'apply', '-f', join(MANIFESTS, 'simple-pod.yaml'), '-n', 'warned');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'pod/nginx created');
    assert.equal(
      r.stderr.trim(),
      'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    // enforcing restricted on a namespace with violating pods warns about them
    const lbl = await k(c.admin, 'label', 'namespace', 'warned', 'pod-security.kubernetes.io/enforce=restricted');
    assert.equal(lbl.code, 0);
    assert.equal(
      lbl.stderr.trim(),
      'Warning: existing pods in namespace "warned" violate the new PodSecurity enforce level "restricted:latest"\nWarning: nginx: allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    );
  });

  it('quota-mem-cpu + quota-mem-cpu-pod: usage charged, excess and unspecified resources refused', async () => {
    assert.equal((await k(c.admin, 'apply', '-f', join(MANIFESTS, 'quota-mem-cpu.yaml'), '-n', 'quota')).code, 0);
    await eventually(async () => JSON.parse((await k(c.admin, 'get', 'resourcequota', 'mem-cpu-demo', '-n', 'quota', '-o', 'json')).stdout).status?.used, 10_000);
    const r = await k(c.admin, 'apply', '-f', join(MANIFESTS, 'quota-mem-cpu-pod.yaml'), '-n', 'quota');
    assert.equal(r.code, 0, r.stderr);
    const q = JSON.parse((await k(c.admin, 'get', 'resourcequota', 'mem-cpu-demo', '-n', 'quota', '-o', 'json')).stdout);
    assert.deepEqual(q.status.used, { 'limits.cpu': '800m', 'limits.memory': '800Mi', 'requests.cpu': '400m', 'requests.memory': '600Mi' });
    assert.deepEqual(q.status.hard, { 'limits.cpu': '2', 'limits.memory': '2Gi', 'requests.cpu': '1', 'requests.memory': '1Gi' });
    const second = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'quota-mem-cpu-demo-2' },
      spec: {
        containers: [{ name: 'quota-mem-cpu-demo-2-ctr', image: 'redis', resources: { limits: { memory: '1Gi', cpu: '800m' }, requests: { memory: '700Mi', cpu: '400m' } } }],
      },
    });
    const over = await apply(c.admin, second, '-n', 'quota');
    assert.equal(over.code, 1);
    assert.match(
      over.stderr,
      /pods "quota-mem-cpu-demo-2" is forbidden: exceeded quota: mem-cpu-demo, requested: requests.memory=700Mi, used: requests.memory=600Mi, limited: requests.memory=1Gi/,
    );
    const bare = await k(c.admin, 'run', 'bare', '--image=nginx', '-n', 'quota');
    assert.equal(
      bare.stderr.trim(),
      'Error from server (Forbidden): pods "bare" is forbidden: failed quota: mem-cpu-demo: must specify limits.cpu for: bare; limits.memory for: bare; requests.cpu for: bare; requests.memory for: bare',
    );
    const table = await k(c.admin, 'get', 'quota', '-n', 'quota');
    assert.match(table.stdout, /mem-cpu-demo\s+\S+\s+requests.cpu: 400m\/1, requests.memory: 600Mi\/1Gi\s+limits.cpu: 800m\/2, limits.memory: 800Mi\/2Gi/);
    // deleting the pod gives the usage back (quota controller)
    assert.equal((await k(c.admin, 'delete', 'pod', 'quota-mem-cpu-demo', '-n', 'quota', '--grace-period=0', '--force')).code, 0);
    await eventually(
      async () => JSON.parse((await k(c.admin, 'get', 'resourcequota', 'mem-cpu-demo', '-n', 'quota', '-o', 'json')).stdout).status.used['requests.memory'] === '0',
      15_000,
    );
  });

  it('LimitRange fills default requests and limits and enforces max', async () => {
    const lr = `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"mem-limit-range"},"spec":{"limits":[{"default":{"memory":"512Mi"},"defaultRequest":{"memory":"256Mi"},"max":{"memory":"1Gi"},"type":"Container"}]}}`;
    assert.equal((await apply(c.admin, lr, '-n', 'limits')).code, 0);
    const stored = JSON.parse((await k(c.admin, 'get', 'limitrange', 'mem-limit-range', '-n', 'limits', '-o', 'json')).stdout);
    assert.deepEqual(stored.spec.limits[0], { default: { memory: '512Mi' }, defaultRequest: { memory: '256Mi' }, max: { memory: '1Gi' }, type: 'Container' });
    assert.equal((await k(c.admin, 'run', 'default-mem-demo', '--image=nginx', '-n', 'limits')).code, 0);
    const pod = JSON.parse((await k(c.admin, 'get', 'pod', 'default-mem-demo', '-n', 'limits', '-o', 'json')).stdout);
    assert.deepEqual(pod.spec.containers[0].resources, { limits: { memory: '512Mi' }, requests: { memory: '256Mi' } });
    assert.equal(
      pod.metadata.annotations['kubernetes.io/limit-ranger'],
      'LimitRanger plugin set: memory request for container default-mem-demo; memory limit for container default-mem-demo',
    );
    assert.equal(pod.status.qosClass, 'Burstable');
    const big = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'big' },
      spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { memory: '1500Mi' } } }] },
    });
    const r = await apply(c.admin, big, '-n', 'limits');
    assert.match(r.stderr, /pods "big" is forbidden: maximum memory usage per Container is 1Gi, but limit is 1500Mi/);
  });

  it('Priority resolves priorityClassName and refuses unknown classes', async () => {
    const file = join(MANIFESTS, 'high-priority-pod.yaml');
    const r = await k(c.admin, 'apply', '-f', file);
    assert.equal(r.stderr.trim(), `Error from server (Forbidden): error when creating "${file}": pods "high-priority" is forbidden: no PriorityClass with name high was found`);
    assert.equal((await apply(c.admin, '{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"high"},"value":1000000}')).code, 0);
    assert.equal((await k(c.admin, 'apply', '-f', file)).code, 0);
    const pod = JSON.parse((await k(c.admin, 'get', 'pod', 'high-priority', '-o', 'json')).stdout);
    assert.equal(pod.spec.priority, 1000000);
    assert.equal(pod.spec.preemptionPolicy, 'PreemptLowerPriority');
    const plain = JSON.parse((await k(c.admin, 'get', 'pod', 'p1', '-n', 'team', '-o', 'json')).stdout);
    assert.equal(plain.spec.priority, 0);
    assert.deepEqual(
      plain.spec.tolerations.map((t: { key: string; tolerationSeconds: number }) => `${t.key}:${t.tolerationSeconds}`),
      ['node.kubernetes.io/not-ready:300', 'node.kubernetes.io/unreachable:300'],
    );
  });

  it('TokenRequest issues bound ServiceAccount tokens the API server accepts until the pod is gone', async () => {
    const tok = await k(editor, 'create', 'token', 'default', '-n', 'team');
    assert.equal(tok.code, 0, tok.stderr);
    const jwt = tok.stdout.trim();
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
    assert.equal(claims.iss, 'https://kubernetes.default.svc.cluster.local');
    assert.deepEqual(claims.aud, ['https://kubernetes.default.svc.cluster.local']);
    assert.equal(claims.sub, 'system:serviceaccount:team:default');
    assert.equal(claims.exp - claims.iat, 3600);
    assert.equal(claims['kubernetes.io'].namespace, 'team');
    assert.equal(claims['kubernetes.io'].serviceaccount.name, 'default');
    const sa = c.tokenUser('sa', jwt);
    const who = JSON.parse((await k(sa, 'auth', 'whoami', '-o', 'json')).stdout).status.userInfo;
    assert.equal(who.username, 'system:serviceaccount:team:default');
    assert.deepEqual(who.groups, ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated']);
    assert.equal((await k(sa, 'get', 'pods', '-n', 'team')).code, 1);
    // bound to a pod: refused once the pod is deleted
    const uid = JSON.parse((await k(c.admin, 'get', 'pod', 'p1', '-n', 'team', '-o', 'json')).stdout).metadata.uid;
    const bound = (await k(editor, 'create', 'token', 'default', '-n', 'team', '--bound-object-kind=Pod', '--bound-object-name=p1', `--bound-object-uid=${uid}`)).stdout.trim();
    const bclaims = JSON.parse(Buffer.from(bound.split('.')[1]!, 'base64url').toString('utf8'));
    assert.deepEqual(bclaims['kubernetes.io'].pod, { name: 'p1', uid });
    assert.equal(bclaims['kubernetes.io'].node.name, 'n1');
    assert.equal((await k(c.admin, 'delete', 'pod', 'p1', '-n', 'team', '--grace-period=0', '--force')).code, 0);
    await eventually(async () => (await k(c.admin, 'get', 'pod', 'p1', '-n', 'team')).code === 1, 10_000);
    const after = await k(c.tokenUser('bound', bound), 'auth', 'whoami');
    assert.match(after.stderr, /Unauthorized/);
    const short = await k(editor, 'create', 'token', 'default', '-n', 'team', '--duration=5m');
    assert.match(
      short.stderr,
      /TokenRequest.authentication.k8s.io "default" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes/,
    );
  });

  it('a node joins with a bootstrap token: CSR auto-approved and signed, the certificate authenticates as system:node', async () => {
    await apply(c.admin, JSON.stringify(bootstrapTokenSecret('abcdef', '0123456789abcdef', { expiration: new Date(Date.now() + 3600_000) })));
    const boot = c.tokenUser('bootstrap', 'abcdef.0123456789abcdef');
    const who = JSON.parse((await k(boot, 'auth', 'whoami', '-o', 'json')).stdout).status.userInfo;
    assert.deepEqual(who, { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:authenticated'] });
    const { csr, key } = await createCSR('system:node:n3', ['system:nodes']);
    const obj = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'node-csr-n3' },
      spec: { request: Buffer.from(csr).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
    };
    const r = await apply(boot, JSON.stringify(obj));
    assert.equal(r.code, 0, r.stderr);
    const issued = await eventually(async () => {
      const g = JSON.parse((await k(c.admin, 'get', 'csr', 'node-csr-n3', '-o', 'json')).stdout);
      return g.status?.certificate ? g : undefined;
    }, 15_000);
    assert.deepEqual(
      issued.status.conditions.map((x: { type: string; reason: string; message: string }) => [x.type, x.reason, x.message]),
      [['Approved', 'AutoApproved', 'Auto approving kubelet client certificate after SubjectAccessReview.']],
    );
    assert.equal(issued.spec.username, 'system:bootstrap:abcdef');
    const table = await k(c.admin, 'get', 'csr', 'node-csr-n3');
    assert.match(table.stdout, /node-csr-n3\s+\S+\s+kubernetes.io\/kube-apiserver-client-kubelet\s+system:bootstrap:abcdef\s+<none>\s+Approved,Issued/);
    const cert = Buffer.from(issued.status.certificate, 'base64').toString('utf8');
    const cfg = join(c.dir, 'kubeconfig-n3.yaml');
    const base = readFileSync(c.admin, 'utf8')
      .replace(/client-certificate-data: .*/, `client-certificate-data: ${Buffer.from(cert).toString('base64')}`)
      .replace(/client-key-data: .*/, `client-key-data: ${Buffer.from(key).toString('base64')}`);
    writeFileSync(cfg, base);
    const node = JSON.parse((await k(cfg, 'auth', 'whoami', '-o', 'json')).stdout).status.userInfo;
    assert.deepEqual(node, { username: 'system:node:n3', groups: ['system:nodes', 'system:authenticated'] });
    // the same flow as `k8ts agent` runs it, through the client
    const agent = c.clientFor({ username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:authenticated'] });
    const creds = await requestNodeClientCertificate(agent, 'n4', { timeoutMs: 15_000, pollMs: 50 });
    assert.match(creds.cert, /^-----BEGIN CERTIFICATE-----/);
    const cfg4 = join(c.dir, 'kubeconfig-n4.yaml');
    writeFileSync(
      cfg4,
      readFileSync(c.admin, 'utf8')
        .replace(/client-certificate-data: .*/, `client-certificate-data: ${Buffer.from(creds.cert).toString('base64')}`)
        .replace(/client-key-data: .*/, `client-key-data: ${Buffer.from(creds.key).toString('base64')}`),
    );
    assert.equal(JSON.parse((await k(cfg4, 'auth', 'whoami', '-o', 'json')).stdout).status.userInfo.username, 'system:node:n4');
    // a bootstrap identity may not approve certificates itself
    const other = await createCSR('someone', []);
    const pending = {
      ...obj,
      metadata: { name: 'client-csr' },
      spec: { ...obj.spec, request: Buffer.from(other.csr).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client' },
    };
    assert.equal((await apply(boot, JSON.stringify(pending))).code, 0);
    const approve = await k(boot, 'certificate', 'approve', 'client-csr');
    assert.equal(approve.code, 1);
    assert.match(
      approve.stderr,
      /User "system:bootstrap:abcdef" cannot update resource "certificatesigningrequests\/approval" in API group "certificates.k8s.io" at the cluster scope/,
    );
    const masters = await createCSR('root', ['system:masters']);
    const evil = { ...pending, metadata: { name: 'evil' }, spec: { ...pending.spec, request: Buffer.from(masters.csr).toString('base64') } };
    const e = await apply(c.admin, JSON.stringify(evil));
    assert.match(
      e.stderr,
      /certificatesigningrequests.certificates.k8s.io "evil" is forbidden: use of kubernetes.io\/kube-apiserver-client signer with system:masters group is not allowed/,
    );
  });

  // --validate=false: kubectl validates create-only kinds against /openapi/v2, which k8ts does not serve yet
  it('SubjectAccessReview and impersonation', async () => {
    const sar = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'viewer', groups: ['system:authenticated'], resourceAttributes: { namespace: 'team', verb: 'list', resource: 'pods' } },
    };
    const out = await c.kubectl(c.admin, ['create', '--validate=false', '-f', '-', '-o', 'json'], JSON.stringify(sar));
    assert.equal(out.code, 0, out.stderr);
    assert.deepEqual(JSON.parse(out.stdout).status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "viewer/team" of ClusterRole "view" to User "viewer"' });
    const denied = await c.kubectl(
      c.admin,
      ['create', '--validate=false', '-f', '-', '-o', 'json'],
      JSON.stringify({ ...sar, spec: { ...sar.spec, resourceAttributes: { ...sar.spec.resourceAttributes, verb: 'delete' } } }),
    );
    assert.deepEqual(JSON.parse(denied.stdout).status, { allowed: false });
    const bad = await c.kubectl(c.admin, ['create', '--validate=false', '-f', '-'], JSON.stringify({ ...sar, spec: { resourceAttributes: sar.spec.resourceAttributes } }));
    assert.match(bad.stderr, /The SubjectAccessReview "" is invalid: spec.user,spec.groups: Invalid value: "": at least one of user or group must be specified/);
    const imp = await k(viewer, 'get', 'pods', '--as=bob');
    assert.equal(
      imp.stderr.trim(),
      'Error from server (Forbidden): users "bob" is forbidden: User "viewer" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const asViewer = await k(c.admin, 'auth', 'whoami', '--as=viewer', '--as-group=qa', '-o', 'json');
    assert.deepEqual(JSON.parse(asViewer.stdout).status.userInfo, { username: 'viewer', groups: ['qa', 'system:authenticated'] });
  });

  it('ServiceAccount admission: default account and the projected token volume', async () => {
    const pod = JSON.parse((await k(c.admin, 'get', 'pod', 'default-mem-demo', '-n', 'limits', '-o', 'json')).stdout);
    assert.equal(pod.spec.serviceAccountName, 'default');
    const vol = pod.spec.volumes.find((v: { name: string }) => v.name.startsWith('kube-api-access-'));
    assert.match(vol.name, /^kube-api-access-[a-z0-9]{5}$/);
    assert.deepEqual(vol.projected.sources, [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ]);
    assert.deepEqual(pod.spec.containers[0].volumeMounts, [{ name: vol.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    const ca = JSON.parse((await k(c.admin, 'get', 'configmap', 'kube-root-ca.crt', '-n', 'limits', '-o', 'json')).stdout);
    assert.equal(ca.data['ca.crt'], c.ca.cert);
    const missing = await apply(
      c.admin,
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"nosa"},"spec":{"serviceAccountName":"ghost","containers":[{"name":"c","image":"nginx"}]}}',
      '-n',
      'limits',
    );
    assert.match(missing.stderr, /pods "nosa" is forbidden: error looking up service account limits\/ghost: serviceaccount "ghost" not found/);
  });

  it('writes audit events as JSON lines with the policy level', async () => {
    await k(c.admin, 'create', 'configmap', 'audited', '--from-literal=a=b', '-n', 'team');
    await k(c.tokenUser('carol', 'tok-carol'), 'get', 'secrets', '-n', 'team');
    const events = c.auditLines.map((l) => JSON.parse(l));
    assert.ok(events.every((e) => e.kind === 'Event' && e.apiVersion === 'audit.k8s.io/v1' && e.stage !== 'RequestReceived'));
    const cm = events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps' && e.objectRef?.name === undefined && e.responseStatus.code === 201);
    assert.ok(cm, 'configmap create audited');
    assert.equal(cm.level, 'RequestResponse');
    assert.equal(cm.user.username, 'kubernetes-admin');
    assert.equal(cm.requestObject.metadata.name, 'audited');
    assert.equal(cm.responseObject.data.a, 'b');
    const deny = events.find((e) => e.user.username === 'carol' && e.objectRef?.resource === 'secrets');
    assert.equal(deny.level, 'Metadata');
    assert.equal(deny.responseStatus.code, 403);
    assert.equal(deny.annotations['authorization.k8s.io/decision'], 'forbid');
    assert.equal(deny.requestObject, undefined);
    assert.ok(!events.some((e) => e.user.username === 'system:kube-controller-manager'), 'policy None for the controller manager');
    const un = events.find((e) => e.responseStatus.code === 401);
    assert.ok(un, '401s are audited');
  });
});

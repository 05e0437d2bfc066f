/**
 * `k8ts agent` joins a node with the server's join token: TLS bootstrap through a
 * CertificateSigningRequest (approved and issued), a podCIDR from the node IPAM
 * controller, then pods scheduled there run, and logs/exec reach its kubelet through
 * the API server. The agent's credentials are a node identity (Node authorizer).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCluster, eventually, freePort, ROOT, type Cluster } from './harness.js';

describe('e2e: k8ts agent joins a node', () => {
  let c: Cluster;
  let agent: ChildProcess | undefined;
  let agentLog = '';
  before(async () => {
    c = await startCluster();
    const port = await freePort();
    agent = spawn(
      process.execPath,
      [
        join(ROOT, 'dist/k8ts.mjs'),
        'agent',
        '--server',
        `https://127.0.0.1:${c.port}`,
        '--token-file',
        join(c.dir, 'node-token'),
        '--node-name',
        'joined-1',
        '--data-dir',
        join(c.dir, 'agent'),
        '--kubelet-port',
        String(port),
        '--runtime',
        'sim',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    agent.stdout!.on('data', (d: Buffer) => (agentLog += d.toString()));
    agent.stderr!.on('data', (d: Buffer) => (agentLog += d.toString()));
  });
  after(async () => {
    if (agent && agent.exitCode === null) {
      const exited = new Promise((r) => agent!.once('exit', r));
      agent.kill('SIGTERM');
      await exited;
    }
    await c?.stop();
  });

  it('the join token names the CA hash and a bootstrap token', () => {
    const tok = readFileSync(join(c.dir, 'node-token'), 'utf8').trim();
    assert.match(tok, /^K10[0-9a-f]{64}::[a-z0-9]{6}\.[a-z0-9]{16}$/);
    const id = /::([a-z0-9]{6})\./.exec(tok)![1];
    const s = c.kubectl(['get', 'secret', '-n', 'kube-system', `bootstrap-token-${id}`, '-o', 'jsonpath={.type}']);
    assert.equal(s.stdout, 'bootstrap.kubernetes.io/token');
  });

  it('registers Ready with a podCIDR after an approved CSR', async () => {
    await eventually(() => c.kubectl(['get', 'node', 'joined-1', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']).stdout === 'True', 30_000).catch((e) => {
      throw new Error(`${e}\nagent log:\n${agentLog}`);
    });
    assert.match(c.kubectl(['get', 'node', 'joined-1', '-o', 'jsonpath={.spec.podCIDR}']).stdout, /^10\.42\.\d+\.0\/24$/);
    const csr = c.kubectl(['get', 'csr', '-o', 'jsonpath={range .items[*]}{.spec.signerName} {.spec.username} {.status.conditions[0].type}{"\\n"}{end}']).stdout;
    assert.match(csr, /kubernetes\.io\/kube-apiserver-client-kubelet system:bootstrap:[a-z0-9]{6} Approved/);
    const lease = c.kubectl(['get', 'lease', '-n', 'kube-node-lease', 'joined-1', '-o', 'jsonpath={.spec.holderIdentity}']);
    assert.equal(lease.stdout, 'joined-1');
  });

  it('runs a pod on the joined node; logs and exec reach its kubelet', async () => {
    const r = c.kubectl([
      'run',
      'on-joined',
      '--image=busybox:1.36',
      '--restart=Never',
      '--overrides={"apiVersion":"v1","spec":{"nodeSelector":{"kubernetes.io/hostname":"joined-1"}}}',
      '--',
      'sh',
      '-c',
      'echo hello from the joined node; sleep 3600',
    ]);
    assert.equal(r.code, 0, r.stderr);
    await eventually(() => /on-joined\s+1\/1\s+Running/.test(c.kubectl(['get', 'pod', 'on-joined', '--no-headers']).stdout), 20_000);
    assert.equal(c.kubectl(['get', 'pod', 'on-joined', '-o', 'jsonpath={.spec.nodeName}']).stdout, 'joined-1');
    await eventually(() => c.kubectl(['logs', 'on-joined']).stdout === 'hello from the joined node\n');
    const e = c.kubectl(['exec', 'on-joined', '--', 'echo', 'exec-ok']);
    assert.equal(e.stdout, 'exec-ok\n', e.stderr);
  });

  it('the agent identity is a node: it cannot read Secrets cluster-wide', () => {
    const dir = join(c.dir, 'agent', 'tls');
    const kc = join(c.dir, 'agent-kubeconfig.yaml');
    const b64 = (f: string) => readFileSync(join(dir, f)).toString('base64');
    const cfg = `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:${c.port}\n    certificate-authority-data: ${b64('server-ca.crt')}\nusers:\n- name: node\n  user:\n    client-certificate-data: ${b64('kubelet-client.crt')}\n    client-key-data: ${b64('kubelet-client.key')}\ncontexts:\n- name: x\n  context: {cluster: c, user: node}\ncurrent-context: x\n`;
    writeFileSync(kc, cfg);
    const who = c.kubectl(['--kubeconfig', kc, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    assert.equal(who.stdout, 'system:node:joined-1', who.stderr);
    const s = c.kubectl(['--kubeconfig', kc, 'get', 'secrets', '-A']);
    assert.equal(s.code, 1);
    assert.match(
      s.stderr,
      /Error from server \(Forbidden\): secrets is forbidden: User "system:node:joined-1" cannot list resource "secrets" in API group "" at the cluster scope/,
    );
  });
});

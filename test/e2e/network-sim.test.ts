/**
 * The SIMULATED cluster network through the real `k8ts server --runtime sim --sim-nodes 1`
 * and kubectl: a Deployment behind a Service (endpoints from the endpointslice
 * controller), a client pod on the other simulated node whose shell's `wget`, `nc` and
 * `nslookup` resolve the Service name with the cluster DNS records and reach the nginx
 * pods through it; NetworkPolicies apply (a default deny makes `wget -T 2` time out, an
 * allow rule for `access=true` lets that pod through; egress deny blocks DNS). The
 * simulation has no packets: these are the answers a pod network would give.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { eventually, MANIFESTS, startCluster, type Cluster } from './harness.js';

describe('e2e: simulated cluster network (DNS, Services, NetworkPolicy)', () => {
  let c: Cluster;
  const ok = (args: string[], input?: string): string => {
    const r = c.kubectl(args, { input });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const exec = (pod: string, ...cmd: string[]) => c.kubectl(['exec', pod, '--', ...cmd]);

  before(async () => {
    c = await startCluster({ args: ['--sim-nodes', '1'] });
    ok(
      ['apply', '-f', '-'],
      [
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      nodeName: e2e-node\n      containers: [{name: nginx, image: "nginx:1.14.2", ports: [{containerPort: 80}]}]\n',
        '---',
        'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n',
        '---',
        'apiVersion: v1\nkind: Pod\nmetadata: {name: client, labels: {access: "true"}}\nspec:\n  nodeName: sim-node-0\n  containers: [{name: c, image: "busybox:1.36", command: [sleep, "3600"]}]\n',
        '---',
        'apiVersion: v1\nkind: Pod\nmetadata: {name: other}\nspec:\n  nodeName: sim-node-0\n  containers: [{name: c, image: "busybox:1.36", command: [sleep, "3600"]}]\n',
      ].join('\n'),
    );
    ok(['wait', '--for=condition=Ready', 'pod/client', 'pod/other', '--timeout=60s']);
    ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
  });

  after(async () => {
    await c?.stop();
  });

  it('wget and nc reach the Service by short and full name from a pod on another node; nslookup gives its ClusterIP', async () => {
    const ip = ok(['get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}']).trim();
    await eventually(() => /Welcome to nginx!/.test(exec('client', 'wget', '-qO-', 'http://web').stdout), 15_000);
    assert.match(exec('client', 'wget', '-qO-', 'http://web.default.svc.cluster.local').stdout, /Welcome to nginx!/);
    assert.match(exec('client', 'sh', '-c', "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 web 80").stdout, /^HTTP\/1\.0 200 OK/);
    const ns = exec('client', 'nslookup', 'web');
    assert.equal(ns.code, 0, ns.stderr);
    assert.equal(ns.stdout, `Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tweb.default.svc.cluster.local\nAddress: ${ip}\n\n`);
    const nx = exec('client', 'nslookup', 'nope');
    assert.equal(nx.code, 1);
    assert.match(nx.stdout, /\*\* server can't find nope: NXDOMAIN/);
    assert.match(
      exec('client', 'cat', '/etc/resolv.conf').stdout,
      /^search default\.svc\.cluster\.local svc\.cluster\.local cluster\.local\nnameserver 10\.96\.0\.10\noptions ndots:5\n$/,
    );
  });

  it('default deny ingress times wget out; an allow rule for access=true on port 80 lets exactly that pod through', async () => {
    ok(['apply', '-f', join(MANIFESTS, 'network-policy-default-deny-ingress.yaml')]);
    await eventually(() => {
      const r = exec('client', 'wget', '-T', '2', '-qO-', 'http://web');
      return r.code === 1 && r.stderr === 'wget: download timed out\ncommand terminated with exit code 1\n';
    }, 15_000);
    ok(
      ['apply', '-f', '-'],
      'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: allow-access}\nspec:\n  podSelector: {matchLabels: {app: web}}\n  ingress:\n  - from: [{podSelector: {matchLabels: {access: "true"}}}]\n    ports: [{protocol: TCP, port: 80}]\n',
    );
    await eventually(() => /Welcome to nginx!/.test(exec('client', 'wget', '-T', '2', '-qO-', 'http://web').stdout), 15_000);
    assert.match(exec('other', 'wget', '-T', '2', '-qO-', 'http://web').stderr, /wget: download timed out/);
  });

  it('egress deny blocks DNS', async () => {
    ok(['apply', '-f', join(MANIFESTS, 'network-policy-default-deny-egress.yaml')]);
    await eventually(() => /no servers could be reached/.test(exec('client', 'nslookup', 'web').stdout), 20_000);
    assert.match(exec('client', 'wget', '-T', '2', '-qO-', 'http://web').stderr, /wget: bad address 'web'/);
  });
});

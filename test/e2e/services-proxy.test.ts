/**
 * Services networking on real containers (issue 12): a `k8ts server` on the host and a
 * `k8ts agent` node in its own network namespace (test/e2e/netns-node.ts) whose service
 * proxy programs kube-proxy's iptables rules there. Driven with the real kubectl:
 * a Deployment + Service answers on its ClusterIP from another pod, NodePort and
 * LoadBalancer (ServiceLB) answer on the node address, a pod reaches the API server
 * through the `kubernetes` Service with its ServiceAccount token and the standard env
 * vars, a pod reaches itself through its Service (hairpin), rules follow an
 * EndpointSlice change, and a ClusterIP with no rule fails at once without a packet
 * leaving the node (containment routes). `k8ts reset` removes rules and routes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { ROOT, eventually, kubectlPath, startCluster, type Cluster } from './harness.js';
import { pushBusyboxPlus, publishStandIns } from './containerd-images.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import type { NodeNetns } from '../support/netns.js';
import { prepareNodeNetns, startNetnsNode, TEST_CLUSTER_CIDR, TEST_SERVICE_CIDR, type NetnsNode } from './netns-node.js';
import { serviceChains } from '../../src/proxy/names.js';

const NODE = 'px-node';

function httpGet(host: string, port: number, timeoutMs = 5000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: '/', timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET http://${host}:${port}/ timed out`)));
    req.on('error', reject);
    req.end();
  });
}

describe('Services on real containers: kube-proxy iptables mode in a node namespace', { timeout: 600_000 }, () => {
  let ns: NodeNetns | undefined;
  let registry: TestRegistry | undefined;
  let c: Cluster | undefined;
  let node: NetnsNode | undefined;
  const k = (...args: string[]) => c!.kubectl(args, { timeoutMs: 90_000 });
  const ok = (r: { code: number; stdout: string; stderr: string }, what: string): string => {
    assert.equal(r.code, 0, `${what}: ${r.stderr}\n${r.stdout}`);
    return r.stdout;
  };
  const clusterIP = (svc: string): string => ok(k('get', 'svc', svc, '-o', 'jsonpath={.spec.clusterIP}'), `clusterIP of ${svc}`);
  const execIn = (pod: string, script: string) => k('exec', pod, '--', 'sh', '-c', script);
  /**
   * An HTTP GET from inside a pod with busybox `nc` (busybox-static's `wget` segfaults on
   * this machine's Debian build, on the host too, whatever the address).
   */
  const httpFromPod = (pod: string, ip: string, port = 80, timeoutS = 5) => execIn(pod, `printf 'GET / HTTP/1.0\\r\\nHost: ${ip}\\r\\n\\r\\n' | nc -w ${timeoutS} ${ip} ${port}`);

  before(async () => {
    ns = prepareNodeNetns();
    registry = await startRegistry({ address: ns.hostIP });
    await publishStandIns(registry.host);
    await pushBusyboxPlus(registry.host, 'k8ts/kubectl-e2e:1.32', { 'usr/local/bin/kubectl': [0o755, readFileSync(realpathSync(kubectlPath()))] } as never, ['sh']);
    c = await startCluster({ args: ['--bind-address', ns.hostIP, '--cluster-cidr', TEST_CLUSTER_CIDR, '--service-cluster-ip-range', TEST_SERVICE_CIDR, '--disable-agent'] });
    node = await startNetnsNode(c, ns, NODE, registry.host);
    await eventually(() => k('get', 'node', NODE, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}').stdout === 'True', 90_000).catch((e) => {
      throw new Error(`${e}\nagent log:\n${node?.log()}`);
    });
    await eventually(() => k('get', 'serviceaccount/default', 'configmap/kube-root-ca.crt').code === 0, 30_000);
    const manifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      containers: [{name: nginx, image: nginx, ports: [{containerPort: 80, name: http}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
---
apiVersion: v1
kind: Service
metadata: {name: web-np}
spec:
  type: NodePort
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web-lb}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{port: 8088, targetPort: 80}]
---
apiVersion: v1
kind: Pod
metadata: {name: client}
spec:
  terminationGracePeriodSeconds: 1
  containers: [{name: c, image: k8ts/kubectl-e2e:1.32, command: [sleep, '3600']}]
`;
    ok(c.kubectl(['apply', '-f', '-'], { input: manifest }), 'apply');
    ok(k('wait', '--for=condition=Available', 'deployment/web', '--timeout=120s'), 'web available');
    ok(k('wait', '--for=condition=Ready', 'pod/client', '--timeout=120s'), 'client ready');
  });

  after(async () => {
    await node?.stop();
    await c?.stop();
    await registry?.stop();
    ns?.remove();
  });

  it('a pod reaches a Deployment through its ClusterIP (KUBE-SERVICES → KUBE-SVC-<hash> → KUBE-SEP-<hash>)', async () => {
    const ip = clusterIP('web');
    const page = await eventually(() => {
      const r = httpFromPod('client', ip);
      return r.code === 0 && r.stdout.includes('Welcome to nginx!') ? r.stdout : undefined;
    }, 30_000);
    assert.match(page, /Welcome to nginx!/);
    const nat = node!.iptablesSave('nat');
    const svc = serviceChains('default/web', 'tcp').svc;
    assert.match(nat, new RegExp(`^-A KUBE-SERVICES -d ${ip.replace(/\./g, '\\.')}/32 -p tcp -m comment --comment "default/web cluster IP" -m tcp --dport 80 -j ${svc}$`, 'm'));
    const seps = nat.split('\n').filter((l) => l.startsWith(`-A ${svc} `) && / -j KUBE-SEP-[A-Z2-7]{16}$/.test(l));
    assert.equal(seps.length, 2, `two endpoints behind ${svc}:\n${nat}`);
    assert.match(nat, /^-A KUBE-POSTROUTING -m mark ! --mark 0x4000\/0x4000 -j RETURN$/m);
    assert.match(nat, /^-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000\/0x4000$/m);
    assert.match(nat, /^-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES$/m);
  });

  it('a NodePort answers on the node address', async () => {
    const np = Number(ok(k('get', 'svc', 'web-np', '-o', 'jsonpath={.spec.ports[0].nodePort}'), 'nodePort'));
    assert.ok(np >= 30000 && np <= 32767, `nodePort ${np}`);
    const r = await eventually(async () => httpGet(ns!.nodeIP, np).catch(() => undefined), 30_000);
    assert.equal(r.status, 200);
    assert.match(r.body, /Welcome to nginx!/);
  });

  it('a LoadBalancer Service gets the node address as ingress (ServiceLB) and answers on its port there', async () => {
    const ingress = await eventually(() => k('get', 'svc', 'web-lb', '-o', 'jsonpath={.status.loadBalancer.ingress[*].ip}').stdout || undefined, 30_000);
    assert.equal(ingress, ns!.nodeIP);
    assert.equal(k('get', 'svc', 'web-lb', '-o', 'jsonpath={.status.loadBalancer.ingress[0].ipMode}').stdout, 'VIP');
    const r = await eventually(async () => httpGet(ns!.nodeIP, 8088).catch(() => undefined), 30_000);
    assert.match(r.body, /Welcome to nginx!/);
    const row = ok(k('get', 'svc', 'web-lb', '--no-headers'), 'get svc');
    assert.match(row, new RegExp(`^web-lb\\s+LoadBalancer\\s+\\S+\\s+${ns!.nodeIP.replace(/\./g, '\\.')}\\s+8088:\\d+/TCP`));
  });

  it('a pod reaches the API server through the kubernetes Service with its token (in-cluster config, standard env vars)', () => {
    const env = ok(execIn('client', 'echo $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT'), 'env');
    assert.equal(env.trim(), '10.96.0.1:443');
    const who = ok(k('exec', 'client', '--', 'kubectl', 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'), 'in-pod kubectl auth whoami');
    assert.equal(who, 'system:serviceaccount:default:default');
    const denied = k('exec', 'client', '--', 'kubectl', 'get', 'secrets', '-n', 'kube-system');
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /secrets is forbidden: User "system:serviceaccount:default:default" cannot list resource "secrets" in API group "" in the namespace "kube-system"/);
  });

  it('hairpin: a pod reaches itself through its own Service', async () => {
    ok(
      c!.kubectl(['apply', '-f', '-'], {
        input:
          'apiVersion: v1\nkind: Pod\nmetadata: {name: solo, labels: {app: solo}}\nspec:\n  terminationGracePeriodSeconds: 1\n  containers: [{name: nginx, image: nginx}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: solo}\nspec:\n  selector: {app: solo}\n  ports: [{port: 80}]\n',
      }),
      'apply solo',
    );
    ok(k('wait', '--for=condition=Ready', 'pod/solo', '--timeout=120s'), 'solo ready');
    const ip = clusterIP('solo');
    const page = await eventually(() => {
      const r = httpFromPod('solo', ip);
      return r.code === 0 && r.stdout.includes('Welcome to nginx!') ? r.stdout : undefined;
    }, 30_000);
    assert.match(page, /Welcome to nginx!/);
  });

  it('rules follow an EndpointSlice change within about a second', async () => {
    const svc = serviceChains('default/web', 'tcp').svc;
    const count = () =>
      node!
        .iptablesSave('nat')
        .split('\n')
        .filter((l) => l.startsWith(`-A ${svc} `) && / -j KUBE-SEP-/.test(l)).length;
    assert.equal(count(), 2);
    ok(k('scale', 'deployment/web', '--replicas=3'), 'scale');
    const slice = await eventually(
      () => {
        const r = k(
          'get',
          'endpointslices',
          '-l',
          'kubernetes.io/service-name=web',
          '-o',
          'jsonpath={range .items[*].endpoints[?(@.conditions.ready==true)]}{.addresses[0]} {end}',
        );
        return r.stdout.trim().split(' ').filter(Boolean).length === 3 ? Date.now() : undefined;
      },
      120_000,
      50,
    );
    const programmed = await eventually(() => (count() === 3 ? Date.now() : undefined), 10_000, 50);
    // the slice was seen through kubectl polls (~50–300 ms each): the rules were in place within ~2 s of it
    assert.ok(programmed - slice < 2500, `rules programmed ${programmed - slice} ms after the EndpointSlice showed 3 ready endpoints`);
  });

  it('containment: a ClusterIP without rules fails at once, and no packet for it leaves the node', () => {
    // count packets towards the service CIDR leaving through the node's default route (mangle POSTROUTING, after routing)
    const out = node!.ns.uplink;
    node!.exec('iptables', ['-t', 'mangle', '-I', 'POSTROUTING', '-o', out, '-d', TEST_SERVICE_CIDR, '-j', 'ACCEPT']);
    const t0 = Date.now();
    const r = httpFromPod('client', '10.111.222.233', 80, 10);
    const ms = Date.now() - t0;
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /can't connect to remote host \(10\.111\.222\.233\): No route to host/);
    assert.ok(ms < 5000, `failed after ${ms} ms (a leak would wait for the 10 s timeout)`);
    const counters = node!.exec('iptables', ['-t', 'mangle', '-L', 'POSTROUTING', '-v', '-x', '-n']);
    const line = counters.split('\n').find((l) => l.includes(out) && l.includes(TEST_SERVICE_CIDR))!;
    assert.equal(Number(line.trim().split(/\s+/)[0]), 0, `packets to ${TEST_SERVICE_CIDR} on ${out}:\n${counters}`);
    assert.match(
      node!.exec('ip', ['route', 'show', 'type', 'unreachable']),
      new RegExp(
        `${TEST_SERVICE_CIDR.replace(/\./g, '\\.')}[\\s\\S]*${TEST_CLUSTER_CIDR.replace(/\./g, '\\.')}|${TEST_CLUSTER_CIDR.replace(/\./g, '\\.')}[\\s\\S]*${TEST_SERVICE_CIDR.replace(/\./g, '\\.')}`,
      ),
    );
  });

  it('k8ts reset removes the rules and the containment routes', async () => {
    await node!.stop();
    const r = spawnSync(
      'nsenter',
      [`--net=${ns!.path}`, '--', process.execPath, join(ROOT, 'dist/k8ts.mjs'), 'reset', '--cluster-cidr', TEST_CLUSTER_CIDR, '--service-cidr', TEST_SERVICE_CIDR],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(node!.iptablesSave(), /KUBE-(SERVICES|SVC-|SEP-|NODEPORTS|POSTROUTING|MARK-MASQ)/);
    assert.equal(node!.exec('ip', ['route', 'show', 'type', 'unreachable']).trim(), '');
  });
});

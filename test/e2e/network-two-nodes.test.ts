/**
 * Two nodes on real containers (issue 12): a `k8ts server` on the host and two `k8ts
 * agent` nodes, each in its own network namespace with its own containerd, the three on
 * one layer-2 segment (test/support/netns.ts createNodeLan: a bridge in a namespace of
 * its own). Each agent's routes controller (src/hostgw, flannel's host-gw backend)
 * routes the other node's podCIDR via that node's address; its service proxy and cluster
 * DNS serve the pods. Driven with the real kubectl:
 *
 * - a pod on node A fetches from a pod on node B by pod IP, and through a ClusterIP
 *   Service whose only endpoint is on node B;
 * - cluster DNS by name end to end: the pod's resolver asks the kube-dns ClusterIP, which
 *   the proxy's KUBE-SVC rules take to a node's DNS listener (its counters move),
 *   `nslookup web` gives the ClusterIP, `wget http://web` and
 *   `http://web.default.svc.cluster.local` return the page, a headless Service gives the
 *   pod's address, from pods on either node;
 * - `nslookup kubernetes.default` in a `kubectl run` dnsutils pod, as the DNS debugging page
 *   does (its image as a stand-in whose nslookup applies the search list as bind9's does);
 * - a hostNetwork process on a node reaches a ClusterIP through the OUTPUT rules.
 *
 * Every address used is a test address inside these namespaces (198.18.0.0/15 for the
 * nodes, 10.250.0.0/16 pods, 10.96.0.0/12 Services); each node's default route ends in a
 * sink inside its namespace.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { eventually, kubectlPath, startCluster, type Cluster, type KubectlResult } from './harness.js';
import { publishStandIns, pushBusyboxPlus } from './containerd-images.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import { createNodeLan, type NodeLan } from '../support/netns.js';
import { startNetnsNode, TEST_CLUSTER_CIDR, TEST_SERVICE_CIDR, type NetnsNode } from './netns-node.js';
import { serviceChains } from '../../src/proxy/names.js';

/**
 * The DNS debugging page's image, `registry.k8s.io/e2e-test-images/jessie-dnsutils:1.3`, as a
 * stand-in: busybox plus an `nslookup` that applies /etc/resolv.conf's search list to a name
 * with fewer dots than `ndots` before asking busybox's nslookup, as the image's bind9
 * nslookup does (busybox's own asks only dot-less names with the search list).
 */
const DNSUTILS_NSLOOKUP = `#!/bin/sh
# k8ts test stand-in for bind9's nslookup: the search list for names with fewer dots than ndots
n="$1"; shift
case "$n" in *.) exec busybox nslookup "$n" "$@";; esac
dots=$(printf %s "$n" | tr -cd . | wc -c)
ndots=$(sed -n 's/^options.*ndots:\\([0-9]*\\).*/\\1/p' /etc/resolv.conf); ndots=\${ndots:-1}
if [ "$dots" -lt "$ndots" ]; then
  for d in $(sed -n 's/^search //p' /etc/resolv.conf); do
    out=$(busybox nslookup "$n.$d" "$@" 2>&1) && { printf '%s\n' "$out"; exit 0; }
  done
fi
exec busybox nslookup "$n" "$@"
`;

const A = 'node-a';
const B = 'node-b';
const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('two nodes in network namespaces: host-gw routes, cross-node pods and Services, DNS by name', { timeout: 900_000 }, () => {
  let lan: NodeLan | undefined;
  let registry: TestRegistry | undefined;
  let c: Cluster | undefined;
  const nodes: Record<string, NetnsNode> = {};
  /** kubectl without blocking this process (the agents' output keeps draining); resolves once its output is closed */
  const k = (...args: string[]): Promise<KubectlResult> =>
    new Promise((resolve) => {
      const p = spawn(kubectlPath(), ['--kubeconfig', c!.kubeconfig, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const t = setTimeout(() => p.kill('SIGTERM'), 90_000);
      p.on('close', (code) => {
        clearTimeout(t);
        resolve({ code: code ?? -1, stdout, stderr });
      });
    });
  const ok = async (p: ReturnType<typeof k>, what: string): Promise<string> => {
    const r = await p;
    assert.equal(r.code, 0, `${what}: ${r.stderr}\n${r.stdout}`);
    return r.stdout;
  };
  const sh = (pod: string, script: string) => k('exec', pod, '--', 'sh', '-c', script);
  /** HTTP/1.0 GET over busybox nc (connect/idle timeout 3 s) */
  const httpGet = (pod: string, host: string, port = 80) => sh(pod, `printf 'GET / HTTP/1.0\\r\\nHost: ${host}\\r\\n\\r\\n' | nc -w 3 ${host} ${port}`);
  const page = async (pod: string, host: string): Promise<string> =>
    eventually(
      async () => {
        const r = await httpGet(pod, host);
        return r.code === 0 && /Welcome to nginx!/.test(r.stdout) ? r.stdout : undefined;
      },
      30_000,
      250,
    );
  let webIP = '';
  let webClusterIP = '';

  before(async () => {
    lan = createNodeLan(2);
    registry = await startRegistry({ address: lan.hostIP });
    await publishStandIns(registry.host);
    await pushBusyboxPlus(registry.host, 'e2e-test-images/jessie-dnsutils:1.3', { 'usr/local/bin/nslookup': [0o755, DNSUTILS_NSLOOKUP] }, ['sh']);
    c = await startCluster({ args: ['--bind-address', lan.hostIP, '--cluster-cidr', TEST_CLUSTER_CIDR, '--service-cluster-ip-range', TEST_SERVICE_CIDR, '--disable-agent'] });
    const [na, nb] = await Promise.all([startNetnsNode(c, lan.nodes[0]!, A, registry.host), startNetnsNode(c, lan.nodes[1]!, B, registry.host)]);
    nodes[A] = na;
    nodes[B] = nb;
    for (const n of [A, B])
      await eventually(async () => (await k('get', 'node', n, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')).stdout === 'True', 120_000, 250).catch((e) => {
        throw new Error(`${e}\nagent ${n} log:\n${nodes[n]?.log()}`);
      });
    await eventually(async () => (await k('get', 'serviceaccount/default', 'configmap/kube-root-ca.crt')).code === 0, 30_000, 250);
    const pin = (node: string) => `nodeSelector: {kubernetes.io/hostname: ${node}}`;
    const manifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      ${pin(B)}
      terminationGracePeriodSeconds: 1
      containers: [{name: nginx, image: nginx, ports: [{containerPort: 80, name: http}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: v1
kind: Service
metadata: {name: web-headless}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{name: http, port: 80}]
---
apiVersion: v1
kind: Pod
metadata: {name: client-a}
spec:
  ${pin(A)}
  terminationGracePeriodSeconds: 0
  containers: [{name: c, image: "busybox:1.28", command: [sleep, "3600"]}]
---
apiVersion: v1
kind: Pod
metadata: {name: client-b}
spec:
  ${pin(B)}
  terminationGracePeriodSeconds: 0
  containers: [{name: c, image: "busybox:1.28", command: [sleep, "3600"]}]
`;
    const applied = c.kubectl(['apply', '-f', '-'], { input: manifest });
    assert.equal(applied.code, 0, applied.stderr);
    await Promise.all([
      ok(k('wait', '--for=condition=Available', 'deployment/web', '--timeout=150s'), 'web available'),
      ok(k('wait', '--for=condition=Ready', 'pod/client-a', 'pod/client-b', '--timeout=150s'), 'clients ready'),
    ]);
    webIP = (await ok(k('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].status.podIP}'), 'web pod IP')).trim();
    webClusterIP = (await ok(k('get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}'), 'clusterIP')).trim();
  });

  after(async () => {
    await Promise.all(Object.values(nodes).map((n) => n.stop()));
    await c?.stop();
    await registry?.stop();
    lan?.remove();
  });

  it("each node routes the other node's podCIDR via its address (host-gw, proto 75) and announces itself with flannel's annotations", async () => {
    const [na, nb] = [nodes[A]!, nodes[B]!];
    for (const [self, peer] of [
      [na, nb],
      [nb, na],
    ] as const) {
      const routes = await eventually(() => self.exec('ip', ['-4', 'route', 'show', 'proto', '75']).trim() || undefined, 30_000, 250);
      assert.match(routes, new RegExp(`^${esc(peer.podCIDR)} via ${esc(peer.ns.nodeIP)} dev k8n-\\w+$`));
      const ann = await ok(
        k(
          'get',
          'node',
          peer.name,
          '-o',
          'jsonpath={.metadata.annotations.flannel\\.alpha\\.coreos\\.com/backend-type} {.metadata.annotations.flannel\\.alpha\\.coreos\\.com/public-ip}',
        ),
        'annotations',
      );
      assert.equal(ann, `host-gw ${peer.ns.nodeIP}`);
      // the containment route still catches pod IPs of no node
      assert.match(self.exec('ip', ['route', 'show', 'type', 'unreachable']), new RegExp(esc(TEST_CLUSTER_CIDR)));
    }
    assert.equal((await ok(k('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].spec.nodeName}'), 'web node')).trim(), B);
    assert.ok(webIP.startsWith(nb.podCIDR.split('.').slice(0, 3).join('.') + '.'), `web pod ${webIP} in ${nb.podCIDR}`);
  });

  it('a pod on node A fetches from a pod on node B by pod IP, and node B back', async () => {
    assert.match(await page('client-a', webIP), /HTTP\/1\.[01] 200 OK/);
    const clientA = (await ok(k('get', 'pod', 'client-a', '-o', 'jsonpath={.status.podIP}'), 'client-a IP')).trim();
    const r = await eventually(
      async () => {
        const x = await sh('client-b', `ping -c 1 -W 3 ${clientA}`);
        return x.code === 0 ? x.stdout : undefined;
      },
      30_000,
      250,
    );
    assert.match(r, /1 packets transmitted, 1 (packets )?received/);
  });

  it('a pod on node A reaches a ClusterIP Service whose only endpoint is on node B', async () => {
    const slice = await ok(
      k('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[0].endpoints[0].nodeName} {.items[0].endpoints[0].addresses[0]}'),
      'slice',
    );
    assert.equal(slice, `${B} ${webIP}`);
    assert.match(await page('client-a', webClusterIP), /Welcome to nginx!/);
    const nat = nodes[A]!.iptablesSave('nat');
    const svc = serviceChains('default/web:http', 'tcp').svc;
    assert.match(nat, new RegExp(`^-A ${svc} .*-j KUBE-SEP-[A-Z2-7]{16}$`, 'm'));
    assert.match(nat, new RegExp(`^-A KUBE-SEP-[A-Z2-7]{16} -p tcp -m comment --comment "default/web:http" -m tcp -j DNAT --to-destination ${esc(webIP)}:80$`, 'm'));
  });

  it('DNS by name through the kube-dns ClusterIP (KUBE-SVC rules): nslookup and wget of web and web.default.svc.cluster.local, from either node', async () => {
    const dnsChain = serviceChains('kube-system/kube-dns:dns', 'udp').svc;
    const counted = (): number => {
      const out = nodes[A]!.exec('iptables', ['-t', 'nat', '-L', 'KUBE-SERVICES', '-v', '-x', '-n']);
      const line = out.split('\n').find((l) => l.includes(dnsChain));
      assert.ok(line, `KUBE-SERVICES jumps to ${dnsChain}:\n${out}`);
      return Number(line.trim().split(/\s+/)[0]);
    };
    // no node-local redirect: the proxy's rules carry the queries
    assert.doesNotMatch(nodes[A]!.iptablesSave('nat'), /K8TS-DNS-/);
    const before = counted();
    for (const pod of ['client-a', 'client-b']) {
      const r = await eventually(
        async () => {
          const x = await k('exec', pod, '--', 'nslookup', 'web');
          return /Address:\s+\S+/.test(x.stdout.split('Name:')[1] ?? '') ? x.stdout : undefined;
        },
        30_000,
        250,
      );
      assert.match(r, /Server:\s+10\.96\.0\.10/);
      assert.match(r, new RegExp(`Name:\\s+web\\.default\\.svc\\.cluster\\.local\\nAddress:\\s+${esc(webClusterIP)}`));
    }
    assert.ok(counted() > before, `the kube-dns ClusterIP rule on node A counted the queries (${before} → ${counted()})`);
    for (const url of ['http://web', 'http://web.default.svc.cluster.local', 'http://web.default']) {
      const body = await eventually(
        async () => {
          const x = await sh('client-a', `timeout 10 wget -qO- ${url}`);
          return x.code === 0 ? x.stdout : undefined;
        },
        30_000,
        250,
      );
      assert.match(body, /Welcome to nginx!/, url);
    }
    assert.match(await page('client-b', 'web'), /Welcome to nginx!/);
  });

  it('a headless Service resolves to the pod address on the other node', async () => {
    const r = await eventually(
      async () => {
        const x = await k('exec', 'client-a', '--', 'nslookup', 'web-headless.default.svc.cluster.local');
        return x.code === 0 ? x.stdout : undefined;
      },
      30_000,
      250,
    );
    assert.match(r, new RegExp(`Name:\\s+web-headless\\.default\\.svc\\.cluster\\.local\\nAddress:\\s+${esc(webIP)}\\n`));
    assert.doesNotMatch(r, new RegExp(esc(webClusterIP)));
  });

  it('kubectl run dnsutils … sleep infinity, then kubectl exec dnsutils -- nslookup kubernetes.default (the DNS debugging page)', async () => {
    // `run -i --rm -- nslookup …` races kubectl's attach against a command this short; the page runs the pod, then execs
    await ok(k('run', 'dnsutils', '--image=registry.k8s.io/e2e-test-images/jessie-dnsutils:1.3', '--restart=Never', '--', 'sleep', 'infinity'), 'kubectl run');
    await ok(k('wait', '--for=condition=Ready', 'pod/dnsutils', '--timeout=120s'), 'dnsutils ready');
    const r = await ok(k('exec', '-i', 'dnsutils', '--', 'nslookup', 'kubernetes.default'), 'nslookup kubernetes.default');
    assert.match(r, /Server:\s+10\.96\.0\.10\n/);
    assert.match(r, /Name:\s+kubernetes\.default\.svc\.cluster\.local\nAddress:\s+10\.96\.0\.1\n/);
  });

  it('a hostNetwork process on a node reaches a ClusterIP (nat OUTPUT), an unknown ClusterIP is refused at once, nothing leaves', async () => {
    const a = nodes[A]!;
    const get = (ip: string) =>
      spawnSync('nsenter', [`--net=${a.ns.path}`, '--', 'sh', '-c', `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | busybox nc -w 3 ${ip} 80`], { encoding: 'utf8', timeout: 20_000 });
    const r = get(webClusterIP);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Welcome to nginx!/);
    const before = a.ns.uplinkTxPackets();
    const t0 = Date.now();
    const none = get('10.111.222.233');
    assert.notEqual(none.status, 0);
    assert.match(none.stderr, /can't connect to remote host \(10\.111\.222\.233\): Connection refused/);
    assert.ok(Date.now() - t0 < 3000, `refused after ${Date.now() - t0} ms`);
    assert.equal(a.ns.uplinkTxPackets(), before);
  });
});

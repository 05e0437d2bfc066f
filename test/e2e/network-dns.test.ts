/**
 * Cluster DNS on real containers, with the real kubectl: a kubelet on a private containerd
 * (containerd-cluster.ts) with the node's network services (src/cli/node-network.ts): the
 * kube-system/kube-dns Service at 10.96.0.10 with the node's DNS listener as endpoint,
 * pods' /etc/resolv.conf as upstream's kubelet writes it for each dnsPolicy, and
 * busybox's own `nslookup` in a pod resolving Service names (short and fully qualified),
 * headless Services to their endpoints, pod records, and NXDOMAIN for unknown names.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { KObject } from '../../src/api/resource.js';
import { R } from '../../src/client/types.js';
import { startContainerdCluster, type ContainerdCluster } from './containerd-cluster.js';
import { eventually } from './harness.js';

const NODE = 'dns-node';

describe('e2e: cluster DNS on containerd', () => {
  let k: ContainerdCluster;
  const ok = async (args: string[], timeoutMs = 60_000): Promise<string> => {
    const r = await k.kubectl(args, { timeoutMs });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const pod = (name: string, spec: string, ns = 'default', labels = '{}'): string =>
    `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: ${ns}, labels: ${labels}}\nspec:\n  nodeName: ${NODE}\n  terminationGracePeriodSeconds: 0\n${spec}`;
  const sleeper = (name: string, extra = '', ns = 'default'): string => pod(name, `${extra}  containers: [{name: c, image: "busybox:1.28", command: [sleep, "3600"]}]\n`, ns);

  before(async () => {
    k = await startContainerdCluster(NODE, { network: true });
    await k.apply(
      [
        sleeper('client'),
        '---',
        sleeper('hostdns', '  dnsPolicy: Default\n'),
        '---',
        sleeper('custom', '  dnsPolicy: None\n  dnsConfig: {nameservers: [192.0.2.1], searches: [example.test], options: [{name: ndots, value: "2"}, {name: edns0}]}\n'),
        '---',
        'apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\nspec:\n  selector: {app: web}\n  ports: [{name: http, port: 80}]\n',
        '---',
        'apiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: default}\nspec:\n  clusterIP: None\n  selector: {app: db}\n  ports: [{name: pg, port: 5432}]\n',
      ].join('\n'),
    );
    await ok(['wait', '--for=condition=Ready', 'pod/client', 'pod/hostdns', 'pod/custom', '--timeout=120s'], 130_000);
  });

  after(async () => {
    await k?.stop();
  });

  it('kube-system/kube-dns is 10.96.0.10 with the node DNS listener (the pod bridge gateway) as endpoint', async () => {
    const svc = await k.admin.get<Service & KObject>(R.services, 'kube-system', 'kube-dns');
    assert.equal(svc.spec?.clusterIP, '10.96.0.10');
    const gw = k.ctrd.podCIDR.replace(/\.0\/24$/, '.1');
    assert.deepEqual(await k.network!.dnsListening(), { address: gw, port: 53 });
    await eventually(async () => {
      const s = await k.admin.get<EndpointSlice & KObject>(R.endpointslices, 'kube-system', 'kube-dns-k8ts');
      assert.deepEqual(s.endpoints?.[0]?.addresses, [gw]);
      assert.equal(s.endpoints?.[0]?.nodeName, NODE);
      return true;
    }, 30_000);
    const out = await ok(['get', 'endpointslices', '-n', 'kube-system', '-l', 'kubernetes.io/service-name=kube-dns']);
    assert.match(out, new RegExp(`kube-dns-k8ts\\s+IPv4\\s+53,53\\s+${gw.replace(/\./g, '\\.')}\\s`));
  });

  it("a ClusterFirst pod's /etc/resolv.conf is upstream's: nameserver 10.96.0.10, the namespace search path, ndots:5", async () => {
    const conf = await ok(['exec', 'client', '--', 'cat', '/etc/resolv.conf']);
    assert.equal(
      conf.replace(/^search .*$/m, (l) => l.split(' ').slice(0, 4).join(' ')),
      'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n',
    );
    const custom = await ok(['exec', 'custom', '--', 'cat', '/etc/resolv.conf']);
    assert.equal(custom, 'search example.test\nnameserver 192.0.2.1\noptions ndots:2 edns0\n');
    const host = await ok(['exec', 'hostdns', '--', 'cat', '/etc/resolv.conf']);
    assert.doesNotMatch(host, /10\.96\.0\.10|svc\.cluster\.local/);
  });

  it('nslookup in a pod: a Service name (short and fully qualified) gives its ClusterIP; unknown names NXDOMAIN; pod records', async () => {
    const svc = await k.admin.get<Service & KObject>(R.services, 'default', 'web');
    const ip = svc.spec!.clusterIP!;
    // busybox's nslookup asks every name of the search path and exits 1 when one is NXDOMAIN
    // (why upstream's DNS debugging page pins busybox:1.28): the answer is what counts
    const r = await k.kubectl(['exec', 'client', '--', 'nslookup', 'web']);
    const short = r.stdout;
    assert.match(short, /Server:\s+10\.96\.0\.10/);
    assert.match(short, new RegExp(`Name:\\s+web\\.default\\.svc\\.cluster\\.local\\nAddress:\\s+${ip.replace(/\./g, '\\.')}`));
    const fq = await ok(['exec', 'client', '--', 'nslookup', 'web.default.svc.cluster.local']);
    assert.match(fq, new RegExp(`Address:\\s+${ip.replace(/\./g, '\\.')}`));
    // (busybox applies the search path only to names without a dot)
    const k8s = (await k.kubectl(['exec', 'client', '--', 'nslookup', 'kubernetes'])).stdout;
    assert.match(k8s, /Address:\s+10\.96\.0\.1\n/);
    const missing = await k.kubectl(['exec', 'client', '--', 'nslookup', 'nope.default.svc.cluster.local']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stdout + missing.stderr, /NXDOMAIN/);
    const podRec = await ok(['exec', 'client', '--', 'nslookup', '10-1-2-3.default.pod.cluster.local']);
    assert.match(podRec, /Address:\s+10\.1\.2\.3/);
  });

  it('a headless Service resolves to its ready endpoints, StatefulSet-style pods by <hostname>.<subdomain>', async () => {
    await k.apply(
      pod(
        'db-0',
        '  hostname: db-0\n  subdomain: db\n  containers: [{name: c, image: "busybox:1.28", command: [sleep, "3600"], ports: [{name: pg, containerPort: 5432}]}]\n',
        'default',
        '{app: db}',
      ),
    );
    await ok(['wait', '--for=condition=Ready', 'pod/db-0', '--timeout=90s'], 100_000);
    const podIP = (await ok(['get', 'pod', 'db-0', '-o', 'jsonpath={.status.podIP}'])).trim();
    // no endpointslice controller runs in this harness: write the slice as it would
    await k.admin.create(R.endpointslices, 'default', {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'db-abcde', namespace: 'default', labels: { 'kubernetes.io/service-name': 'db' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [podIP], hostname: 'db-0', conditions: { ready: true } }],
      ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
    });
    const re = new RegExp(`Address:\\s+${podIP.replace(/\./g, '\\.')}`);
    await eventually(async () => re.test((await k.kubectl(['exec', 'client', '--', 'nslookup', 'db'])).stdout), 10_000);
    assert.match(await ok(['exec', 'client', '--', 'nslookup', 'db-0.db.default.svc.cluster.local']), re);
  });
});

/**
 * Endpoints and EndpointSlices through the real kubectl on the simulated runtime: a
 * Deployment exposed as a Service gets an Endpoints object (NAME ENDPOINTS AGE) and an
 * EndpointSlice `web-xxxxx` (NAME ADDRESSTYPE PORTS ENDPOINTS AGE) that follow scaling
 * and readiness; `kubectl describe svc` shows them; a headless Service of a StatefulSet
 * lists hostnames; deleting the Service removes both.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, manifestFile, type Cluster } from './harness.js';

interface Addr {
  ip: string;
  nodeName?: string;
  targetRef?: { kind: string; name: string; namespace: string; uid: string };
}
interface Ep {
  metadata: { name: string; annotations?: Record<string, string> };
  subsets?: { addresses?: Addr[]; notReadyAddresses?: Addr[]; ports?: { port: number; protocol: string }[] }[];
}
interface Slice {
  metadata: { name: string; labels: Record<string, string>; ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[] };
  addressType: string;
  ports?: { port: number; protocol: string; name: string }[];
  endpoints?: { addresses: string[]; conditions: { ready: boolean; serving: boolean; terminating: boolean }; nodeName?: string; hostname?: string; targetRef?: { name: string } }[];
}
interface PodObj {
  metadata: { name: string; uid: string };
  status: { podIP?: string; phase?: string };
}

describe('e2e: endpoints and endpointslices (kubectl)', () => {
  let c: Cluster;
  const ok = (args: string[], timeoutMs?: number): string => {
    const r = c.kubectl(args, { timeoutMs });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const json = <T>(args: string[]): T => JSON.parse(ok(['get', ...args, '-o', 'json'])) as T;
  const podIPs = (): string[] =>
    json<{ items: PodObj[] }>(['pods', '-l', 'app=web'])
      .items.filter((p) => p.status.phase === 'Running' && p.status.podIP)
      .map((p) => p.status.podIP!)
      .sort();
  const readyIPs = (ep: Ep): string[] => (ep.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip)).sort();

  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('kubectl expose deployment: Endpoints with both pod IPs:80 and a web-xxxxx EndpointSlice', async () => {
    ok(['create', 'deployment', 'web', '--image=nginx:1.14.2', '--replicas=2']);
    ok(['rollout', 'status', 'deployment/web', '--timeout=90s'], 100_000);
    ok(['expose', 'deployment', 'web', '--port=80']);
    const ips = podIPs();
    assert.equal(ips.length, 2);
    const ep = await eventually(() => {
      const e = json<Ep>(['endpoints', 'web']);
      return readyIPs(e).join() === ips.join() ? e : undefined;
    }, 30_000);
    assert.deepEqual(ep.subsets?.[0]?.ports, [{ port: 80, protocol: 'TCP' }]);
    const pods = json<{ items: PodObj[] }>(['pods', '-l', 'app=web']).items;
    for (const a of ep.subsets![0]!.addresses!) {
      const p = pods.find((x) => x.status.podIP === a.ip)!;
      assert.deepEqual(a.targetRef, { kind: 'Pod', name: p.metadata.name, namespace: 'default', uid: p.metadata.uid });
      assert.equal(a.nodeName, 'e2e-node');
    }
    // upstream: NAME ENDPOINTS AGE / web 10.42.0.23:80,10.42.0.24:80 5s
    const table = ok(['get', 'endpoints', 'web']);
    assert.match(table, /^NAME\s+ENDPOINTS\s+AGE\n/);
    assert.match(table, new RegExp(`^web\\s+${ips.map((ip) => `${ip.replace(/\./g, '\\.')}:80`).join(',')}\\s+\\d+s\\n`, 'm'));

    const svc = json<{ metadata: { uid: string } }>(['service', 'web']);
    const slices = json<{ items: Slice[] }>(['endpointslices', '-l', 'kubernetes.io/service-name=web']).items;
    assert.equal(slices.length, 1);
    const s = slices[0]!;
    assert.match(s.metadata.name, /^web-[a-z0-9]{5}$/);
    assert.equal(s.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
    assert.deepEqual(s.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.equal(s.addressType, 'IPv4');
    assert.deepEqual(s.ports, [{ name: '', port: 80, protocol: 'TCP' }]);
    assert.deepEqual(s.endpoints!.flatMap((e) => e.addresses).sort(), ips);
    for (const e of s.endpoints!) assert.deepEqual(e.conditions, { ready: true, serving: true, terminating: false });
    // upstream: NAME ADDRESSTYPE PORTS ENDPOINTS AGE / web-abcde IPv4 80 10.42.0.23,10.42.0.24 5s
    const sTable = ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']);
    assert.match(sTable, /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\n/);
    assert.match(sTable, new RegExp(`^${s.metadata.name}\\s+IPv4\\s+80\\s+\\d+\\.\\d+\\.\\d+\\.\\d+,\\d+\\.\\d+\\.\\d+\\.\\d+\\s+\\d+s\\n`, 'm'));
  });

  it('scaling to 3 updates both (the slice in place)', async () => {
    const before = json<{ items: Slice[] }>(['endpointslices', '-l', 'kubernetes.io/service-name=web']).items[0]!.metadata.name;
    ok(['scale', 'deployment/web', '--replicas=3']);
    ok(['rollout', 'status', 'deployment/web', '--timeout=90s'], 100_000);
    const ips = await eventually(() => {
      const l = podIPs();
      return l.length === 3 ? l : undefined;
    }, 30_000);
    await eventually(() => readyIPs(json<Ep>(['endpoints', 'web'])).join() === ips.join(), 30_000);
    const slices = await eventually(() => {
      const l = json<{ items: Slice[] }>(['endpointslices', '-l', 'kubernetes.io/service-name=web']).items;
      return l.length === 1 &&
        l[0]!
          .endpoints!.flatMap((e) => e.addresses)
          .sort()
          .join() === ips.join()
        ? l
        : undefined;
    }, 30_000);
    assert.equal(slices[0]!.metadata.name, before);
  });

  it('a pod that becomes unready moves to notReadyAddresses and ready=false', async () => {
    ok([
      'apply',
      '-f',
      manifestFile(
        c.dir,
        'probe.yaml',
        `apiVersion: v1
kind: Pod
metadata: {name: web-probe, labels: {app: web}}
spec:
  containers:
  - name: c
    image: busybox:1.28
    command: [sh, -c, 'touch /tmp/ready; sleep 3600']
    readinessProbe: {exec: {command: [cat, /tmp/ready]}, periodSeconds: 1, failureThreshold: 1}
`,
      ),
    ]);
    ok(['wait', '--for=condition=Ready', 'pod/web-probe', '--timeout=60s'], 70_000);
    const ip = json<PodObj>(['pod', 'web-probe']).status.podIP!;
    await eventually(() => readyIPs(json<Ep>(['endpoints', 'web'])).includes(ip), 30_000);
    ok(['exec', 'web-probe', '--', 'rm', '/tmp/ready']);
    const ep = await eventually(() => {
      const e = json<Ep>(['endpoints', 'web']);
      return (e.subsets ?? []).some((s) => s.notReadyAddresses?.some((a) => a.ip === ip)) ? e : undefined;
    }, 30_000);
    assert.ok(!readyIPs(ep).includes(ip));
    assert.equal(readyIPs(ep).length, 3);
    await eventually(() => {
      const l = json<{ items: Slice[] }>(['endpointslices', '-l', 'kubernetes.io/service-name=web']).items;
      const e = l.flatMap((s) => s.endpoints ?? []).find((x) => x.addresses.includes(ip));
      return e && e.conditions.ready === false && e.conditions.serving === false && e.conditions.terminating === false;
    }, 30_000);
    const all = json<{ items: Slice[] }>(['endpointslices', '-l', 'kubernetes.io/service-name=web']).items.flatMap((s) => s.endpoints ?? []);
    assert.equal(new Set(all.map((e) => e.addresses[0])).size, 4);
    assert.equal(all.length, 4);
    // the ENDPOINTS column lists ready addresses only
    assert.doesNotMatch(ok(['get', 'endpoints', 'web']), new RegExp(`${ip.replace(/\./g, '\\.')}:80`));
  });

  it('kubectl describe svc shows the Endpoints line', () => {
    const ips = readyIPs(json<Ep>(['endpoints', 'web']));
    const out = ok(['describe', 'svc', 'web']);
    // kubectl 1.32 builds the line from the EndpointSlices: ready addresses, at most 3, then
    // "+ N more..." counting the slice's remaining endpoints it did not print
    const m = /^Endpoints:\s+(\S+)(?: \+ (\d+) more\.\.\.)?$/m.exec(out);
    assert.ok(m, out);
    const listed = m[1]!.split(',').sort();
    assert.deepEqual(listed, ips.map((ip) => `${ip}:80`).sort());
  });

  it('headless Service of a StatefulSet: named target port, hostnames, the headless label', async () => {
    ok([
      'apply',
      '-f',
      manifestFile(
        c.dir,
        'sts.yaml',
        `apiVersion: v1
kind: Service
metadata: {name: nginx, labels: {app: nginx}}
spec:
  clusterIP: None
  selector: {app: nginx}
  ports: [{name: web, port: 80, targetPort: web}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: nginx
  replicas: 2
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports: [{name: web, containerPort: 8080}]
`,
      ),
    ]);
    ok(['rollout', 'status', 'statefulset/web', '--timeout=90s'], 100_000);
    interface EpH extends Ep {
      metadata: Ep['metadata'] & { labels?: Record<string, string> };
      subsets?: { addresses?: (Addr & { hostname?: string })[]; ports?: { name?: string; port: number; protocol: string }[] }[];
    }
    const ep = await eventually(() => {
      const e = json<EpH>(['endpoints', 'nginx']);
      return e.subsets?.[0]?.addresses?.length === 2 ? e : undefined;
    }, 30_000);
    assert.deepEqual(ep.metadata.labels, { app: 'nginx', 'service.kubernetes.io/headless': '' });
    assert.deepEqual(ep.subsets![0]!.ports, [{ name: 'web', port: 8080, protocol: 'TCP' }]);
    assert.deepEqual(ep.subsets![0]!.addresses!.map((a) => [a.targetRef?.name, a.hostname]).sort(), [
      ['web-0', 'web-0'],
      ['web-1', 'web-1'],
    ]);
    const [s] = json<{ items: Slice[] }>(['endpointslices', '-l', 'kubernetes.io/service-name=nginx']).items;
    assert.equal(s!.metadata.labels['service.kubernetes.io/headless'], '');
    assert.deepEqual(s!.ports, [{ name: 'web', port: 8080, protocol: 'TCP' }]);
    assert.deepEqual(s!.endpoints!.map((e) => [e.targetRef?.name, e.hostname]).sort(), [
      ['web-0', 'web-0'],
      ['web-1', 'web-1'],
    ]);
    ok(['delete', 'statefulset', 'web']);
    ok(['delete', 'service', 'nginx']);
  });

  it('deleting the service removes its Endpoints and EndpointSlices', async () => {
    ok(['delete', 'service', 'web']);
    await eventually(() => c.kubectl(['get', 'endpoints', 'web']).code !== 0, 30_000);
    assert.match(c.kubectl(['get', 'endpoints', 'web']).stderr, /endpoints "web" not found/);
    await eventually(() => json<{ items: Slice[] }>(['endpointslices', '-l', 'kubernetes.io/service-name=web']).items.length === 0, 30_000);
    // the API server's own default/kubernetes Endpoints stays
    assert.match(ok(['get', 'endpoints', 'kubernetes']), /^kubernetes\s+\S+:\d+/m);
  });
});

/**
 * Two `k8ts server` processes on ONE etcd (started by the test; the second server
 * gets the first one's PKI, as a joining server would): one holds the kube-scheduler
 * and kube-controller-manager Leases, the other waits; `default/kubernetes` lists both
 * API servers. `kill -9` of the holder: the other takes both Leases within the lease
 * duration (15 s) plus one retry period, schedules a pod created afterwards, and
 * `default/kubernetes` drops the dead server once its master lease expired.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiServerID } from '../../src/apiserver/controlplane/identity-lease.js';
import { startTestEtcd, type TestEtcd } from '../support/etcd.js';
import { eventually, startCluster, type Cluster } from './harness.js';

type Lease = { spec: { holderIdentity: string; leaseTransitions: number; acquireTime: string; renewTime: string; leaseDurationSeconds: number } };
type Endpoints = { subsets: { addresses: { ip: string }[]; ports: { name: string; port: number }[] }[] };

describe('two API servers on one etcd: leader election and the default/kubernetes endpoints', { timeout: 240_000 }, () => {
  let etcd: TestEtcd;
  let a: Cluster;
  let b: Cluster;
  const dirB = mkdtempSync(join(tmpdir(), 'k8ts-e2e-ha-b-'));

  const lease = (c: Cluster, name: string): Lease => {
    const r = c.kubectl(['get', 'lease', '-n', 'kube-system', name, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Lease;
  };
  const endpointPorts = (c: Cluster): string[] => {
    const r = c.kubectl(['get', 'endpoints', 'kubernetes', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as Endpoints).subsets.flatMap((s) => s.addresses.map((x) => `${x.ip}:${s.ports[0]!.port}`)).sort();
  };
  const slicePorts = (c: Cluster): string[] => {
    const r = c.kubectl(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=kubernetes', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.ports[0].port} {end}']);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trim().split(' ').filter(Boolean).sort();
  };
  const log = (c: Cluster, pod: string): string => c.kubectl(['logs', '-n', 'kube-system', pod]).stdout;

  before(async () => {
    etcd = await startTestEtcd();
    a = await startCluster({ args: ['--etcd-servers', etcd.endpoint, '--node-name', 'node-a'] });
    // the second server shares the first one's CA, service-account keys and certificates
    cpSync(join(a.dir, 'tls'), join(dirB, 'tls'), { recursive: true });
    b = await startCluster({ dir: dirB, args: ['--etcd-servers', etcd.endpoint, '--node-name', 'node-b'] });
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
    await etcd?.stop();
    rmSync(dirB, { recursive: true, force: true });
  });

  it('one server holds the scheduler and controller-manager Leases, the other only campaigns; both API servers are endpoints', async () => {
    const sched = lease(b, 'kube-scheduler');
    assert.match(sched.spec.holderIdentity, /^[^_]+_[0-9a-f-]{36}$/, 'identity <hostname>_<uuid>');
    assert.equal(sched.spec.leaseDurationSeconds, 15);
    assert.match(sched.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, 'MicroTime');
    assert.equal(sched.spec.leaseTransitions, 0);
    // the first server won both: its logs say so, the second one's say it is waiting
    await eventually(() => log(a, 'kube-scheduler-node-a').includes('"Successfully acquired lease" lock="kube-system/kube-scheduler"'), 30_000);
    assert.match(log(a, 'kube-controller-manager-node-a'), /"Successfully acquired lease" lock="kube-system\/kube-controller-manager"/);
    const standby = await eventually(() => {
      const l = log(b, 'kube-scheduler-node-b');
      return l.includes('Attempting to acquire leader lease...') ? l : undefined;
    }, 30_000);
    assert.doesNotMatch(standby, /Successfully acquired lease/);
    assert.doesNotMatch(log(b, 'kube-controller-manager-node-b'), /Successfully acquired lease/);
    assert.doesNotMatch(log(b, 'kube-controller-manager-node-b'), /Started controllers/);
    const events = b.kubectl([
      'get',
      'events',
      '-n',
      'kube-system',
      '--field-selector',
      'reason=LeaderElection',
      '-o',
      'jsonpath={range .items[*]}{.involvedObject.name}: {.message} [{.source.component}]{"\\n"}{end}',
    ]).stdout;
    assert.ok(events.includes(`kube-scheduler: ${sched.spec.holderIdentity} became leader [default-scheduler]`), events);
    assert.equal(events.split('\n').filter((l) => l.startsWith('kube-scheduler:')).length, 1, events);
    assert.match(events, /kube-controller-manager: \S+ became leader \[kube-controller-manager\]/);

    await eventually(() => endpointPorts(b).length === 2, 30_000);
    const eps = endpointPorts(b);
    assert.deepEqual(
      eps.map((e) => e.split(':')[1]),
      [String(a.port), String(b.port)].sort(),
      `both API servers: ${eps.join(' ')}`,
    );
    assert.equal(slicePorts(b).length, 2);
    const ids = b.kubectl(['get', 'leases', '-n', 'kube-system', '-l', 'apiserver.kubernetes.io/identity=kube-apiserver', '-o', 'name']).stdout.trim().split('\n').sort();
    assert.deepEqual(ids, [`lease.coordination.k8s.io/${apiServerID('node-a')}`, `lease.coordination.k8s.io/${apiServerID('node-b')}`].sort());
  });

  it('kill -9 of the holder: the other server takes the Leases within the lease duration, schedules a new pod, and drops the dead endpoint', async () => {
    const before = lease(b, 'kube-scheduler');
    const killedAt = Date.now();
    await a.kill();
    const taken = await eventually(
      () => {
        const l = lease(b, 'kube-scheduler');
        return l.spec.holderIdentity !== before.spec.holderIdentity ? l : undefined;
      },
      40_000,
      250,
    );
    const tookMs = Date.now() - killedAt;
    console.log(`# kube-scheduler Lease moved ${tookMs} ms after kill -9 (lease 15 s, retry 2 s)`);
    // the standby waits until the record has not changed for 15 s, then tries every 2 s (+20 % jitter); polling and load add a little
    assert.ok(tookMs <= 15_000 + 2_400 + 5_000, `took ${tookMs} ms`);
    assert.equal(taken.spec.leaseTransitions, 1);
    assert.notEqual(taken.spec.acquireTime, before.spec.acquireTime);
    assert.ok(log(b, 'kube-scheduler-node-b').includes('"Successfully acquired lease" lock="kube-system/kube-scheduler"'));
    await eventually(() => lease(b, 'kube-controller-manager').spec.leaseTransitions === 1, 20_000, 250);
    await eventually(() => log(b, 'kube-controller-manager-node-b').includes('Started controllers'), 20_000);

    const pod = `apiVersion: v1
kind: Pod
metadata: {name: after-failover}
spec:
  nodeSelector: {kubernetes.io/hostname: node-b}
  containers: [{name: c, image: "busybox:1.36", command: [sleep, "3600"]}]
`;
    const r = b.kubectl(['apply', '-f', '-'], { input: pod });
    assert.equal(r.code, 0, r.stderr);
    await eventually(() => b.kubectl(['get', 'pod', 'after-failover', '-o', 'jsonpath={.spec.nodeName}/{.status.phase}']).stdout === 'node-b/Running', 30_000);
    const scheduled = b.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=after-failover,reason=Scheduled', '-o', 'jsonpath={.items[0].message}']).stdout;
    assert.equal(scheduled, 'Successfully assigned default/after-failover to node-b');
    const events = b.kubectl(['get', 'events', '-n', 'kube-system', '--field-selector', 'reason=LeaderElection', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}']).stdout;
    assert.ok(events.includes(`${taken.spec.holderIdentity} became leader`), events);

    // the dead server's master lease expires 15 s after its last refresh; the live one reconciles every 10 s
    await eventually(() => endpointPorts(b).length === 1, 40_000, 500);
    assert.deepEqual(
      endpointPorts(b).map((e) => e.split(':')[1]),
      [String(b.port)],
    );
    assert.deepEqual(
      slicePorts(b).map((s) => s.split('=')[1]),
      [String(b.port)],
    );
    console.log(`# default/kubernetes dropped the dead server ${Date.now() - killedAt} ms after kill -9 (master lease TTL 15 s, reconcile every 10 s)`);
  });
});

/**
 * An HA control plane on one machine, k3s-style: `k8ts server --cluster-init` (a managed
 * etcd member) and two servers joined with `--server <first> --token-file
 * <first>/node-token`, each with its own data dir, API port and etcd ports, on the
 * simulated runtime. Then `kill -9` of the first: the others keep serving (kubectl on the
 * second creates a Deployment that becomes available, the kube-scheduler Lease moves to
 * another server) and no acknowledged write is lost;
 * the first restarts and rejoins (three healthy members again).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ETCD_PACKAGES, requirePackages } from '../support/deps.js';
import { eventually, freePort, startCluster, type Cluster } from './harness.js';

/** Three free ports for a member: client, peer, metrics. */
async function etcdPorts(): Promise<string[]> {
  return ['--etcd-client-port', String(await freePort()), '--etcd-peer-port', String(await freePort()), '--etcd-metrics-port', String(await freePort())];
}

/** etcdctl (API v3) with the first server's health-check client certificate. */
function etcdctl(dir: string, endpoints: string[], args: string[]): { code: number; out: string } {
  const tls = join(dir, 'tls', 'etcd');
  const r = spawnSync(
    'etcdctl',
    [
      `--endpoints=${endpoints.join(',')}`,
      `--cacert=${join(tls, 'ca.crt')}`,
      `--cert=${join(tls, 'healthcheck-client.crt')}`,
      `--key=${join(tls, 'healthcheck-client.key')}`,
      ...args,
    ],
    { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' }, timeout: 30_000 },
  );
  return { code: r.status ?? -1, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** The `--etcd-client-port` of a server's args. */
const clientPort = (args: string[]): string => args[args.indexOf('--etcd-client-port') + 1]!;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('HA control plane: --cluster-init + two joined servers, kill -9 of the first', { timeout: 400_000 }, () => {
  const servers: Cluster[] = [];
  const ports: string[][] = [];
  let url0 = '';

  before(async () => {
    requirePackages(ETCD_PACKAGES, 'the managed etcd');
    ports.push(await etcdPorts());
    // under a loaded machine a server's etcd member (and a joining one's catch-up) takes its time
    servers.push(await startCluster({ args: ['--cluster-init', '--node-name', 'ha-0', ...ports[0]!], readyTimeoutMs: 120_000 }));
    url0 = `https://127.0.0.1:${servers[0]!.port}`;
    for (const i of [1, 2]) {
      ports.push(await etcdPorts());
      servers.push(
        await startCluster({ args: ['--server', url0, '--token-file', join(servers[0]!.dir, 'node-token'), '--node-name', `ha-${i}`, ...ports[i]!], readyTimeoutMs: 120_000 }),
      );
    }
  });
  after(async () => {
    for (const s of servers.reverse()) await s.stop().catch(() => {});
  });

  const endpoints = (): string[] => ports.map((p) => `https://127.0.0.1:${clientPort(p)}`);

  it('three etcd members, each server with its own etcd-<node> pod; etcdctl reads a pod at /registry/pods/default/<name>', async () => {
    const list = etcdctl(servers[0]!.dir, endpoints(), ['member', 'list']);
    assert.equal(list.code, 0, list.out);
    const lines = list.out.trim().split('\n');
    assert.equal(lines.length, 3, list.out);
    for (const i of [0, 1, 2])
      assert.ok(
        lines.some((l) => l.includes(', started, ha-' + i + '-') && l.includes(`:${clientPort(ports[i]!)}`)),
        list.out,
      );

    const [a, b] = servers as [Cluster, Cluster];
    const r = b.kubectl(['run', 'probe', '--image', 'nginx:1.27']);
    assert.equal(r.code, 0, r.stderr);
    // written through the second server, read from the first server's member
    const got = etcdctl(a.dir, [endpoints()[0]!], ['get', '/registry/pods/default/probe', '--print-value-only']);
    assert.equal(got.code, 0, got.out);
    assert.equal((JSON.parse(got.out) as { metadata: { name: string } }).metadata.name, 'probe');

    for (const i of [0, 1, 2]) {
      const ann = await eventually(() => {
        const p = a.kubectl(['get', 'pod', '-n', 'kube-system', `etcd-ha-${i}`, '-o', 'jsonpath={.metadata.annotations.k8ts\\.io/process} {.status.containerStatuses[0].ready}']);
        return p.code === 0 && p.stdout.endsWith(' true') ? p.stdout : undefined;
      }, 30_000);
      assert.equal(ann, 'etcd in its own process (etcd), supervised by k8ts server (not a container) true');
    }
    // the node of a joined server got its own podCIDR from the node IPAM controller
    const cidrs = a.kubectl(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.spec.podCIDR}{"\\n"}{end}']).stdout.trim().split('\n');
    assert.equal(new Set(cidrs).size, 3, cidrs.join(' '));
  });

  it('after kill -9 of the first server, the second serves: the scheduler Lease moves, a Deployment becomes available, no acknowledged write is lost', async () => {
    const [a, b] = servers as [Cluster, Cluster];
    const acked: string[] = [];
    for (let i = 0; i < 10; i++) {
      const via = i % 2 ? b : a;
      const r = via.kubectl(['create', 'configmap', `acked-${i}`, `--from-literal=i=${i}`]);
      assert.equal(r.code, 0, r.stderr);
      acked.push(`acked-${i}`);
    }
    // the first server started first: it holds the kube-scheduler Lease (its scheduler's log says so)
    const holder = () => b.kubectl(['get', 'lease', '-n', 'kube-system', 'kube-scheduler', '-o', 'jsonpath={.spec.holderIdentity}']).stdout;
    await eventually(
      () => a.kubectl(['logs', '-n', 'kube-system', 'kube-scheduler-ha-0']).stdout.includes('"Successfully acquired lease" lock="kube-system/kube-scheduler"'),
      60_000,
      500,
    );
    const before = holder();
    assert.match(before, /^[^_]+_[0-9a-f-]{36}$/);
    const etcdPid = Number(
      a.kubectl(['get', 'pod', '-n', 'kube-system', 'etcd-ha-0', '-o', 'jsonpath={.status.containerStatuses[0].containerID}']).stdout.replace('process://', ''),
    );
    assert.ok(etcdPid > 0 && alive(etcdPid));
    await a.kill();
    // the member dies with its server (parent-death signal), as k3s' embedded etcd
    await eventually(() => !alive(etcdPid), 10_000);

    // another server's scheduler takes the Lease once it is not renewed (lease duration 15 s)
    const after = await eventually(
      () => {
        const h = holder();
        return h && h !== before ? h : undefined;
      },
      90_000,
      500,
    );
    assert.notEqual(after, before);

    // the dead server's node stays Ready until the node monitor grace period; an operator cordons it
    const cordon = await eventually(
      () => {
        const r = b.kubectl(['cordon', 'ha-0']);
        return r.code === 0 ? r.stdout : undefined;
      },
      60_000,
      500,
    );
    assert.match(cordon, /node\/ha-0 cordoned/);
    const d = b.kubectl(['create', 'deployment', 'web', '--image', 'nginx:1.27', '--replicas', '2']);
    assert.equal(d.code, 0, d.stderr);
    const rollout = b.kubectl(['rollout', 'status', 'deployment/web', '--timeout', '120s'], { timeoutMs: 130_000 });
    assert.equal(rollout.code, 0, rollout.stderr + rollout.stdout);
    assert.match(rollout.stdout, /successfully rolled out/);
    const nodes = b.kubectl(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.nodeName}']).stdout.split(' ');
    assert.ok(
      nodes.every((n) => n === 'ha-1' || n === 'ha-2'),
      nodes.join(' '),
    );

    const cms = b.kubectl(['get', 'configmaps', '-o', 'name']).stdout;
    for (const name of acked) assert.ok(cms.includes(`configmap/${name}\n`), `${name} lost:\n${cms}`);
  });

  it('the first server restarts on its data dir and rejoins: three healthy members, the writes made meanwhile are there', async () => {
    const a = servers[0]!;
    await a.restart();
    const health = await eventually(
      () => {
        const h = etcdctl(a.dir, endpoints(), ['endpoint', 'health']);
        return h.code === 0 && (h.out.match(/is healthy/g) ?? []).length === 3 ? h.out : undefined;
      },
      60_000,
      500,
    );
    assert.equal((health.match(/is healthy/g) ?? []).length, 3, health);
    const list = etcdctl(a.dir, endpoints(), ['member', 'list']);
    assert.equal(
      list.out
        .trim()
        .split('\n')
        .filter((l) => l.includes(', started, ')).length,
      3,
      list.out,
    );
    // the restarted server serves what the others wrote while it was down
    const web = a.kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.status.availableReplicas}']);
    assert.equal(web.stdout, '2', web.stderr);
    assert.equal(a.kubectl(['uncordon', 'ha-0']).code, 0);
  });
});

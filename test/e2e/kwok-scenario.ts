/**
 * The kwok e2e scenarios shared by kwok-nodes, kwok-stages and kwok-worker (the pool in
 * the server's thread, driven by Stage files, or in a worker thread): a cluster of kwok
 * nodes for one `describe` block, and the checks every form of the pool must pass, each
 * through the real kubectl.
 */
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';

/** A started cluster's kubectl, and `ok`: kubectl that must exit 0 (its stdout). */
export interface KwokCluster {
  /** the cluster (set once the `before` hook has run) */
  readonly c: Cluster;
  /** runs kubectl, asserts exit code 0 (failing with kubectl's stderr) and returns stdout */
  ok(args: string[]): string;
}

/**
 * Starts `k8ts server <args> --disable-agent` in a `before` hook of the current `describe`
 * block and stops it in an `after` hook.
 * @param args server flags, e.g. `['--kwok-nodes', '2', '--kwok-worker']`
 */
export function kwokCluster(args: string[]): KwokCluster {
  let c: Cluster | undefined;
  before(async () => {
    c = await startCluster({ args: [...args, '--disable-agent'] });
  });
  after(async () => {
    await c?.stop();
  });
  const started = (): Cluster => {
    assert.ok(c, 'the cluster is started in before()');
    return c;
  };
  return {
    get c() {
      return started();
    },
    ok(a) {
      const r = started().kubectl(a);
      assert.equal(r.code, 0, `kubectl ${a.join(' ')}: ${r.stderr}`);
      return r.stdout;
    },
  };
}

/**
 * Waits until the `count` kwok nodes (label type=kwok) are registered and Ready, and asserts
 * each one's name, podCIDR (10.42.<i>.0/24) and simulated runtime version.
 */
export async function expectKwokNodesReady(k: KwokCluster, count: number): Promise<void> {
  const nodes = await eventually(() => {
    const out = k
      .ok([
        'get',
        'nodes',
        '-l',
        'type=kwok',
        '-o',
        'jsonpath={range .items[*]}{.metadata.name} {.spec.podCIDR} {.status.conditions[?(@.type=="Ready")].status} {.status.nodeInfo.containerRuntimeVersion}{"\\n"}{end}',
      ])
      .trim();
    return out.split('\n').length === count && !out.includes('False') ? out : '';
  }, 30_000);
  assert.deepEqual(
    nodes.split('\n'),
    Array.from({ length: count }, (_, i) => `kwok-node-${i} 10.42.${i}.0/24 True kwok (SIMULATED)`),
  );
}

/**
 * Waits for `node`'s Lease in kube-node-lease, then for its next renewal, and asserts the
 * holder, a higher resourceVersion and a later renewTime (one renewal period is 10 s for a
 * small pool).
 */
export async function expectLeaseRenewed(k: KwokCluster, node: string): Promise<void> {
  const read = () => k.ok(['get', 'lease', '-n', 'kube-node-lease', node, '-o', 'jsonpath={.metadata.resourceVersion} {.spec.renewTime} {.spec.holderIdentity}']).split(' ');
  const [rv0, t0, holder] = await eventually(() => (k.ok(['get', 'leases', '-n', 'kube-node-lease', '--no-headers']).includes(node) ? read() : undefined), 30_000);
  assert.equal(holder, node);
  const [rv1, t1, holder1] = await eventually(
    () => {
      const r = read();
      return r[0] !== rv0 ? r : undefined;
    },
    30_000,
    1000,
  );
  assert.equal(holder1, node);
  assert.ok(Number(rv1) > Number(rv0), `a renewal is a new resourceVersion: ${rv0} → ${rv1}`);
  assert.ok(Date.parse(t1!) > Date.parse(t0!), `${t0} → ${t1}`);
}

/**
 * A Deployment `web` of `replicas` nginx pods rolls out on the kwok nodes: every pod is
 * Running and Ready, with a unique IP of its node's podCIDR, its node's InternalIP
 * (127.1.0.<i+1>) as hostIP and a kwok:// container ID; scaled to 1, the others are deleted.
 */
export async function deploymentOnKwokNodes(k: KwokCluster, replicas: number): Promise<void> {
  k.ok(['create', 'deployment', 'web', '--image=nginx', `--replicas=${replicas}`]);
  k.ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
  const rows = k
    .ok([
      'get',
      'pods',
      '-l',
      'app=web',
      '-o',
      'jsonpath={range .items[*]}{.spec.nodeName} {.status.podIP} {.status.hostIP} {.status.phase} {.status.containerStatuses[0].containerID}{"\\n"}{end}',
    ])
    .trim()
    .split('\n');
  assert.equal(rows.length, replicas);
  for (const r of rows) {
    const [node, ip, hostIP, phase, cid] = r.split(' ');
    const i = Number(node!.replace('kwok-node-', ''));
    assert.match(ip!, new RegExp(`^10\\.42\\.${i}\\.\\d+$`), r);
    assert.equal(hostIP, `127.1.0.${i + 1}`);
    assert.equal(phase, 'Running');
    assert.match(cid!, /^kwok:\/\//);
  }
  assert.equal(new Set(rows.map((r) => r.split(' ')[1])).size, replicas, 'pod IPs are unique');
  const describe = k.ok(['describe', 'pods', '-l', 'app=web']);
  assert.match(describe, /Status:\s+Running/);
  assert.match(describe, /Ready\s+True/);
  k.ok(['scale', 'deployment', 'web', '--replicas=1']);
  await eventually(() => k.ok(['get', 'pods', '-l', 'app=web', '--no-headers']).trim().split('\n').length === 1, 30_000);
}

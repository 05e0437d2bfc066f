/**
 * The kwok node pool in a worker thread through the real kubectl: `k8ts server
 * --kwok-nodes 2 --kwok-worker` — the nodes are registered Ready by the worker over its
 * MessagePort client, their Leases renewed through the server's lease store (renewTime
 * moves), a Deployment's pods become Running with IPs of their node's podCIDR and are
 * deleted when scaled down.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';

describe('e2e: kwok nodes in a worker thread (--kwok-nodes 2 --kwok-worker)', () => {
  let c: Cluster;
  const ok = (args: string[]) => {
    const r = c.kubectl(args);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  before(async () => {
    c = await startCluster({ args: ['--kwok-nodes', '2', '--kwok-worker', '--disable-agent'] });
  });
  after(async () => {
    await c?.stop();
  });

  it('registers Ready nodes and renews their Leases', async () => {
    const nodes = await eventually(() => {
      const out = ok([
        'get',
        'nodes',
        '-o',
        'jsonpath={range .items[*]}{.metadata.name} {.spec.podCIDR} {.status.conditions[?(@.type=="Ready")].status} {.status.nodeInfo.containerRuntimeVersion}{"\\n"}{end}',
      ]).trim();
      return out.split('\n').length === 2 && !out.includes('False') ? out : '';
    }, 30_000);
    assert.deepEqual(nodes.split('\n'), ['kwok-node-0 10.42.0.0/24 True kwok (SIMULATED)', 'kwok-node-1 10.42.1.0/24 True kwok (SIMULATED)']);
    const lease = () =>
      ok(['get', 'lease', '-n', 'kube-node-lease', 'kwok-node-0', '-o', 'jsonpath={.spec.holderIdentity} {.spec.renewTime} {.metadata.resourceVersion}']).split(' ');
    const first = await eventually(() => (ok(['get', 'leases', '-n', 'kube-node-lease', '--no-headers']).includes('kwok-node-0') ? lease() : undefined), 30_000);
    assert.equal(first[0], 'kwok-node-0');
    // one renewal period is 10 s for a small pool
    const later = await eventually(
      () => {
        const l = lease();
        return l[1] !== first[1] ? l : undefined;
      },
      30_000,
      1000,
    );
    assert.equal(later[0], 'kwok-node-0');
    assert.notEqual(later[2], first[2], 'a renewal is a new resourceVersion');
  });

  it("a Deployment's pods run on the kwok nodes with IPs of their node's podCIDR; scaled down, they are deleted", async () => {
    ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=4']);
    ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    const rows = ok([
      'get',
      'pods',
      '-l',
      'app=web',
      '-o',
      'jsonpath={range .items[*]}{.spec.nodeName} {.status.podIP} {.status.phase} {.status.containerStatuses[0].containerID}{"\\n"}{end}',
    ])
      .trim()
      .split('\n');
    assert.equal(rows.length, 4);
    for (const r of rows) {
      const [node, ip, phase, cid] = r.split(' ');
      const i = Number(node!.replace('kwok-node-', ''));
      assert.match(ip!, new RegExp(`^10\\.42\\.${i}\\.\\d+$`), r);
      assert.equal(phase, 'Running');
      assert.match(cid!, /^kwok:\/\//);
    }
    ok(['scale', 'deployment', 'web', '--replicas=1']);
    await eventually(() => ok(['get', 'pods', '-l', 'app=web', '--no-headers']).trim().split('\n').length === 1, 30_000);
  });
});

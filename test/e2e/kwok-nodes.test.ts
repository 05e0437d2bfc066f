/**
 * kwok-style simulated nodes through the real kubectl: `k8ts server --kwok-nodes 3`
 * registers three Ready nodes with Leases; a Deployment's pods become Running on them
 * with pod IPs from the nodes' podCIDRs; a Job's pod completes; scaled-down pods are
 * deleted; everything shown as simulated.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';

describe('e2e: kwok nodes (--kwok-nodes 3)', () => {
  let c: Cluster;
  const ok = (args: string[]) => {
    const r = c.kubectl(args);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  before(async () => {
    c = await startCluster({ args: ['--kwok-nodes', '3', '--disable-agent'] });
  });
  after(async () => {
    await c?.stop();
  });

  it('registers Ready nodes labelled simulated, with podCIDRs and renewed Leases', async () => {
    const nodes = await eventually(() => {
      const out = ok([
        'get',
        'nodes',
        '-l',
        'type=kwok',
        '-o',
        'jsonpath={range .items[*]}{.metadata.name} {.spec.podCIDR} {.status.conditions[?(@.type=="Ready")].status} {.status.nodeInfo.containerRuntimeVersion}{"\\n"}{end}',
      ]).trim();
      return out.split('\n').length === 3 && !out.includes('False') ? out : '';
    }, 30_000);
    assert.deepEqual(nodes.split('\n'), [
      'kwok-node-0 10.42.0.0/24 True kwok (SIMULATED)',
      'kwok-node-1 10.42.1.0/24 True kwok (SIMULATED)',
      'kwok-node-2 10.42.2.0/24 True kwok (SIMULATED)',
    ]);
    const holders = await eventually(() => {
      const out = ok(['get', 'leases', '-n', 'kube-node-lease', '-o', 'jsonpath={range .items[*]}{.spec.holderIdentity}={.spec.leaseDurationSeconds} {end}']).trim();
      return out.split(' ').length === 3 ? out : '';
    }, 30_000);
    assert.equal(holders, 'kwok-node-0=40 kwok-node-1=40 kwok-node-2=40');
  });

  it("a Deployment's pods run on the kwok nodes with IPs of their node's podCIDR; scaled down, they are deleted", async () => {
    ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=6']);
    ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    const rows = ok([
      'get',
      'pods',
      '-l',
      'app=web',
      '-o',
      'jsonpath={range .items[*]}{.spec.nodeName} {.status.podIP} {.status.hostIP} {.status.containerStatuses[0].containerID}{"\\n"}{end}',
    ])
      .trim()
      .split('\n');
    assert.equal(rows.length, 6);
    for (const r of rows) {
      const [node, ip, hostIP, cid] = r.split(' ');
      const i = Number(node!.replace('kwok-node-', ''));
      assert.match(ip!, new RegExp(`^10\\.42\\.${i}\\.\\d+$`), r);
      assert.equal(hostIP, `127.1.0.${i + 1}`);
      assert.match(cid!, /^kwok:\/\//);
    }
    assert.equal(new Set(rows.map((r) => r.split(' ')[1])).size, 6, 'pod IPs are unique');
    const describe = ok(['describe', 'pods', '-l', 'app=web']);
    assert.match(describe, /Status:\s+Running/);
    assert.match(describe, /Ready\s+True/);
    ok(['scale', 'deployment', 'web', '--replicas=1']);
    await eventually(() => ok(['get', 'pods', '-l', 'app=web', '--no-headers']).trim().split('\n').length === 1, 30_000);
  });

  it("a Job's pod completes and the Job is Complete", async () => {
    ok(['create', 'job', 'once', '--image=busybox', '--', 'true']);
    ok(['wait', '--for=condition=complete', 'job/once', '--timeout=60s']);
    const phase = ok(['get', 'pods', '-l', 'job-name=once', '-o', 'jsonpath={.items[0].status.phase} {.items[0].status.containerStatuses[0].state.terminated.reason}']);
    assert.equal(phase, 'Succeeded Completed');
  });
});

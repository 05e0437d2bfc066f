/**
 * kwok-style simulated nodes through the real kubectl: `k8ts server --kwok-nodes 3`
 * registers three Ready nodes with Leases; a Deployment's pods become Running on them
 * with pod IPs from the nodes' podCIDRs; a Job's pod completes; scaled-down pods are
 * deleted; everything shown as simulated.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from './harness.js';
import { deploymentOnKwokNodes, expectKwokNodesReady, kwokCluster } from './kwok-scenario.js';

describe('e2e: kwok nodes (--kwok-nodes 3)', () => {
  const k = kwokCluster(['--kwok-nodes', '3']);
  const ok = (args: string[]) => k.ok(args);

  it('registers Ready nodes labelled simulated, with podCIDRs and renewed Leases', async () => {
    await expectKwokNodesReady(k, 3);
    const holders = await eventually(() => {
      const out = ok(['get', 'leases', '-n', 'kube-node-lease', '-o', 'jsonpath={range .items[*]}{.spec.holderIdentity}={.spec.leaseDurationSeconds} {end}']).trim();
      return out.split(' ').length === 3 ? out : '';
    }, 30_000);
    assert.equal(holders, 'kwok-node-0=40 kwok-node-1=40 kwok-node-2=40');
  });

  it("a Deployment's pods run on the kwok nodes with IPs of their node's podCIDR; scaled down, they are deleted", async () => {
    await deploymentOnKwokNodes(k, 6);
  });

  it("a Job's pod completes and the Job is Complete", async () => {
    ok(['create', 'job', 'once', '--image=busybox', '--', 'true']);
    ok(['wait', '--for=condition=complete', 'job/once', '--timeout=60s']);
    const phase = ok(['get', 'pods', '-l', 'job-name=once', '-o', 'jsonpath={.items[0].status.phase} {.items[0].status.containerStatuses[0].state.terminated.reason}']);
    assert.equal(phase, 'Succeeded Completed');
  });
});

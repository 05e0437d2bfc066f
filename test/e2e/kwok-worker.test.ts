/**
 * The kwok node pool in a worker thread through the real kubectl: `k8ts server
 * --kwok-nodes 2 --kwok-worker` — the nodes are registered Ready by the worker over its
 * MessagePort client, their Leases renewed through the server's lease store (renewTime
 * moves), a Deployment's pods become Running with IPs of their node's podCIDR and are
 * deleted when scaled down: the scenarios of kwok-nodes (./kwok-scenario.ts).
 */
import { describe, it } from 'node:test';
import { deploymentOnKwokNodes, expectKwokNodesReady, expectLeaseRenewed, kwokCluster } from './kwok-scenario.js';

describe('e2e: kwok nodes in a worker thread (--kwok-nodes 2 --kwok-worker)', () => {
  const k = kwokCluster(['--kwok-nodes', '2', '--kwok-worker']);

  it('registers Ready nodes and renews their Leases', async () => {
    await expectKwokNodesReady(k, 2);
    await expectLeaseRenewed(k, 'kwok-node-0');
  });

  it("a Deployment's pods run on the kwok nodes with IPs of their node's podCIDR; scaled down, they are deleted", async () => {
    await deploymentOnKwokNodes(k, 4);
  });
});

/**
 * The host-gw routes: which nodes get a route (pure), and the controller against a real
 * routing table in a network namespace this test creates (root): routes follow Node
 * adds, podCIDR and address changes and deletes; a route someone removed is put back;
 * `removeHostGatewayRoutes` leaves none.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import { FakeClient } from '../client/testing/fake-client.js';
import { R } from '../client/types.js';
import { createNodeNetns, type NodeNetns } from '../../test/support/netns.js';
import { NetExec } from '../proxy/iptables.js';
import { currentRoutes, HostGatewayRoutes, removeHostGatewayRoutes } from './controller.js';
import { desiredRoutes, hostGatewayAnnotations, parseAddresses, planRoutes, type LocalAddress } from './routes.js';

/** A Node; `ip` is its InternalIP and (unless `announce` is false) its flannel host-gw public IP. */
const node = (name: string, podCIDR: string | undefined, ip: string | undefined, labels: Record<string, string> = {}, announce = true): Node & KObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels, annotations: announce ? hostGatewayAnnotations(ip ?? '') : {} },
  spec: podCIDR ? { podCIDR, podCIDRs: [podCIDR] } : {},
  status: ip ? { addresses: [{ type: 'InternalIP', address: ip }] } : {},
});

describe('host-gw routes (pure)', () => {
  const local: LocalAddress[] = [{ dev: 'eth1', address: '198.18.5.2', prefixLen: 28 }];

  it('routes every other node podCIDR via its InternalIP on an attached subnet, and says why not otherwise', () => {
    const { routes, skipped } = desiredRoutes(
      [
        node('a', '10.250.1.0/24', '198.18.5.2'),
        node('b', '10.250.2.0/24', '198.18.5.3'),
        node('c', '10.250.3.0/24', '203.0.113.7'),
        node('d', '10.250.4.0/24', '198.18.5.4', { 'k8ts.io/runtime': 'sim' }),
        node('e', '10.250.5.0/24', '198.18.5.5', { type: 'kwok' }),
        node('f', undefined, '198.18.5.6'),
        node('g', '10.99.0.0/24', '198.18.5.7'),
        node('h', '10.250.8.0/24', undefined),
        node('i', '10.250.9.0/24', '198.18.5.9', {}, false),
      ],
      'a',
      local,
      '10.250.0.0/16',
    );
    assert.deepEqual(routes, [{ dst: '10.250.2.0/24', gateway: '198.18.5.3', dev: 'eth1' }]);
    assert.deepEqual(skipped, [
      { node: 'c', reason: 'its public IP 203.0.113.7 is not on a subnet of this node (host-gw needs the nodes on one layer-2 network)' },
      { node: 'g', reason: 'podCIDR 10.99.0.0/24 is outside the cluster CIDR 10.250.0.0/16' },
      { node: 'h', reason: 'no IPv4 flannel.alpha.coreos.com/public-ip' },
      { node: 'i', reason: 'it does not run the host-gw backend (flannel.alpha.coreos.com/backend-type: none)' },
    ]);
    // a node claiming one of this node's own addresses is never a gateway
    assert.deepEqual(desiredRoutes([node('x', '10.250.9.0/24', '198.18.5.2')], 'a', local, '10.250.0.0/16').skipped, [
      { node: 'x', reason: 'its public IP 198.18.5.2 is an address of this node' },
    ]);
  });

  it('plans replaces for new or moved routes and deletes for routes of gone nodes', () => {
    const cur = [
      { dst: '10.250.2.0/24', gateway: '198.18.5.3', dev: 'eth1' },
      { dst: '10.250.3.0/24', gateway: '198.18.5.4', dev: 'eth1' },
      { dst: '10.250.4.0/24', gateway: '198.18.5.5', dev: 'eth1' },
    ];
    const want = [
      { dst: '10.250.2.0/24', gateway: '198.18.5.3', dev: 'eth1' },
      { dst: '10.250.3.0/24', gateway: '198.18.5.9', dev: 'eth1' },
      { dst: '10.250.6.0/24', gateway: '198.18.5.6', dev: 'eth1' },
    ];
    assert.deepEqual(planRoutes(cur, want), { replace: [want[1], want[2]], remove: [cur[2]] });
  });

  it('reads interface addresses from ip -j, without loopback', () => {
    const json = JSON.stringify([
      { ifname: 'lo', flags: ['LOOPBACK', 'UP'], addr_info: [{ family: 'inet', local: '127.0.0.1', prefixlen: 8 }] },
      { ifname: 'eth1', flags: ['UP'], addr_info: [{ family: 'inet', local: '198.18.5.2', prefixlen: 28 }] },
    ]);
    assert.deepEqual(parseAddresses(json), [{ dev: 'eth1', address: '198.18.5.2', prefixLen: 28 }]);
  });
});

describe('host-gw routes controller in a network namespace', { timeout: 60_000 }, () => {
  let ns: NodeNetns;
  let client: FakeClient;
  let ctl: HostGatewayRoutes;
  let exec: NetExec;
  const routes = () => ns.exec('ip', ['-4', 'route', 'show', 'proto', '75']);
  const waitSyncs = async (n: number): Promise<void> => {
    while (ctl.syncs < n) await new Promise((r) => setTimeout(r, 20));
  };

  before(async () => {
    ns = createNodeNetns();
    exec = new NetExec(ns.path);
    client = new FakeClient();
    // the namespace's node end is this node; the veth's host end stands for a second node on the same /30
    await client.create(R.nodes, '', node('self', '10.250.1.0/24', ns.nodeIP, {}, false));
    await client.create(R.nodes, '', node('peer', '10.250.2.0/24', ns.hostIP));
    ctl = new HostGatewayRoutes({ client, nodeName: 'self', clusterCIDR: '10.250.0.0/16', exec, log: () => undefined });
  });
  after(() => {
    ctl?.stop();
    ns?.remove();
  });

  it('announces the host-gw backend on its own Node and routes the other node podCIDR via its public IP once started', async () => {
    await ctl.start();
    const self = await client.get<Node & KObject>(R.nodes, '', 'self');
    assert.deepEqual(self.metadata?.annotations, {
      'flannel.alpha.coreos.com/backend-data': 'null',
      'flannel.alpha.coreos.com/backend-type': 'host-gw',
      'flannel.alpha.coreos.com/kube-subnet-manager': 'true',
      'flannel.alpha.coreos.com/public-ip': ns.nodeIP,
    });
    assert.equal(routes().trim(), `10.250.2.0/24 via ${ns.hostIP} dev ${ns.name.replace('k8ts-', 'k8n-')}`);
    assert.deepEqual(await currentRoutes(exec), [{ dst: '10.250.2.0/24', gateway: ns.hostIP, dev: ns.name.replace('k8ts-', 'k8n-') }]);
  });

  it('follows a podCIDR change and a deleted Node, and puts back a route someone removed', async () => {
    const peer = await client.get<Node & KObject>(R.nodes, '', 'peer');
    let n = ctl.syncs;
    await client.update(R.nodes, '', { ...peer, spec: { podCIDR: '10.250.3.0/24', podCIDRs: ['10.250.3.0/24'] } });
    await waitSyncs(n + 1);
    assert.match(routes(), /^10\.250\.3\.0\/24 via /);
    assert.doesNotMatch(routes(), /10\.250\.2\.0/);
    ns.exec('ip', ['route', 'del', '10.250.3.0/24']);
    await ctl.syncNow();
    assert.match(routes(), /^10\.250\.3\.0\/24 via /);
    n = ctl.syncs;
    await client.delete(R.nodes, '', 'peer');
    await waitSyncs(n + 1);
    assert.equal(routes().trim(), '');
  });

  it('removeHostGatewayRoutes deletes only the controller routes', async () => {
    await client.create(R.nodes, '', node('peer2', '10.250.4.0/24', ns.hostIP));
    await ctl.syncNow();
    assert.match(routes(), /10\.250\.4\.0\/24/);
    ctl.stop();
    await removeHostGatewayRoutes(exec);
    assert.equal(routes().trim(), '');
    assert.match(ns.exec('ip', ['-4', 'route', 'show']), /^default dev k8d-/m);
  });
});

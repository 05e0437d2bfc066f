/**
 * Containment with hostNetwork access, in a network namespace this test creates (root):
 * the node's own processes reach a ClusterIP through a nat OUTPUT DNAT (as kube-proxy's
 * rules do), a ClusterIP no rule takes fails at once with "No route to host" without a
 * packet on the default route (TCP: Connection refused), forwarded packets still meet the `unreachable` route,
 * and the removal leaves nothing behind.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createNodeNetns, type NodeNetns } from '../../test/support/netns.js';
import { NetExec } from './iptables.js';
import { installContainmentRoutes, installLocalServiceAccess, removeContainmentRoutes, removeLocalServiceAccess, SERVICE_CIDR_GUARD_CHAIN } from './containment.js';

const SVC = '10.96.0.0/12';
const busybox = (): string => {
  const r = spawnSync('sh', ['-c', 'command -v busybox'], { encoding: 'utf8' });
  assert.equal(r.status, 0, 'busybox (busybox-static) is needed: scripts/install-deps.sh');
  return r.stdout.trim();
};

describe('containment with hostNetwork access to ClusterIPs', { timeout: 60_000 }, () => {
  let ns: NodeNetns;
  let exec: NetExec;
  let server: ChildProcess | undefined;
  const inNs = (args: string[], timeoutMs = 10_000) => spawnSync('nsenter', [`--net=${ns.path}`, '--', ...args], { encoding: 'utf8', timeout: timeoutMs });

  before(async () => {
    ns = createNodeNetns();
    exec = new NetExec(ns.path);
    await installContainmentRoutes(exec, [SVC, '10.250.0.0/16']);
    await installLocalServiceAccess(exec, SVC, ns.nodeIP);
    await installLocalServiceAccess(exec, SVC, ns.nodeIP); // idempotent
    // what kube-proxy's rules do for one ClusterIP: DNAT in OUTPUT to an endpoint (here a listener on the node)
    ns.exec('iptables', ['-t', 'nat', '-A', 'OUTPUT', '-d', '10.96.0.50/32', '-p', 'tcp', '--dport', '80', '-j', 'DNAT', '--to-destination', `${ns.nodeIP}:8080`]);
    server = spawn('nsenter', [`--net=${ns.path}`, '--', busybox(), 'nc', '-l', '-p', '8080', '-e', 'echo', 'hello from the endpoint'], { stdio: 'ignore' });
    for (let i = 0; i < 100 && !/:8080\b/.test(inNs(['ss', '-ltn']).stdout); i++) await new Promise((r) => setTimeout(r, 50));
  });
  after(() => {
    server?.kill();
    ns?.remove();
  });

  it('a process on the node reaches a ClusterIP through the OUTPUT DNAT, with the node address as source', () => {
    assert.match(ns.exec('ip', ['route', 'get', '10.96.0.50']), new RegExp(`^10\\.96\\.0\\.50 dev lo table 75 src ${ns.nodeIP.replace(/\./g, '\\.')}`));
    assert.equal(ns.exec('ip', ['-4', 'rule', 'show', 'priority', '75']).trim(), `75:\tfrom all to ${SVC} iif lo lookup 75`);
    const r = inNs([busybox(), 'nc', '-w', '3', '10.96.0.50', '80']);
    assert.equal(r.stdout.trim(), 'hello from the endpoint', r.stderr);
  });

  it('a ClusterIP no rule takes fails at once (TCP reset), and nothing leaves through the default route', () => {
    const before = ns.uplinkTxPackets();
    const t0 = Date.now();
    const r = inNs([busybox(), 'nc', '-w', '5', '10.96.0.51', '80']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /can't connect to remote host \(10\.96\.0\.51\): Connection refused/);
    assert.ok(Date.now() - t0 < 3000, `failed after ${Date.now() - t0} ms`);
    assert.equal(ns.uplinkTxPackets(), before);
    // forwarded packets (pods) still meet the unreachable route
    assert.throws(() => ns.exec('ip', ['route', 'get', '10.96.0.51', 'from', '10.250.0.5', 'iif', ns.uplink]), /No route to host|unreachable/);
  });

  it('removal leaves no rule, table route or chain', async () => {
    await removeLocalServiceAccess(exec, SVC);
    await removeContainmentRoutes(exec, [SVC, '10.250.0.0/16']);
    assert.equal(ns.exec('ip', ['-4', 'rule', 'show', 'priority', '75']).trim(), '');
    assert.equal(ns.exec('ip', ['route', 'show', 'table', '75']).trim(), '');
    assert.doesNotMatch(ns.exec('iptables-save', ['-t', 'filter']), new RegExp(SERVICE_CIDR_GUARD_CHAIN));
  });
});

/**
 * Static pods on a `k8ts agent` with real containers (containerd in a test network
 * namespace, test/e2e/netns-node.ts) while the API server is down: the static pod of
 * `--pod-manifest-path` keeps running and serving after `kill -9` of the server, a
 * manifest added meanwhile starts without the API server, and once the server is back
 * both have their mirror pods — the running container untouched (same container ID, no
 * restart).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RemoteRuntime } from '../../src/cri/remote/remote.js';
import { CRILabels } from '../../src/cri/api.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import type { NodeNetns } from '../support/netns.js';
import { publishStandIns } from './containerd-images.js';
import { eventually, startCluster, type Cluster } from './harness.js';
import { prepareNodeNetns, startNetnsNode, TEST_CLUSTER_CIDR, TEST_SERVICE_CIDR, type NetnsNode } from './netns-node.js';

const NODE = 'static-node';

const manifest = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 1
  containers: [{name: web, image: "nginx:1.14.2", ports: [{containerPort: 80}]}]
`;

function httpGet(host: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port: 80, path: '/', timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('timeout', () => req.destroy(new Error(`GET http://${host}/ timed out`)));
    req.on('error', reject);
    req.end();
  });
}

interface PodJSON {
  metadata: { annotations?: Record<string, string> };
  status: { phase?: string; podIP?: string; containerStatuses?: { containerID?: string; restartCount: number; ready: boolean }[] };
}

describe('static pods on k8ts agent keep running while the API server is down (real containers)', { timeout: 600_000 }, () => {
  let ns: NodeNetns | undefined;
  let registry: TestRegistry | undefined;
  let c: Cluster | undefined;
  let node: NetnsNode | undefined;
  let rt: RemoteRuntime | undefined;
  let manifests = '';

  const pod = (name: string): PodJSON | undefined => {
    const r = c!.kubectl(['get', 'pod', name, '-o', 'json'], { timeoutMs: 60_000 });
    return r.code === 0 ? (JSON.parse(r.stdout) as PodJSON) : undefined;
  };
  /** the running containers of static pod `name` (CRI, straight from the node's containerd) */
  const running = async (name: string) => (await rt!.listContainers({ state: 'CONTAINER_RUNNING', labelSelector: { [CRILabels.podName]: `${name}-${NODE}` } })).map((x) => x.id);

  before(async () => {
    ns = prepareNodeNetns();
    registry = await startRegistry({ address: ns.hostIP });
    await publishStandIns(registry.host);
    c = await startCluster({ args: ['--bind-address', ns.hostIP, '--cluster-cidr', TEST_CLUSTER_CIDR, '--service-cluster-ip-range', TEST_SERVICE_CIDR, '--disable-agent'] });
    manifests = join(c.dir, 'static-manifests');
    mkdirSync(manifests);
    writeFileSync(join(manifests, 'web.yaml'), manifest('web'));
    node = await startNetnsNode(c, ns, NODE, registry.host, ['--pod-manifest-path', manifests]);
    rt = await RemoteRuntime.connect(node.ctrd.endpoint, { waitMs: 5000, requestTimeoutMs: 30_000 });
  });
  after(async () => {
    await rt?.close();
    await node?.stop();
    await c?.stop();
    await registry?.stop();
    ns?.remove();
  });

  it('the static pod runs on the agent with its mirror pod', async () => {
    const p = await eventually(
      () => {
        const x = pod(`web-${NODE}`);
        return x?.status.phase === 'Running' && x.status.containerStatuses?.[0]?.ready ? x : undefined;
      },
      120_000,
      1000,
    ).catch((e) => {
      throw new Error(`${e}\nagent log:\n${node?.log().slice(-4000)}`);
    });
    assert.equal(p.metadata.annotations?.['kubernetes.io/config.source'], 'file');
    assert.match(await httpGet(p.status.podIP!), /Welcome to nginx!/);
  });

  it('kill -9 of the server: the static pod keeps running and serving, a new manifest starts, both are mirrored once the server is back', async () => {
    const before = pod(`web-${NODE}`)!;
    const ip = before.status.podIP!;
    const containerID = before.status.containerStatuses![0]!.containerID!;
    assert.deepEqual(await running('web'), [containerID.replace('containerd://', '')]);
    await c!.kill();
    // the proving event: the agent's kubelet keeps calling the API server, which is gone —
    // a listener on its address counts the connections and drops each at once
    let attempts = 0;
    const down = createServer((sock) => {
      attempts++;
      sock.destroy();
    });
    await new Promise<void>((r) => down.listen(c!.port, ns!.hostIP, r));
    await eventually(() => attempts >= 1, 60_000, 200);
    assert.match(await httpGet(ip), /Welcome to nginx!/, 'still serving with the API server down');
    assert.deepEqual(await running('web'), [containerID.replace('containerd://', '')], 'the same container, still running');

    // a static pod added while the API server is down starts from its file alone
    writeFileSync(join(manifests, 'web2.yaml'), manifest('web2'));
    const started = await eventually(
      async () => {
        const ids = await running('web2');
        return ids.length === 1 ? ids[0] : undefined;
      },
      120_000,
      1000,
    );
    // the kubelet went on failing to reach the API server while it started web2 and kept web
    const seen = attempts;
    await eventually(() => attempts > seen, 60_000, 200);
    assert.deepEqual(await running('web'), [containerID.replace('containerd://', '')]);
    assert.match(await httpGet(ip), /Welcome to nginx!/);
    console.log(`# ${attempts} API connections refused while the server was down`);
    await new Promise<void>((r) => down.close(() => r()));

    await c!.restart();
    const back = await eventually(
      () => {
        const x = pod(`web2-${NODE}`);
        return x?.status.phase === 'Running' ? x : undefined;
      },
      90_000,
      1000,
    ).catch((e) => {
      throw new Error(`${e}\npods:\n${c!.kubectl(['get', 'pods', '-o', 'wide']).stdout}\nnode:\n${c!.kubectl(['get', 'nodes']).stdout}\nagent log:\n${node!.log().slice(-4000)}`);
    });
    assert.equal(back.status.containerStatuses![0]!.containerID, `containerd://${started}`, 'the mirror pod shows the container that started without the API server');
    const web = pod(`web-${NODE}`)!;
    assert.equal(web.status.containerStatuses![0]!.containerID, containerID);
    assert.equal(web.status.containerStatuses![0]!.restartCount, 0);
    assert.match(await httpGet(ip), /Welcome to nginx!/);
  });
});

/**
 * The SIMULATED cluster network: two simulated runtimes (two nodes) sharing one pod
 * directory, a cluster network answering names, one Service and a policy predicate; the
 * shell's wget, nc and nslookup in a client pod on one node reach the nginx pod on the
 * other through the Service, and time out (on the simulated clock) when a policy denies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../../util/fake-clock.js';
import type { PodSandboxConfig } from '../api.js';
import { SimPodDirectory, type SimClusterNetwork } from './cluster-net.js';
import { SimRuntime } from './runtime.js';

async function node(clock: FakeClock, cidr: string, root: string, name: string, image: string, command: string[]) {
  const rt = new SimRuntime({ clock, podCIDR: cidr });
  const sb: PodSandboxConfig = {
    metadata: { name, uid: `uid-${name}`, namespace: 'default', attempt: 0 },
    hostname: name,
    logDirectory: join(root, 'kubelet', 'logs', `default_${name}_uid-${name}`),
    dnsConfig: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], options: ['ndots:5'] },
    portMappings: [],
    labels: {},
    annotations: {},
  };
  const sid = await rt.runPodSandbox(sb);
  await rt.pullImage({ image });
  const id = await rt.createContainer(
    sid,
    {
      metadata: { name: 'c', attempt: 0 },
      image: { image, userSpecifiedImage: image },
      command,
      args: [],
      workingDir: '',
      envs: [],
      mounts: [],
      labels: {},
      annotations: {},
      logPath: 'c/0.log',
      stdin: false,
      stdinOnce: false,
      tty: false,
    },
    sb,
  );
  await rt.startContainer(id);
  const ip = (await rt.podSandboxStatus(sid)).network?.ip ?? '';
  return { rt, id, ip };
}

test('simulated pods reach a Service on another simulated node by name; NetworkPolicy denials time out', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-sim-net-'));
  const clock = new FakeClock();
  const web = await node(clock, '10.6.0.0/24', root, 'web', 'nginx:1.14.2', []);
  const client = await node(clock, '10.5.0.0/24', root, 'client', 'busybox:1.36', ['sleep', '3600']);
  t.after(async () => (await web.rt.close(), await client.rt.close(), rmSync(root, { recursive: true, force: true })));
  const denied = new Set<string>();
  const net: SimClusterNetwork = {
    resolve: (name, conf) => {
      const tries = name.split('.').length - 1 >= conf.ndots ? [name] : [...conf.search.map((d) => `${name}.${d}`), name];
      const hit = tries.find((n) => n === 'web.default.svc.cluster.local');
      return hit ? { name: hit, addresses: ['10.96.5.5'] } : undefined;
    },
    service: (ip, port) => (ip === '10.96.5.5' ? (port === 80 ? { ip: web.ip, port: 80 } : 'refused') : undefined),
    allowed: (from, to, port, proto) => !denied.has(`${from}>${to}:${port}/${proto}`),
  };
  const pods = new SimPodDirectory();
  web.rt.setClusterNetwork({ net, pods });
  client.rt.setClusterNetwork({ net, pods });
  const sh = async (script: string) => {
    const p = client.rt.execSync(client.id, ['sh', '-c', script], 30);
    await clock.advanceUntil(() => false, 6000, 500);
    const r = await p;
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
  };

  const ok = await sh('wget -qO- http://web');
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /Welcome to nginx!/);
  assert.match((await sh('wget -qO- http://web.default.svc.cluster.local/')).out, /Welcome to nginx!/);
  const ns = await sh('nslookup web');
  assert.equal(ns.out, 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tweb.default.svc.cluster.local\nAddress: 10.96.5.5\n\n');
  const nx = await sh('nslookup nope');
  assert.equal(nx.code, 1);
  assert.match(nx.out, /\*\* server can't find nope: NXDOMAIN/);
  const viaNc = await sh(`printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 web 80`);
  assert.match(viaNc.out, /^HTTP\/1\.0 200 OK\r\n[\s\S]*Welcome to nginx!/);
  assert.match((await sh('wget -qO- http://web:8080/')).err, /wget: can't connect to remote host \(10\.96\.5\.5\): Connection refused/);
  assert.match((await sh('wget -qO- http://nope/')).err, /wget: bad address 'nope'/);

  denied.add(`${client.ip}>${web.ip}:80/TCP`);
  const t1 = clock.now();
  const blocked = await sh('wget -T 2 -qO- http://web');
  assert.equal(blocked.code, 1);
  assert.equal(blocked.err, 'wget: download timed out\n');
  assert.ok(clock.now() - t1 >= 2000, 'the timeout ran on the clock');
  const ncBlocked = await sh('echo | nc -w 2 web 80');
  assert.deepEqual([ncBlocked.code, ncBlocked.err], [1, 'nc: timed out\n']);

  denied.add(`${client.ip}>10.96.0.10:53/UDP`);
  const dnsBlocked = await sh('nslookup web');
  assert.deepEqual([dnsBlocked.code, dnsBlocked.out], [1, ';; connection timed out; no servers could be reached\n\n']);
});

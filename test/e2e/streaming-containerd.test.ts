/**
 * kubectl logs / exec / attach / port-forward on real containers: the API server,
 * a kubelet on containerd (through CRI) and the kubelet server run in this process;
 * containerd's streaming server is reached over SPDY. Needs root, containerd,
 * runc, CNI plugins, docker-registry and umoci (scripts/install-deps.sh).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node } from 'kubernetes-types/core/v1.js';
import type { UserInfo } from '../../src/api/resource.js';
import { allDefinitions } from '../../src/api/all.js';
import { APIServer } from '../../src/apiserver/apiserver.js';
import { namespaceLifecycle } from '../../src/apiserver/admission/plugins/namespace-lifecycle.js';
import { bootstrapCluster } from '../../src/apiserver/bootstrap/bootstrap.js';
import { ensurePKI } from '../../src/pki/pki.js';
import { KubeletClient, type KubeletLocation } from '../../src/apiserver/proxy/kubelet.js';
import { createUpgradeHandler } from '../../src/apiserver/proxy/upgrade.js';
import { listen } from '../../src/apiserver/server.js';
import { podAttachHandler } from '../../src/apiserver/subresources/pod-attach.js';
import { podExecHandler } from '../../src/apiserver/subresources/pod-exec.js';
import { podLogHandler } from '../../src/apiserver/subresources/pod-log.js';
import { podPortForwardHandler } from '../../src/apiserver/subresources/pod-portforward.js';
import { writeKubeconfig } from '../../src/cli/kubeconfig.js';
import { ClientEventRecorder } from '../../src/client/events.js';
import { RestClient } from '../../src/client/rest-client.js';
import { InProcessTransport } from '../../src/apiserver/loopback.js';
import { RemoteRuntime } from '../../src/cri/remote/remote.js';
import { startKubelet, type KubeletHandle } from '../../src/kubelet/index.js';
import { defaultHostIP } from '../../src/kubelet/nodestatus/setters.js';
import { startKubeletServer, type KubeletServer } from '../../src/kubelet/server/server.js';
import { issueKubeletServingCert } from '../../src/kubelet/server/tls.js';
import { openStorage } from '../../src/storage/index.js';
import type { Storage } from '../../src/storage/interface.js';
import { startTestContainerd, type TestContainerd } from '../support/containerd.js';
import { publishTestImages } from '../support/images.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import { eventually, kubectlPath } from './harness.js';

const NODE = 'ctrd-node';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('e2e: kubectl logs, exec, attach, port-forward on containerd', () => {
  let dir: string;
  let registry: TestRegistry;
  let ctrd: TestContainerd;
  let runtime: RemoteRuntime;
  let storage: Storage;
  let api: APIServer;
  let server: Awaited<ReturnType<typeof listen>>;
  let upgrades: ReturnType<typeof createUpgradeHandler>;
  let kubelet: KubeletHandle | undefined;
  let ks: KubeletServer;
  let kubeletClient: KubeletClient;
  let kubeconfig: string;
  let images: { busybox: string; httpd: string };
  const procs = new Set<ReturnType<typeof spawn>>();

  /** kubectl without blocking this process (the cluster runs in it). */
  function kubectl(args: string[], o: { input?: string; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<Run> & { out(): string } {
    const p = spawn(kubectlPath(), ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'kube-cache'), ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...o.env },
    });
    procs.add(p);
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    if (o.input !== undefined) p.stdin.end(o.input);
    else p.stdin.end();
    const t = setTimeout(() => p.kill('SIGKILL'), o.timeoutMs ?? 60_000);
    const done = new Promise<Run>((resolve) =>
      p.on('exit', (code) => {
        procs.delete(p);
        clearTimeout(t);
        resolve({ code: code ?? -1, stdout, stderr });
      }),
    ) as Promise<Run> & { out(): string };
    done.out = () => stdout;
    return done;
  }

  async function apply(name: string, yaml: string): Promise<void> {
    const f = join(dir, `${name}.yaml`);
    writeFileSync(f, yaml);
    const r = await kubectl(['apply', '-f', f]);
    assert.equal(r.code, 0, r.stderr);
  }

  async function running(name: string): Promise<void> {
    const r = await kubectl(['wait', '--for=jsonpath={.status.phase}=Running', `pod/${name}`, '--timeout=90s'], { timeoutMs: 100_000 });
    assert.equal(r.code, 0, `${r.stderr}\n${(await kubectl(['describe', 'pod', name])).stdout}`);
  }

  function pod(name: string, image: string, command: string[] | undefined, restartPolicy = 'Always'): string {
    return [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      `  name: ${name}`,
      'spec:',
      `  nodeName: ${NODE}`,
      `  restartPolicy: ${restartPolicy}`,
      '  terminationGracePeriodSeconds: 1',
      '  containers:',
      '  - name: c',
      `    image: ${image}`,
      ...(command ? [`    command: ${JSON.stringify(command)}`] : []),
      '',
    ].join('\n');
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-ctrd-'));
    registry = await startRegistry();
    const pub = await publishTestImages(registry.host);
    images = { busybox: 'busybox:1.36', httpd: pub.httpd };
    ctrd = await startTestContainerd({ mirror: registry.host });
    runtime = await RemoteRuntime.connect(ctrd.endpoint);

    const pki = await ensurePKI(dir, ['localhost'], ['127.0.0.1']);
    storage = await openStorage({ kind: 'sqlite', dataDir: dir });
    kubeletClient = new (class extends KubeletClient {
      override location(node: Node): KubeletLocation {
        // the Node reports the default port until the kubelet publishes its own (see report): use the test server's
        return { ...super.location(node), port: ks.port };
      }
    })({ cert: pki.loopback.cert, key: pki.loopback.key, ca: pki.ca.cert });
    api = new APIServer({
      storage,
      definitions: allDefinitions({ serviceCIDR: '10.96.0.0/12' }),
      subresources: [podLogHandler(kubeletClient), podExecHandler(kubeletClient), podAttachHandler(kubeletClient), podPortForwardHandler(kubeletClient)],
      admission: [namespaceLifecycle],
      serverAddress: '127.0.0.1:6443',
    });
    await api.start();
    upgrades = createUpgradeHandler(api);
    server = await listen(api, { host: '127.0.0.1', port: 0, cert: pki.server.cert, key: pki.server.key, clientCA: pki.ca.cert }, upgrades);
    const port = (server.address() as { port: number }).port;
    kubeconfig = join(dir, 'kubeconfig.yaml');
    writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${port}`, caPEM: pki.ca.cert, certPEM: pki.admin.cert, keyPEM: pki.admin.key });
    const clientFor = (u: UserInfo) => new RestClient(new InProcessTransport(api, u));
    await bootstrapCluster(clientFor({ username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] }), {
      advertiseAddress: defaultHostIP(),
      securePort: port,
      kubernetesServiceIP: '10.96.0.1',
    });

    const cert = await issueKubeletServingCert(pki.ca, NODE);
    ks = await startKubeletServer({
      runtime,
      nodeName: NODE,
      podLookup: (ns, name) => {
        const p = kubelet?.kubelet.knownPods().find((x) => x.metadata?.namespace === ns && x.metadata?.name === name);
        const st = p && kubelet!.kubelet.status.get(p.metadata!.uid!);
        return p && st ? { ...p, status: st } : p;
      },
      tls: { cert: cert.cert, key: cert.key, clientCA: pki.ca.cert },
      port: 0,
      address: '127.0.0.1',
      logRoot: join(dir, 'kubelet', 'logs'),
    });
    const nodeClient = clientFor({ username: `system:node:${NODE}`, groups: ['system:nodes', 'system:authenticated'] });
    kubelet = await startKubelet({
      client: nodeClient,
      runtime,
      nodeName: NODE,
      dataDir: dir,
      podCIDR: ctrd.podCIDR,
      nodeIP: '127.0.0.1',
      recorder: new ClientEventRecorder(nodeClient, { component: 'kubelet', host: NODE }),
    });

    await apply('logger', pod('logger', images.busybox, ['sh', '-c', 'echo line1; echo line2 >&2; head -c 20000 /dev/zero | tr "\\0" x; echo; echo line4; exec sleep 3600']));
    await apply('web', pod('web', images.httpd, undefined));
    await running('logger');
    await running('web');
  });

  after(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await kubelet?.stop().catch(() => undefined);
    await ks?.close().catch(() => undefined);
    kubeletClient?.close();
    upgrades?.closeAll();
    if (server) await new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())));
    api?.stop();
    await storage?.close().catch(() => undefined);
    await runtime?.close().catch(() => undefined);
    await ctrd?.stop().catch(() => undefined);
    await registry?.stop().catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl logs joins the runtime’s partial lines (a 20000-byte line comes back whole)', async () => {
    const out = await eventually(async () => {
      const r = await kubectl(['logs', 'logger']);
      return r.stdout.includes('line4') ? r.stdout : '';
    }, 30_000);
    // stdout and stderr reach the log through separate pipes: their relative order is not fixed
    const lines = out.split('\n');
    assert.deepEqual(
      [lines.slice(0, 2).sort(), lines.slice(3)],
      [
        ['line1', 'line2'],
        ['line4', ''],
      ],
    );
    assert.ok(lines[2] === 'x'.repeat(20000), `the long line came back as ${lines[2]!.length} bytes`);
    assert.equal((await kubectl(['logs', 'logger', '--tail=1'])).stdout, 'line4\n');
    // one timestamp per line, also for the line the runtime wrote as several partial entries
    const ts = (await kubectl(['logs', 'logger', '--timestamps'])).stdout.split('\n');
    const stamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d) /;
    assert.equal(ts.length, 5);
    for (const l of ts.slice(0, 4)) assert.match(l.slice(0, 40), stamp);
    assert.ok(ts[2]!.replace(stamp, '') === 'x'.repeat(20000), 'the long line carries a single timestamp');
  });

  it('kubectl logs -f follows a real process until it exits', async () => {
    await apply('counter', pod('counter', images.busybox, ['sh', '-c', 'for i in 1 2 3; do echo tick $i; sleep 1; done'], 'Never'));
    await running('counter');
    const r = await kubectl(['logs', '-f', 'counter'], { timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /tick 3\n$/);
  });

  it('kubectl logs -p shows the previous container of a restarted pod', async () => {
    await apply('crasher', pod('crasher', images.busybox, ['sh', '-c', 'echo run $(cat /proc/sys/kernel/random/uuid); exit 1']));
    await eventually(async () => Number((await kubectl(['get', 'pod', 'crasher', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}'])).stdout) >= 1, 60_000, 1000);
    const p = await kubectl(['logs', 'crasher', '-p']);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /^run [0-9a-f-]{36}\n$/);
  });

  it('kubectl exec: output, exit codes, stdin to EOF', async () => {
    const hi = await kubectl(['exec', 'logger', '--', 'echo', 'hi']);
    assert.equal(hi.code, 0, hi.stderr);
    assert.equal(hi.stdout, 'hi\n');
    const host = await kubectl(['exec', 'logger', '--', 'hostname']);
    assert.equal(host.stdout, 'logger\n');
    const three = await kubectl(['exec', 'logger', '--', 'sh', '-c', 'echo oops >&2; exit 3']);
    assert.equal(three.code, 3);
    assert.match(three.stderr, /oops\n/);
    assert.match(three.stderr, /command terminated with exit code 3/);
    const cat = await kubectl(['exec', '-i', 'logger', '--', 'sh', '-c', 'wc -c; echo end'], { input: 'twelve bytes' });
    assert.equal(cat.code, 0, cat.stderr);
    assert.match(cat.stdout, /^\s*12\nend\n$/);
  });

  it('kubectl exec and port-forward over SPDY (the fallback when WebSockets are off)', async () => {
    const spdy = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false', KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' };
    const cat = await kubectl(['exec', '-i', 'logger', '--', 'sh', '-c', 'cat; exit 4'], { input: 'via spdy\n', env: spdy });
    assert.equal(cat.code, 4, cat.stderr);
    assert.equal(cat.stdout, 'via spdy\n');
    assert.match(cat.stderr, /command terminated with exit code 4/);
    const pf = kubectl(['port-forward', 'pod/web', ':80'], { timeoutMs: 60_000, env: spdy });
    const local = await eventually(() => /Forwarding from 127\.0\.0\.1:(\d+) -> 80/.exec(pf.out())?.[1], 20_000);
    const body = await new Promise<string>((resolve, reject) => {
      httpGet({ host: '127.0.0.1', port: Number(local), path: '/' }, (res) => {
        let b = '';
        res.on('data', (d: Buffer) => (b += d.toString()));
        res.on('end', () => resolve(b));
      }).on('error', reject);
    });
    assert.match(body, /k8ts busybox httpd/);
  });

  it('kubectl attach streams the main process output', async () => {
    await apply('late', pod('late', images.busybox, ['sh', '-c', 'sleep 3; echo late1; sleep 1; echo late2'], 'Never'));
    await running('late');
    const a = await kubectl(['attach', 'late'], { timeoutMs: 30_000 });
    assert.match(a.stdout, /late2\n/);
  });

  it('k8ts runtime ps|pods|images|logs inspect containerd over CRI', async () => {
    const rt = (args: string[]): Promise<Run> =>
      new Promise((resolve) => {
        const code =
          "import { Command } from 'commander'; import { runtimeCommand } from './src/cli/runtime.ts'; await new Command('k8ts').addCommand(runtimeCommand()).parseAsync(['node', 'k8ts', ...process.argv.slice(1)]);";
        const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, '--', 'runtime', '-r', ctrd.endpoint, ...args], {
          cwd: join(import.meta.dirname, '..', '..'),
        });
        let stdout = '';
        let stderr = '';
        p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        p.on('exit', (c) => resolve({ code: c ?? -1, stdout, stderr }));
      });
    const ps = await rt(['ps']);
    assert.equal(ps.code, 0, ps.stderr);
    assert.match(ps.stdout, /^CONTAINER\s+IMAGE\s+CREATED\s+STATE\s+NAME\s+ATTEMPT\s+POD ID\s+POD\n/);
    assert.match(ps.stdout, /\sRUNNING\s+c\s+0\s+[0-9a-f]{13}\s+logger\n/);
    const pods = await rt(['pods', '--name', '^web$']);
    assert.match(pods.stdout, /\sREADY\s+web\s+default\s+0\s/);
    const images = await rt(['images']);
    assert.match(images.stdout, /busybox\s+1\.36\s/);
    const id = (await kubectl(['get', 'pod', 'logger', '-o', 'jsonpath={.status.containerStatuses[0].containerID}'])).stdout.replace(/^containerd:\/\//, '');
    const logs = await rt(['logs', '--tail', '1', id.slice(0, 12)]);
    assert.equal(logs.code, 0, logs.stderr);
    assert.equal(logs.stdout, 'line4\n');
    const missing = await rt(['logs', 'nope']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /error: container "nope" not found/);
  });

  it('kubectl port-forward reaches the pod’s listener', async () => {
    const pf = kubectl(['port-forward', 'pod/web', ':80'], { timeoutMs: 60_000 });
    const local = await eventually(() => /Forwarding from 127\.0\.0\.1:(\d+) -> 80/.exec(pf.out())?.[1], 20_000);
    const fetchOnce = (): Promise<string> =>
      new Promise((resolve, reject) => {
        httpGet({ host: '127.0.0.1', port: Number(local), path: '/' }, (res) => {
          let b = '';
          res.on('data', (d: Buffer) => (b += d.toString()));
          res.on('end', () => resolve(b));
        }).on('error', reject);
      });
    assert.match(await fetchOnce(), /k8ts busybox httpd/);
    assert.match(await fetchOnce(), /k8ts busybox httpd/); // a second connection on the same session
  });
});

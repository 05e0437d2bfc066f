/**
 * An in-process cluster whose node runs real containers: the API server (HTTPS, with
 * pods/log, exec, attach, portforward proxied to the kubelet), the scheduler, a kubelet on a private
 * containerd through CRI, and the kubelet's HTTPS server, all in this process; a test
 * registry serves the stand-in images (containerd-images.ts) as mirror of docker.io and
 * registry.k8s.io. Driven with the real kubectl, spawned asynchronously (the cluster
 * lives in this process, so a blocking spawn would stall it).
 *
 * Needs root, containerd, runc, CNI plugins, docker-registry, umoci, gcc
 * (scripts/install-deps.sh). `stop()` removes every process, netns, bridge, mount and
 * cgroup it made (test/support/containerd.ts does the host part).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node } from 'kubernetes-types/core/v1.js';
import type { UserInfo } from '../../src/api/resource.js';
import { allDefinitions } from '../../src/api/all.js';
import { APIServer } from '../../src/apiserver/apiserver.js';
import { namespaceLifecycle } from '../../src/apiserver/admission/plugins/namespace-lifecycle.js';
import { bootstrapCluster } from '../../src/apiserver/bootstrap/bootstrap.js';
import { ensurePKI, type ClusterPKI } from '../../src/pki/pki.js';
import { KubeletClient, type KubeletLocation } from '../../src/apiserver/proxy/kubelet.js';
import { createUpgradeHandler } from '../../src/apiserver/proxy/upgrade.js';
import { listen } from '../../src/apiserver/server.js';
import { podAttachHandler } from '../../src/apiserver/subresources/pod-attach.js';
import { podBinding } from '../../src/apiserver/subresources/pod-binding.js';
import { podExecHandler } from '../../src/apiserver/subresources/pod-exec.js';
import { podLogHandler } from '../../src/apiserver/subresources/pod-log.js';
import { podPortForwardHandler } from '../../src/apiserver/subresources/pod-portforward.js';
import { writeKubeconfig } from '../../src/cli/kubeconfig.js';
import { ClientEventRecorder } from '../../src/client/events.js';
import { RestClient } from '../../src/client/rest-client.js';
import { InProcessTransport } from '../../src/apiserver/loopback.js';
import type { Client } from '../../src/client/types.js';
import { RemoteRuntime } from '../../src/cri/remote/remote.js';
import { startKubelet, type KubeletHandle } from '../../src/kubelet/index.js';
import { podTraceWiring } from '../../src/cli/pod-trace.js';
import { startScheduler } from '../../src/scheduler/index.js';
import { defaultHostIP } from '../../src/kubelet/nodestatus/setters.js';
import { startKubeletServer, type KubeletServer } from '../../src/kubelet/server/server.js';
import { issueKubeletServingCert } from '../../src/kubelet/server/tls.js';
import { openStorage } from '../../src/storage/index.js';
import type { Storage } from '../../src/storage/interface.js';
import { startTestContainerd, type TestContainerd } from '../support/containerd.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import { unmountUnder } from '../support/tmp.js';
import { publishStandIns } from './containerd-images.js';
import { kubectlPath } from './harness.js';
import { startNodeNetwork, type NodeNetwork } from '../../src/cli/node-network.js';
import { ensureKubeDNSService, startKubeDNSEndpoints } from '../../src/dns/index.js';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** How a kubectl run is fed. */
export interface KubectlOptions {
  /** written to stdin; stdin is then closed, unless `then` is given */
  input?: string;
  /** once stdout matches `when`, `input` is written and stdin closed (an interactive session) */
  then?: { when: RegExp; input: string };
  /** killed after this long (default 60 s) */
  timeoutMs?: number;
}

export interface ContainerdCluster {
  dir: string;
  /** the test registry (`127.0.0.1:<port>`), mirror of docker.io and registry.k8s.io */
  registry: string;
  nodeName: string;
  ctrd: TestContainerd;
  runtime: RemoteRuntime;
  /** an admin client (in process) */
  admin: Client;
  readonly kubelet: KubeletHandle;
  /** kubectl with this cluster's kubeconfig; never blocks the event loop */
  kubectl(args: string[], o?: KubectlOptions): Promise<Run>;
  /** writes `yaml` to a file and `kubectl apply -f`s it; throws on failure */
  apply(yaml: string, name?: string): Promise<void>;
  /** the node's network services (cluster DNS …), when started with `network: true` */
  network?: NodeNetwork;
  /** stops the kubelet (containers keep running) and starts a new one on the same data dir */
  restartKubelet(): Promise<void>;
  stop(): Promise<void>;
}

/** Options of {@link startContainerdCluster}. */
export interface ContainerdClusterOptions {
  /** also run the node's network services (src/cli/node-network.ts: cluster DNS) and the kube-dns Service; pods get --cluster-dns 10.96.0.10 */
  network?: boolean;
  /** record the pod creation trace (src/trace) as `k8ts server` does by default: API server, scheduler and kubelet report to one recorder */
  trace?: boolean;
}

/** Starts registry, containerd, API server, kubelet server and kubelet. */
export async function startContainerdCluster(nodeName = 'ctrd-node', opts: ContainerdClusterOptions = {}): Promise<ContainerdCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-pods-'));
  const procs = new Set<ChildProcess>();
  let registry: TestRegistry | undefined;
  let ctrd: TestContainerd | undefined;
  let runtime: RemoteRuntime | undefined;
  let storage: Storage | undefined;
  let api: APIServer | undefined;
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  let ks: KubeletServer | undefined;
  let kubeletClient: KubeletClient | undefined;
  let kubelet: KubeletHandle | undefined;
  let scheduler: Awaited<ReturnType<typeof startScheduler>> | undefined;
  let network: NodeNetwork | undefined;
  let kubeDNS: { stop(): void } | undefined;
  const stop = async (): Promise<void> => {
    for (const p of procs) p.kill('SIGKILL');
    await scheduler?.stop().catch(() => undefined);
    await kubelet?.stop().catch(() => undefined);
    kubeDNS?.stop();
    await network?.stop().catch(() => undefined);
    await ks?.close().catch(() => undefined);
    kubeletClient?.close();
    if (server) await new Promise<void>((r) => (server!.closeAllConnections(), server!.close(() => r())));
    api?.stop();
    await storage?.close().catch(() => undefined);
    await runtime?.close().catch(() => undefined);
    await ctrd?.stop().catch(() => undefined);
    await registry?.stop().catch(() => undefined);
    unmountUnder(dir); // tmpfs emptyDirs of pods still there
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    registry = await startRegistry();
    await publishStandIns(registry.host);
    ctrd = await startTestContainerd({ mirror: registry.host });
    runtime = await RemoteRuntime.connect(ctrd.endpoint);
    const pki: ClusterPKI = await ensurePKI(dir, ['localhost'], ['127.0.0.1']);
    storage = await openStorage({ kind: 'sqlite', dataDir: dir });
    kubeletClient = new (class extends KubeletClient {
      override location(node: Node): KubeletLocation {
        return { ...super.location(node), host: '127.0.0.1' };
      }
    })({ cert: pki.loopback.cert, key: pki.loopback.key, ca: pki.ca.cert });
    const trace = podTraceWiring(opts.trace === true);
    api = new APIServer({
      storage,
      definitions: [...allDefinitions({ serviceCIDR: '10.96.0.0/12' }), ...(trace?.apiServer.definitions ?? [])],
      virtualResources: trace?.apiServer.virtualResources,
      storeConsumers: trace?.apiServer.storeConsumers,
      requestTracer: trace?.apiServer.requestTracer,
      subresources: [podBinding, podLogHandler(kubeletClient), podExecHandler(kubeletClient), podAttachHandler(kubeletClient), podPortForwardHandler(kubeletClient)],
      admission: [namespaceLifecycle],
      serverAddress: '127.0.0.1:6443',
    });
    await api.start();
    server = await listen(api, { host: '127.0.0.1', port: 0, cert: pki.server.cert, key: pki.server.key, clientCA: pki.ca.cert }, createUpgradeHandler(api));
    const port = (server.address() as { port: number }).port;
    const kubeconfig = join(dir, 'kubeconfig.yaml');
    writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${port}`, caPEM: pki.ca.cert, certPEM: pki.admin.cert, keyPEM: pki.admin.key });
    const apiRef = api;
    const clientFor = (u: UserInfo): Client => new RestClient(new InProcessTransport(apiRef, u));
    const admin = clientFor({ username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] });
    await bootstrapCluster(admin, { advertiseAddress: defaultHostIP(), securePort: port, kubernetesServiceIP: '10.96.0.1' });

    const cert = await issueKubeletServingCert(pki.ca, nodeName);
    const rt = runtime;
    ks = await startKubeletServer({
      runtime: rt,
      nodeName,
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
    const nodeClient = clientFor({ username: `system:node:${nodeName}`, groups: ['system:nodes', 'system:authenticated'] });
    const c = ctrd;
    const clusterDNS = opts.network ? ['10.96.0.10'] : undefined;
    if (opts.network) {
      await ensureKubeDNSService(admin, '10.96.0.10');
      kubeDNS = startKubeDNSEndpoints(admin);
      network = await startNodeNetwork({
        client: nodeClient,
        nodeName,
        podCIDR: c.podCIDR,
        clusterDNS: clusterDNS!,
        clusterDomain: 'cluster.local',
        podNetwork: true,
        upstreams: [],
        log: (m, e) => process.env.K8TS_E2E_DEBUG && console.error(`[network] ${m}`, e ?? ''),
      });
    }
    const kubeletPort = ks.port;
    const startK = (): Promise<KubeletHandle> =>
      startKubelet({
        client: nodeClient,
        runtime: rt,
        nodeName,
        dataDir: dir,
        podCIDR: c.podCIDR,
        nodeIP: defaultHostIP(),
        kubeletPort,
        clusterDNS,
        cgroupRoot: c.cgroupParent,
        recorder: new ClientEventRecorder(nodeClient, { component: 'kubelet', host: nodeName }),
        log: (m, e) => process.env.K8TS_E2E_DEBUG && console.error(`[kubelet] ${m}`, e ?? ''),
        trace: trace?.recorder,
      });
    kubelet = await startK();
    const schedClient = clientFor({ username: 'system:kube-scheduler', groups: ['system:authenticated'] });
    scheduler = await startScheduler({ client: schedClient, recorder: new ClientEventRecorder(schedClient, { component: 'default-scheduler' }), trace: trace?.recorder });

    const kubectl = (args: string[], o: KubectlOptions = {}): Promise<Run> => {
      const p = spawn(kubectlPath(), ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'kube-cache'), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      procs.add(p);
      let stdout = '';
      let stderr = '';
      let then = o.then;
      p.stdout!.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (then && then.when.test(stdout)) {
          p.stdin!.end(then.input);
          then = undefined;
        }
      });
      p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      p.stdin!.on('error', () => undefined);
      if (then) p.stdin!.write(o.input ?? '');
      else p.stdin!.end(o.input ?? '');
      const t = setTimeout(() => p.kill('SIGKILL'), o.timeoutMs ?? 60_000);
      return new Promise((resolve) =>
        p.on('close', (code) => {
          procs.delete(p);
          clearTimeout(t);
          resolve({ code: code ?? -1, stdout, stderr });
        }),
      );
    };
    let n = 0;
    return {
      dir,
      registry: registry.host,
      nodeName,
      ctrd,
      runtime,
      admin,
      get kubelet() {
        return kubelet!;
      },
      network,
      kubectl,
      async apply(yaml, name = `m${n++}`) {
        const f = join(dir, `${name}.yaml`);
        writeFileSync(f, yaml);
        const r = await kubectl(['apply', '-f', f]);
        if (r.code !== 0) throw new Error(`kubectl apply -f ${name}: ${r.stderr}`);
      },
      async restartKubelet() {
        await kubelet?.stop();
        kubelet = undefined;
        kubelet = await startK();
        const schedClient = clientFor({ username: 'system:kube-scheduler', groups: ['system:authenticated'] });
        scheduler = await startScheduler({ client: schedClient, recorder: new ClientEventRecorder(schedClient, { component: 'default-scheduler' }), trace: trace?.recorder });
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

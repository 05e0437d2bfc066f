/**
 * One node's agent: its container runtime (managed containerd, a CRI endpoint, or the
 * simulated runtime), the kubelet's HTTPS server and the kubelet itself. Used by
 * `k8ts server` (the local node and simulated nodes) and `k8ts agent` (a joined node).
 */
import type { PodTraceSink } from '../trace/recorder.js';
import { join, resolve } from 'node:path';
import { loadKubeletConfigFile } from '../kubelet/config/kubelet-config.js';
import type { KeyPairPEM } from '../pki/pki.js';
import { ClientEventRecorder } from '../client/events.js';
import type { Client } from '../client/types.js';
import type { Runtime } from '../cri/api.js';
import { SimRuntime } from '../cri/sim/index.js';
import { startKubelet, type KubeletHandle, type ProcessPod } from '../kubelet/index.js';
import { startNodeRuntime, type NodeRuntime } from '../cri/runtime-setup.js';
import { startKubeletServer } from '../kubelet/server/server.js';
import { kubeletStats } from '../kubelet/stats/index.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { pauseImageLayout } from './pause-image.js';
import { startNodeCSI, type RunningNodeCSI } from './csi-node.js';
import { startNodeNetwork, startSimClusterNetwork, type SimNetworkHandle } from './node-network.js';
import { startServiceProxy, type ServiceProxyFlags } from '../proxy/node-proxy.js';
import { HostGatewayRoutes } from '../hostgw/controller.js';
import { defaultHostIP } from '../kubelet/nodestatus/setters.js';
import { formatKlogLine } from '../util/klog.js';

/** The node runtime flags shared by `k8ts server` and `k8ts agent`. */
export interface RuntimeFlags {
  /**
   * `--runtime`: remote (CRI; fails when no runtime is available), sim (simulated), or
   * auto (remote when an endpoint is given or a managed containerd can run, else sim
   * with the reason in the banner)
   */
  runtime: 'sim' | 'remote' | 'auto';
  /** `--container-runtime-endpoint` (implies a remote runtime) */
  containerRuntimeEndpoint?: string;
  /** `--pause-image` for a managed containerd */
  pauseImage?: string;
  /** `--registries`: k3s-style registries.yaml for a managed containerd */
  registries?: string;
  /** `--cgroup-root` for pod cgroups on a remote runtime */
  cgroupRoot?: string;
  /** `--pod-manifest-path`: static pod manifests (wins over the config file's staticPodPath) */
  podManifestPath?: string;
  /** `--kubelet-config`: the kubelet's KubeletConfiguration file (upstream kubelet `--config`) */
  kubeletConfig?: string;
  /** kubelet `--cluster-dns`: the kube-dns ClusterIP pods get as nameserver (server default: the 10th address of the service CIDR) */
  clusterDNS?: string;
  /** kubelet `--cluster-domain` (default cluster.local) */
  clusterDomain?: string;
  /** `--v`: log verbosity of the kubelet and the CSI driver (4: every CSI call) */
  verbosity?: number;
  /** run the built-in CSI driver `k8ts csi-hostpath` and its sidecars on this node (default true; `--no-csi-hostpath`) */
  csiHostpath?: boolean;
  /** kubelet `--volume-stats-agg-period`, ms (wins over the config file's volumeStatsAggPeriod; default 1m, 0 disables) */
  volumeStatsAggPeriodMs?: number;
}

export interface NodeOptions {
  client: Client;
  nodeName: string;
  /** the node's data dir (kubelet files, managed containerd) */
  dataDir: string;
  podCIDR: string;
  /** the real runtime per flags, or always the simulated one (simulated nodes) */
  runtime: RuntimeFlags | 'sim';
  /** the kubelet server's certificate and the CA whose client certificates it accepts */
  servingCert: KeyPairPEM;
  clientCA: string;
  /** kubelet server port (0 = free port) */
  kubeletPort: number;
  /** where to build an offline pause image (defaults to dataDir) */
  imagesDir?: string;
  /** in-process control-plane components shown as this node's static pods */
  processPods?: ProcessPod[];
  /** kubelet --cluster-dns / --cluster-domain (default 10.96.0.10, cluster.local) */
  clusterDNS?: string;
  clusterDomain?: string;
  /** the pod creation trace (src/trace) */
  trace?: PodTraceSink;
  /** the SIMULATED cluster network shared by the process's simulated nodes (default: one of its own) */
  simNetwork?: () => Promise<SimNetworkHandle>;
  /** the kubelet's `--node-ip` (default: the host's first IPv4) */
  nodeIP?: string;
  /** the service proxy (src/proxy), run on real-runtime nodes unless disabled */
  proxy?: ServiceProxyFlags;
}

export interface RunningNode {
  /** banner text for the runtime */
  runtimeDescription: string;
  kubeletPort: number;
  stop(): Promise<void>;
}

/**
 * The kubelet's error log: one klog text line on stderr per error, as upstream's kubelet
 * writes its `klog.ErrorS(err, msg)` lines (`E1201 13:37:43.768051    3854 kubelet] "msg" err="…"`).
 */
function kubeletLog(msg: string, err?: unknown): void {
  const kv = err === undefined ? {} : { err: err instanceof Error ? err.message : String(err) };
  process.stderr.write(`${formatKlogLine('E', Date.now(), process.pid, 'kubelet', msg, kv)}\n`);
}

export async function startNode(o: NodeOptions): Promise<RunningNode> {
  // the kubelet's own configuration: only the real local node has one (simulated nodes do not)
  const kf: Partial<RuntimeFlags> = o.runtime === 'sim' ? {} : o.runtime;
  const fileConfig = kf.kubeletConfig ? loadKubeletConfigFile(kf.kubeletConfig) : {};
  const staticPodPath = kf.podManifestPath || fileConfig.staticPodPath;
  let runtime: Runtime;
  let stopRuntime: () => Promise<void>;
  let description: string;
  if (o.runtime === 'sim') {
    const sim = new SimRuntime({ podCIDR: o.podCIDR, stateDir: join(o.dataDir, 'sim-runtime') });
    runtime = sim;
    stopRuntime = () => sim.close();
    description = 'sim (SIMULATED containers: no processes run)';
  } else {
    const f = o.runtime;
    const wantRemote = f.runtime !== 'sim' || !!f.containerRuntimeEndpoint;
    const nr: NodeRuntime = await startNodeRuntime({
      runtime: wantRemote ? 'remote' : 'sim',
      endpoint: f.containerRuntimeEndpoint,
      dataDir: o.dataDir,
      podCIDR: o.podCIDR,
      pauseImage: f.pauseImage,
      registriesFile: f.registries,
      pauseImageLayout: wantRemote && !f.containerRuntimeEndpoint ? pauseImageLayout(o.imagesDir ?? o.dataDir) : undefined,
    });
    if (f.runtime === 'remote' && nr.kind === 'sim') {
      await nr.stop();
      throw new Error(`--runtime remote: ${nr.reason ?? 'no container runtime available'}`);
    }
    runtime = nr.runtime;
    stopRuntime = () => nr.stop();
    description = nr.description;
  }
  const flags = o.runtime === 'sim' ? undefined : o.runtime;
  const clusterDNS = [o.clusterDNS ?? flags?.clusterDNS ?? '10.96.0.10'];
  const clusterDomain = o.clusterDomain ?? flags?.clusterDomain ?? 'cluster.local';
  const proxyOn = !!o.proxy && !o.proxy.disabled && runtime.kind === 'remote';
  let network: { stop(): Promise<void> };
  try {
    if (runtime instanceof SimRuntime) {
      // simulated pods: the SIMULATED cluster network, shared by the process's simulated nodes when given
      const own = !o.simNetwork;
      const sim: SimNetworkHandle = await (o.simNetwork?.() ?? startSimClusterNetwork({ client: o.client, nodeName: o.nodeName, clusterDNS: clusterDNS[0]!, clusterDomain }));
      runtime.setClusterNetwork(sim.deps);
      network = { stop: async () => (own ? sim.stop() : undefined) };
    } else {
      network = await startNodeNetwork({
        client: o.client,
        nodeName: o.nodeName,
        podCIDR: o.podCIDR,
        clusterDNS,
        clusterDomain,
        podNetwork: runtime.features.podNetwork,
        serviceProxy: proxyOn,
      });
    }
  } catch (e) {
    await stopRuntime();
    throw e;
  }
  // the service proxy (after containment routes) before any pod exists; simulated nodes have no packets to proxy
  let proxy: Awaited<ReturnType<typeof startServiceProxy>> | undefined;
  if (proxyOn) {
    try {
      proxy = await startServiceProxy({ client: o.client, nodeName: o.nodeName, flags: o.proxy!, nodeIP: o.nodeIP ?? defaultHostIP() });
    } catch (e) {
      await network.stop();
      await stopRuntime();
      throw e;
    }
  }
  // pods on other nodes by pod IP: flannel host-gw routes (real pod networks only)
  let routes: HostGatewayRoutes | undefined;
  if (o.proxy && o.proxy.flannelBackend !== 'none' && runtime.kind === 'remote' && runtime.features.podNetwork) {
    routes = new HostGatewayRoutes({ client: o.client, nodeName: o.nodeName, clusterCIDR: o.proxy.clusterCIDR, publicIP: o.nodeIP });
    void routes.start().catch((e: unknown) => console.error(`host-gw: start failed: ${(e as Error).message}`));
  }
  let k: KubeletHandle | undefined;
  const runningPods = (): Pod[] => (k ? k.kubelet.knownPods().map((p) => ({ ...p, status: k!.kubelet.status.get(p.metadata!.uid!) ?? p.status })) : []);
  const cgroupRoot = runtime.kind === 'remote' ? (o.runtime !== 'sim' && o.runtime.cgroupRoot) || '/' : undefined;
  const stats = kubeletStats(runtime, o.nodeName, runningPods, cgroupRoot, (uid) => k?.volumeStats.get(uid));
  const ks = await startKubeletServer({
    ...stats,
    runtime,
    nodeName: o.nodeName,
    podLookup: (ns, name) => {
      const p = k?.kubelet.knownPods().find((x) => x.metadata?.namespace === ns && x.metadata?.name === name);
      const st = p && k!.kubelet.status.get(p.metadata!.uid!);
      return p && st ? { ...p, status: st } : p;
    },
    tls: { cert: o.servingCert.cert, key: o.servingCert.key, clientCA: o.clientCA },
    port: o.kubeletPort,
    logRoot: join(o.dataDir, 'kubelet', 'logs'),
    isProcessPod: (p) => k?.kubelet.isProcessPod(p) ?? false,
  });
  try {
    k = await startKubelet({
      client: o.client,
      runtime,
      nodeName: o.nodeName,
      dataDir: o.dataDir,
      podCIDR: o.podCIDR,
      kubeletPort: ks.port,
      clusterDNS,
      clusterDomain,
      nodeIP: o.nodeIP,
      cgroupRoot,
      recorder: new ClientEventRecorder(o.client, { component: 'kubelet', host: o.nodeName }),
      staticPodPath: staticPodPath ? resolve(staticPodPath) : undefined,
      fileCheckFrequencyMs: fileConfig.fileCheckFrequencyMs,
      syncFrequencyMs: fileConfig.syncFrequencyMs,
      processPods: o.processPods,
      verbosity: o.runtime !== 'sim' ? o.runtime.verbosity : undefined,
      trace: o.trace,
      log: kubeletLog,
      volumeStatsAggPeriodMs: kf.volumeStatsAggPeriodMs ?? fileConfig.volumeStatsAggPeriodMs,
    });
  } catch (e) {
    await ks.close();
    await network.stop();
    routes?.stop();
    await proxy?.stop();
    await stopRuntime();
    throw e;
  }
  const kh = k;
  // the node's CSI driver comes up beside the kubelet (it registers itself through the plugin
  // watcher once it serves), so the node does not wait for the driver process to start
  let csi: Promise<RunningNodeCSI | undefined> = Promise.resolve(undefined);
  if (o.runtime !== 'sim' && o.runtime.csiHostpath !== false) {
    csi = startNodeCSI({
      client: o.client,
      nodeName: o.nodeName,
      dataDir: o.dataDir,
      kubeletDir: join(o.dataDir, 'kubelet'),
      publishMode: runtime.kind === 'remote' && process.getuid?.() === 0 ? 'bind' : 'symlink',
      verbosity: o.runtime.verbosity,
    }).catch((e: unknown) => {
      console.error(`k8ts: the CSI driver csi-hostpath did not start on node ${o.nodeName}: ${(e as Error).message}`);
      return undefined;
    });
  }
  return {
    runtimeDescription: description,
    kubeletPort: ks.port,
    async stop() {
      await (await csi)?.stop();
      await kh.stop();
      await ks.close();
      await network.stop();
      routes?.stop();
      await proxy?.stop();
      await stopRuntime();
    },
  };
}

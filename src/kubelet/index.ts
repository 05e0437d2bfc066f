/**
 * The node agent. `startKubelet` registers the Node (status every 10 s, Lease every
 * 10 s), then runs pods bound to the node on the given CRI-shaped runtime (the
 * simulated one from cri/sim or containerd through cri/remote — the kubelet's logic
 * is the same for both).
 *
 * Layout on disk (under `<dataDir>/kubelet`): `pods/<uid>/volumes/kubernetes.io~<plugin>/<name>`,
 * `pods/<uid>/etc-hosts`, `pods/<uid>/containers/<name>/<id>` (termination messages),
 * `logs/<ns>_<name>_<uid>/<container>/<restart>.log` (CRI-format logs). Where the
 * runtime's containers are host processes and `cgroupRoot` is set, each pod also gets `<cgroupRoot>/kubepods[/<qos>]/pod<uid>`.
 * The runtime itself is picked by `startNodeRuntime` (src/cri/runtime-setup.ts).
 *
 * @see https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/
 */
import type { PodTraceSink } from '../trace/recorder.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ClientEventRecorder, type EventRecorder } from '../client/events.js';
import type { Client } from '../client/types.js';
import type { Runtime } from '../cri/api.js';
import { realClock, type Clock } from '../util/clock.js';
import { Kubelet } from './kubelet.js';
import { NodeLease } from './nodelease/lease.js';
import { NodeStatusManager } from './nodestatus/node-status.js';
import { machineInfo } from './nodestatus/setters.js';
import { simulatedNetworkProber, type NetworkProber } from './prober/probe.js';
import { hostNetworkProber } from './prober/network.js';
import { PodCgroups } from './cm/pod-cgroups.js';
import type { ProcessPod } from './pod/process-pods.js';
import { CSIDrivers } from './volumes/csi/drivers.js';
import { CSINodeExpander } from './volumes/csi/expander.js';
import { CSI_PLUGIN_DIR, CSIVolumePlugin } from './volumes/csi/mounter.js';
import { csiVolumeMetrics } from './volumes/csi/metrics.js';
import { VolumeStatsCache } from './stats/volume-stats.js';
import { PluginWatcher } from './pluginmanager/watcher.js';
import { pluginsRegistryDir } from '../csi/registrar.js';
import { vlog } from '../util/vlog.js';

export { Kubelet } from './kubelet.js';
export { simulatedNetworkProber, type NetworkProber, type ProbeOutcome } from './prober/probe.js';
export { hostNetworkProber } from './prober/network.js';
export { KUBELET_VERSION } from './nodestatus/setters.js';
export { processPod, processPodLogPath, type ProcessComponent, type ProcessPod } from './pod/process-pods.js';

export interface KubeletOptions {
  client: Client;
  runtime: Runtime;
  nodeName: string;
  /** the node's data directory; the kubelet uses `<dataDir>/kubelet` */
  dataDir: string;
  /** the node's pod CIDR (spec.podCIDR), handed to the runtime's network */
  podCIDR: string;
  clock?: Clock;
  /** default: a ClientEventRecorder (component "kubelet", host = node name) */
  recorder?: EventRecorder;
  /** CPU capacity in cores (default: this machine's), e.g. 4 or "4" or "3500m" */
  cpu?: number | string;
  /** memory capacity in bytes or as a quantity (default: this machine's), e.g. "8Gi" */
  memory?: number | string;
  /** InternalIP address (default: first non-loopback IPv4 of this host) */
  nodeIP?: string;
  /** cluster DNS servers (default none: ClusterFirst pods use the host's resolv.conf) */
  clusterDNS?: string[];
  /** default "cluster.local" */
  clusterDomain?: string;
  /** httpGet/tcpSocket/grpc probes (default: {@link hostNetworkProber} where the runtime's pod IPs are reachable — `features.podNetwork` — else simulated success) */
  networkProber?: NetworkProber;
  /**
   * upstream `--cgroup-root`: when set, every pod gets the cgroup
   * `<cgroupRoot>/kubepods[/burstable|/besteffort]/pod<uid>` (created with the pod's
   * limits, removed with the pod); unset: the runtime places pods. Ignored unless the runtime's containers are host processes (`features.hostProcesses`).
   */
  cgroupRoot?: string;
  /** upstream `--pod-manifest-path` / `staticPodPath`: directory (or file) of static pod manifests */
  staticPodPath?: string;
  /** re-read period of the static pod path, ms (upstream fileCheckFrequency, default 20 s) */
  fileCheckFrequencyMs?: number;
  /** resync period of each pod, ms (upstream syncFrequency, default 1 min) */
  syncFrequencyMs?: number;
  /** in-process components shown as static pods (see kubelet/pod/process-pods.ts) */
  processPods?: ProcessPod[];
  /** the kubelet server's port, published as status.daemonEndpoints (default 10250) */
  kubeletPort?: number;
  log?: (msg: string, err?: unknown) => void;
  /** `--v`: log verbosity; at 4 the CSI calls are logged (klog format, stderr) */
  verbosity?: number;
  /** the pod creation trace (src/trace) */
  trace?: PodTraceSink;
  /** upstream `--volume-stats-agg-period` / `volumeStatsAggPeriod`, ms (default 1m; 0 disables volume stats) */
  volumeStatsAggPeriodMs?: number;
}

export interface KubeletHandle {
  /** Stops the kubelet (containers keep running; a restarted kubelet adopts them). */
  stop(): Promise<void>;
  readonly kubelet: Kubelet;
  /** the pods' cached volume statistics (/stats/summary, /metrics) */
  readonly volumeStats: VolumeStatsCache;
}

/**
 * Registers the node and starts syncing its pods.
 * @throws whatever the first Node registration or runtime version call throws
 */
export async function startKubelet(o: KubeletOptions): Promise<KubeletHandle> {
  const clock = o.clock ?? realClock;
  const recorder = o.recorder ?? new ClientEventRecorder(o.client, { component: 'kubelet', host: o.nodeName, now: () => new Date(clock.now()) });
  const kubeletDir = path.join(o.dataDir, 'kubelet');
  fs.mkdirSync(path.join(kubeletDir, 'pods'), { recursive: true });
  fs.mkdirSync(path.join(kubeletDir, 'logs'), { recursive: true });
  const machine = machineInfo(o.dataDir, o.nodeName, { cpu: o.cpu, memory: o.memory, hostIP: o.nodeIP });
  if (o.podCIDR) await o.runtime.updateRuntimeConfig(o.podCIDR);
  // CSI: drivers register through <kubelet-dir>/plugins_registry (pluginregistration.v1)
  const v4 = vlog(o.verbosity ?? 0, 4, 'kubelet');
  const csiDrivers = new CSIDrivers(o.client, o.nodeName, v4, vlog(o.verbosity ?? 0, 5, 'kubelet'));
  const csi = new CSIVolumePlugin(
    kubeletDir,
    o.nodeName,
    o.client,
    csiDrivers,
    v4,
    new CSINodeExpander({ client: o.client, drivers: csiDrivers, recorder, clock, nodeName: o.nodeName, kubeletDir, log: v4 }),
  );
  // what a previous kubelet left mounted stays in use until its pods are torn down
  csi.registry.reconstruct(kubeletDir, CSI_PLUGIN_DIR);
  const nodeStatus = new NodeStatusManager({
    client: o.client,
    recorder,
    clock,
    runtime: o.runtime,
    nodeName: o.nodeName,
    podCIDR: o.podCIDR,
    machine,
    kubeletPort: o.kubeletPort,
    volumesInUse: () => csi.registry.volumesInUse(),
  });
  await nodeStatus.register();
  // upstream nodeinfomanager: this node's CSINode exists from the start, drivers or not
  void csiDrivers.initializeCSINode(nodeStatus.uid).catch((e: unknown) => o.log?.('CSINode initialization failed', e));
  nodeStatus.start();
  const lease = new NodeLease(o.client, clock, o.nodeName, () => nodeStatus.uid);
  lease.start();
  const network = o.networkProber ?? (o.runtime.features.podNetwork ? hostNetworkProber : simulatedNetworkProber);
  const cgroups = o.cgroupRoot !== undefined && o.runtime.features.hostProcesses ? new PodCgroups(o.cgroupRoot) : undefined;
  const plugins = new PluginWatcher(pluginsRegistryDir(kubeletDir), csiDrivers, clock, v4);
  plugins.start();
  const kubelet = new Kubelet({
    client: o.client,
    runtime: o.runtime,
    recorder,
    clock,
    nodeName: o.nodeName,
    kubeletDir,
    machine,
    dns: { clusterDNS: o.clusterDNS ?? [], clusterDomain: o.clusterDomain ?? 'cluster.local' },
    network,
    cgroups,
    staticPodPath: o.staticPodPath,
    fileCheckFrequencyMs: o.fileCheckFrequencyMs,
    resyncMs: o.syncFrequencyMs,
    processPods: o.processPods,
    log: o.log,
    csi,
    trace: o.trace,
  });
  const volumeStats = new VolumeStatsCache({
    registry: csi.registry,
    measure: (v) => csiVolumeMetrics(csiDrivers.mustGet(v.driver), v.handle, v.targetPath, clock.now(), v4),
    clock,
    periodMs: o.volumeStatsAggPeriodMs,
    log: v4,
    podEvent: (pod, reason, msg) => recorder.event({ apiVersion: 'v1', kind: 'Pod', metadata: pod }, 'Warning', reason, msg),
  });
  await kubelet.start();
  return {
    kubelet,
    volumeStats,
    async stop() {
      volumeStats.stop();
      lease.stop();
      nodeStatus.stop();
      await kubelet.stop();
      await plugins.stop();
      csiDrivers.close();
    },
  };
}

/**
 * The `k8ts` command line: `k8ts server` starts the all-in-one cluster, `k8ts agent`
 * joins a node to it, `k8ts runtime` inspects a CRI runtime.
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { parseGoDuration } from '../util/duration.js';
import { Command, InvalidArgumentError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { runServer } from './server.js';
import { runAgent } from './agent.js';
import { runtimeCommand } from './runtime.js';
import { traceCommand } from './trace.js';
import { dashboardCommand } from './dashboard.js';
import { etcdSnapshotCommand } from './etcd-snapshot.js';
import { migrateCommand } from './migrate.js';
import { defaultSnapshotDir } from './snapshots.js';
import { parseSchedule } from '../api/batch/v1/cronjob/schedule.js';
import { resetServiceProxy } from '../proxy/node-proxy.js';
import { removeHostGatewayRoutes } from '../hostgw/controller.js';
import { addStorageOptions, storageConfigFrom, type StorageConfig } from './storage-flags.js';
import { addLeaderElectionOptions, leaderElectionFrom, type LeaderElectionSettings } from './leader-election.js';
import type { AuthorizationMode } from '../apiserver/config.js';
import { validateAdmissionFlags } from '../apiserver/admission/plugins/index.js';
import { csiHostpathCommand } from '../csi/hostpath/command.js';
import { addManagedEtcdOptions, managedEtcdFrom, runClusterReset } from './managed-etcd.js';
import { hpaConfigFrom } from './hpa-flags.js';

/** A comma-separated CIDR list flag; undefined when absent or empty. */
function cidrList(v: unknown): string[] | undefined {
  const l =
    typeof v === 'string'
      ? v
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
      : [];
  return l.length ? l : undefined;
}

/** The node runtime flags `server` and `agent` share. */
function withRuntimeOptions(c: Command): Command {
  return c
    .option(
      '--runtime <kind>',
      'container runtime: auto (remote when an endpoint is given or containerd is installed and we are root, else sim), remote (CRI: a private containerd or --container-runtime-endpoint), sim (simulated: no processes run)',
      'auto',
    )
    .option('--container-runtime-endpoint <endpoint>', 'CRI endpoint, unix:///path/to/sock (implies --runtime remote)')
    .option('--pause-image <image>', 'sandbox image of a managed containerd', 'registry.k8s.io/pause:3.10')
    .option('--registries <file>', 'k3s-style registries.yaml (mirrors, auth, TLS) for a managed containerd')
    .option('--cgroup-root <path>', 'parent of the kubepods cgroups on a remote runtime', '/')
    .option('--pod-manifest-path <path>', "the kubelet's static pod manifests: a directory (or one file) of Pod manifests run without the API server")
    .option('--kubelet-config <file>', "the kubelet's KubeletConfiguration (kubelet.config.k8s.io/v1beta1, the kubelet's --config): staticPodPath, fileCheckFrequency")
    .option('--cluster-dns <ip>', "kubelet --cluster-dns: the kube-dns ClusterIP in pods' resolv.conf (default: the 10th address of the service CIDR, 10.96.0.10)")
    .option('--cluster-domain <domain>', 'kubelet --cluster-domain: the cluster DNS zone', 'cluster.local')
    .option('--no-csi-hostpath', 'do not run the built-in CSI driver (k8ts csi-hostpath) and its sidecars on this node')
    .option(
      '--volume-stats-agg-period <duration>',
      'kubelet --volume-stats-agg-period: how often the kubelet calculates and caches volume stats (NodeGetVolumeStats); 0 disables (default 1m)',
      durationFlag,
    );
}

/** A Go duration flag value (`1m`, `500ms`, `0`) in ms; commander reports a malformed one as a usage error. */
function durationFlag(v: string): number {
  try {
    return parseGoDuration(v);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

function checkRuntime(r: string): 'sim' | 'remote' | 'auto' {
  if (r !== 'sim' && r !== 'remote' && r !== 'auto') {
    console.error(`error: --runtime must be auto, remote or sim, not ${r}`);
    process.exit(2);
  }
  return r;
}

/** Stops on SIGINT/SIGTERM (a second signal exits at once). */
function stopOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (sig: string): void => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`received ${sig}, shutting down`);
    const t = setTimeout(() => process.exit(0), 5000);
    t.unref();
    void stop().then(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

const program = new Command();
program.name('k8ts').description('A Kubernetes-compatible cluster written in TypeScript (API v1.32)');

addLeaderElectionOptions(addManagedEtcdOptions(addStorageOptions(withRuntimeOptions(program.command('server')))))
  .description('run the API server, storage, controllers, scheduler and a kubelet in one process')
  .option('--data-dir <dir>', 'directory for the database, certificates and kubelet files', './data')
  .option('--bind-address <ip>', 'address the API server listens on', '127.0.0.1')
  .option('--advertise-address <ip>', 'address published for the kubernetes Service endpoints (default: the host IPv4 when binding loopback)')
  .option('--secure-port <port>', 'HTTPS port of the API server', (v) => parseInt(v, 10), 6443)
  .option('--node-name <name>', 'name of the local node', hostname().toLowerCase())
  .option('--sim-nodes <n>', 'extra simulated nodes sim-node-0..N-1', (v) => parseInt(v, 10), 0)
  .option('--kwok-nodes <n>', 'kwok-style simulated nodes kwok-node-0..N-1 (no kubelet: pods become Running with one status write; for scale tests)', (v) => parseInt(v, 10), 0)
  .option(
    '--kwok-stages <file>',
    "kwok Stage documents (kwok.x-k8s.io/v1alpha1, e.g. kwok's pod-fast stages) driving pods on the --kwok-nodes instead of the built-in stages (repeatable)",
    (v: string, prev: string[]) => [...prev, v],
    [] as string[],
  )
  .option(
    '--kwok-worker',
    'run the --kwok-nodes pool in a worker thread (its watch handling and status generation on the other core; it talks to the API server as a remote client)',
  )
  .option('--write-kubeconfig <path>', 'where to write the admin kubeconfig (default <data-dir>/kubeconfig.yaml)')
  .option('--service-cluster-ip-range <cidr>', 'CIDR for Service ClusterIPs', '10.96.0.0/12')
  .option('--cluster-cidr <cidr>', 'CIDR that node podCIDRs are carved from', '10.42.0.0/16')
  .option('--token-auth-file <file>', 'static bearer tokens (CSV: token,user,uid,"group1,group2")')
  .option('--authorization-mode <modes>', 'comma-separated authorizers: Node,RBAC,AlwaysAllow', 'Node,RBAC')
  .option('--enable-admission-plugins <names>', 'admission plugins to enable besides the default-on ones (comma-separated, kube-apiserver names)')
  .option('--disable-admission-plugins <names>', 'default-on admission plugins to disable (comma-separated, kube-apiserver names)')
  .option('--admission-control-config-file <file>', 'AdmissionConfiguration: client credentials (kubeConfigFile) of the webhook admission plugins')
  .option('--audit-policy-file <file>', 'audit.k8s.io/v1 Policy')
  .option('--audit-log-path <file>', 'where audit events are written as JSON lines')
  .option('--encryption-provider-config <file>', 'EncryptionConfiguration for Secrets at rest')
  .option('--scheduler-config <file>', 'KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) for the scheduler')
  .option('--scheduler-metrics-bind-address <addr>', 'serve the scheduler /metrics on host:port')
  .option(
    '-v, --v <level>',
    'log level verbosity of the control-plane components and the local node (klog; 4: the kubelet logs every CSI call), changeable at run time for the control plane: PUT /debug/flags/v',
    (v) => parseInt(v, 10),
    0,
  )
  .option('--etcd-snapshot-dir <dir>', 'directory of storage snapshots (default <data-dir>/db/snapshots)')
  .option('--etcd-snapshot-schedule-cron <spec>', 'cron schedule of storage snapshots', '0 */12 * * *')
  .option('--etcd-snapshot-retention <n>', 'scheduled snapshots to keep', (v) => parseInt(v, 10), 5)
  .option('--etcd-disable-snapshots', 'take no scheduled snapshots')
  .option('--disable-agent', 'do not run a kubelet in this process')
  .option('--disable-scheduler', 'do not run the scheduler in this process')
  .option('--disable-controller-manager', 'do not run the controllers in this process')
  .option('--tracing-config-file <file>', 'export pod creation traces over OTLP/HTTP (apiserver.config.k8s.io TracingConfiguration: endpoint, samplingRatePerMillion)')
  .option('--pod-trace <bool>', "record each pod's creation trace (kubectl get podtraces, k8ts trace pod)", (v) => v !== 'false', true)
  .option('--disable <components>', 'packaged components not to run (comma-separated; k3s names): metrics-server, servicelb')
  .option('--metric-resolution <duration>', "how often the metrics server scrapes the kubelets (metrics-server's flag, e.g. 15s)", '15s')
  .option('--horizontal-pod-autoscaler-sync-period <duration>', 'how often each HorizontalPodAutoscaler is reconciled (kube-controller-manager flag)', '15s')
  .option('--horizontal-pod-autoscaler-downscale-stabilization <duration>', 'scale-down stabilization window of HPAs without their own (kube-controller-manager flag)', '5m0s')
  .option('--horizontal-pod-autoscaler-tolerance <ratio>', 'metric-to-target ratio distance from 1.0 within which the HPA does not scale (kube-controller-manager flag)', '0.1')
  .option(
    '--horizontal-pod-autoscaler-cpu-initialization-period <duration>',
    'after a pod starts, its CPU samples count only once taken after readiness (kube-controller-manager flag)',
    '5m0s',
  )
  .option(
    '--horizontal-pod-autoscaler-initial-readiness-delay <duration>',
    'a pod not yet ready this long after start is taken as never ready yet (kube-controller-manager flag)',
    '30s',
  )
  .option('--disable-kube-proxy', 'do not run the service proxy (iptables rules, containment routes) on the local node')
  .option('--disable-servicelb', 'do not give LoadBalancer Services the node addresses (ServiceLB)')
  .option('--nodeport-addresses <cidrs>', 'serve NodePorts only on local addresses in these CIDRs (comma-separated; default all)')
  .addOption(
    new Option('--flannel-backend <backend>', "pod routes to other nodes: host-gw (each node's podCIDR via its address) or none").choices(['host-gw', 'none']).default('host-gw'),
  )
  .addOption(
    // tests only: lets a test see the header timeout of never-used connections in seconds
    new Option('--request-header-timeout-ms <ms>', "ms a connection may take to send a request's headers (default 60000)").argParser((v) => parseInt(v, 10)).hideHelp(),
  )
  .action(async (o) => {
    checkRuntime(o.runtime);
    const modes = String(o.authorizationMode).split(',').filter(Boolean);
    const bad = modes.find((m) => !['Node', 'RBAC', 'AlwaysAllow'].includes(m));
    if (bad) {
      console.error(`error: --authorization-mode: unknown authorizer ${JSON.stringify(bad)} (supported: Node, RBAC, AlwaysAllow)`);
      process.exit(2);
    }
    const pluginList = (v: unknown): string[] =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean)
        : [];
    const enableAdmissionPlugins = pluginList(o.enableAdmissionPlugins);
    const disableAdmissionPlugins = pluginList(o.disableAdmissionPlugins);
    const admissionErrs = validateAdmissionFlags(enableAdmissionPlugins, disableAdmissionPlugins);
    if (admissionErrs.length) {
      // kube-apiserver's aggregate of its option errors
      console.error(`Error: ${admissionErrs.length === 1 ? admissionErrs[0] : `[${admissionErrs.join(', ')}]`}`);
      process.exit(1);
    }
    const disabled = String(o.disable ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const unknownComponent = disabled.find((d) => d !== 'metrics-server' && d !== 'servicelb');
    if (unknownComponent) {
      console.error(`error: --disable: unknown component ${JSON.stringify(unknownComponent)} (supported: metrics-server, servicelb)`);
      process.exit(2);
    }
    let resolutionMs = 0;
    try {
      resolutionMs = parseGoDuration(String(o.metricResolution));
    } catch (err) {
      console.error(`error: --metric-resolution: ${(err as Error).message}`);
      process.exit(2);
    }
    if (resolutionMs <= 0) {
      console.error('error: --metric-resolution: must be positive');
      process.exit(2);
    }
    const horizontalPodAutoscaler = hpaConfigFrom(o);
    if (typeof horizontalPodAutoscaler === 'string') {
      console.error(`error: ${horizontalPodAutoscaler}`);
      process.exit(2);
    }
    if (!o.etcdDisableSnapshots) {
      try {
        parseSchedule(o.etcdSnapshotScheduleCron);
      } catch (err) {
        console.error(`error: --etcd-snapshot-schedule-cron: ${(err as Error).message}`);
        process.exit(2);
      }
    }
    let storage: StorageConfig;
    try {
      storage = storageConfigFrom(o, resolve(o.dataDir));
    } catch (err) {
      console.error(`error: ${(err as Error).message}`);
      process.exit(2);
    }
    let leaderElection: LeaderElectionSettings;
    try {
      leaderElection = leaderElectionFrom(o);
    } catch (err) {
      console.error(`Error: ${(err as Error).message}`);
      process.exit(1);
    }
    let managedEtcd: Awaited<ReturnType<typeof managedEtcdFrom>>;
    try {
      managedEtcd = await managedEtcdFrom(o);
    } catch (err) {
      console.error(`error: ${(err as Error).message}`);
      process.exit(2);
    }
    if (o.clusterReset) {
      // k3s: reset the managed etcd to one member, then exit; the server is started again without the flag
      await runClusterReset(o).then(
        () => process.exit(0),
        (err: Error) => (console.error(`error: ${err.message}`), process.exit(1)),
      );
    }
    const s = await runServer({
      leaderElection,
      dataDir: o.dataDir,
      storage: storage.open,
      managedEtcd,
      eventTTLSeconds: storage.eventTTLSeconds,
      bindAddress: o.bindAddress,
      advertiseAddress: o.advertiseAddress,
      securePort: o.securePort,
      nodeName: o.nodeName,
      runtime: o.runtime,
      simNodes: o.simNodes,
      kwokNodes: o.kwokNodes,
      kwokStages: o.kwokStages,
      kwokWorker: o.kwokWorker,
      writeKubeconfig: o.writeKubeconfig,
      serviceClusterIPRange: o.serviceClusterIpRange,
      clusterCIDR: o.clusterCidr,
      tokenAuthFile: o.tokenAuthFile,
      authorizationModes: String(o.authorizationMode).split(',').filter(Boolean) as AuthorizationMode[],
      enableAdmissionPlugins,
      disableAdmissionPlugins,
      admissionControlConfigFile: o.admissionControlConfigFile ? String(o.admissionControlConfigFile) : undefined,
      auditPolicyFile: o.auditPolicyFile,
      auditLogPath: o.auditLogPath,
      encryptionProviderConfig: o.encryptionProviderConfig,
      containerRuntimeEndpoint: o.containerRuntimeEndpoint,
      pauseImage: o.pauseImage,
      registries: o.registries,
      cgroupRoot: o.cgroupRoot,
      podManifestPath: o.podManifestPath,
      kubeletConfig: o.kubeletConfig,
      clusterDNS: o.clusterDns,
      clusterDomain: o.clusterDomain,
      csiHostpath: o.csiHostpath,
      volumeStatsAggPeriodMs: o.volumeStatsAggPeriod,
      schedulerConfig: o.schedulerConfig,
      schedulerMetricsBindAddress: o.schedulerMetricsBindAddress,
      disableAgent: !!o.disableAgent,
      disableScheduler: !!o.disableScheduler,
      disableControllerManager: !!o.disableControllerManager,
      disableKubeProxy: !!o.disableKubeProxy,
      disableServiceLB: !!o.disableServicelb || disabled.includes('servicelb'),
      nodePortAddresses: cidrList(o.nodeportAddresses),
      flannelBackend: o.flannelBackend,
      requestHeaderTimeoutMs: o.requestHeaderTimeoutMs,
      verbosity: o.v,
      podTrace: o.podTrace,
      disableMetricsServer: disabled.includes('metrics-server'),
      metricResolutionMs: resolutionMs,
      horizontalPodAutoscaler,
      tracingConfigFile: o.tracingConfigFile,
      snapshots: {
        dir: o.etcdSnapshotDir ? resolve(o.etcdSnapshotDir) : defaultSnapshotDir(o.dataDir),
        cron: o.etcdDisableSnapshots ? undefined : o.etcdSnapshotScheduleCron,
        retention: o.etcdSnapshotRetention,
      },
    });
    stopOnSignals(() => s.stop());
  });

withRuntimeOptions(program.command('agent'))
  .description('join this machine to a cluster as a node (TLS bootstrap with a join token, then the kubelet)')
  .requiredOption('--server <url>', 'API server URL, e.g. https://10.0.0.1:6443')
  .option('--token <token>', 'join token K10<ca-sha256>::<id>.<secret> (the server writes it to <data-dir>/node-token)')
  .option('--token-file <file>', 'file holding the join token')
  .option('--node-name <name>', 'name of this node', hostname().toLowerCase())
  .option('--data-dir <dir>', 'directory for certificates and kubelet files', './agent-data')
  .option('--kubelet-port <port>', 'port of the kubelet HTTPS server', (v) => parseInt(v, 10), 10250)
  .option('-v, --v <level>', 'log level verbosity of the kubelet and the CSI driver (klog; 4: every CSI call)', (v) => parseInt(v, 10), 0)
  .option('--node-ip <ip>', "the node's address (InternalIP; default: the host's first IPv4)")
  .option('--cluster-cidr <cidr>', "the cluster's pod CIDR (the server's --cluster-cidr)", '10.42.0.0/16')
  .option('--service-cidr <cidr>', "the Service CIDR (the server's --service-cluster-ip-range)", '10.96.0.0/12')
  .option('--disable-kube-proxy', 'do not run the service proxy (iptables rules, containment routes)')
  .option('--nodeport-addresses <cidrs>', 'serve NodePorts only on local addresses in these CIDRs (comma-separated; default all)')
  .addOption(
    new Option('--flannel-backend <backend>', "pod routes to other nodes: host-gw (each node's podCIDR via its address) or none").choices(['host-gw', 'none']).default('host-gw'),
  )
  .action(async (o) => {
    checkRuntime(o.runtime);
    const token = o.token ?? (o.tokenFile ? readFileSync(o.tokenFile, 'utf8').trim() : undefined);
    if (!token) {
      console.error('error: --token or --token-file is required');
      process.exit(2);
    }
    const a = await runAgent({
      server: o.server,
      token,
      nodeName: o.nodeName,
      dataDir: o.dataDir,
      kubeletPort: o.kubeletPort,
      nodeIP: o.nodeIp,
      proxy: {
        disabled: !!o.disableKubeProxy,
        clusterCIDR: o.clusterCidr,
        serviceCIDR: o.serviceCidr,
        nodePortAddresses: cidrList(o.nodeportAddresses),
        flannelBackend: o.flannelBackend,
      },
      runtime: o.runtime,
      containerRuntimeEndpoint: o.containerRuntimeEndpoint,
      pauseImage: o.pauseImage,
      registries: o.registries,
      cgroupRoot: o.cgroupRoot,
      podManifestPath: o.podManifestPath,
      kubeletConfig: o.kubeletConfig,
      clusterDNS: o.clusterDns,
      clusterDomain: o.clusterDomain,
      verbosity: o.v,
      csiHostpath: o.csiHostpath,
      volumeStatsAggPeriodMs: o.volumeStatsAggPeriod,
    });
    stopOnSignals(() => a.stop());
  });

program
  .command('reset')
  .description("remove the service proxy's iptables rules and chains and the containment routes from this machine (kube-proxy --cleanup)")
  .option('--cluster-cidr <cidr>', "the cluster's pod CIDR", '10.42.0.0/16')
  .option('--service-cidr <cidr>', 'the Service CIDR', '10.96.0.0/12')
  .action(async (o) => {
    await resetServiceProxy({ clusterCIDR: o.clusterCidr, serviceCIDR: o.serviceCidr });
    await removeHostGatewayRoutes();
    console.log('k8ts reset: kube-proxy rules, containment routes and host-gw routes removed');
  });

program.addCommand(runtimeCommand());
program.addCommand(csiHostpathCommand());
program.addCommand(traceCommand());
program.addCommand(dashboardCommand());
program.addCommand(etcdSnapshotCommand());
program.addCommand(migrateCommand());

program.parseAsync(process.argv).catch((e: unknown) => {
  const err = e as NodeJS.ErrnoException & { address?: string; port?: number };
  if (err?.code === 'EADDRINUSE' || err?.code === 'EADDRNOTAVAIL' || err?.code === 'EACCES') {
    // one line, as kube-apiserver prints: failed to listen on 127.0.0.1:6443: bind: address already in use
    const why = err.code === 'EADDRINUSE' ? 'address already in use' : err.code === 'EACCES' ? 'permission denied' : 'cannot assign requested address';
    console.error(`error: failed to listen on ${err.address ?? ''}:${err.port ?? ''}: bind: ${why}`);
  } else console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});

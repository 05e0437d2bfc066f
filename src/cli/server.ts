/**
 * `k8ts server`: the all-in-one control plane and node in one process — storage, API
 * server (HTTPS), bootstrap objects, controllers, scheduler and a kubelet for the local
 * node (plus optional simulated nodes). Components talk to the API server only through
 * the client, on an in-process loopback transport, each with its own identity.
 */
import { startKwok } from '../kwok/index.js';
import { storeLeaseRenewer } from '../kwok/lease-renewer.js';
import { readKwokStages } from '../kwok/stage/stage.js';
import { startKwokWorker } from '../kwok/worker.js';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { UserInfo } from '../api/resource.js';
import { allDefinitions, computedDefinitions } from '../api/all.js';
import { ensureLocalAPIServices } from '../apiserver/bootstrap/apiservices.js';
import { ensureFlowControlBootstrap } from '../apiserver/bootstrap/flowcontrol.js';
import { componentStatusResource, type ComponentProbes } from '../api/core/v1/componentstatus/definition.js';
import { APIServer } from '../apiserver/apiserver.js';
import { bootstrapCluster } from '../apiserver/bootstrap/bootstrap.js';
import { startControlPlaneLeases } from '../apiserver/controlplane/index.js';
import { ensureFrontProxyPKI, ensurePKI } from '../pki/pki.js';
import { Aggregator } from '../apiserver/aggregator/aggregator.js';
import { ensureAuthenticationConfigMap } from '../apiserver/aggregator/authentication-configmap.js';
import { MetricsServer } from '../apiserver/metricsapi/metrics-server.js';
import { listen } from '../apiserver/server.js';
import { bindingsResource, podBinding } from '../apiserver/subresources/pod-binding.js';
import { scaleSubresources } from '../apiserver/subresources/scale.js';
import { podEviction } from '../apiserver/subresources/pod-eviction.js';
import { ClientEventRecorder } from '../client/events.js';
import { RestClient } from '../client/rest-client.js';
import { InProcessTransport } from '../apiserver/loopback.js';
import type { Client } from '../client/types.js';
import { kubernetesServiceIP } from '../api/core/v1/service/strategy.js';
import { openStorage, type OpenStorageOptions } from '../storage/index.js';
import { startControllers } from '../controllers/index.js';
import { controllerClient } from '../controllers/util/controller-client.js';
import type { HPAConfig } from '../controllers/podautoscaler/config.js';
import { buildServerConfig, type AuthorizationMode } from '../apiserver/config.js';
import { loadConfigFile, SchedulerMetrics, serveMetrics, startScheduler } from '../scheduler/index.js';
import { DEFAULT_LEADER_ELECTION, startElectedComponent, type LeaderElectionSettings } from './leader-election.js';
import { createUpgradeHandler } from '../apiserver/proxy/upgrade.js';
import { KubeletClient } from '../apiserver/proxy/kubelet.js';
import { podLogHandler } from '../apiserver/subresources/pod-log.js';
import { nodeProxyHandler } from '../apiserver/subresources/node-proxy.js';
import { podExecHandler } from '../apiserver/subresources/pod-exec.js';
import { podAttachHandler } from '../apiserver/subresources/pod-attach.js';
import { podPortForwardHandler } from '../apiserver/subresources/pod-portforward.js';
import { issueKubeletServingCert } from '../kubelet/server/tls.js';
import { ensureNodeToken } from './join-token.js';
import { startNode, type RuntimeFlags } from './node.js';
import { writeKubeconfig } from './kubeconfig.js';
import { defaultHostIP } from '../kubelet/nodestatus/setters.js';
import { Verbosity } from '../util/klog.js';
import { controlPlanePods, kubeletDirOf } from './control-plane-pods.js';
import { defaultClusterDNS, ensureKubeDNSService, startKubeDNSEndpoints } from '../dns/index.js';
import { ensureStorageDefaults } from './csi-node.js';
import { podTraceWiring } from './pod-trace.js';
import { startSimClusterNetwork } from './node-network.js';
import { startManagedEtcd, type ManagedEtcdOptions } from '../etcd/managed.js';
import { etcdPod, joinedNodePodCIDR } from './managed-etcd.js';
import { DEFAULT_SNAPSHOT_CRON, DEFAULT_SNAPSHOT_RETENTION, defaultSnapshotDir, snapshotHandler, startSnapshotSchedule, type SnapshotConfig } from './snapshots.js';

export interface ServerOptions extends RuntimeFlags {
  dataDir: string;
  /** the storage backend (see cli/storage-flags.ts); default the SQLite database under `dataDir` */
  storage?: OpenStorageOptions;
  /** `--event-ttl`: how long Events live after their last write, seconds; default 3600 */
  eventTTLSeconds?: number;
  bindAddress: string;
  /** address published in default/kubernetes endpoints (default: bind address, or the host's IPv4 when binding loopback) */
  advertiseAddress?: string;
  securePort: number;
  nodeName: string;
  simNodes: number;
  /** `--kwok-nodes`: kwok-style simulated nodes (no kubelet; see src/kwok) */
  kwokNodes?: number;
  /** `--kwok-stages`: files of kwok Stage documents driving the kwok nodes' pods */
  kwokStages?: string[];
  /** `--kwok-worker`: the kwok node pool in a worker thread (see src/kwok/worker.ts) */
  kwokWorker?: boolean;
  writeKubeconfig?: string;
  serviceClusterIPRange: string;
  clusterCIDR: string;
  /** disable the local kubelet (control plane only) */
  disableAgent?: boolean;
  /** `--token-auth-file`: static bearer tokens (upstream CSV) */
  tokenAuthFile?: string;
  /** `--audit-policy-file` and `--audit-log-path` */
  auditPolicyFile?: string;
  /** `--enable-admission-plugins` / `--disable-admission-plugins` */
  enableAdmissionPlugins?: string[];
  disableAdmissionPlugins?: string[];
  /** `--admission-control-config-file` */
  admissionControlConfigFile?: string;
  auditLogPath?: string;
  /** `--encryption-provider-config` for Secrets at rest */
  encryptionProviderConfig?: string;
  /** `--authorization-mode` (default Node,RBAC) */
  authorizationModes?: AuthorizationMode[];
  /** `--scheduler-config`: a KubeSchedulerConfiguration file */
  schedulerConfig?: string;
  /** `--scheduler-metrics-bind-address`, e.g. 127.0.0.1:10259 */
  schedulerMetricsBindAddress?: string;
  /** do not run the scheduler in this process (k3s --disable-scheduler) */
  disableScheduler?: boolean;
  /** do not run the controllers in this process (k3s --disable-controller-manager) */
  disableControllerManager?: boolean;
  /** `--leader-elect*`: scheduler and controller manager run only while this server holds their Lease (default on, 15 s / 10 s / 2 s) */
  leaderElection?: LeaderElectionSettings;
  /** `--disable-kube-proxy`, `--nodeport-addresses` of the local node's service proxy (src/proxy) */
  disableKubeProxy?: boolean;
  /** `--flannel-backend` of the local node (src/hostgw) */
  flannelBackend?: 'host-gw' | 'none';
  nodePortAddresses?: string[];
  /** `--disable-servicelb`: no ServiceLB controller (LoadBalancer Services stay pending) */
  disableServiceLB?: boolean;
  quiet?: boolean;
  /** k3s `--disable metrics-server`: do not serve metrics.k8s.io */
  disableMetricsServer?: boolean;
  /** metrics-server's `--metric-resolution`: how often kubelets are scraped, ms (default 15 000) */
  metricResolutionMs?: number;
  /** kube-controller-manager's `--horizontal-pod-autoscaler-*` flags (default: upstream's) */
  horizontalPodAutoscaler?: Partial<HPAConfig>;
  /** ms a connection may take to send a request's headers (listener default 60 000); tests shorten it */
  requestHeaderTimeoutMs?: number;
  /** `--v`: the components' log verbosity (klog), changeable at run time with PUT /debug/flags/v */
  verbosity?: number;
  /** `--pod-trace`: record each pod's creation trace (trace.k8ts.io PodTrace); default true */
  podTrace?: boolean;
  /** `--tracing-config-file`: export pod traces over OTLP/HTTP (apiserver.config.k8s.io TracingConfiguration) */
  tracingConfigFile?: string;
  /** `--etcd-snapshot-*`: where snapshots go, their schedule and retention (default: `<data-dir>/db/snapshots`, every 12 h, keep 5) */
  snapshots?: SnapshotConfig;
  /** `--cluster-init` / `--server`: run a managed etcd member (src/etcd) and use it as the storage */
  managedEtcd?: Omit<ManagedEtcdOptions, 'dataDir' | 'nodeName' | 'log' | 'eventTTLSeconds'>;
}

export interface RunningServer {
  url: string;
  kubeconfig: string;
  api: APIServer;
  stop(): Promise<void>;
}

const identities = {
  apiserver: { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] },
  scheduler: { username: 'system:kube-scheduler', groups: ['system:authenticated'] },
  controllers: { username: 'system:kube-controller-manager', groups: ['system:authenticated'] },
  /** the kwok-style node pool: acts for many nodes at once, as kwok's controller does with cluster-admin */
  kwok: { username: 'system:k8ts:kwok-controller', groups: ['system:masters', 'system:authenticated'] },
  node: (n: string): UserInfo => ({ username: `system:node:${n}`, groups: ['system:nodes', 'system:authenticated'] }),
};

/** The n-th /24 of the cluster CIDR (10.42.0.0/16 → 10.42.<n>.0/24) as the node's podCIDR. */
export function nodePodCIDR(clusterCIDR: string, n: number): string {
  const [ip] = clusterCIDR.split('/');
  const o = ip!.split('.').map(Number);
  return `${o[0]}.${o[1]}.${(o[2]! + n) % 256}.0/24`;
}

export async function runServer(o: ServerOptions): Promise<RunningServer> {
  const t0 = performance.now();
  const dataDir = resolve(o.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const local = o.bindAddress === '0.0.0.0' || o.bindAddress === '::' ? '127.0.0.1' : o.bindAddress;
  // the address in the default/kubernetes endpoints (upstream --advertise-address): never loopback
  const advertise = o.advertiseAddress ?? (local.startsWith('127.') || local === '::1' ? defaultHostIP() : local);
  const svcIP = kubernetesServiceIP(o.serviceClusterIPRange);
  const host = hostname();
  // the managed etcd member first: a joining server gets the cluster's CAs and ServiceAccount key from it
  const etcdLog: string[] = [];
  const etcd = o.managedEtcd
    ? await startManagedEtcd({
        ...o.managedEtcd,
        dataDir,
        nodeName: o.nodeName,
        eventTTLSeconds: o.eventTTLSeconds,
        log: (m) => (etcdLog.push(m), o.quiet || console.log(`etcd: ${m}`)),
      })
    : undefined;
  const config = buildServerConfig({
    dataDir,
    tokenAuthFile: o.tokenAuthFile,
    auditPolicyFile: o.auditPolicyFile,
    auditLogPath: o.auditLogPath,
    encryptionProviderConfig: o.encryptionProviderConfig,
    authorizationModes: o.authorizationModes,
    enableAdmissionPlugins: o.enableAdmissionPlugins,
    disableAdmissionPlugins: o.disableAdmissionPlugins,
    admissionControlConfigFile: o.admissionControlConfigFile,
  });
  const [pki, rawStorage, frontProxy] = await Promise.all([
    ensurePKI(
      dataDir,
      ['localhost', host, 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
      [...new Set(['127.0.0.1', local, advertise, svcIP])],
    ),
    openStorage(etcd?.storage ?? o.storage ?? { kind: 'sqlite', dataDir }),
    ensureFrontProxyPKI(dataDir),
  ]);
  const aggregator = new Aggregator({ proxyClient: frontProxy.client });

  const storage = config.wrapStorage(rawStorage);
  // the control plane as kube-system pods of the local node, each with its own klog-style log
  const verbosity = new Verbosity(o.verbosity ?? 0);
  const snapshotCfg: SnapshotConfig = o.snapshots ?? { dir: defaultSnapshotDir(dataDir), cron: DEFAULT_SNAPSHOT_CRON, retention: DEFAULT_SNAPSHOT_RETENTION };
  const up = { apiserver: false, scheduler: false, controllers: false };
  const cp = controlPlanePods({
    nodeName: o.disableAgent ? undefined : o.nodeName,
    kubeletDir: kubeletDirOf(dataDir),
    verbosity,
    components: [
      {
        name: 'kube-apiserver' as const,
        healthy: async () =>
          up.apiserver &&
          (await storage.currentRevision().then(
            () => true,
            () => false,
          )),
      },
      ...(o.disableScheduler ? [] : [{ name: 'kube-scheduler' as const, healthy: () => up.scheduler }]),
      ...(o.disableControllerManager ? [] : [{ name: 'kube-controller-manager' as const, healthy: () => up.controllers }]),
      ...(etcd ? [etcdPod(etcd)] : []),
    ],
  });
  for (const m of etcdLog.splice(0)) cp.logger('kube-apiserver').info(m);
  etcd?.setLogSink(cp.rawLog('etcd'));
  // kubelet serving certificates are not verified (upstream's default without
  // --kubelet-certificate-authority): joined agents serve self-signed certificates
  const kubeletClient = new KubeletClient({ cert: pki.loopback.cert, key: pki.loopback.key });
  // /readyz fails until the cluster's bootstrap objects exist (RBAC roles, the default
  // namespace and Service, the node join token), as upstream's post-start hooks
  let bootstrapped = false;
  const bindings = bindingsResource();
  // the components kube-apiserver probes for componentstatuses; scheduler and controllers run
  // in this process unless disabled (then probing their ports fails as upstream's would)
  const refused = (port: number) => async () => ({ healthy: false, error: `Get "https://127.0.0.1:${port}/healthz": dial tcp 127.0.0.1:${port}: connect: connection refused` });
  const ok = async () => ({ healthy: true, message: 'ok' });
  const componentProbes: ComponentProbes = [
    ['scheduler', o.disableScheduler ? refused(10259) : ok],
    ['controller-manager', o.disableControllerManager ? refused(10257) : ok],
    ['etcd-0', async () => (await storage.currentRevision(), { healthy: true, message: 'ok' })],
  ];
  const trace = podTraceWiring(o.podTrace !== false, o.tracingConfigFile);
  const api = new APIServer({
    readyChecks: { 'poststarthook/rbac/bootstrap-roles': () => bootstrapped },
    storage,
    ...config.apiServer,
    virtualResources: [...(config.apiServer.virtualResources ?? []), bindings, componentStatusResource(componentProbes), ...(trace?.apiServer.virtualResources ?? [])],
    storeConsumers: [...(config.apiServer.storeConsumers ?? []), bindings, ...(trace?.apiServer.storeConsumers ?? [])],
    definitions: [
      ...allDefinitions({ serviceCIDR: o.serviceClusterIPRange, rbacEscalationGuard: config.rbacEscalationGuard }),
      ...computedDefinitions(),
      ...(trace?.apiServer.definitions ?? []),
    ],
    requestTracer: trace?.apiServer.requestTracer,
    subresources: [
      podBinding,
      podLogHandler(kubeletClient),
      nodeProxyHandler(kubeletClient),
      podExecHandler(kubeletClient),
      podAttachHandler(kubeletClient),
      podPortForwardHandler(kubeletClient),
      ...scaleSubresources,
      podEviction,
      ...config.subresources,
    ],
    serverAddress: `${local}:${o.securePort}`,
    debugFlags: { v: (value) => verbosity.set(value) },
    extraPaths: { '/db/snapshot': snapshotHandler(rawStorage, snapshotCfg, o.nodeName), ...etcd?.extraPaths },
    eventTTLSeconds: o.eventTTLSeconds ?? 3600,
    aggregator,
  });
  const metricsServer = o.disableMetricsServer ? undefined : new MetricsServer({ kubelets: kubeletClient, resolutionMs: o.metricResolutionMs });
  metricsServer?.install(aggregator, api.discovery, api.lookup);
  trace?.attach(api);
  await api.start();
  const upgrades = createUpgradeHandler(api);
  const server = await listen(
    api,
    {
      host: o.bindAddress,
      port: o.securePort,
      // the CA rides in the chain so joining nodes can check it against their token's hash
      cert: pki.server.cert + pki.ca.cert,
      key: pki.server.key,
      clientCA: pki.ca.cert,
      ...(o.requestHeaderTimeoutMs
        ? { headersTimeout: o.requestHeaderTimeoutMs, connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(o.requestHeaderTimeoutMs / 4))) }
        : {}),
    },
    upgrades,
  );
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.securePort;
  const url = `https://${local.includes(':') ? `[${local}]` : local}:${port}`;
  cp.logger('kube-apiserver').info(`Serving securely on ${o.bindAddress}:${port}`);
  const kubeconfig = o.writeKubeconfig ?? join(dataDir, 'kubeconfig.yaml');
  writeKubeconfig(kubeconfig, { server: url, caPEM: pki.ca.cert, certPEM: pki.admin.cert, keyPEM: pki.admin.key });

  const clientFor = (u: UserInfo): Client => new RestClient(new InProcessTransport(api, u), { userAgent: componentUserAgent(u.username) });
  await bootstrapCluster(clientFor(identities.apiserver), { advertiseAddress: advertise, securePort: port, kubernetesServiceIP: svcIP, endpoints: false });
  // this server's master lease, default/kubernetes listing every live API server, its identity Lease
  const cpLeases = await startControlPlaneLeases({
    client: clientFor(identities.apiserver),
    storage,
    advertiseAddress: advertise,
    securePort: port,
    host: o.nodeName,
    logger: cp.logger('kube-apiserver'),
  });
  await config.bootstrap(clientFor(identities.apiserver));
  await ensureLocalAPIServices(clientFor(identities.apiserver), api.definitions);
  await ensureFlowControlBootstrap(clientFor(identities.apiserver));
  await ensureAuthenticationConfigMap(clientFor(identities.apiserver), { clientCA: pki.ca.cert, requestHeaderCA: frontProxy.ca.cert });
  await aggregator.start(clientFor(identities.apiserver), api.discovery);
  await metricsServer?.start(clientFor(identities.apiserver));
  const nodeTokenFile = join(dataDir, 'node-token');
  await ensureNodeToken(clientFor(identities.apiserver), nodeTokenFile, pki.ca.cert);
  const clusterDNS = o.clusterDNS ?? defaultClusterDNS(o.serviceClusterIPRange);
  await ensureKubeDNSService(clientFor(identities.apiserver), clusterDNS);
  if (o.csiHostpath !== false) await ensureStorageDefaults(clientFor(identities.apiserver));
  bootstrapped = true;
  up.apiserver = true;

  const stops: (() => Promise<void>)[] = [async () => aggregator.stop(), async () => metricsServer?.stop()];
  const election = o.leaderElection ?? DEFAULT_LEADER_ELECTION;
  if (!o.disableControllerManager) {
    const ctrlClient = controllerClient(clientFor, 'namespace-controller');
    const cm = await startElectedComponent({
      leaseName: 'kube-controller-manager',
      client: clientFor(identities.controllers),
      eventSource: 'kube-controller-manager',
      settings: election,
      logger: cp.logger('kube-controller-manager'),
      start: async () => {
        const controllers = await startControllers({
          clients: {
            'namespace-controller': ctrlClient,
            'service-account-controller': controllerClient(clientFor, 'service-account-controller'),
            'node-controller': controllerClient(clientFor, 'node-controller'),
          },
          clientFor: (name) => controllerClient(clientFor, name),
          clusterCIDR: o.clusterCIDR,
          ca: pki.ca,
          disabled: o.disableServiceLB ? ['service-lb-controller'] : [],
          horizontalPodAutoscaler: o.horizontalPodAutoscaler,
          client: ctrlClient,
          recorder: new ClientEventRecorder(ctrlClient, { component: 'controllermanager' }),
        });
        const kubeDNS = startKubeDNSEndpoints(controllerClient(clientFor, 'endpointslice-controller'));
        cp.logger('kube-controller-manager').info('Started controllers', { version: 'v1.32.0' });
        return { stop: async () => (kubeDNS.stop(), await controllers.stop()) };
      },
    });
    stops.push(() => cm.stop());
    up.controllers = true;
  }

  if (!o.disableScheduler) {
    const schedClient = clientFor(identities.scheduler);
    const schedConfig = o.schedulerConfig ? loadConfigFile(o.schedulerConfig) : undefined;
    // one metrics registry and /metrics endpoint across leadership terms, as the one upstream process
    const schedMetrics = new SchedulerMetrics();
    if (o.schedulerMetricsBindAddress) {
      const i = o.schedulerMetricsBindAddress.lastIndexOf(':');
      const srv = await serveMetrics(schedMetrics, o.schedulerMetricsBindAddress.slice(0, i), Number(o.schedulerMetricsBindAddress.slice(i + 1)));
      stops.push(() => new Promise<void>((r) => srv.close(() => r())));
    }
    const le = schedConfig?.leaderElection;
    const scheduler = await startElectedComponent({
      leaseName: le?.resourceName ?? 'kube-scheduler',
      leaseNamespace: le?.resourceNamespace,
      client: schedClient,
      eventSource: schedConfig?.profiles[0]?.schedulerName ?? 'default-scheduler',
      // a KubeSchedulerConfiguration's leaderElection wins over the flags, as kube-scheduler's --config
      settings: le ? { leaderElect: le.leaderElect, leaseDurationMs: le.leaseDurationMs, renewDeadlineMs: le.renewDeadlineMs, retryPeriodMs: le.retryPeriodMs } : election,
      logger: cp.logger('kube-scheduler'),
      start: async () => {
        const s = await startScheduler({
          client: schedClient,
          config: schedConfig,
          leaderElect: false,
          metrics: schedMetrics,
          logger: cp.logger('kube-scheduler'),
          trace: trace?.recorder,
        });
        cp.logger('kube-scheduler').info('Starting Kubernetes Scheduler', { version: 'v1.32.0' });
        return s;
      },
    });
    stops.push(() => scheduler.stop());
    up.scheduler = true;
  }

  const nodes: { name: string; cidr: string }[] = [];
  if (!o.disableAgent) nodes.push({ name: o.nodeName, cidr: nodePodCIDR(o.clusterCIDR, 0) });
  for (let i = 0; i < o.simNodes; i++) nodes.push({ name: `sim-node-${i}`, cidr: nodePodCIDR(o.clusterCIDR, i + 1) });
  // a joined server's node gets its podCIDR from the node IPAM controller, as an agent's
  if (o.managedEtcd?.join && !o.disableAgent) nodes[0]!.cidr = await joinedNodePodCIDR(clientFor(identities.node(o.nodeName)), o.nodeName);
  // one serving certificate for every in-process kubelet (they share this host's addresses)
  const kubeletCert = nodes.length ? await issueKubeletServingCert(pki.ca, nodes[0]!.name, { dnsNames: nodes.map((n) => n.name) }) : undefined;
  let localRuntime = '(none)';
  // one SIMULATED cluster network for every simulated node of this process (started when the first needs it)
  let simNet: ReturnType<typeof startSimClusterNetwork> | undefined;
  const simNetwork = () =>
    (simNet ??= startSimClusterNetwork({
      client: clientFor(identities.node(nodes[0]!.name)),
      nodeName: nodes[0]!.name,
      clusterDNS,
      clusterDomain: o.clusterDomain ?? 'cluster.local',
    }));
  stops.push(async () => void (await (await simNet)?.stop()));
  for (const n of nodes) {
    const local = n.name === o.nodeName && !o.disableAgent;
    const node = await startNode({
      client: clientFor(identities.node(n.name)),
      nodeName: n.name,
      dataDir: join(dataDir, local ? '' : `sim-nodes/${n.name}`),
      podCIDR: n.cidr,
      runtime: local ? o : 'sim',
      servingCert: kubeletCert!,
      clientCA: pki.ca.cert,
      clusterDNS,
      clusterDomain: o.clusterDomain,
      simNetwork,
      kubeletPort: 0, // several kubelets in one process: each on a free port, published in the Node status
      processPods: local ? cp.pods : undefined,
      trace: trace?.recorder,
      proxy: local
        ? {
            disabled: o.disableKubeProxy,
            clusterCIDR: o.clusterCIDR,
            serviceCIDR: o.serviceClusterIPRange,
            nodePortAddresses: o.nodePortAddresses,
            flannelBackend: o.flannelBackend,
          }
        : undefined,
    });
    if (local) localRuntime = node.runtimeDescription;
    stops.push(() => node.stop());
  }
  stops.push(async () => kubeletClient.close());
  if (o.kwokNodes) {
    const leaseStore = api.store('coordination.k8s.io', 'leases');
    const renewer = leaseStore && storeLeaseRenewer(leaseStore);
    const kwokClient = clientFor(identities.kwok);
    const stages = o.kwokStages?.length ? o.kwokStages.flatMap(readKwokStages) : undefined;
    const notApplied = stages?.filter((s) => s.ref !== 'v1/Pod').map((s) => `${s.name} (${s.ref})`);
    if (notApplied?.length)
      cp.logger('kube-apiserver').info(
        `--kwok-stages: not applied (only Pod stages are; kwok nodes are registered Ready and their Leases renewed by the node pool): ${notApplied.join(', ')}`,
      );
    const pool = { count: o.kwokNodes, clusterCIDR: o.clusterCIDR, firstSubnet: nodes.length, renewer };
    const kwok = o.kwokWorker
      ? startKwokWorker({
          ...pool,
          api,
          user: identities.kwok,
          userAgent: componentUserAgent(identities.kwok.username),
          stageFiles: o.kwokStages,
          onError: (m) => (console.error(`kwok node pool: ${m}`), cp.logger('kube-apiserver').error(m, 'kwok node pool')),
        })
      : startKwok({ ...pool, client: kwokClient, stages, recorder: new ClientEventRecorder(kwokClient, { component: 'kwok-controller' }) });
    stops.push(() => kwok.stop());
  }
  stops.unshift(() => cp.close());
  const stopSnapshots = startSnapshotSchedule(rawStorage, snapshotCfg, o.nodeName, (m) => cp.logger('kube-apiserver').info(m));
  stops.push(async () => stopSnapshots());
  // first at shutdown: this server leaves default/kubernetes while its API still serves
  stops.push(() => cpLeases.stop());

  const ms = performance.now() - t0;
  if (!o.quiet) {
    console.log(
      [
        `k8ts server is running (v1.32 API) at ${url}  [ready in ${ms.toFixed(0)} ms]`,
        `  data dir:   ${dataDir}`,
        `  node:       ${o.disableAgent ? '(none)' : o.nodeName} — runtime: ${localRuntime}`,
        o.simNodes ? `  sim nodes:  sim-node-0..sim-node-${o.simNodes - 1} (simulated)` : '',
        o.kwokNodes ? `  kwok nodes: kwok-node-0..kwok-node-${o.kwokNodes - 1} (SIMULATED kwok-style: no kubelet, registering in the background)` : '',
        etcd ? `  etcd:       member ${etcd.member.name} (managed, ${etcd.storage.endpoints[0]}; certificates in ${join(dataDir, 'tls', 'etcd')})` : '',
        `  kubeconfig: ${kubeconfig}`,
        `  join nodes: k8ts agent --server ${url} --token-file ${nodeTokenFile}`,
        etcd ? `  join servers: k8ts server --server ${url} --token-file ${nodeTokenFile} --data-dir <dir> (own --secure-port, --etcd-*-port on one machine)` : '',
        '',
        `  export KUBECONFIG=${kubeconfig}`,
        '  kubectl get nodes',
      ]
        .filter((l) => l !== '')
        .join('\n'),
    );
  }
  return {
    url,
    kubeconfig,
    api,
    async stop() {
      for (const s of stops.reverse()) await s().catch(() => undefined);
      upgrades.closeAll();
      server.closeAllConnections?.();
      await new Promise<void>((r) => server.close(() => r()));
      api.stop();
      await storage.close();
      await etcd?.stop();
      await config.close();
      await trace?.stop();
    },
  };
}

/**
 * The User-Agent an in-process component sends, named as upstream's binaries name
 * themselves (`kube-controller-manager/v1.32.0 (linux/amd64) k8ts/<user>`): server-side
 * apply takes the field manager from the part before the first `/`, so managedFields
 * say kube-controller-manager, kube-scheduler, kubelet or kube-apiserver as upstream.
 * @param username the component's identity, e.g. `system:serviceaccount:kube-system:deployment-controller`
 */
export function componentUserAgent(username: string): string {
  const component = username.startsWith('system:node:')
    ? 'kubelet'
    : username === 'system:kube-scheduler'
      ? 'kube-scheduler'
      : username.startsWith('system:serviceaccount:kube-system:') || username === 'system:kube-controller-manager'
        ? 'kube-controller-manager'
        : 'kube-apiserver';
  return `${component}/v1.32.0 (${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}) k8ts/${username}`;
}

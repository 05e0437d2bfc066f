/**
 * The controller manager: starts every controller loop — the only place that does. The
 * access controllers (ClusterRole aggregation, resource quota, CSR approving and
 * signing, the root CA publisher) come first; then namespace, ServiceAccount and node
 * IPAM; then the workload controllers. The workload controllers
 * (deployment, replicaset, statefulset, daemonset, job, cronjob, ttl-after-finished,
 * garbage collector, endpoints, endpointslices, disruption) share one set of informers
 * and each writes with its own identity (ServiceAccount kube-system/<controller>, as
 * kube-controller-manager's --use-service-account-credentials) and records events as
 * its own component.
 *
 * @see https://kubernetes.io/docs/reference/command-line-tools-reference/kube-controller-manager/
 */
import { ClientEventRecorder, type EventRecorder } from '../client/events.js';
import type { Client } from '../client/types.js';
import { R } from '../client/types.js';
import type { KObject } from '../api/resource.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { startNamespaceController } from './namespace/controller.js';
import { startServiceAccountController } from './serviceaccount/controller.js';
import { startNodeIPAMController } from './nodeipam/controller.js';
import { startReplicaSetController, startReplicationControllerController } from './replicaset/controller.js';
import { startDeploymentController } from './deployment/controller.js';
import { startStatefulSetController } from './statefulset/controller.js';
import { startDaemonSetController } from './daemonset/controller.js';
import { startJobController } from './job/controller.js';
import { startTTLAfterFinishedController } from './ttlafterfinished/controller.js';
import { startCronJobController } from './cronjob/controller.js';
import { startGarbageCollector } from './garbagecollector/controller.js';
import { startEndpointsController } from './endpoint/controller.js';
import { startEndpointSliceController } from './endpointslice/controller.js';
import { startDisruptionController } from './disruption/controller.js';
import { startServiceLBController } from './servicelb/controller.js';
import { startHorizontalPodAutoscalerController } from './podautoscaler/horizontal.js';
import type { HPAConfig } from './podautoscaler/config.js';
import { startNodeLifecycleController } from './nodelifecycle/controller.js';
import { startClusterRoleAggregation } from './clusterroleaggregation/controller.js';
import { startResourceQuotaController } from './resourcequota/controller.js';
import { startCSRController } from './csr/controller.js';
import type { SigningCA } from './csr/sign.js';
import { startRootCACertPublisher } from './rootcacertpublisher/controller.js';
import { startValidatingAdmissionPolicyStatusController } from './validatingadmissionpolicystatus/controller.js';
import { startPersistentVolumeController } from './volume/persistentvolume/controller.js';
import { startPVCProtectionController, startPVProtectionController } from './volume/protection/controller.js';
import { startEphemeralVolumeController } from './volume/ephemeral/controller.js';
import { startAttachDetachController } from './volume/attachdetach/controller.js';
import { startExpandController } from './volume/expand/controller.js';
import { SharedInformers } from './util/informers.js';
import type { RunningController, WorkloadControllerContext } from './util/context.js';
import type { Clock } from '../util/clock.js';

export interface ControllerContext {
  client: Client;
  recorder: EventRecorder;
  /** per-controller clients (controller name → client); `client` otherwise */
  clients?: Record<string, Client>;
  /**
   * A client acting as the controller's ServiceAccount (kube-system/<name>), e.g.
   * `(name) => controllerClient(clientFor, name)` (src/controllers/util/controller-client.ts).
   * Used for every controller without an
   * entry in `clients`.
   */
  clientFor?: (name: string) => Client;
  /**
   * the cluster CA: signs approved CSRs (certificate-controller; none = nothing is
   * signed) and is published as the kube-root-ca.crt ConfigMap (root-ca-cert-publisher;
   * none = not running)
   */
  ca?: SigningCA;
  /** cluster CIDR for node podCIDR allocation (node-ipam-controller); none = not running */
  clusterCIDR?: string;
  /** time and timers of the workload controllers (tests) */
  clock?: Clock;
  /** controllers to leave out (upstream --controllers=-name), by the names below */
  disabled?: string[];
  /** the horizontal-pod-autoscaler's `--horizontal-pod-autoscaler-*` flags (default: upstream's) */
  horizontalPodAutoscaler?: Partial<HPAConfig>;
}

export interface Running {
  stop(): Promise<void>;
}

/** Workload controllers: name (the ServiceAccount and RBAC role) → start function and event component. */
const WORKLOAD_CONTROLLERS: { name: string; component: string; start: (ctx: WorkloadControllerContext, root: ControllerContext) => Promise<RunningController> }[] = [
  { name: 'replicaset-controller', component: 'replicaset-controller', start: (c) => startReplicaSetController(c) },
  { name: 'replication-controller', component: 'replication-controller', start: (c) => startReplicationControllerController(c) },
  { name: 'deployment-controller', component: 'deployment-controller', start: (c) => startDeploymentController(c) },
  { name: 'statefulset-controller', component: 'statefulset-controller', start: (c) => startStatefulSetController(c) },
  { name: 'daemon-set-controller', component: 'daemonset-controller', start: (c) => startDaemonSetController(c) },
  { name: 'job-controller', component: 'job-controller', start: (c) => startJobController(c) },
  { name: 'cronjob-controller', component: 'cronjob-controller', start: (c) => startCronJobController(c) },
  { name: 'ttl-after-finished-controller', component: 'ttlafterfinished-controller', start: (c) => startTTLAfterFinishedController(c) },
  { name: 'generic-garbage-collector', component: 'garbage-collector-controller', start: (c) => startGarbageCollector(c) },
  { name: 'endpoint-controller', component: 'endpoint-controller', start: (c) => startEndpointsController(c) },
  { name: 'endpointslice-controller', component: 'endpoint-slice-controller', start: (c) => startEndpointSliceController(c) },
  { name: 'disruption-controller', component: 'controllermanager', start: (c) => startDisruptionController(c) },
  {
    name: 'horizontal-pod-autoscaler',
    component: 'horizontal-pod-autoscaler',
    start: (c, root) => startHorizontalPodAutoscalerController(c, { config: root.horizontalPodAutoscaler }),
  },
  { name: 'node-controller', component: 'node-controller', start: (c) => startNodeLifecycleController(c) },
  { name: 'persistent-volume-binder', component: 'persistentvolume-controller', start: (c) => startPersistentVolumeController(c) },
  { name: 'pvc-protection-controller', component: 'pvc-protection-controller', start: (c) => startPVCProtectionController(c) },
  { name: 'pv-protection-controller', component: 'pv-protection-controller', start: (c) => startPVProtectionController(c) },
  { name: 'ephemeral-volume-controller', component: 'ephemeral-volume-controller', start: (c) => startEphemeralVolumeController(c) },
  { name: 'attachdetach-controller', component: 'attachdetach-controller', start: (c) => startAttachDetachController(c) },
  { name: 'expand-controller', component: 'volume_expand', start: (c) => startExpandController(c) },
  // k3s' ServiceLB (off with --disable-servicelb)
  { name: 'service-lb-controller', component: 'service-lb-controller', start: (c) => startServiceLBController(c) },
];

export async function startControllers(ctx: ControllerContext): Promise<Running> {
  const running: Running[] = [];
  const clientOf = (name: string): Client => ctx.clients?.[name] ?? ctx.clientFor?.(name) ?? ctx.client;
  const withClient = (name: string): ControllerContext => ({ ...ctx, client: clientOf(name) });
  const disabled = new Set(ctx.disabled ?? []);
  // list/watch of every controller's client go through the controller manager's own identity
  const informers = new SharedInformers(clientOf('generic-garbage-collector'));
  const access: { name: string; start: (client: Client) => Promise<Running> | undefined }[] = [
    { name: 'clusterrole-aggregation-controller', start: (client) => startClusterRoleAggregation(client) },
    { name: 'resourcequota-controller', start: (client) => startResourceQuotaController({ client, pods: informers.get<Pod & KObject>(R.pods) }) },
    { name: 'certificate-controller', start: (client) => startCSRController({ client, ca: ctx.ca }) },
    { name: 'root-ca-cert-publisher', start: (client) => (ctx.ca ? startRootCACertPublisher(client, ctx.ca.cert) : undefined) },
    { name: 'validatingadmissionpolicy-status-controller', start: (client) => startValidatingAdmissionPolicyStatusController(client) },
  ];
  for (const c of access) {
    if (disabled.has(c.name)) continue;
    const r = await c.start(clientOf(c.name));
    if (r) running.push(r);
  }
  running.push(await startNamespaceController(withClient('namespace-controller')));
  running.push(await startServiceAccountController(withClient('service-account-controller')));
  if (ctx.clusterCIDR) running.push(await startNodeIPAMController({ ...withClient('node-controller'), clusterCIDR: ctx.clusterCIDR }));

  running.push({ stop: async () => informers.stop() });
  for (const c of WORKLOAD_CONTROLLERS) {
    if (disabled.has(c.name)) continue;
    const client = clientOf(c.name);
    running.push(await c.start({ client, recorder: new ClientEventRecorder(client, { component: c.component }), informers, clock: ctx.clock }, ctx));
  }
  return {
    async stop() {
      for (const r of running.reverse()) await r.stop();
    },
  };
}

/**
 * Every built-in resource the API server serves, as ResourceDefinitions, registered
 * here and nowhere else: the generic REST store serves each one; discovery lists them
 * with their short names and categories. To add a resource, add its definition to the
 * list in {@link allDefinitions}.
 *
 * @see src/api/resource.ts
 */
import { leaseDefinition } from './coordination/v1/lease/strategy.js';
import { configMapDefinition } from './core/v1/configmap/strategy.js';
import { endpointsDefinition } from './core/v1/endpoints/strategy.js';
import { eventDefinition } from './core/v1/event/strategy.js';
import { namespaceDefinition } from './core/v1/namespace/strategy.js';
import { nodeDefinition } from './core/v1/node/strategy.js';
import { persistentVolumeDefinition } from './core/v1/persistentvolume/strategy.js';
import { persistentVolumeClaimDefinition } from './core/v1/persistentvolumeclaim/strategy.js';
import { podDefinition } from './core/v1/pod/strategy.js';
import { secretDefinition } from './core/v1/secret/strategy.js';
import { serviceAccountDefinition } from './core/v1/serviceaccount/strategy.js';
import { createServiceDefinition } from './core/v1/service/strategy.js';
import { endpointSliceDefinition } from './discovery/v1/endpointslice/strategy.js';
import { eventsV1EventDefinition } from './events/v1/event/strategy.js';
import type { ResourceDefinition } from './resource.js';
import { priorityClassDefinition } from './scheduling/v1/priorityclass/strategy.js';
import { podDisruptionBudgetDefinition } from './policy/v1/poddisruptionbudget/strategy.js';
import { controllerRevisionDefinition } from './apps/v1/controllerrevision/strategy.js';
import { daemonSetDefinition } from './apps/v1/daemonset/strategy.js';
import { deploymentDefinition } from './apps/v1/deployment/strategy.js';
import { replicaSetDefinition } from './apps/v1/replicaset/strategy.js';
import { statefulSetDefinition } from './apps/v1/statefulset/strategy.js';
import { cronJobDefinition } from './batch/v1/cronjob/strategy.js';
import { jobDefinition } from './batch/v1/job/strategy.js';
import { horizontalPodAutoscalerDefinition } from './autoscaling/v2/horizontalpodautoscaler/strategy.js';
import { horizontalPodAutoscalerV1Definition } from './autoscaling/v1/horizontalpodautoscaler/strategy.js';
import { replicationControllerDefinition } from './core/v1/replicationcontroller/strategy.js';
import { podTemplateDefinition } from './core/v1/podtemplate/strategy.js';
import { ingressDefinition } from './networking/v1/ingress/strategy.js';
import { ingressClassDefinition } from './networking/v1/ingressclass/strategy.js';
import { customResourceDefinitionDefinition } from './apiextensions/v1/customresourcedefinition/strategy.js';
import { storageV1Definitions } from './storage/v1/index.js';
import { admissionRegistrationV1Definitions } from './admissionregistration/v1/index.js';
import { apiServiceDefinition } from './apiregistration/v1/apiservice/strategy.js';
import { authenticationDefinitions } from './authentication/definitions.js';
import { authorizationDefinitions } from './authorization/definitions.js';
import { csrDefinition } from './certificates/definition.js';
import { limitRangeDefinition } from './core/v1/limitrange/strategy.js';
import { resourceQuotaDefinition } from './core/v1/resourcequota/strategy.js';
import { rbacDefinitions, type EscalationGuard } from './rbac/definitions.js';
import { networkPolicyDefinition } from './networking/v1/networkpolicy/strategy.js';
import { runtimeClassDefinition } from './node/v1/runtimeclass/strategy.js';
import { componentStatusDefinition } from './core/v1/componentstatus/definition.js';
import { virtualDefinition } from './authorization/virtual.js';
import { flowSchemaDefinition } from './flowcontrol/v1/flowschema/strategy.js';
import { priorityLevelConfigurationDefinition } from './flowcontrol/v1/prioritylevelconfiguration/strategy.js';

/** Cluster-wide settings some definitions need. */
interface AllDefinitionsOptions {
  /** Service ClusterIP range(s), e.g. `10.96.0.0/12` (one CIDR, or IPv4,IPv6) */
  serviceCIDR: string;
  /** NodePort range, default `30000-32767` */
  nodePortRange?: string;
  /**
   * RBAC escalation prevention (the API server's authorizer); none = no check, as
   * with an authorizer that allows everything
   */
  rbacEscalationGuard?: EscalationGuard;
}

/**
 * The definitions of all built-in resources. Call once per API server: the Service
 * definition owns the ClusterIP/NodePort allocator state.
 *
 * Both `events` definitions (core/v1 and events.k8s.io/v1) are views of the same stored
 * objects; see src/api/events/v1/event/strategy.ts for how the store serves the second.
 *
 * @throws Error when serviceCIDR or nodePortRange is malformed
 */
export function allDefinitions(opts: AllDefinitionsOptions): ResourceDefinition[] {
  const defs: ResourceDefinition[] = [
    podDefinition,
    namespaceDefinition,
    nodeDefinition,
    eventDefinition,
    configMapDefinition,
    secretDefinition,
    serviceAccountDefinition,
    createServiceDefinition({ serviceCIDR: opts.serviceCIDR, nodePortRange: opts.nodePortRange }),
    endpointsDefinition,
    persistentVolumeClaimDefinition,
    persistentVolumeDefinition,
    eventsV1EventDefinition,
    leaseDefinition,
    endpointSliceDefinition,
    priorityClassDefinition,
    podDisruptionBudgetDefinition,
    deploymentDefinition as ResourceDefinition,
    replicaSetDefinition as ResourceDefinition,
    statefulSetDefinition as ResourceDefinition,
    daemonSetDefinition as ResourceDefinition,
    controllerRevisionDefinition as ResourceDefinition,
    jobDefinition as ResourceDefinition,
    cronJobDefinition as ResourceDefinition,
    // autoscaling/v2 first: the preferred version in discovery
    horizontalPodAutoscalerDefinition as ResourceDefinition,
    horizontalPodAutoscalerV1Definition as ResourceDefinition,
    replicationControllerDefinition as ResourceDefinition,
    podTemplateDefinition as ResourceDefinition,
    ingressDefinition as ResourceDefinition,
    ingressClassDefinition as ResourceDefinition,
    networkPolicyDefinition as ResourceDefinition,
    runtimeClassDefinition as ResourceDefinition,
    flowSchemaDefinition as ResourceDefinition,
    priorityLevelConfigurationDefinition as ResourceDefinition,
    ...storageV1Definitions,
    ...admissionRegistrationV1Definitions,
    apiServiceDefinition as ResourceDefinition,
    // custom resources of established CRDs are added at runtime (src/apiserver/apiextensions)
    customResourceDefinitionDefinition as ResourceDefinition,
    ...rbacDefinitions(opts.rbacEscalationGuard),
    csrDefinition as unknown as ResourceDefinition,
    resourceQuotaDefinition as unknown as ResourceDefinition,
    limitRangeDefinition as unknown as ResourceDefinition,
  ];
  return defs;
}

/** core/v1 bindings: the legacy way to bind a pod (POST only; see src/apiserver/subresources/pod-binding.ts). */
const bindingDefinition = virtualDefinition({ group: '', version: 'v1', resource: 'bindings', kind: 'Binding', namespaced: true }, 'core/v1#Binding');

/**
 * The computed, create-only resources (access reviews, TokenReview, SelfSubjectReview):
 * never stored; their definitions give discovery and OpenAPI, and the API server
 * answers their POSTs with the resources' own create (src/apiserver/endpoints/virtual.ts).
 * Served beside {@link allDefinitions}: `[...allDefinitions(o), ...computedDefinitions()]`.
 */
export function computedDefinitions(): ResourceDefinition[] {
  return [bindingDefinition, componentStatusDefinition, ...authorizationDefinitions(), ...authenticationDefinitions()];
}

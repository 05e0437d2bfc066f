/**
 * Pod (core/v1) types: kubernetes-types 1.30 plus the fields v1.31 and v1.32 added.
 *
 * Added here (all optional, wire names as upstream):
 * - Volume.image (ImageVolumeSource, v1.31 alpha)
 * - ResourceClaim.request (v1.31)
 * - PodSpec.resources (pod-level ResourceRequirements, v1.32 alpha)
 * - PodResourceClaim.resourceClaimName / resourceClaimTemplateName (v1.31; `source` was removed)
 * - PodSecurityContext.supplementalGroupsPolicy (v1.31), seLinuxChangePolicy (v1.32)
 * - ContainerStatus.user (ContainerUser, v1.31), allocatedResourcesStatus (v1.31)
 * Also `Pod.status` is writable here (kubernetes-types marks it readonly).
 *
 * @see https://github.com/kubernetes/api/blob/v0.32.0/core/v1/types.go
 */
import type * as k from 'kubernetes-types/core/v1.js';

export type {
  Affinity,
  Capabilities,
  ConfigMapKeySelector,
  ConfigMapVolumeSource,
  ContainerPort,
  ContainerState,
  ContainerStateRunning,
  ContainerStateTerminated,
  ContainerStateWaiting,
  DownwardAPIVolumeFile,
  DownwardAPIVolumeSource,
  EmptyDirVolumeSource,
  EnvFromSource,
  EnvVar,
  EnvVarSource,
  ExecAction,
  GRPCAction,
  HTTPGetAction,
  HostAlias,
  KeyToPath,
  Lifecycle,
  LifecycleHandler,
  NodeAffinity,
  NodeSelector,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  ObjectFieldSelector,
  PodAffinity,
  PodAffinityTerm,
  PodAntiAffinity,
  PodCondition,
  PodDNSConfig,
  PodIP,
  PodReadinessGate,
  PodSchedulingGate,
  PreferredSchedulingTerm,
  Probe,
  ProjectedVolumeSource,
  ResourceFieldSelector,
  SeccompProfile,
  SecretKeySelector,
  SecretVolumeSource,
  SecurityContext,
  TCPSocketAction,
  Toleration,
  TopologySpreadConstraint,
  VolumeDevice,
  VolumeMount,
  VolumeProjection,
  WeightedPodAffinityTerm,
} from 'kubernetes-types/core/v1.js';

/** A resource list as JSON: resource name → quantity string (numbers tolerated before decoding). */
export type ResourceList = { [name: string]: string };

/** v1.31 image volume. */
export interface ImageVolumeSource {
  reference?: string;
  pullPolicy?: string;
}

/** Volume with v1.31 `image`. */
export type Volume = k.Volume & { image?: ImageVolumeSource };

/** ResourceClaim with v1.31 `request`. */
export type ResourceClaim = k.ResourceClaim & { request?: string };

/** ResourceRequirements whose claims carry `request`. */
export type ResourceRequirements = Omit<k.ResourceRequirements, 'claims'> & { claims?: ResourceClaim[] };

/** Container with the extended resources type. */
export type Container = Omit<k.Container, 'resources'> & { resources?: ResourceRequirements };

/** EphemeralContainer with the extended resources type. */
export type EphemeralContainer = Omit<k.EphemeralContainer, 'resources'> & { resources?: ResourceRequirements };

/** v1.31 shape: the claim names its source directly; `source` kept for 1.30 clients. */
export type PodResourceClaim = k.PodResourceClaim & {
  resourceClaimName?: string;
  resourceClaimTemplateName?: string;
};

/** PodSecurityContext with v1.31/1.32 fields. */
export type PodSecurityContext = k.PodSecurityContext & {
  /** "Merge" | "Strict" (v1.31 alpha) */
  supplementalGroupsPolicy?: string;
  /** "Recursive" | "MountOption" (v1.32 alpha) */
  seLinuxChangePolicy?: string;
};

/** PodSpec with v1.31/1.32 fields. */
export type PodSpec = Omit<k.PodSpec, 'volumes' | 'containers' | 'initContainers' | 'ephemeralContainers' | 'resourceClaims' | 'securityContext'> & {
  volumes?: Volume[];
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: EphemeralContainer[];
  resourceClaims?: PodResourceClaim[];
  securityContext?: PodSecurityContext;
  /** pod-level resources (v1.32 alpha, feature gate PodLevelResources, off by default) */
  resources?: ResourceRequirements;
};

/** v1.31 ContainerUser. */
export interface ContainerUser {
  linux?: { uid: number; gid: number; supplementalGroups?: number[] };
}

/** v1.31 ResourceStatus (device health). */
export interface ResourceStatus {
  name: string;
  resources?: { resourceID: string; health?: string }[];
}

/** ContainerStatus with v1.31 fields. */
export type ContainerStatus = k.ContainerStatus & {
  user?: ContainerUser;
  allocatedResourcesStatus?: ResourceStatus[];
};

/** PodStatus with the extended container statuses. */
export type PodStatus = Omit<k.PodStatus, 'containerStatuses' | 'initContainerStatuses' | 'ephemeralContainerStatuses'> & {
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
};

/** A Pod as stored and served (status writable). */
export type Pod = Omit<k.Pod, 'spec' | 'status'> & {
  spec?: PodSpec;
  status?: PodStatus;
};

/** Well-known values. */
export const PodPhase = {
  Pending: 'Pending',
  Running: 'Running',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
  Unknown: 'Unknown',
} as const;

export const PodQOSClass = {
  Guaranteed: 'Guaranteed',
  Burstable: 'Burstable',
  BestEffort: 'BestEffort',
} as const;
export type PodQOSClassName = (typeof PodQOSClass)[keyof typeof PodQOSClass];

/** Annotation marking a mirror (static) pod. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

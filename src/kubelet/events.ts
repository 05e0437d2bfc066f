/**
 * Event reasons and message texts the kubelet records, as upstream spells them.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/events/event.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_container.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/images/image_manager.go
 */

export const Reason = {
  // containers
  CreatedContainer: 'Created',
  StartedContainer: 'Started',
  FailedToCreateContainer: 'Failed',
  FailedToStartContainer: 'Failed',
  KillingContainer: 'Killing',
  BackOffStartContainer: 'BackOff',
  ExceededGracePeriod: 'ExceededGracePeriod',
  FailedPostStartHook: 'FailedPostStartHook',
  FailedPreStopHook: 'FailedPreStopHook',
  FailedToCreatePodContainer: 'FailedCreatePodContainer',
  // images
  PullingImage: 'Pulling',
  PulledImage: 'Pulled',
  FailedToPullImage: 'Failed',
  FailedToInspectImage: 'InspectFailed',
  ErrImageNeverPullPolicy: 'ErrImageNeverPull',
  BackOffPullImage: 'BackOff',
  // kubelet / node
  NodeReady: 'NodeReady',
  NodeNotReady: 'NodeNotReady',
  StartingKubelet: 'Starting',
  NodeAllocatableEnforced: 'NodeAllocatableEnforced',
  FailedMountVolume: 'FailedMount',
  // probes
  ContainerUnhealthy: 'Unhealthy',
  ContainerProbeWarning: 'ProbeWarning',
  // pod workers / sandbox
  FailedSync: 'FailedSync',
  SandboxChanged: 'SandboxChanged',
  FailedCreatePodSandBox: 'FailedCreatePodSandBox',
  FailedStatusPodSandBox: 'FailedPodSandBoxStatus',
  FailedKillPod: 'FailedKillPod',
} as const;

/** Waiting reasons in container statuses (kubecontainer + images + kuberuntime errors). */
export const WaitingReason = {
  ContainerCreating: 'ContainerCreating',
  PodInitializing: 'PodInitializing',
  ErrImagePull: 'ErrImagePull',
  ImagePullBackOff: 'ImagePullBackOff',
  ErrImageNeverPull: 'ErrImageNeverPull',
  InvalidImageName: 'InvalidImageName',
  CrashLoopBackOff: 'CrashLoopBackOff',
  CreateContainerConfigError: 'CreateContainerConfigError',
  CreateContainerError: 'CreateContainerError',
  RunContainerError: 'RunContainerError',
  PreStartHookError: 'PreStartHookError',
  PostStartHookError: 'PostStartHookError',
} as const;

export const Msg = {
  created: (c: string) => `Created container ${c}`,
  started: (c: string) => `Started container ${c}`,
  stopping: (c: string) => `Stopping container ${c}`,
  error: (m: string) => `Error: ${m}`,
  backOffRestart: (c: string, pod: string) => `Back-off restarting failed container ${c} in pod ${pod}`,
  /** waiting message of CrashLoopBackOff; `backoff` is a Go duration string */
  crashLoop: (backoff: string, c: string, pod: string) => `back-off ${backoff} restarting failed container=${c} pod=${pod}`,
  pulling: (img: string) => `Pulling image ${JSON.stringify(img)}`,
  pulled: (img: string, took: string, waited: string, size: number) =>
    `Successfully pulled image ${JSON.stringify(img)} in ${took} (${waited} including waiting). Image size: ${size} bytes.`,
  present: (img: string) => `Container image ${JSON.stringify(img)} already present on machine`,
  pullFailed: (img: string, err: string) => `Failed to pull image ${JSON.stringify(img)}: ${err}`,
  backOffPull: (img: string) => `Back-off pulling image ${JSON.stringify(img)}`,
  neverPull: (img: string) => `Container image ${JSON.stringify(img)} is not present with pull policy of Never`,
  invalidImage: (img: string, err: string) => `Failed to apply default image tag ${JSON.stringify(img)}: ${err}`,
  mountFailed: (vol: string, err: string) => `MountVolume.SetUp failed for volume ${JSON.stringify(vol)} : ${err}`,
  probeFailed: (probeType: string, out: string) => `${probeType} probe failed: ${out}`,
  probeWarning: (probeType: string, out: string) => `${probeType} probe warning: ${out}`,
  failedLiveness: (c: string) => `Container ${c} failed liveness probe, will be restarted`,
  failedStartup: (c: string) => `Container ${c} failed startup probe, will be restarted`,
  definitionChanged: (c: string) => `Container ${c} definition changed, will be restarted`,
  sandboxChanged: 'Pod sandbox changed, it will be killed and re-created.',
  /** upstream keeps hook output out of events (it may hold secrets) */
  postStartHookFailed: 'PostStartHook failed',
  preStopHookFailed: 'PreStopHook failed',
  podCgroupFailed: (err: string) => `unable to ensure pod container exists: ${err}`,
  createSandboxFailed: (err: string) => `Failed to create pod sandbox: ${err}`,
  nodeStatus: (node: string, ev: string) => `Node ${node} status is now: ${ev}`,
  startingKubelet: 'Starting kubelet.',
  allocatableEnforced: 'Updated Node Allocatable limit across pods',
} as const;

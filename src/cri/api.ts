/**
 * The CRI-shaped runtime interface the kubelet talks to. Shapes and names follow
 * CRI v1 (`runtime.v1.RuntimeService` / `runtime.v1.ImageService`) with proto field
 * names in lowerCamelCase, so `cri/remote` (gRPC to containerd / CRI-O) maps 1:1 and
 * `cri/sim` (in-memory simulated runtime) is interchangeable with it.
 *
 * Units: timestamps are nanoseconds since the epoch as `bigint`-free numbers (ns may
 * exceed 2^53, so they are carried as strings of decimal ns where precision matters:
 * see `*AtNs`). Timeouts are seconds (as CRI). Memory is bytes, CPU shares/quota/period
 * as CRI's LinuxContainerResources.
 *
 * @see https://github.com/kubernetes/cri-api/blob/master/pkg/apis/runtime/v1/api.proto
 */
import type { Readable } from 'node:stream';

export interface KeyValuePair {
  key: string;
  value: string;
}

// ---------------------------------------------------------------- sandboxes

export interface PodSandboxMetadata {
  name: string;
  uid: string;
  namespace: string;
  attempt: number;
}

export interface PortMapping {
  /** 0 TCP, 1 UDP, 2 SCTP */
  protocol: 'TCP' | 'UDP' | 'SCTP';
  containerPort: number;
  hostPort: number;
  hostIp: string;
}

export interface DNSConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

export interface LinuxSandboxSecurityContext {
  /** `pid: 'TARGET'` shares the PID namespace of container `targetId` (ephemeral containers' targetContainerName) */
  namespaceOptions?: { network?: 'POD' | 'CONTAINER' | 'NODE'; pid?: 'POD' | 'CONTAINER' | 'NODE' | 'TARGET'; ipc?: 'POD' | 'CONTAINER' | 'NODE'; targetId?: string };
  runAsUser?: number;
  runAsGroup?: number;
  supplementalGroups?: number[];
  readonlyRootfs?: boolean;
  privileged?: boolean;
  seccomp?: { profileType: 'RuntimeDefault' | 'Unconfined' | 'Localhost'; localhostRef?: string };
}

export interface PodSandboxConfig {
  metadata: PodSandboxMetadata;
  hostname: string;
  /** directory where container logs of this sandbox are written (absolute) */
  logDirectory: string;
  dnsConfig?: DNSConfig;
  portMappings: PortMapping[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  linux?: {
    cgroupParent?: string;
    securityContext?: LinuxSandboxSecurityContext;
    sysctls?: Record<string, string>;
  };
}

export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';

export interface PodSandbox {
  id: string;
  metadata: PodSandboxMetadata;
  state: PodSandboxState;
  /** ns since epoch */
  createdAt: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtimeHandler?: string;
}

export interface PodSandboxStatus extends PodSandbox {
  network?: { ip: string; additionalIps: { ip: string }[] };
  linux?: { namespaces?: { options?: LinuxSandboxSecurityContext['namespaceOptions'] } };
}

export interface PodSandboxFilter {
  id?: string;
  state?: PodSandboxState;
  labelSelector?: Record<string, string>;
}

// ---------------------------------------------------------------- containers

export interface ContainerMetadata {
  name: string;
  attempt: number;
}

export interface ImageSpec {
  image: string;
  annotations?: Record<string, string>;
  userSpecifiedImage?: string;
}

export interface Mount {
  containerPath: string;
  hostPath: string;
  readonly: boolean;
  selinuxRelabel?: boolean;
  propagation?: 'PROPAGATION_PRIVATE' | 'PROPAGATION_HOST_TO_CONTAINER' | 'PROPAGATION_BIDIRECTIONAL';
}

export interface Device {
  containerPath: string;
  hostPath: string;
  permissions: string;
}

export interface LinuxContainerResources {
  cpuPeriod?: number;
  cpuQuota?: number;
  cpuShares?: number;
  /** bytes */
  memoryLimitInBytes?: number;
  oomScoreAdj?: number;
  cpusetCpus?: string;
  cpusetMems?: string;
}

export interface LinuxContainerSecurityContext {
  capabilities?: { addCapabilities?: string[]; dropCapabilities?: string[] };
  privileged?: boolean;
  namespaceOptions?: LinuxSandboxSecurityContext['namespaceOptions'];
  runAsUser?: number;
  runAsGroup?: number;
  runAsUsername?: string;
  readonlyRootfs?: boolean;
  supplementalGroups?: number[];
  noNewPrivs?: boolean;
  maskedPaths?: string[];
  readonlyPaths?: string[];
  seccomp?: { profileType: 'RuntimeDefault' | 'Unconfined' | 'Localhost'; localhostRef?: string };
}

export interface ContainerConfig {
  metadata: ContainerMetadata;
  image: ImageSpec;
  command: string[];
  args: string[];
  workingDir: string;
  envs: KeyValuePair[];
  mounts: Mount[];
  devices?: Device[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** relative to the sandbox's logDirectory */
  logPath: string;
  stdin: boolean;
  stdinOnce: boolean;
  tty: boolean;
  linux?: { resources?: LinuxContainerResources; securityContext?: LinuxContainerSecurityContext };
}

export type ContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';

export interface Container {
  id: string;
  podSandboxId: string;
  metadata: ContainerMetadata;
  image: ImageSpec;
  /** image ID / digest reference the container runs */
  imageRef: string;
  state: ContainerState;
  /** ns since epoch */
  createdAt: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface ContainerStatus extends Omit<Container, 'podSandboxId'> {
  /** ns since epoch, 0 if not started */
  startedAt: number;
  /** ns since epoch, 0 if not finished */
  finishedAt: number;
  exitCode: number;
  /** e.g. "Completed", "Error", "OOMKilled" */
  reason: string;
  message: string;
  mounts: Mount[];
  /** absolute path of the CRI-format log file */
  logPath: string;
  resources?: { linux?: LinuxContainerResources };
}

export interface ContainerFilter {
  id?: string;
  state?: ContainerState;
  podSandboxId?: string;
  labelSelector?: Record<string, string>;
}

export interface ExecSyncResult {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
}

/** Streaming request (exec/attach/portforward) answered by a URL of the runtime's streaming server. */
export interface ExecRequest {
  containerId: string;
  cmd: string[];
  tty: boolean;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
}
export interface AttachRequest {
  containerId: string;
  stdin: boolean;
  tty: boolean;
  stdout: boolean;
  stderr: boolean;
}
export interface PortForwardRequest {
  podSandboxId: string;
  port: number[];
}

export interface RuntimeCondition {
  /** "RuntimeReady" | "NetworkReady" */
  type: string;
  status: boolean;
  reason: string;
  message: string;
}

export interface VersionInfo {
  version: string;
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

/** CRI RuntimeService. Every method rejects with `CRIError` on failure. */
export interface RuntimeService {
  version(): Promise<VersionInfo>;
  status(): Promise<{ conditions: RuntimeCondition[] }>;
  /** Sets the pod CIDR for the runtime's network plugin (CRI UpdateRuntimeConfig). */
  updateRuntimeConfig(podCIDR: string): Promise<void>;

  runPodSandbox(config: PodSandboxConfig, runtimeHandler?: string): Promise<string>;
  stopPodSandbox(podSandboxId: string): Promise<void>;
  removePodSandbox(podSandboxId: string): Promise<void>;
  podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatus>;
  listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]>;

  createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string>;
  startContainer(containerId: string): Promise<void>;
  /** `timeout` in seconds: SIGTERM, then SIGKILL after the timeout. */
  stopContainer(containerId: string, timeout: number): Promise<void>;
  removeContainer(containerId: string): Promise<void>;
  listContainers(filter?: ContainerFilter): Promise<Container[]>;
  containerStatus(containerId: string): Promise<ContainerStatus>;
  /** `timeout` in seconds (0 = none). */
  execSync(containerId: string, cmd: string[], timeout: number): Promise<ExecSyncResult>;
  exec(req: ExecRequest): Promise<{ url: string }>;
  attach(req: AttachRequest): Promise<{ url: string }>;
  portForward(req: PortForwardRequest): Promise<{ url: string }>;
  reopenContainerLog(containerId: string): Promise<void>;
}

export interface Image {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  /** bytes */
  size: number;
  uid?: number;
  username?: string;
  pinned?: boolean;
}

export interface AuthConfig {
  username?: string;
  password?: string;
  auth?: string;
  serverAddress?: string;
  identityToken?: string;
  registryToken?: string;
}

/** CRI ImageService. */
export interface ImageService {
  listImages(filter?: { image?: ImageSpec }): Promise<Image[]>;
  /** undefined when the image is not present */
  imageStatus(image: ImageSpec): Promise<Image | undefined>;
  /** Returns the image reference (ID or digest) of the pulled image. */
  pullImage(image: ImageSpec, auth?: AuthConfig, sandboxConfig?: PodSandboxConfig): Promise<string>;
  removeImage(image: ImageSpec): Promise<void>;
  /** bytes used / inodes of the image filesystem */
  imageFsInfo(): Promise<{ usedBytes: number; inodesUsed: number; mountpoint: string }[]>;
}

/**
 * What the kubelet may rely on besides the CRI calls, where it acts on the host beside
 * the runtime (in the manner of CRI's RuntimeHandlerFeatures in the Status response).
 */
export interface RuntimeFeatures {
  /**
   * Containers are host processes: they see the memory-backed (tmpfs) volumes the
   * kubelet mounts and run inside the pod cgroups it creates. False: the kubelet keeps
   * volumes as plain directories and leaves cgroups alone.
   */
  readonly hostProcesses: boolean;
  /**
   * Pod IPs are reachable from the node, so httpGet/tcpSocket/grpc probes connect to
   * them. False: no traffic reaches a pod and such probes succeed without connecting.
   */
  readonly podNetwork: boolean;
}

/** One exec session served in-process: the streams of {@link InProcessStreaming.execStream}. */
export interface ExecStreamSession {
  /** allocate a terminal (everything arrives as stdout) */
  tty: boolean;
  /** the client's stdin; its end is the program's end of input */
  stdin?: Readable;
  /** output, as it is written */
  write(stream: 'stdout' | 'stderr', data: Buffer): void;
  /** aborting kills the session (the client went away) */
  signal?: AbortSignal;
}

/**
 * Exec and attach served in the kubelet's process, for a runtime without a CRI
 * streaming server (its exec/attach/portForward answer `Unimplemented`): the
 * simulated runtime.
 */
export interface InProcessStreaming {
  /**
   * Runs `cmd` in the container with live streams; resolves to its exit status.
   * @throws CRIError NotFound for an unknown container, Unknown when it is not running
   */
  execStream(containerId: string, cmd: string[], session: ExecStreamSession): Promise<number>;
  /**
   * Feeds `stdin` to the main process of a container created with `stdin: true` (through
   * its terminal when it has `tty: true`) until the stream ends, `signal` aborts or the
   * container stops; the process's output reaches the client through the container log.
   * @throws CRIError NotFound for an unknown container; Unknown when it is not running;
   *   InvalidArgument when it was created without `stdin`
   */
  attachStdin(containerId: string, stdin: Readable, signal: AbortSignal): Promise<void>;
}

/** A runtime = both services; `close()` releases connections or child processes. */
export interface Runtime extends RuntimeService, ImageService {
  /** "sim" or "remote" — shown on the node (label k8ts.io/runtime) and in the banner; never a switch for behaviour (see {@link features}). */
  readonly kind: 'sim' | 'remote';
  readonly features: RuntimeFeatures;
  /** set by a runtime without a CRI streaming server that serves exec/attach in-process */
  readonly inProcessStreaming?: InProcessStreaming;
  close(): Promise<void>;
}

/** gRPC-like status codes the runtime reports; the kubelet maps them to reasons. */
export type CRIErrorCode = 'NotFound' | 'AlreadyExists' | 'InvalidArgument' | 'Unavailable' | 'DeadlineExceeded' | 'Unknown' | 'Unimplemented';

/** The only error type runtimes throw. */
export class CRIError extends Error {
  constructor(
    readonly code: CRIErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CRIError';
  }
}

/** Labels the kubelet puts on sandboxes and containers (upstream pkg/kubelet/types/labels.go). */
export const CRILabels = {
  podName: 'io.kubernetes.pod.name',
  podNamespace: 'io.kubernetes.pod.namespace',
  podUID: 'io.kubernetes.pod.uid',
  containerName: 'io.kubernetes.container.name',
  containerType: 'io.kubernetes.container.type',
  kubernetesManagedBy: 'io.kubernetes.container.managed-by',
} as const;

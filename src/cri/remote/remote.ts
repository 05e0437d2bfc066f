/**
 * `RemoteRuntime`: the `Runtime` of ../api.ts over CRI v1 gRPC to containerd or CRI-O
 * on a unix socket. Each method is one RPC; inputs and outputs map 1:1 (see
 * convert.ts); failures reject with `CRIError` (see client.ts `toCRIError`).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/cri-client/pkg/remote_runtime.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/cri-client/pkg/remote_image.go
 */
import type {
  AttachRequest,
  AuthConfig,
  Container,
  ContainerConfig,
  ContainerFilter,
  ContainerStatus,
  ExecRequest,
  ExecSyncResult,
  Image,
  ImageSpec,
  PodSandbox,
  PodSandboxConfig,
  PodSandboxFilter,
  PodSandboxStatus,
  PortForwardRequest,
  Runtime,
  RuntimeCondition,
  VersionInfo,
} from '../api.js';
import { CRIError, type RuntimeFeatures } from '../api.js';
import { CRIClient, DEFAULT_REQUEST_TIMEOUT_MS } from './client.js';
import {
  fromContainer,
  fromContainerStatus,
  fromImage,
  fromPodSandbox,
  fromPodSandboxStatus,
  toWireContainerConfig,
  toWireContainerFilter,
  toWireSandboxConfig,
  toWireSandboxFilter,
  type W,
} from './convert.js';

/** The CRI API version the kubelet announces in VersionRequest. */
const KUBE_RUNTIME_API_VERSION = '0.1.0';

export interface RemoteRuntimeOptions {
  /** Deadline of ordinary calls, ms (upstream `--runtime-request-timeout`, 2 min). */
  requestTimeoutMs?: number;
  /** Deadline of PullImage, ms (default 10 min: large images on slow registries). */
  pullTimeoutMs?: number;
}

/**
 * CRI client implementing `Runtime`. Construct with `RemoteRuntime.connect(endpoint)`
 * to wait for the socket, or `new RemoteRuntime(endpoint)` to connect lazily.
 */
export class RemoteRuntime implements Runtime {
  readonly kind = 'remote' as const;
  /** real containers on this host */
  readonly features: RuntimeFeatures = { hostProcesses: true, podNetwork: true };
  readonly client: CRIClient;
  private readonly timeout: number;
  private readonly pullTimeout: number;

  /** @param endpoint `unix:///run/containerd/containerd.sock` or a bare socket path. */
  constructor(
    readonly endpoint: string,
    opts: RemoteRuntimeOptions = {},
  ) {
    this.client = new CRIClient(endpoint);
    this.timeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.pullTimeout = opts.pullTimeoutMs ?? 600_000;
  }

  /**
   * Opens a runtime and waits until its socket accepts the connection.
   * @throws CRIError Unavailable when not connected within `waitMs` (default 10 s).
   */
  static async connect(endpoint: string, opts: RemoteRuntimeOptions & { waitMs?: number } = {}): Promise<RemoteRuntime> {
    const rt = new RemoteRuntime(endpoint, opts);
    try {
      await rt.client.waitForReady(opts.waitMs ?? 10_000);
    } catch (err) {
      rt.client.close();
      throw err;
    }
    return rt;
  }

  private rt<T>(method: string, req: object, timeoutMs = this.timeout): Promise<T> {
    return this.client.callRuntime<T>(method, req, timeoutMs);
  }
  private img<T>(method: string, req: object, timeoutMs = this.timeout): Promise<T> {
    return this.client.callImage<T>(method, req, timeoutMs);
  }

  // ------------------------------------------------------------ runtime

  async version(): Promise<VersionInfo> {
    return this.rt<VersionInfo>('Version', { version: KUBE_RUNTIME_API_VERSION });
  }

  async status(): Promise<{ conditions: RuntimeCondition[] }> {
    const res = await this.rt<{ status: { conditions: RuntimeCondition[] } | null }>('Status', { verbose: false });
    if (!res.status) throw new CRIError('Unknown', 'runtime Status response has no status');
    return { conditions: res.status.conditions };
  }

  async updateRuntimeConfig(podCIDR: string): Promise<void> {
    await this.rt('UpdateRuntimeConfig', { runtimeConfig: { networkConfig: { podCidr: podCIDR } } });
  }

  // ------------------------------------------------------------ sandboxes

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler = ''): Promise<string> {
    const res = await this.rt<{ podSandboxId: string }>('RunPodSandbox', { config: toWireSandboxConfig(config), runtimeHandler });
    if (!res.podSandboxId) throw new CRIError('Unknown', `RunPodSandbox for ${config.metadata.namespace}/${config.metadata.name} returned an empty id`);
    return res.podSandboxId;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.rt('StopPodSandbox', { podSandboxId });
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.rt('RemovePodSandbox', { podSandboxId });
  }

  async podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatus> {
    const res = await this.rt<{ status: W.PodSandboxStatus | null }>('PodSandboxStatus', { podSandboxId, verbose: false });
    if (!res.status) throw new CRIError('Unknown', `PodSandboxStatus of ${podSandboxId} has no status`);
    return fromPodSandboxStatus(res.status);
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    const res = await this.rt<{ items: W.PodSandbox[] }>('ListPodSandbox', { filter: toWireSandboxFilter(filter) });
    return res.items.map(fromPodSandbox);
  }

  // ------------------------------------------------------------ containers

  async createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string> {
    const res = await this.rt<{ containerId: string }>('CreateContainer', {
      podSandboxId,
      config: toWireContainerConfig(config),
      sandboxConfig: toWireSandboxConfig(sandboxConfig),
    });
    if (!res.containerId) throw new CRIError('Unknown', `CreateContainer ${config.metadata.name} returned an empty id`);
    return res.containerId;
  }

  async startContainer(containerId: string): Promise<void> {
    await this.rt('StartContainer', { containerId });
  }

  /** `timeout` in s; the call's deadline is the kubelet's: request timeout + timeout. */
  async stopContainer(containerId: string, timeout: number): Promise<void> {
    await this.rt('StopContainer', { containerId, timeout }, this.timeout + timeout * 1000);
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.rt('RemoveContainer', { containerId });
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    const res = await this.rt<{ containers: W.Container[] }>('ListContainers', { filter: toWireContainerFilter(filter) });
    return res.containers.map(fromContainer);
  }

  async containerStatus(containerId: string): Promise<ContainerStatus> {
    const res = await this.rt<{ status: W.ContainerStatus | null }>('ContainerStatus', { containerId, verbose: false });
    if (!res.status) throw new CRIError('Unknown', `ContainerStatus of ${containerId} has no status`);
    return fromContainerStatus(res.status);
  }

  /** `timeout` in s (0 = none); the call's deadline is request timeout + timeout, as upstream. */
  async execSync(containerId: string, cmd: string[], timeout: number): Promise<ExecSyncResult> {
    const res = await this.rt<ExecSyncResult>('ExecSync', { containerId, cmd, timeout }, this.timeout + timeout * 1000);
    return { stdout: res.stdout, stderr: res.stderr, exitCode: res.exitCode };
  }

  async exec(req: ExecRequest): Promise<{ url: string }> {
    const res = await this.rt<{ url: string }>('Exec', req);
    return { url: res.url };
  }

  async attach(req: AttachRequest): Promise<{ url: string }> {
    const res = await this.rt<{ url: string }>('Attach', req);
    return { url: res.url };
  }

  async portForward(req: PortForwardRequest): Promise<{ url: string }> {
    const res = await this.rt<{ url: string }>('PortForward', req);
    return { url: res.url };
  }

  async reopenContainerLog(containerId: string): Promise<void> {
    await this.rt('ReopenContainerLog', { containerId });
  }

  // ------------------------------------------------------------ images

  async listImages(filter?: { image?: ImageSpec }): Promise<Image[]> {
    const res = await this.img<{ images: W.Image[] }>('ListImages', { filter: filter?.image ? { image: filter.image } : undefined });
    return res.images.map(fromImage);
  }

  async imageStatus(image: ImageSpec): Promise<Image | undefined> {
    const res = await this.img<{ image: W.Image | null }>('ImageStatus', { image, verbose: false });
    return res.image && res.image.id ? fromImage(res.image) : undefined;
  }

  async pullImage(image: ImageSpec, auth?: AuthConfig, sandboxConfig?: PodSandboxConfig): Promise<string> {
    const res = await this.img<{ imageRef: string }>('PullImage', { image, auth, sandboxConfig: sandboxConfig && toWireSandboxConfig(sandboxConfig) }, this.pullTimeout);
    if (!res.imageRef) throw new CRIError('Unknown', `PullImage ${image.image} returned an empty image reference`);
    return res.imageRef;
  }

  async removeImage(image: ImageSpec): Promise<void> {
    await this.img('RemoveImage', { image });
  }

  async imageFsInfo(): Promise<{ usedBytes: number; inodesUsed: number; mountpoint: string }[]> {
    type FsUsage = { fsId: { mountpoint: string } | null; usedBytes: { value: number } | null; inodesUsed: { value: number } | null };
    const res = await this.img<{ imageFilesystems: FsUsage[] }>('ImageFsInfo', {});
    return res.imageFilesystems.map((f) => ({
      usedBytes: f.usedBytes?.value ?? 0,
      inodesUsed: f.inodesUsed?.value ?? 0,
      mountpoint: f.fsId?.mountpoint ?? '',
    }));
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

/**
 * SimRuntime: an in-memory, CRI-shaped container runtime for machines without
 * containerd and for scale tests. Nothing runs on the host: sandboxes get IPs from
 * the node's pod CIDR, containers "run" their command through the interpreter in
 * shell.ts (processes: host.ts) against a per-container filesystem view (fs.ts) and
 * write CRI-format logs under the sandbox's log directory, exactly where containerd
 * would. Delays and failures come from {@link SimBehavior} (behavior.ts).
 *
 * With `stateDir`, everything but the processes survives a restart (state.ts): the
 * kubelet finds its sandboxes, IPs, exited containers and running containers again,
 * as after a kubelet restart on containerd. Containers that were running resume as
 * idle processes (what their scripts would have printed after the restart is not
 * replayed).
 *
 * Everything it shows says it is simulated: runtimeName "sim", version "sim://…" on
 * the node, container IDs `sim://<id>` in pod status.
 *
 * @see https://github.com/kubernetes/cri-api/blob/master/pkg/apis/runtime/v1/api.proto
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import {
  CRIError,
  type AttachRequest,
  type AuthConfig,
  type Container,
  type ContainerConfig,
  type ContainerFilter,
  type ContainerStatus,
  type ExecRequest,
  type ExecSyncResult,
  type Image,
  type ImageSpec,
  type PodSandbox,
  type PodSandboxConfig,
  type PodSandboxFilter,
  type PodSandboxStatus,
  type PortForwardRequest,
  type InProcessStreaming,
  type Runtime,
  type RuntimeCondition,
  type RuntimeFeatures,
  type VersionInfo,
} from '../api.js';
import { containerBehavior, resolveBehavior, type SimImageRule } from './behavior.js';
import type { ClusterNetDeps } from './cluster-http.js';
import type { SimPodHost } from './cluster-net.js';
import { ProcessHost, type SimExecSession } from './host.js';
import { ImageStore, normalizeImage } from './images.js';
import { Ipam } from './ipam.js';
import type { SimClock } from './process.js';
import type { ContainerRec, SandboxRec } from './records.js';
import { STATE_VERSION, StateStore, type SimState } from './state.js';

export type { SimClock } from './process.js';
export type { SimExecSession } from './host.js';

/** Timers stay referenced: a pending stop or pull keeps the process alive, as a real runtime call would. */
const realClock: SimClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Version reported by the simulated runtime ("sim://0.1.0" on the node). */
export const SIM_RUNTIME_VERSION = '0.1.0';

export interface SimRuntimeOptions {
  /** default: the process clock */
  clock?: SimClock;
  /** the node's pod CIDR (IPv4); can also be set later through updateRuntimeConfig */
  podCIDR?: string;
  /** images present from the start (e.g. a pause image) */
  images?: string[];
  /** image rules applied after the built-in ones */
  imageRules?: SimImageRule[];
  /** ms a pull takes when no rule says otherwise (default 0) */
  defaultPullDelayMs?: number;
  /**
   * Host directories the simulated containers may write into through their mounts
   * (default: the kubelet root inferred from each sandbox's log directory,
   * `<dataDir>/kubelet`). Other mounts are read-only to the simulation.
   */
  writableHostRoots?: string[];
  /**
   * Directory where the runtime keeps its state (`state.json`) across restarts, e.g.
   * `<dataDir>/sim-runtime`; read at construction. Default: nothing is kept.
   * @throws Error from the constructor when the file there is not a state it can read
   */
  stateDir?: string;
  /** ms between a change and the state write (default 500) */
  stateDebounceMs?: number;
  /** the SIMULATED cluster network (see {@link SimRuntime.setClusterNetwork}) */
  network?: ClusterNetDeps;
}

const ns = (ms: number): number => ms * 1e6;
const newId = (): string => randomBytes(32).toString('hex');

export class SimRuntime implements Runtime {
  readonly kind = 'sim' as const;
  /** no process runs, no pod IP answers */
  readonly features: RuntimeFeatures = { hostProcesses: false, podNetwork: false };
  /** exec and attach without a streaming server: {@link execStream}, {@link attachStdin} */
  readonly inProcessStreaming: InProcessStreaming = this;
  private readonly clock: SimClock;
  private readonly sandboxes = new Map<string, SandboxRec>();
  private readonly containers = new Map<string, ContainerRec>();
  private readonly names = new Map<string, string>();
  private readonly images = new ImageStore();
  private readonly pulls = new Map<string, Promise<string>>();
  private readonly host: ProcessHost;
  private readonly store?: StateStore;
  private ipam?: Ipam;
  private closed = false;

  constructor(private readonly opts: SimRuntimeOptions = {}) {
    this.clock = opts.clock ?? realClock;
    if (opts.podCIDR) this.ipam = new Ipam(opts.podCIDR);
    this.host = new ProcessHost({
      clock: this.clock,
      sandbox: (id) => this.sandbox(id),
      containersOf: (sandboxId) => [...this.containers.values()].filter((c) => c.sandboxId === sandboxId),
      writableHostRoots: opts.writableHostRoots,
      changed: () => this.changed(),
      cluster: () => this.network,
    });
    if (opts.network) this.setClusterNetwork(opts.network);
    if (opts.stateDir) {
      this.store = new StateStore(opts.stateDir, this.clock, () => this.snapshot(), opts.stateDebounceMs ?? 500);
      const saved = this.store.load();
      if (saved) this.restore(saved);
    }
    for (const i of opts.images ?? []) this.images.add(i);
  }

  private network?: ClusterNetDeps;
  private readonly podHost: SimPodHost = { serveAt: (ip, req) => this.host.serveAt(ip, req, this.sandboxes.values()) };

  /**
   * Connects the pods to a SIMULATED cluster network: names resolve through `deps.net`,
   * Services lead to their endpoints, NetworkPolicies apply, and this runtime's pods
   * answer requests from the pods of every runtime sharing `deps.pods`.
   */
  setClusterNetwork(deps: ClusterNetDeps | undefined): void {
    this.network?.pods.unregister(this.podHost);
    this.network = deps;
    deps?.pods.register(this.podHost);
  }

  private changed(): void {
    if (!this.closed) this.store?.changed();
  }

  /** Writes the state file now (it is also written shortly after every change, and at close). */
  saveState(): void {
    this.store?.save();
  }

  // ------------------------------------------------------------------ runtime

  async version(): Promise<VersionInfo> {
    return { version: '0.1.0', runtimeName: 'sim', runtimeVersion: SIM_RUNTIME_VERSION, runtimeApiVersion: 'v1' };
  }

  async status(): Promise<{ conditions: RuntimeCondition[] }> {
    const net: RuntimeCondition = this.ipam
      ? { type: 'NetworkReady', status: true, reason: '', message: '' }
      : {
          type: 'NetworkReady',
          status: false,
          reason: 'NetworkPluginNotReady',
          message: 'Network plugin returns error: simulated network has no pod CIDR yet',
        };
    return { conditions: [{ type: 'RuntimeReady', status: !this.closed, reason: '', message: '' }, net] };
  }

  async updateRuntimeConfig(podCIDR: string): Promise<void> {
    if (!podCIDR || podCIDR === this.ipam?.cidr) return;
    this.ipam = new Ipam(podCIDR);
    for (const s of this.sandboxes.values()) if (s.ip) this.ipam.reserve(s.ip);
  }

  private sleep(ms: number): Promise<void> {
    if (!ms) return Promise.resolve();
    return new Promise((r) => this.clock.setTimeout(r, ms));
  }

  private reserve(name: string, id: string, what: string): void {
    const holder = this.names.get(name);
    if (holder)
      throw new CRIError('AlreadyExists', `failed to reserve ${what} name ${JSON.stringify(name)}: name ${JSON.stringify(name)} is reserved for ${JSON.stringify(holder)}`);
    this.names.set(name, id);
  }

  // ------------------------------------------------------------------ sandboxes

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler?: string): Promise<string> {
    const m = config.metadata;
    const id = newId();
    const name = `${m.name}_${m.namespace}_${m.uid}_${m.attempt}`;
    this.reserve(name, id, 'sandbox');
    const behavior = resolveBehavior('', config.annotations, this.opts.imageRules);
    try {
      await this.sleep(behavior.sandbox?.delayMs ?? 0);
      if (behavior.sandbox?.error) throw new CRIError('Unknown', behavior.sandbox.error);
      if (!this.ipam) {
        throw new CRIError('Unknown', `failed to setup network for sandbox ${JSON.stringify(id)}: simulated network has no pod CIDR yet`);
      }
      const ip = this.ipam.allocate();
      this.sandboxes.set(id, { id, config, state: 'SANDBOX_READY', createdAt: ns(this.clock.now()), ip, name, behavior, runtimeHandler });
      this.changed();
      return id;
    } catch (e) {
      this.names.delete(name);
      throw e;
    }
  }

  private sandbox(id: string): SandboxRec {
    const s = this.sandboxes.get(id);
    if (!s) throw new CRIError('NotFound', `an error occurred when try to find sandbox: not found`);
    return s;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    const s = this.sandboxes.get(podSandboxId);
    if (!s) return;
    await Promise.all([...this.containers.values()].filter((c) => c.sandboxId === s.id).map((c) => this.stopContainer(c.id, 0)));
    s.state = 'SANDBOX_NOTREADY';
    this.changed();
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    const s = this.sandboxes.get(podSandboxId);
    if (!s) return;
    await this.stopPodSandbox(s.id);
    for (const c of [...this.containers.values()]) if (c.sandboxId === s.id) await this.removeContainer(c.id);
    if (s.ip) this.ipam?.release(s.ip);
    this.sandboxes.delete(s.id);
    this.names.delete(s.name);
    this.changed();
  }

  private toSandbox(s: SandboxRec): PodSandbox {
    return {
      id: s.id,
      metadata: { ...s.config.metadata },
      state: s.state,
      createdAt: s.createdAt,
      labels: { ...s.config.labels },
      annotations: { ...s.config.annotations },
      runtimeHandler: s.runtimeHandler ?? '',
    };
  }

  async podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatus> {
    const s = this.sandbox(podSandboxId);
    return {
      ...this.toSandbox(s),
      network: { ip: s.ip ?? '', additionalIps: [] },
      linux: { namespaces: { options: s.config.linux?.securityContext?.namespaceOptions ?? { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } } },
    };
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    const out: PodSandbox[] = [];
    for (const s of this.sandboxes.values()) {
      if (filter?.id && s.id !== filter.id) continue;
      if (filter?.state && s.state !== filter.state) continue;
      if (filter?.labelSelector && !matches(s.config.labels, filter.labelSelector)) continue;
      out.push(this.toSandbox(s));
    }
    return out;
  }

  // ------------------------------------------------------------------ containers

  private container(id: string): ContainerRec {
    const c = this.containers.get(id);
    if (!c) throw new CRIError('NotFound', `an error occurred when try to find container ${JSON.stringify(id)}: not found`);
    return c;
  }

  async createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string> {
    const s = this.sandbox(podSandboxId);
    if (s.state !== 'SANDBOX_READY') throw new CRIError('Unknown', `failed to create containerd container: sandbox ${JSON.stringify(s.id)} is not running`);
    const image = this.images.find(config.image.image);
    if (!image) {
      throw new CRIError('NotFound', `failed to get image ${JSON.stringify(config.image.image)}: image ${JSON.stringify(config.image.image)}: not found`);
    }
    const m = sandboxConfig.metadata;
    const id = newId();
    const name = `${config.metadata.name}_${m.name}_${m.namespace}_${m.uid}_${config.metadata.attempt}`;
    const userImage = config.image.userSpecifiedImage || config.image.image;
    const behavior = containerBehavior(resolveBehavior(userImage, s.config.annotations, this.opts.imageRules), config.metadata.name);
    this.reserve(name, id, 'container');
    try {
      await this.sleep(behavior.createDelayMs ?? 0);
      if (behavior.createError) throw new CRIError('Unknown', behavior.createError);
    } catch (e) {
      this.names.delete(name);
      throw e;
    }
    this.containers.set(id, {
      id,
      sandboxId: s.id,
      config,
      name,
      imageRef: image.repoDigests[0] ?? image.id,
      state: 'CONTAINER_CREATED',
      createdAt: ns(this.clock.now()),
      startedAt: 0,
      finishedAt: 0,
      exitCode: 0,
      reason: '',
      message: '',
      logPath: config.logPath ? path.join(s.config.logDirectory, config.logPath) : '',
      behavior,
      execs: new Set(),
      nextPid: 7,
    });
    this.changed();
    return id;
  }

  async startContainer(containerId: string): Promise<void> {
    const c = this.container(containerId);
    if (c.state !== 'CONTAINER_CREATED') throw new CRIError('Unknown', `container ${JSON.stringify(c.id)} is in ${c.state} state`);
    const s = this.sandbox(c.sandboxId);
    await this.sleep(c.behavior.startDelayMs ?? 0);
    const startError = c.behavior.startError ?? this.host.missingMain(c);
    if (startError) {
      c.state = 'CONTAINER_EXITED';
      c.exitCode = 128;
      c.reason = 'StartError';
      c.message = startError;
      c.finishedAt = ns(this.clock.now());
      this.changed();
      throw new CRIError('Unknown', startError);
    }
    c.state = 'CONTAINER_RUNNING';
    c.startedAt = ns(this.clock.now());
    this.host.start(c, s);
    this.changed();
  }

  async stopContainer(containerId: string, timeout: number): Promise<void> {
    const c = this.container(containerId);
    if (c.state === 'CONTAINER_CREATED') {
      c.state = 'CONTAINER_EXITED';
      c.finishedAt = ns(this.clock.now());
      c.reason = 'Completed';
      this.changed();
      return;
    }
    if (c.state !== 'CONTAINER_RUNNING') return;
    await this.host.stop(c, timeout);
  }

  async removeContainer(containerId: string): Promise<void> {
    const c = this.containers.get(containerId);
    if (!c) return;
    if (c.state === 'CONTAINER_RUNNING') await this.stopContainer(c.id, 0);
    this.containers.delete(c.id);
    this.names.delete(c.name);
    this.changed();
  }

  private toContainer(c: ContainerRec): Container {
    return {
      id: c.id,
      podSandboxId: c.sandboxId,
      metadata: { ...c.config.metadata },
      image: { ...c.config.image },
      imageRef: c.imageRef,
      state: c.state,
      createdAt: c.createdAt,
      labels: { ...c.config.labels },
      annotations: { ...c.config.annotations },
    };
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    const out: Container[] = [];
    for (const c of this.containers.values()) {
      if (filter?.id && c.id !== filter.id) continue;
      if (filter?.state && c.state !== filter.state) continue;
      if (filter?.podSandboxId && c.sandboxId !== filter.podSandboxId) continue;
      if (filter?.labelSelector && !matches(c.config.labels, filter.labelSelector)) continue;
      out.push(this.toContainer(c));
    }
    return out;
  }

  async containerStatus(containerId: string): Promise<ContainerStatus> {
    const c = this.container(containerId);
    const { podSandboxId: _unused, ...base } = this.toContainer(c);
    return {
      ...base,
      startedAt: c.startedAt,
      finishedAt: c.finishedAt,
      exitCode: c.exitCode,
      reason: c.reason,
      message: c.message,
      mounts: c.config.mounts.map((m) => ({ ...m })),
      logPath: c.logPath,
      resources: c.config.linux?.resources ? { linux: { ...c.config.linux.resources } } : undefined,
    };
  }

  /**
   * Runs `cmd` inside the container with the built-in command set of shell.ts
   * (e.g. `cat /tmp/healthy`, `sh -c 'test -e /tmp/ready'`, `ls`, `true`/`false`);
   * a program it does not know fails as in a shell (`sh: NAME: not found`, 127).
   * @throws CRIError Unknown when the container is not running; DeadlineExceeded when
   *   `timeout` (s, 0 = none) passes first.
   */
  async execSync(containerId: string, cmd: string[], timeout: number): Promise<ExecSyncResult> {
    return this.host.execSync(this.container(containerId), cmd, timeout);
  }

  /**
   * Streaming exec for the kubelet's in-process server ({@link InProcessStreaming}; CRI
   * itself hands out a streaming-server URL instead): stdin as it arrives, an optional terminal,
   * output as it is written. Resolves to the exit status.
   * @throws CRIError NotFound for an unknown container, Unknown when it is not running
   */
  async execStream(containerId: string, cmd: string[], session: SimExecSession): Promise<number> {
    return this.host.execStream(this.container(containerId), cmd, session);
  }

  /**
   * Attach with stdin for the kubelet's in-process server ({@link InProcessStreaming};
   * CRI itself hands out a streaming-server URL instead): the client's bytes reach PID 1's
   * open stdin until the stream ends, `signal` aborts or the container stops (see
   * ProcessHost.attachStdin).
   * @throws CRIError NotFound for an unknown container; Unknown when it is not running;
   *   InvalidArgument when it was created without `stdin`
   */
  async attachStdin(containerId: string, stdin: Readable, signal: AbortSignal): Promise<void> {
    return this.host.attachStdin(this.container(containerId), stdin, signal);
  }

  async exec(_req: ExecRequest): Promise<{ url: string }> {
    throw new CRIError('Unimplemented', 'the simulated runtime (sim) has no streaming server: exec is not available');
  }

  async attach(_req: AttachRequest): Promise<{ url: string }> {
    throw new CRIError('Unimplemented', 'the simulated runtime (sim) has no streaming server: attach is not available');
  }

  async portForward(_req: PortForwardRequest): Promise<{ url: string }> {
    throw new CRIError('Unimplemented', 'the simulated runtime (sim) has no streaming server: port-forward is not available');
  }

  async reopenContainerLog(containerId: string): Promise<void> {
    const c = this.container(containerId);
    if (c.state !== 'CONTAINER_RUNNING') throw new CRIError('Unknown', `container ${JSON.stringify(c.id)} is not running`);
  }

  // ------------------------------------------------------------------ images

  async listImages(filter?: { image?: ImageSpec }): Promise<Image[]> {
    return this.images.list(filter?.image).map((i) => ({ ...i, repoTags: [...i.repoTags], repoDigests: [...i.repoDigests] }));
  }

  async imageStatus(image: ImageSpec): Promise<Image | undefined> {
    const i = this.images.find(image.image);
    return i ? { ...i, repoTags: [...i.repoTags], repoDigests: [...i.repoDigests] } : undefined;
  }

  async pullImage(image: ImageSpec, _auth?: AuthConfig, sandboxConfig?: PodSandboxConfig): Promise<string> {
    const { name } = normalizeImage(image.image);
    const b = resolveBehavior(image.userSpecifiedImage || image.image, sandboxConfig?.annotations, this.opts.imageRules).pull ?? {};
    const key = `${name}\x00${JSON.stringify(b)}`;
    const inflight = this.pulls.get(key);
    if (inflight) return inflight;
    const p = (async () => {
      await this.sleep(b.delayMs ?? this.opts.defaultPullDelayMs ?? 0);
      if (b.error) {
        throw new CRIError(
          b.code ?? 'NotFound',
          `failed to pull and unpack image ${JSON.stringify(name)}: failed to resolve reference ${JSON.stringify(name)}: ${name}: ${b.error}`,
        );
      }
      const id = this.images.add(image.image, b.sizeBytes).id;
      this.changed();
      return id;
    })();
    this.pulls.set(key, p);
    try {
      return await p;
    } finally {
      this.pulls.delete(key);
    }
  }

  async removeImage(image: ImageSpec): Promise<void> {
    this.images.remove(image);
    this.changed();
  }

  async imageFsInfo(): Promise<{ usedBytes: number; inodesUsed: number; mountpoint: string }[]> {
    return [{ usedBytes: this.images.usedBytes(), inodesUsed: this.images.list().length, mountpoint: 'sim://images' }];
  }

  /** Saves the state (when kept), then ends every process. */
  async close(): Promise<void> {
    this.store?.close();
    this.closed = true;
    this.setClusterNetwork(undefined);
    for (const c of this.containers.values()) if (c.state === 'CONTAINER_RUNNING') this.host.kill(c, 137);
  }

  // ------------------------------------------------------------------ persistence

  private snapshot(): SimState {
    return {
      version: STATE_VERSION,
      savedAt: this.clock.now(),
      images: this.images.list(),
      sandboxes: [...this.sandboxes.values()].map((s) => ({
        id: s.id,
        config: s.config,
        state: s.state,
        createdAt: s.createdAt,
        ...(s.ip ? { ip: s.ip } : {}),
        name: s.name,
        ...(s.runtimeHandler ? { runtimeHandler: s.runtimeHandler } : {}),
      })),
      containers: [...this.containers.values()].map((c) => ({
        id: c.id,
        sandboxId: c.sandboxId,
        config: c.config,
        name: c.name,
        imageRef: c.imageRef,
        state: c.state,
        createdAt: c.createdAt,
        startedAt: c.startedAt,
        finishedAt: c.finishedAt,
        exitCode: c.exitCode,
        reason: c.reason,
        message: c.message,
        logPath: c.logPath,
        ...(c.proc?.termTrap !== undefined ? { termTrap: c.proc.termTrap } : {}),
        ...(c.fs && c.fsDirty ? { fs: c.fs.snapshot() } : {}),
        nextPid: c.nextPid,
      })),
    };
  }

  private restore(st: SimState): void {
    for (const i of st.images) this.images.restore(i);
    for (const s of st.sandboxes) {
      const behavior = resolveBehavior('', s.config.annotations, this.opts.imageRules);
      this.sandboxes.set(s.id, { ...s, behavior });
      this.names.set(s.name, s.id);
      if (s.ip) this.ipam?.reserve(s.ip);
    }
    for (const saved of st.containers) {
      const s = this.sandboxes.get(saved.sandboxId);
      if (!s) continue;
      const userImage = saved.config.image.userSpecifiedImage || saved.config.image.image;
      const c: ContainerRec = {
        id: saved.id,
        sandboxId: saved.sandboxId,
        config: saved.config,
        name: saved.name,
        imageRef: saved.imageRef,
        state: saved.state,
        createdAt: saved.createdAt,
        startedAt: saved.startedAt,
        finishedAt: saved.finishedAt,
        exitCode: saved.exitCode,
        reason: saved.reason,
        message: saved.message,
        logPath: saved.logPath,
        behavior: containerBehavior(resolveBehavior(userImage, s.config.annotations, this.opts.imageRules), saved.config.metadata.name),
        execs: new Set(),
        nextPid: saved.nextPid,
      };
      this.containers.set(c.id, c);
      this.names.set(c.name, c.id);
      if (c.state === 'CONTAINER_RUNNING') this.host.resume(c, s, { fs: saved.fs, termTrap: saved.termTrap });
    }
  }
}

function matches(labels: Record<string, string>, sel: Record<string, string>): boolean {
  for (const k in sel) if (labels[k] !== sel[k]) return false;
  return true;
}

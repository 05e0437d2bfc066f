/**
 * SimRuntime: an in-memory, CRI-shaped container runtime for machines without
 * containerd and for scale tests. Nothing runs on the host: sandboxes get IPs from
 * the node's pod CIDR, containers "run" their command through the interpreter in
 * shell.ts against a per-container filesystem view (fs.ts) and write CRI-format
 * logs under the sandbox's log directory, exactly where containerd would.
 * Delays and failures come from {@link SimBehavior} (behavior.ts).
 *
 * Everything it shows says it is simulated: runtimeName "sim", version "sim://…" on
 * the node, container IDs `sim://<id>` in pod status.
 *
 * @see https://github.com/kubernetes/cri-api/blob/master/pkg/apis/runtime/v1/api.proto
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
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
  type Runtime,
  type RuntimeCondition,
  type VersionInfo,
} from '../api.js';
import { containerBehavior, resolveBehavior, type SimBehavior, type SimContainerBehavior, type SimImageRule } from './behavior.js';
import { SimFs } from './fs.js';
import { ImageStore, normalizeImage } from './images.js';
import { Ipam } from './ipam.js';
import { CRILogWriter } from './logs.js';
import { KilledError, runProgram, type ShellIO } from './shell.js';

/** The clock the simulation runs on (structurally the kubelet's Clock). */
export interface SimClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(h: unknown): void;
}

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
}

interface SandboxRec {
  id: string;
  config: PodSandboxConfig;
  state: 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
  createdAt: number;
  ip?: string;
  name: string;
  behavior: SimBehavior;
  runtimeHandler?: string;
}

interface Proc {
  sleepers: Set<{ timer: unknown; reject: (e: Error) => void }>;
  done: Promise<void>;
  ignoreSigterm: boolean;
  /** `trap ACTION TERM` of the container's shell */
  termTrap?: string;
  killed?: boolean;
}

const IGNORES_SIGTERM = new Set(['sh', 'bash', 'ash', 'dash', 'sleep']);

interface ContainerRec {
  id: string;
  sandboxId: string;
  config: ContainerConfig;
  name: string;
  imageRef: string;
  state: Container['state'];
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  message: string;
  logPath: string;
  behavior: SimContainerBehavior;
  fs?: SimFs;
  proc?: Proc;
  log?: CRILogWriter;
}

const ns = (ms: number): number => ms * 1e6;
const newId = (): string => randomBytes(32).toString('hex');

export class SimRuntime implements Runtime {
  readonly kind = 'sim' as const;
  private readonly clock: SimClock;
  private readonly sandboxes = new Map<string, SandboxRec>();
  private readonly containers = new Map<string, ContainerRec>();
  private readonly names = new Map<string, string>();
  private readonly images = new ImageStore();
  private readonly pulls = new Map<string, Promise<string>>();
  private ipam?: Ipam;
  private closed = false;

  constructor(private readonly opts: SimRuntimeOptions = {}) {
    this.clock = opts.clock ?? realClock;
    if (opts.podCIDR) this.ipam = new Ipam(opts.podCIDR);
    for (const i of opts.images ?? []) this.images.add(i);
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
    if (podCIDR && podCIDR !== this.ipam?.cidr) this.ipam = new Ipam(podCIDR);
  }

  private sleep(ms: number): Promise<void> {
    if (!ms) return Promise.resolve();
    return new Promise((r) => this.clock.setTimeout(r, ms));
  }

  private reserve(name: string, id: string, what: string): void {
    const holder = this.names.get(name);
    if (holder) throw new CRIError('AlreadyExists', `failed to reserve ${what} name ${JSON.stringify(name)}: name ${JSON.stringify(name)} is reserved for ${JSON.stringify(holder)}`);
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
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    const s = this.sandboxes.get(podSandboxId);
    if (!s) return;
    await this.stopPodSandbox(s.id);
    for (const c of [...this.containers.values()]) if (c.sandboxId === s.id) await this.removeContainer(c.id);
    if (s.ip) this.ipam?.release(s.ip);
    this.sandboxes.delete(s.id);
    this.names.delete(s.name);
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
    const now = ns(this.clock.now());
    this.containers.set(id, {
      id,
      sandboxId: s.id,
      config,
      name,
      imageRef: image.repoDigests[0] ?? image.id,
      state: 'CONTAINER_CREATED',
      createdAt: now,
      startedAt: 0,
      finishedAt: 0,
      exitCode: 0,
      reason: '',
      message: '',
      logPath: config.logPath ? path.join(s.config.logDirectory, config.logPath) : '',
      behavior,
    });
    return id;
  }

  async startContainer(containerId: string): Promise<void> {
    const c = this.container(containerId);
    if (c.state !== 'CONTAINER_CREATED') throw new CRIError('Unknown', `container ${JSON.stringify(c.id)} is in ${c.state} state`);
    const s = this.sandbox(c.sandboxId);
    await this.sleep(c.behavior.startDelayMs ?? 0);
    if (c.behavior.startError) {
      c.state = 'CONTAINER_EXITED';
      c.exitCode = 128;
      c.reason = 'StartError';
      c.message = c.behavior.startError;
      c.finishedAt = ns(this.clock.now());
      throw new CRIError('Unknown', c.behavior.startError);
    }
    c.state = 'CONTAINER_RUNNING';
    c.startedAt = ns(this.clock.now());
    if (c.logPath) c.log = new CRILogWriter(c.logPath, () => this.clock.now());
    const kubeletRoot = path.dirname(path.dirname(s.config.logDirectory));
    c.fs = new SimFs(c.config.mounts, this.opts.writableHostRoots ?? [kubeletRoot], c.config.workingDir || '/');
    this.launch(c, s);
  }

  private io(c: ContainerRec, s: SandboxRec, proc: Proc, write: ShellIO['write']): ShellIO {
    const env = new Map<string, string>([
      ['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
      ['HOSTNAME', s.config.hostname],
    ]);
    for (const e of c.config.envs) env.set(e.key, e.value);
    const sc = c.config.linux?.securityContext;
    return {
      env,
      fs: c.fs!,
      hostname: s.config.hostname,
      uid: sc?.runAsUser ?? 0,
      gid: sc?.runAsGroup ?? 0,
      groups: sc?.supplementalGroups ?? [],
      write,
      setTermTrap: (action) => {
        proc.termTrap = action;
      },
      isKilled: () => !!proc.killed,
      now: () => this.clock.now(),
      sleep: (ms) =>
        new Promise<void>((resolve, reject) => {
          if (proc.killed) return reject(new KilledError());
          const entry = { timer: undefined as unknown, reject };
          if (ms !== Infinity) {
            entry.timer = this.clock.setTimeout(() => {
              proc.sleepers.delete(entry);
              resolve();
            }, ms);
          }
          proc.sleepers.add(entry);
        }),
    };
  }

  private launch(c: ContainerRec, s: SandboxRec): void {
    const argv = [...c.config.command, ...c.config.args];
    const ignore = c.behavior.ignoreSigterm ?? (argv.length > 0 && IGNORES_SIGTERM.has(path.posix.basename(argv[0])));
    const proc: Proc = { sleepers: new Set(), done: Promise.resolve(), ignoreSigterm: ignore };
    c.proc = proc;
    const io = this.io(c, s, proc, (stream, text) => c.log?.write(stream, text));
    for (const l of c.behavior.logs ?? []) io.write('stdout', `${l}\n`);
    const b = c.behavior;
    const run = async (): Promise<{ code: number; reason?: string }> => {
      if (b.exitAfterMs !== undefined || b.oomKilled) {
        const forced = io.sleep(b.exitAfterMs ?? 1000).then(() => (b.oomKilled ? { code: 137, reason: 'OOMKilled' } : { code: b.exitCode ?? 0 }));
        const own = argv.length ? runProgram(argv, io).then((code) => ({ code })) : new Promise<never>(() => undefined);
        return Promise.race([forced, own]);
      }
      if (!argv.length) {
        await io.sleep(Infinity);
        return { code: 0 };
      }
      return { code: await runProgram(argv, io) };
    };
    proc.done = run().then(
      (r) => this.exited(c, r.code, r.reason),
      (e: unknown) => this.exited(c, e instanceof KilledError ? c.exitCode : 1, e instanceof KilledError ? undefined : 'Error', e instanceof KilledError ? '' : String(e)),
    );
  }

  private exited(c: ContainerRec, code: number, reason?: string, message = ''): void {
    if (c.state !== 'CONTAINER_RUNNING') return;
    if (c.proc) c.proc.killed = true;
    for (const sl of c.proc?.sleepers ?? []) {
      if (sl.timer !== undefined) this.clock.clearTimeout(sl.timer);
      sl.reject(new KilledError());
    }
    c.proc?.sleepers.clear();
    c.log?.close();
    c.state = 'CONTAINER_EXITED';
    c.exitCode = code;
    c.reason = reason ?? (code === 0 ? 'Completed' : 'Error');
    c.message = message;
    c.finishedAt = ns(this.clock.now());
  }

  private kill(c: ContainerRec, code: number): void {
    c.exitCode = code;
    if (c.proc) c.proc.killed = true;
    for (const sl of c.proc?.sleepers ?? []) {
      if (sl.timer !== undefined) this.clock.clearTimeout(sl.timer);
      sl.reject(new KilledError());
    }
    c.proc?.sleepers.clear();
  }

  async stopContainer(containerId: string, timeout: number): Promise<void> {
    const c = this.container(containerId);
    if (c.state === 'CONTAINER_CREATED') {
      c.state = 'CONTAINER_EXITED';
      c.finishedAt = ns(this.clock.now());
      c.reason = 'Completed';
      return;
    }
    if (c.state !== 'CONTAINER_RUNNING' || !c.proc) return;
    const proc = c.proc;
    if (timeout <= 0) this.kill(c, 137);
    else if (proc.termTrap !== undefined && proc.termTrap !== '' && proc.termTrap !== '-') {
      const s = this.sandbox(c.sandboxId);
      const trapProc: Proc = { sleepers: new Set(), done: Promise.resolve(), ignoreSigterm: false };
      const code = await runProgram(['sh', '-c', proc.termTrap], this.io(c, s, trapProc, (st, t) => c.log?.write(st, t))).catch(() => 0);
      if (c.state === 'CONTAINER_RUNNING') this.kill(c, code);
    } else if (proc.ignoreSigterm || proc.termTrap === '') {
      await Promise.race([proc.done, this.sleep(timeout * 1000)]);
      if (c.state === 'CONTAINER_RUNNING') this.kill(c, 137);
    } else this.kill(c, 0);
    await proc.done;
    if (c.state === 'CONTAINER_RUNNING') this.exited(c, c.exitCode);
  }

  async removeContainer(containerId: string): Promise<void> {
    const c = this.containers.get(containerId);
    if (!c) return;
    if (c.state === 'CONTAINER_RUNNING') await this.stopContainer(c.id, 0);
    this.containers.delete(c.id);
    this.names.delete(c.name);
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
   * (e.g. `cat /tmp/healthy`, `sh -c 'test -e /tmp/ready'`, `ls`, `true`/`false`).
   * @throws CRIError Unknown when the container is not running; DeadlineExceeded when
   *   `timeout` (s, 0 = none) passes first.
   */
  async execSync(containerId: string, cmd: string[], timeout: number): Promise<ExecSyncResult> {
    const c = this.container(containerId);
    if (c.state !== 'CONTAINER_RUNNING' || !c.fs) {
      throw new CRIError('Unknown', `failed to exec in container: container is in ${c.state} state`);
    }
    const s = this.sandbox(c.sandboxId);
    const proc: Proc = { sleepers: new Set(), done: Promise.resolve(), ignoreSigterm: false };
    let stdout = '';
    let stderr = '';
    const io = this.io(c, s, proc, (stream, t) => (stream === 'stdout' ? (stdout += t) : (stderr += t)));
    const parentSleepers = c.proc?.sleepers;
    const run = runProgram(cmd, io).then((code) => ({ code }));
    let timer: unknown;
    const deadline =
      timeout > 0
        ? new Promise<{ timeout: true }>((r) => {
            timer = this.clock.setTimeout(() => r({ timeout: true }), timeout * 1000);
          })
        : new Promise<never>(() => undefined);
    // Stopping the container also ends its execs.
    const bridge = {
      timer: undefined,
      reject: (e: Error) => {
        proc.killed = true;
        proc.sleepers.forEach((x) => x.reject(e));
      },
    };
    parentSleepers?.add(bridge);
    try {
      const r = await Promise.race([run, deadline]);
      if ('timeout' in r) {
        proc.killed = true;
        for (const sl of proc.sleepers) sl.reject(new KilledError());
        run.catch(() => undefined);
        throw new CRIError('DeadlineExceeded', `failed to exec in container: timeout ${timeout}s exceeded: context deadline exceeded`);
      }
      return { stdout: Buffer.from(stdout), stderr: Buffer.from(stderr), exitCode: r.code };
    } catch (e) {
      if (e instanceof KilledError) throw new CRIError('Unknown', 'failed to exec in container: container stopped');
      throw e;
    } finally {
      if (timer !== undefined) this.clock.clearTimeout(timer);
      parentSleepers?.delete(bridge);
    }
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
      return this.images.add(image.image, b.sizeBytes).id;
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
  }

  async imageFsInfo(): Promise<{ usedBytes: number; inodesUsed: number; mountpoint: string }[]> {
    return [{ usedBytes: this.images.usedBytes(), inodesUsed: this.images.list().length, mountpoint: 'sim://images' }];
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const c of this.containers.values()) if (c.state === 'CONTAINER_RUNNING') this.kill(c, 137);
  }
}

function matches(labels: Record<string, string>, sel: Record<string, string>): boolean {
  for (const k in sel) if (labels[k] !== sel[k]) return false;
  return true;
}

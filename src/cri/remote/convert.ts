/**
 * Conversions between the CRI-shaped types of ../api.ts and the proto-loader objects
 * of api.proto. Mostly 1:1 (same lowerCamelCase names); the differences are the
 * wrappers (`Int64Value`, `PodSandboxStateValue`, `ContainerStateValue`), nullable
 * sub-messages, and int64 ns timestamps carried as numbers.
 *
 * @see https://github.com/kubernetes/cri-api/blob/v0.32.0/pkg/apis/runtime/v1/api.proto
 */
import type {
  Container,
  ContainerConfig,
  ContainerFilter,
  ContainerStatus,
  Image,
  ImageSpec,
  LinuxContainerResources,
  LinuxContainerSecurityContext,
  LinuxSandboxSecurityContext,
  Mount,
  PodSandbox,
  PodSandboxConfig,
  PodSandboxFilter,
  PodSandboxStatus,
} from '../api.js';

/** Wire shapes as proto-loader decodes them (defaults: true → absent messages are null). */
export namespace W {
  export interface Int64Value {
    value: number;
  }
  export interface ImageSpec {
    image: string;
    annotations: Record<string, string>;
    userSpecifiedImage: string;
  }
  export interface Meta {
    name: string;
    uid: string;
    namespace: string;
    attempt: number;
  }
  export interface PodSandbox {
    id: string;
    metadata: Meta | null;
    state: string;
    createdAt: number;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    runtimeHandler: string;
  }
  export interface NamespaceOption {
    network: string;
    pid: string;
    ipc: string;
    targetId: string;
  }
  export interface PodSandboxStatus extends PodSandbox {
    network: { ip: string; additionalIps: { ip: string }[] } | null;
    linux: { namespaces: { options: NamespaceOption | null } | null } | null;
  }
  export interface Container {
    id: string;
    podSandboxId: string;
    metadata: { name: string; attempt: number } | null;
    image: ImageSpec | null;
    imageRef: string;
    state: string;
    createdAt: number;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  }
  export interface Mount {
    containerPath: string;
    hostPath: string;
    readonly: boolean;
    selinuxRelabel: boolean;
    propagation: string;
  }
  export interface Resources {
    cpuPeriod: number;
    cpuQuota: number;
    cpuShares: number;
    memoryLimitInBytes: number;
    oomScoreAdj: number;
    cpusetCpus: string;
    cpusetMems: string;
  }
  export interface ContainerStatus extends Omit<Container, 'podSandboxId'> {
    startedAt: number;
    finishedAt: number;
    exitCode: number;
    reason: string;
    message: string;
    mounts: Mount[];
    logPath: string;
    resources: { linux: Resources | null } | null;
  }
  export interface Image {
    id: string;
    repoTags: string[];
    repoDigests: string[];
    size: number;
    uid: Int64Value | null;
    username: string;
    pinned: boolean;
  }
}

const int64 = (v: number | undefined) => (v === undefined ? undefined : { value: v });

function nsOptions(o: LinuxSandboxSecurityContext['namespaceOptions']) {
  return o && { network: o.network ?? 'POD', pid: o.pid ?? 'CONTAINER', ipc: o.ipc ?? 'POD', targetId: o.targetId ?? '' };
}

/** api.ts PodSandboxConfig → wire PodSandboxConfig. */
export function toWireSandboxConfig(c: PodSandboxConfig): object {
  const sc = c.linux?.securityContext;
  return {
    metadata: c.metadata,
    hostname: c.hostname,
    logDirectory: c.logDirectory,
    dnsConfig: c.dnsConfig,
    portMappings: c.portMappings,
    labels: c.labels,
    annotations: c.annotations,
    linux: c.linux && {
      cgroupParent: c.linux.cgroupParent ?? '',
      sysctls: c.linux.sysctls ?? {},
      securityContext: sc && {
        namespaceOptions: nsOptions(sc.namespaceOptions),
        runAsUser: int64(sc.runAsUser),
        runAsGroup: int64(sc.runAsGroup),
        supplementalGroups: sc.supplementalGroups ?? [],
        readonlyRootfs: sc.readonlyRootfs ?? false,
        privileged: sc.privileged ?? false,
        seccomp: sc.seccomp,
      },
    },
  };
}

function toWireSecurityContext(sc: LinuxContainerSecurityContext): object {
  return {
    capabilities: sc.capabilities,
    privileged: sc.privileged ?? false,
    namespaceOptions: nsOptions(sc.namespaceOptions),
    runAsUser: int64(sc.runAsUser),
    runAsGroup: int64(sc.runAsGroup),
    runAsUsername: sc.runAsUsername ?? '',
    readonlyRootfs: sc.readonlyRootfs ?? false,
    supplementalGroups: sc.supplementalGroups ?? [],
    noNewPrivs: sc.noNewPrivs ?? false,
    maskedPaths: sc.maskedPaths ?? [],
    readonlyPaths: sc.readonlyPaths ?? [],
    seccomp: sc.seccomp,
  };
}

/** api.ts ContainerConfig → wire ContainerConfig. */
export function toWireContainerConfig(c: ContainerConfig): object {
  return {
    metadata: c.metadata,
    image: c.image,
    command: c.command,
    args: c.args,
    workingDir: c.workingDir,
    envs: c.envs,
    mounts: c.mounts,
    devices: c.devices ?? [],
    labels: c.labels,
    annotations: c.annotations,
    logPath: c.logPath,
    stdin: c.stdin,
    stdinOnce: c.stdinOnce,
    tty: c.tty,
    linux: c.linux && {
      resources: c.linux.resources,
      securityContext: c.linux.securityContext && toWireSecurityContext(c.linux.securityContext),
    },
  };
}

/** Filter → wire filter (`state` goes into its wrapper; undefined keys stay unset). */
export function toWireSandboxFilter(f: PodSandboxFilter | undefined): object | undefined {
  if (!f) return undefined;
  return { id: f.id ?? '', state: f.state ? { state: f.state } : undefined, labelSelector: f.labelSelector ?? {} };
}

export function toWireContainerFilter(f: ContainerFilter | undefined): object | undefined {
  if (!f) return undefined;
  return {
    id: f.id ?? '',
    state: f.state ? { state: f.state } : undefined,
    podSandboxId: f.podSandboxId ?? '',
    labelSelector: f.labelSelector ?? {},
  };
}

const emptyMeta = { name: '', uid: '', namespace: '', attempt: 0 };

export function fromImageSpec(s: W.ImageSpec | null): ImageSpec {
  if (!s) return { image: '' };
  const out: ImageSpec = { image: s.image };
  if (s.annotations && Object.keys(s.annotations).length) out.annotations = s.annotations;
  if (s.userSpecifiedImage) out.userSpecifiedImage = s.userSpecifiedImage;
  return out;
}

export function fromPodSandbox(p: W.PodSandbox): PodSandbox {
  return {
    id: p.id,
    metadata: p.metadata ?? emptyMeta,
    state: p.state as PodSandbox['state'],
    createdAt: p.createdAt,
    labels: p.labels,
    annotations: p.annotations,
    runtimeHandler: p.runtimeHandler,
  };
}

export function fromPodSandboxStatus(s: W.PodSandboxStatus): PodSandboxStatus {
  const out: PodSandboxStatus = fromPodSandbox(s);
  if (s.network) out.network = { ip: s.network.ip, additionalIps: s.network.additionalIps };
  const o = s.linux?.namespaces?.options;
  if (o) {
    type M = 'POD' | 'CONTAINER' | 'NODE';
    out.linux = { namespaces: { options: { network: o.network as M, pid: o.pid as M, ipc: o.ipc as M } } };
  }
  return out;
}

export function fromContainer(c: W.Container): Container {
  return {
    id: c.id,
    podSandboxId: c.podSandboxId,
    metadata: c.metadata ?? { name: '', attempt: 0 },
    image: fromImageSpec(c.image),
    imageRef: c.imageRef,
    state: c.state as Container['state'],
    createdAt: c.createdAt,
    labels: c.labels,
    annotations: c.annotations,
  };
}

function fromMount(m: W.Mount): Mount {
  return {
    containerPath: m.containerPath,
    hostPath: m.hostPath,
    readonly: m.readonly,
    selinuxRelabel: m.selinuxRelabel,
    propagation: m.propagation as Mount['propagation'],
  };
}

function fromResources(r: W.Resources): LinuxContainerResources {
  return {
    cpuPeriod: r.cpuPeriod,
    cpuQuota: r.cpuQuota,
    cpuShares: r.cpuShares,
    memoryLimitInBytes: r.memoryLimitInBytes,
    oomScoreAdj: r.oomScoreAdj,
    cpusetCpus: r.cpusetCpus,
    cpusetMems: r.cpusetMems,
  };
}

export function fromContainerStatus(s: W.ContainerStatus): ContainerStatus {
  const out: ContainerStatus = {
    id: s.id,
    metadata: s.metadata ?? { name: '', attempt: 0 },
    image: fromImageSpec(s.image),
    imageRef: s.imageRef,
    state: s.state as ContainerStatus['state'],
    createdAt: s.createdAt,
    startedAt: s.startedAt,
    finishedAt: s.finishedAt,
    exitCode: s.exitCode,
    reason: s.reason,
    message: s.message,
    labels: s.labels,
    annotations: s.annotations,
    mounts: s.mounts.map(fromMount),
    logPath: s.logPath,
  };
  if (s.resources?.linux) out.resources = { linux: fromResources(s.resources.linux) };
  return out;
}

export function fromImage(i: W.Image): Image {
  const out: Image = { id: i.id, repoTags: i.repoTags, repoDigests: i.repoDigests, size: i.size, pinned: i.pinned };
  if (i.uid) out.uid = i.uid.value;
  if (i.username) out.username = i.username;
  return out;
}

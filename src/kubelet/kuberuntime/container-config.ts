/**
 * ContainerConfig for one container (upstream generateContainerConfig): command and
 * args with `$(VAR)` expansion, environment, mounts (volumes with subPath and
 * readOnly, the kubelet-managed /etc/hosts, the termination-message file), devices
 * (volumeDevices of raw block volumes, upstream makeBlockVolumes), CRI
 * labels/annotations, log path `<name>/<restartCount>.log` (relative to the sandbox's
 * log directory `<ns>_<pod>_<uid>`), Linux resources (resources.ts) and security
 * context (security-context.ts).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_container.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_container_linux.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/security_context_others.go
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import type { ContainerConfig, Device, Mount } from '../../cri/api.js';
import { ContainerConfigError, expandCommandAndArgs } from '../env/env.js';
import { containerAnnotations, containerLabels } from './labels.js';
import { linuxResources } from './resources.js';
import { containerSecurityContext, type ImageUser } from './security-context.js';

/**
 * Writes the kubelet-managed hosts file of a pod (unless it already has that content);
 * returns its path.
 *
 * Synchronous on purpose, like the volume setup: a few hundred bytes into the page
 * cache take microseconds, while each asynchronous fs call is a round trip through
 * libuv's 4-thread pool that, on a CPU-saturated node starting many pods, waited
 * tens of milliseconds for a thread and again for the event loop (measured: this
 * step's 9 round trips took 1.2 s at the median with 50 pods starting at 10/s).
 * @throws Error from the file system (ENOSPC, EACCES …)
 */
export function writeEtcHosts(podDir: string, podIPs: string[], hostname: string): string {
  const file = path.join(podDir, 'etc-hosts');
  const lines = [
    '# Kubernetes-managed hosts file.',
    '127.0.0.1\tlocalhost',
    '::1\tlocalhost ip6-localhost ip6-loopback',
    'fe00::0\tip6-localnet',
    'fe00::0\tip6-mcastprefix',
    'fe00::1\tip6-allnodes',
    'fe00::2\tip6-allrouters',
    ...podIPs.map((ip) => `${ip}\t${hostname}`),
  ];
  const content = `${lines.join('\n')}\n`;
  try {
    if (fs.readFileSync(file, 'utf8') === content) return file; // a restart: nothing changed
  } catch {
    // not written yet
  }
  fs.mkdirSync(podDir, { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

interface ContainerConfigInput {
  pod: Pod;
  container: Container;
  restartCount: number;
  imageRef: string;
  env: Map<string, string>;
  /** volume name → host path */
  volumes: Map<string, string>;
  podDir: string;
  etcHostsPath?: string;
  /** the image's user (ImageStatus uid / username) */
  imageUser: ImageUser;
  /** the node's memory in bytes (OOM score of Burstable containers) */
  memoryCapacity: number;
  /** directory of Localhost seccomp profiles (`<kubeletDir>/seccomp`) */
  seccompRoot: string;
  /** supplemental groups from the pod's volumes (the volume manager's `pv.beta.kubernetes.io/gid` GIDs) */
  volumeGroups?: readonly number[];
}

const PROPAGATION = {
  None: 'PROPAGATION_PRIVATE',
  HostToContainer: 'PROPAGATION_HOST_TO_CONTAINER',
  Bidirectional: 'PROPAGATION_BIDIRECTIONAL',
} as const;

/**
 * Builds the container's config, creating what it mounts from the pod directory (subPath
 * directories, the termination-message file) asynchronously.
 * @throws ContainerConfigError for mounts of unknown volumes or unusable subPaths
 */
export async function generateContainerConfig(i: ContainerConfigInput): Promise<ContainerConfig> {
  const { pod, container: c } = i;
  const { command, args } = expandCommandAndArgs(c, i.env);
  const mounts: Mount[] = [];
  for (const vm of c.volumeMounts ?? []) {
    const host = i.volumes.get(vm.name);
    if (host === undefined) throw new ContainerConfigError(`cannot find volume ${JSON.stringify(vm.name)} to mount into container ${JSON.stringify(c.name)}`);
    const sub = vm.subPath ?? (vm.subPathExpr ? expandCommandAndArgs({ name: '', args: [vm.subPathExpr] }, i.env).args[0] : '');
    if (sub && (path.isAbsolute(sub) || sub.split('/').includes('..')))
      throw new ContainerConfigError(`failed to prepare subPath for volumeMount ${JSON.stringify(vm.name)} of container ${JSON.stringify(c.name)}`);
    const hostPath = sub ? path.join(host, sub) : host;
    if (sub && !(await exists(hostPath))) {
      // created now with the volume's mode, so an fsGroup volume's subdirectory stays group-writable
      try {
        const mode = (await fsp.stat(host)).mode & 0o7777;
        await fsp.mkdir(hostPath, { recursive: true, mode });
        await fsp.chmod(hostPath, mode);
      } catch {
        throw new ContainerConfigError(`failed to create subPath directory for volumeMount ${JSON.stringify(vm.name)} of container ${JSON.stringify(c.name)}`);
      }
    }
    mounts.push({
      containerPath: vm.mountPath,
      hostPath,
      readonly: !!vm.readOnly,
      propagation: PROPAGATION[(vm.mountPropagation ?? 'None') as keyof typeof PROPAGATION] ?? 'PROPAGATION_PRIVATE',
    });
  }
  if (i.etcHostsPath && !mounts.some((m) => m.containerPath === '/etc/hosts')) {
    mounts.push({ containerPath: '/etc/hosts', hostPath: i.etcHostsPath, readonly: false });
  }
  const tmp = c.terminationMessagePath ?? '/dev/termination-log';
  if (tmp && !mounts.some((m) => m.containerPath === tmp)) {
    // synchronous for the reason given at writeEtcHosts: an empty file, no pool round trips
    const dir = path.join(i.podDir, 'containers', c.name);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, randomBytes(4).toString('hex'));
    fs.writeFileSync(file, '', { mode: 0o666 });
    fs.chmodSync(file, 0o666);
    mounts.push({ containerPath: tmp, hostPath: file, readonly: false });
  }
  const devices = blockDevices(pod, c, i.volumes);
  return {
    metadata: { name: c.name, attempt: i.restartCount },
    image: { image: i.imageRef, userSpecifiedImage: c.image },
    command,
    args,
    workingDir: c.workingDir ?? '',
    envs: [...i.env].map(([key, v]) => ({ key, value: v })),
    mounts,
    ...(devices.length ? { devices } : {}),
    labels: containerLabels(pod, c),
    annotations: containerAnnotations(pod, c, i.restartCount),
    logPath: `${c.name}/${i.restartCount}.log`,
    stdin: !!c.stdin,
    stdinOnce: !!c.stdinOnce,
    tty: !!c.tty,
    linux: { resources: linuxResources(pod, c, i.memoryCapacity), securityContext: containerSecurityContext(pod, c, i.imageUser, i.seccompRoot, i.volumeGroups) },
  };
}

/**
 * Upstream makeBlockVolumes: each volumeDevices entry becomes a CRI device from the
 * volume's device path on the host (`<kubelet-dir>/pods/<uid>/volumeDevices/…`) to its
 * devicePath, permissions `mrw` (`r` for a readOnly claim).
 * @throws ContainerConfigError for a relative devicePath or a device of no set-up volume
 */
export function blockDevices(pod: Pod, c: Container, volumes: Map<string, string>): Device[] {
  const out: Device[] = [];
  for (const d of c.volumeDevices ?? []) {
    if (!path.isAbsolute(d.devicePath)) throw new ContainerConfigError(`error DevicePath \`${d.devicePath}\` must be an absolute path`);
    const host = volumes.get(d.name);
    if (host === undefined) throw new ContainerConfigError(`cannot find volume ${JSON.stringify(d.name)} to pass into container ${JSON.stringify(c.name)}`);
    const readOnly = !!pod.spec?.volumes?.find((v) => v.name === d.name)?.persistentVolumeClaim?.readOnly;
    out.push({ containerPath: d.devicePath, hostPath: host, permissions: readOnly ? 'r' : 'mrw' });
  }
  return out;
}

function exists(p: string): Promise<boolean> {
  return fsp.access(p).then(
    () => true,
    () => false,
  );
}

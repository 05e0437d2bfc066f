/**
 * ContainerConfig for one container (upstream generateContainerConfig): command and
 * args with `$(VAR)` expansion, environment, mounts (volumes with subPath and
 * readOnly, the kubelet-managed /etc/hosts, the termination-message file), CRI
 * labels/annotations, log path `<name>/<restartCount>.log`, Linux resources and
 * security context; runAsNonRoot is verified like upstream.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_container.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_container_linux.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/security_context_others.go
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import type { ContainerConfig, LinuxContainerResources, LinuxContainerSecurityContext, Mount } from '../../cri/api.js';
import { milliValue, parseQuantity, value } from '../../apimachinery/quantity.js';
import { formatPod } from '../container/runtime.js';
import { ContainerConfigError, expandCommandAndArgs } from '../env/env.js';
import { containerAnnotations, containerLabels } from './labels.js';

const QUOTA_PERIOD = 100_000;

/** Upstream milliCPUToShares: 0 → 2, else milli×1024/1000 (at least 2). */
export function milliCPUToShares(milli: number): number {
  if (milli === 0) return 2;
  return Math.max(2, Math.floor((milli * 1024) / 1000));
}

/** Upstream milliCPUToQuota with the default 100 ms period (at least 1 ms). */
export function milliCPUToQuota(milli: number, period = QUOTA_PERIOD): number {
  if (milli === 0) return 0;
  return Math.max(1000, Math.floor((milli * period) / 1000));
}

export function linuxResources(c: Container): LinuxContainerResources {
  const req = c.resources?.requests ?? {};
  const lim = c.resources?.limits ?? {};
  const r: LinuxContainerResources = { cpuShares: milliCPUToShares(req.cpu !== undefined ? milliValue(parseQuantity(String(req.cpu))) : 0) };
  if (lim.cpu !== undefined) {
    r.cpuPeriod = QUOTA_PERIOD;
    r.cpuQuota = milliCPUToQuota(milliValue(parseQuantity(String(lim.cpu))));
  }
  if (lim.memory !== undefined) r.memoryLimitInBytes = value(parseQuantity(String(lim.memory)));
  return r;
}

export function securityContext(pod: Pod, c: Container): LinuxContainerSecurityContext {
  const psc = pod.spec?.securityContext ?? {};
  const sc = c.securityContext ?? {};
  const spec = pod.spec;
  const out: LinuxContainerSecurityContext = {
    namespaceOptions: { network: spec?.hostNetwork ? 'NODE' : 'POD', pid: spec?.hostPID ? 'NODE' : spec?.shareProcessNamespace ? 'POD' : 'CONTAINER', ipc: spec?.hostIPC ? 'NODE' : 'POD' },
  };
  const uid = sc.runAsUser ?? psc.runAsUser;
  const gid = sc.runAsGroup ?? psc.runAsGroup;
  if (uid !== undefined) out.runAsUser = uid;
  if (gid !== undefined) out.runAsGroup = gid;
  const groups = [...(psc.supplementalGroups ?? []), ...(psc.fsGroup !== undefined ? [psc.fsGroup] : [])];
  if (groups.length) out.supplementalGroups = groups;
  if (sc.privileged) out.privileged = true;
  if (sc.readOnlyRootFilesystem) out.readonlyRootfs = true;
  if (sc.allowPrivilegeEscalation === false) out.noNewPrivs = true;
  if (sc.capabilities) out.capabilities = { addCapabilities: [...(sc.capabilities.add ?? [])], dropCapabilities: [...(sc.capabilities.drop ?? [])] };
  const seccomp = sc.seccompProfile ?? psc.seccompProfile;
  if (seccomp) out.seccomp = { profileType: seccomp.type as 'RuntimeDefault', ...(seccomp.localhostProfile ? { localhostRef: seccomp.localhostProfile } : {}) };
  return out;
}

/**
 * Upstream verifyRunAsNonRoot.
 * @throws ContainerConfigError `container has runAsNonRoot and image will run as root (pod: "…", container: …)`
 */
export function verifyRunAsNonRoot(pod: Pod, c: Container, imageUid: number | undefined): void {
  const nonRoot = c.securityContext?.runAsNonRoot ?? pod.spec?.securityContext?.runAsNonRoot;
  if (!nonRoot) return;
  const uid = c.securityContext?.runAsUser ?? pod.spec?.securityContext?.runAsUser ?? imageUid;
  if (uid === 0) throw new ContainerConfigError(`container has runAsNonRoot and image will run as root (pod: ${JSON.stringify(formatPod(pod))}, container: ${c.name})`);
  if (uid === undefined) {
    throw new ContainerConfigError(`container has runAsNonRoot and image has non-numeric user (), cannot verify user is non-root (pod: ${JSON.stringify(formatPod(pod))}, container: ${c.name})`);
  }
}

/** Writes the kubelet-managed hosts file of a pod; returns its path. */
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
  fs.mkdirSync(podDir, { recursive: true });
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

export interface ContainerConfigInput {
  pod: Pod;
  container: Container;
  restartCount: number;
  imageRef: string;
  env: Map<string, string>;
  /** volume name → host path */
  volumes: Map<string, string>;
  podDir: string;
  etcHostsPath?: string;
}

/** @throws ContainerConfigError for mounts of unknown volumes */
export function generateContainerConfig(i: ContainerConfigInput): ContainerConfig {
  const { pod, container: c } = i;
  const { command, args } = expandCommandAndArgs(c, i.env);
  const mounts: Mount[] = [];
  for (const vm of c.volumeMounts ?? []) {
    const host = i.volumes.get(vm.name);
    if (host === undefined) throw new ContainerConfigError(`cannot find volume ${JSON.stringify(vm.name)} to mount into container ${JSON.stringify(c.name)}`);
    const sub = vm.subPath ?? (vm.subPathExpr ? expandCommandAndArgs({ name: '', args: [vm.subPathExpr] }, i.env).args[0] : '');
    if (sub && (path.isAbsolute(sub) || sub.split('/').includes('..'))) throw new ContainerConfigError(`failed to prepare subPath for volumeMount ${JSON.stringify(vm.name)} of container ${JSON.stringify(c.name)}`);
    const hostPath = sub ? path.join(host, sub) : host;
    if (sub && !fs.existsSync(hostPath) && host.startsWith(i.podDir)) fs.mkdirSync(hostPath, { recursive: true });
    mounts.push({ containerPath: vm.mountPath, hostPath, readonly: !!vm.readOnly, propagation: 'PROPAGATION_PRIVATE' });
  }
  if (i.etcHostsPath && !mounts.some((m) => m.containerPath === '/etc/hosts')) {
    mounts.push({ containerPath: '/etc/hosts', hostPath: i.etcHostsPath, readonly: false });
  }
  const tmp = c.terminationMessagePath ?? '/dev/termination-log';
  if (tmp && !mounts.some((m) => m.containerPath === tmp)) {
    const dir = path.join(i.podDir, 'containers', c.name);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, randomBytes(4).toString('hex'));
    fs.writeFileSync(file, '', { mode: 0o666 });
    mounts.push({ containerPath: tmp, hostPath: file, readonly: false });
  }
  return {
    metadata: { name: c.name, attempt: i.restartCount },
    image: { image: i.imageRef, userSpecifiedImage: c.image },
    command,
    args,
    workingDir: c.workingDir ?? '',
    envs: [...i.env].map(([key, v]) => ({ key, value: v })),
    mounts,
    labels: containerLabels(pod, c),
    annotations: containerAnnotations(pod, c, i.restartCount),
    logPath: `${c.name}/${i.restartCount}.log`,
    stdin: !!c.stdin,
    stdinOnce: !!c.stdinOnce,
    tty: !!c.tty,
    linux: { resources: linuxResources(c), securityContext: securityContext(pod, c) },
  };
}

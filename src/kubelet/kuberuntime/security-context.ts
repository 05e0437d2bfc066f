/**
 * The Linux security context of sandboxes and containers as upstream's kuberuntime
 * builds them: the effective container context (pod-level runAsUser, runAsGroup,
 * runAsNonRoot and seccompProfile unless the container sets its own), the image's
 * user when no runAsUser is given, namespaces (pid CONTAINER unless
 * shareProcessNamespace or hostPID), fsGroup then supplementalGroups as extra groups,
 * capabilities add/drop, privileged, readOnlyRootFilesystem,
 * allowPrivilegeEscalation=false → no_new_privs, seccomp (Unconfined unless asked for;
 * the sandbox always RuntimeDefault), the default masked and read-only /proc paths
 * unless procMount is Unmasked; and the runAsNonRoot check with upstream's messages.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/security_context.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/security_context_others.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/securitycontext/util.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/helpers.go (getSeccompProfile)
 */
import * as path from 'node:path';
import type { Container, Pod, SeccompProfile } from 'kubernetes-types/core/v1.js';
import type { LinuxContainerSecurityContext, LinuxSandboxSecurityContext } from '../../cri/api.js';
import { formatPod } from '../container/runtime.js';
import { ContainerConfigError } from '../env/env.js';

/** Paths masked in every unprivileged container (kept in sync with moby's defaults upstream). */
export const DEFAULT_MASKED_PATHS = [
  '/proc/asound',
  '/proc/acpi',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
  '/sys/devices/virtual/powercap',
] as const;

/** Paths mounted read-only in every unprivileged container. */
const DEFAULT_READONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'] as const;

type NS = NonNullable<LinuxSandboxSecurityContext['namespaceOptions']>;

/** Upstream NamespacesForPod. */
function podNamespaces(pod: Pod): NS {
  const s = pod.spec;
  return {
    network: s?.hostNetwork ? 'NODE' : 'POD',
    pid: s?.hostPID ? 'NODE' : s?.shareProcessNamespace ? 'POD' : 'CONTAINER',
    ipc: s?.hostIPC ? 'NODE' : 'POD',
  };
}

/** fsGroup first, then supplementalGroups (upstream's order). */
function extraGroups(pod: Pod): number[] {
  const psc = pod.spec?.securityContext;
  return [...(psc?.fsGroup !== undefined ? [psc.fsGroup] : []), ...(psc?.supplementalGroups ?? [])];
}

/** The user the image runs as: its numeric uid, else its user name, else root. */
export interface ImageUser {
  uid?: number;
  username?: string;
}

/**
 * Upstream getSeccompProfile: the container's profile, else the pod's, else Unconfined.
 * Localhost profiles are files under `<kubeletDir>/seccomp/`.
 */
function seccompProfile(pod: Pod, c: Container, seccompRoot: string): NonNullable<LinuxContainerSecurityContext['seccomp']> {
  const p: SeccompProfile | undefined = c.securityContext?.seccompProfile ?? pod.spec?.securityContext?.seccompProfile;
  if (!p || p.type === 'Unconfined') return { profileType: 'Unconfined' };
  if (p.type === 'RuntimeDefault') return { profileType: 'RuntimeDefault' };
  return { profileType: 'Localhost', localhostRef: path.join(seccompRoot, p.localhostProfile ?? '') };
}

/**
 * The container's LinuxContainerSecurityContext (upstream determineEffectiveSecurityContext).
 * @param volumeGroups the GIDs of the pod's volumes (`pv.beta.kubernetes.io/gid`), added after the pod's own groups
 */
export function containerSecurityContext(pod: Pod, c: Container, image: ImageUser, seccompRoot: string, volumeGroups: readonly number[] = []): LinuxContainerSecurityContext {
  const psc = pod.spec?.securityContext ?? {};
  const sc = c.securityContext ?? {};
  const out: LinuxContainerSecurityContext = { namespaceOptions: podNamespaces(pod) };
  if (sc.capabilities) out.capabilities = { addCapabilities: [...(sc.capabilities.add ?? [])], dropCapabilities: [...(sc.capabilities.drop ?? [])] };
  const uid = sc.runAsUser ?? psc.runAsUser;
  const gid = sc.runAsGroup ?? psc.runAsGroup;
  if (uid !== undefined) out.runAsUser = uid;
  else if (image.uid !== undefined) out.runAsUser = image.uid;
  else if (image.username) out.runAsUsername = image.username;
  if (gid !== undefined) out.runAsGroup = gid;
  if (sc.privileged) out.privileged = true;
  if (sc.readOnlyRootFilesystem) out.readonlyRootfs = true;
  const groups = [...extraGroups(pod), ...volumeGroups];
  if (groups.length) out.supplementalGroups = groups;
  if (sc.allowPrivilegeEscalation === false) out.noNewPrivs = true;
  out.seccomp = seccompProfile(pod, c, seccompRoot);
  const unmasked = sc.procMount === 'Unmasked';
  out.maskedPaths = unmasked ? [] : [...DEFAULT_MASKED_PATHS];
  out.readonlyPaths = unmasked ? [] : [...DEFAULT_READONLY_PATHS];
  return out;
}

/** The sandbox's LinuxSandboxSecurityContext (upstream generatePodSandboxLinuxConfig). */
export function sandboxSecurityContext(pod: Pod): LinuxSandboxSecurityContext {
  const psc = pod.spec?.securityContext ?? {};
  const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const out: LinuxSandboxSecurityContext = {
    namespaceOptions: podNamespaces(pod),
    seccomp: { profileType: 'RuntimeDefault' },
  };
  if (all.some((c) => c.securityContext?.privileged)) out.privileged = true;
  if (psc.runAsUser !== undefined) out.runAsUser = psc.runAsUser;
  if (psc.runAsGroup !== undefined) out.runAsGroup = psc.runAsGroup;
  const groups = extraGroups(pod);
  if (groups.length) out.supplementalGroups = groups;
  return out;
}

/**
 * Upstream verifyRunAsNonRoot (only numeric users can be verified).
 * @throws ContainerConfigError with upstream's messages, e.g.
 *   `container has runAsNonRoot and image will run as root (pod: "p_ns(uid)", container: c)`
 */
export function verifyRunAsNonRoot(pod: Pod, c: Container, image: ImageUser): void {
  const nonRoot = c.securityContext?.runAsNonRoot ?? pod.spec?.securityContext?.runAsNonRoot;
  if (!nonRoot) return;
  const fp = JSON.stringify(formatPod(pod));
  const runAsUser = c.securityContext?.runAsUser ?? pod.spec?.securityContext?.runAsUser;
  if (runAsUser !== undefined) {
    if (runAsUser === 0) throw new ContainerConfigError(`container's runAsUser breaks non-root policy (pod: ${fp}, container: ${c.name})`);
    return;
  }
  const uid = image.uid ?? (image.username ? undefined : 0);
  if (uid === 0) throw new ContainerConfigError(`container has runAsNonRoot and image will run as root (pod: ${fp}, container: ${c.name})`);
  if (uid === undefined) {
    throw new ContainerConfigError(
      `container has runAsNonRoot and image has non-numeric user (${image.username}), cannot verify user is non-root (pod: ${fp}, container: ${c.name})`,
    );
  }
}

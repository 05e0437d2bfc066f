/**
 * Security context validation: container and pod security contexts, seccomp and AppArmor
 * profiles, sysctls, Windows options, user namespaces, OS-specific restrictions.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go
 */
import { duplicate, type FieldError, forbidden, invalid, notSupported, type Path, required, tooLong } from '../../../../apimachinery/field-errors.js';
import { isDNS1123Subdomain, isValidGroupID, isValidUserID } from '../../../../apimachinery/validation.js';
import { type PodValidationOptions, validateLocalDescendingPath } from './validation-common.js';
import { visitContainers } from '../helpers/containers.js';
import type { PodSecurityContext, PodSpec, SecurityContext } from './types.js';

type SeccompProfile = { type: string; localhostProfile?: string };
type AppArmorProfile = { type: string; localhostProfile?: string };

function validateSeccompProfileField(sp: SeccompProfile | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!sp) return errs;
  const types = ['Localhost', 'RuntimeDefault', 'Unconfined'];
  if (!sp.type) errs.push(required(p.child('type'), 'type is required when seccompProfile is set'));
  else if (!types.includes(sp.type)) errs.push(notSupported(p.child('type'), sp.type, types));
  if (sp.type === 'Localhost') {
    if (sp.localhostProfile === undefined || sp.localhostProfile === null) {
      errs.push(required(p.child('localhostProfile'), 'must be set when seccomp type is Localhost'));
    } else errs.push(...validateLocalDescendingPath(sp.localhostProfile, p.child('localhostProfile')));
  } else if (sp.localhostProfile !== undefined && sp.localhostProfile !== null) {
    errs.push(invalid(p.child('localhostProfile'), sp, 'can only be set when seccomp type is Localhost'));
  }
  return errs;
}

/** Upstream ValidateAppArmorProfileField. */
function validateAppArmorProfileField(profile: AppArmorProfile | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!profile) return errs;
  switch (profile.type) {
    case 'Localhost': {
      const lp = profile.localhostProfile;
      if (lp === undefined || lp === null) errs.push(required(p.child('localhostProfile'), 'must be set when AppArmor type is Localhost'));
      else {
        if (lp.trim() !== lp) errs.push(invalid(p.child('localhostProfile'), lp, 'must not be padded with whitespace'));
        else if (lp === '') errs.push(required(p.child('localhostProfile'), 'must be set when AppArmor type is Localhost'));
        if (Buffer.byteLength(lp) > 4095) errs.push(tooLong(p.child('localhostProfile'), '', 4095));
      }
      break;
    }
    case 'RuntimeDefault':
    case 'Unconfined':
      if (profile.localhostProfile !== undefined && profile.localhostProfile !== null) {
        errs.push(invalid(p.child('localhostProfile'), profile.localhostProfile, 'can only be set when AppArmor type is Localhost'));
      }
      break;
    case '':
    case undefined:
      errs.push(required(p.child('type'), 'type is required when appArmorProfile is set'));
      break;
    default:
      errs.push(notSupported(p.child('type'), profile.type, ['Localhost', 'RuntimeDefault', 'Unconfined']));
  }
  return errs;
}

function validateWindowsOptions(w: { gmsaCredentialSpecName?: string; gmsaCredentialSpec?: string; runAsUserName?: string } | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!w) return errs;
  if (w.gmsaCredentialSpecName !== undefined) {
    for (const m of isDNS1123Subdomain(w.gmsaCredentialSpecName)) errs.push(invalid(p.child('gmsaCredentialSpecName'), w.gmsaCredentialSpecName, m));
  }
  if (w.gmsaCredentialSpec !== undefined) {
    if (w.gmsaCredentialSpec.length === 0) errs.push(invalid(p.child('gmsaCredentialSpec'), w.gmsaCredentialSpec, 'gmsaCredentialSpec cannot be an empty string'));
    else if (Buffer.byteLength(w.gmsaCredentialSpec) > 64 * 1024)
      errs.push(invalid(p.child('gmsaCredentialSpec'), w.gmsaCredentialSpec, 'gmsaCredentialSpec size must be under 64 KiB'));
  }
  if (w.runAsUserName !== undefined) {
    const n = w.runAsUserName;
    const rp = p.child('runAsUserName');
    if (n.length === 0) errs.push(invalid(rp, n, 'runAsUserName cannot be an empty string'));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is rejected
    else if (/[\x00-\x1f\x7f]/.test(n)) errs.push(invalid(rp, n, 'runAsUserName cannot contain control characters'));
    else if (n.split('\\').length > 2) errs.push(invalid(rp, n, 'runAsUserName cannot contain more than one backslash'));
    else {
      const parts = n.split('\\');
      const hasDomain = parts.length === 2;
      const domain = hasDomain ? parts[0]! : '';
      const user = hasDomain ? parts[1]! : parts[0]!;
      if (domain.length >= 256) errs.push(invalid(rp, n, "runAsUserName's Domain length must be under 256 characters"));
      const netbios = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/;
      const dnsLabel = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
      const dns = new RegExp(`^${dnsLabel}(?:\\.${dnsLabel})*$`);
      if (hasDomain && !(netbios.test(domain) || dns.test(domain))) errs.push(invalid(rp, n, "runAsUserName's Domain doesn't match the NetBios nor the DNS format"));
      if (user.length === 0) errs.push(invalid(rp, n, "runAsUserName's User cannot be empty"));
      else if (user.length > 104) errs.push(invalid(rp, n, "runAsUserName's User length must not be longer than 104 characters"));
      if (/^[. ]+$/.test(user)) errs.push(invalid(rp, n, "runAsUserName's User cannot contain only periods or spaces"));
      if (/["/\\:;|=,+*?<>@[\]]/.test(user)) errs.push(invalid(rp, n, `runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`));
    }
  }
  return errs;
}

/** A container's securityContext (upstream ValidateSecurityContext). */
export function validateSecurityContext(sc: SecurityContext | undefined, p: Path, hostUsers: boolean, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (!sc) return errs;
  if (sc.privileged && opts.allowPrivileged === false) errs.push(forbidden(p.child('privileged'), 'disallowed by cluster policy'));
  if (sc.runAsUser !== undefined && sc.runAsUser !== null) for (const m of isValidUserID(sc.runAsUser)) errs.push(invalid(p.child('runAsUser'), sc.runAsUser, m));
  if (sc.runAsGroup !== undefined && sc.runAsGroup !== null) for (const m of isValidGroupID(sc.runAsGroup)) errs.push(invalid(p.child('runAsGroup'), sc.runAsGroup, m));
  if (sc.procMount !== undefined && sc.procMount !== null) {
    if (sc.procMount !== 'Default' && sc.procMount !== 'Unmasked') errs.push(notSupported(p.child('procMount'), sc.procMount, ['Default', 'Unmasked']));
    if (hostUsers && sc.procMount === 'Unmasked') errs.push(invalid(p.child('procMount'), sc.procMount, '`hostUsers` must be false to use `Unmasked`'));
  }
  errs.push(...validateSeccompProfileField(sc.seccompProfile as SeccompProfile | undefined, p.child('seccompProfile')));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged) errs.push(invalid(p, sc, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    for (const cap of sc.capabilities?.add ?? []) {
      if (cap === 'CAP_SYS_ADMIN') errs.push(invalid(p, sc, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
    }
  }
  errs.push(...validateWindowsOptions(sc.windowsOptions, p.child('windowsOptions')));
  errs.push(...validateAppArmorProfileField(sc.appArmorProfile as AppArmorProfile | undefined, p.child('appArmorProfile')));
  return errs;
}

const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_FMT = `(${SYSCTL_SEGMENT}[\\./])*${SYSCTL_SEGMENT}`;
const SYSCTL_RE = new RegExp(`^${SYSCTL_FMT}$`);

/** The kernel namespace a sysctl belongs to (upstream utilsysctl.GetNamespace), for the host-namespace rule. */
function sysctlNamespace(name: string): 'ipc' | 'net' | 'unknown' {
  const n = name.replace(/\//g, '.');
  if (n.startsWith('net.')) return 'net';
  if (n.startsWith('kernel.sem') || n.startsWith('kernel.shm') || n.startsWith('kernel.msg') || n.startsWith('fs.mqueue.')) return 'ipc';
  return 'unknown';
}

/** spec.securityContext (upstream validatePodSpecSecurityContext). */
export function validatePodSecurityContext(spec: PodSpec, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const sc: PodSecurityContext | undefined = spec.securityContext;
  if (!sc) return errs;
  if (sc.fsGroup !== undefined && sc.fsGroup !== null) for (const m of isValidGroupID(sc.fsGroup)) errs.push(invalid(p.child('fsGroup'), sc.fsGroup, m));
  if (sc.runAsUser !== undefined && sc.runAsUser !== null) for (const m of isValidUserID(sc.runAsUser)) errs.push(invalid(p.child('runAsUser'), sc.runAsUser, m));
  if (sc.runAsGroup !== undefined && sc.runAsGroup !== null) for (const m of isValidGroupID(sc.runAsGroup)) errs.push(invalid(p.child('runAsGroup'), sc.runAsGroup, m));
  (sc.supplementalGroups ?? []).forEach((g, i) => {
    for (const m of isValidGroupID(g)) errs.push(invalid(p.child('supplementalGroups').index(i), g, m));
  });
  // shareProcessNamespace and hostPID live in the internal PodSecurityContext, hence the path
  if (spec.shareProcessNamespace && spec.hostPID) {
    errs.push(invalid(p.child('shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  if (sc.sysctls?.length) {
    const names = new Set<string>();
    sc.sysctls.forEach((s, i) => {
      const np = p.child('sysctls').index(i).child('name');
      if (!s.name) errs.push(required(np, ''));
      else if (s.name.length > 253 || !SYSCTL_RE.test(s.name)) {
        errs.push(invalid(np, s.name, `must have at most 253 characters and match regex ^${SYSCTL_FMT}$`));
      } else if (names.has(s.name)) errs.push(duplicate(np, s.name));
      const ns = sysctlNamespace(s.name);
      if (spec.hostNetwork && ns === 'net') errs.push(invalid(np, s.name, "may not be specified when 'hostNetwork' is true"));
      else if (spec.hostIPC && ns === 'ipc') errs.push(invalid(np, s.name, "may not be specified when 'hostIPC' is true"));
      names.add(s.name);
    });
  }
  if (sc.fsGroupChangePolicy !== undefined && sc.fsGroupChangePolicy !== null && !['Always', 'OnRootMismatch'].includes(sc.fsGroupChangePolicy)) {
    errs.push(notSupported(p.child('fsGroupChangePolicy'), sc.fsGroupChangePolicy, ['Always', 'OnRootMismatch']));
  }
  errs.push(...validateSeccompProfileField(sc.seccompProfile as SeccompProfile | undefined, p.child('seccompProfile')));
  errs.push(...validateWindowsOptions(sc.windowsOptions, p.child('windowsOptions')));
  errs.push(...validateAppArmorProfileField(sc.appArmorProfile as AppArmorProfile | undefined, p.child('appArmorProfile')));
  if (sc.supplementalGroupsPolicy !== undefined && !['Merge', 'Strict'].includes(sc.supplementalGroupsPolicy)) {
    errs.push(notSupported(p.child('supplementalGroupsPolicy'), sc.supplementalGroupsPolicy, ['Merge', 'Strict']));
  }
  if (sc.seLinuxChangePolicy !== undefined && !['MountOption', 'Recursive'].includes(sc.seLinuxChangePolicy)) {
    errs.push(notSupported(p.child('seLinuxChangePolicy'), sc.seLinuxChangePolicy, ['MountOption', 'Recursive']));
  }
  return errs;
}

/** hostUsers=false forbids host namespaces (upstream validateHostUsers). */
export function validateHostUsers(spec: PodSpec, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.hostUsers !== false) return errs;
  if (spec.hostNetwork) errs.push(forbidden(p.child('hostNetwork'), 'when `pod.Spec.HostUsers` is false'));
  if (spec.hostPID) errs.push(forbidden(p.child('HostPID'), 'when `pod.Spec.HostUsers` is false'));
  if (spec.hostIPC) errs.push(forbidden(p.child('HostIPC'), 'when `pod.Spec.HostUsers` is false'));
  return errs;
}

/** Windows HostProcess consistency (upstream validateWindowsHostProcessPod). */
export function validateWindowsHostProcessPod(spec: PodSpec, p: Path, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const podHP = spec.securityContext?.windowsOptions?.hostProcess;
  let count = 0;
  let hpCount = 0;
  visitContainers(spec, (c, type, i) => {
    count++;
    const chp = c.securityContext?.windowsOptions?.hostProcess;
    if (podHP !== undefined && chp !== undefined && podHP !== chp) {
      errs.push(
        invalid(
          p.child(type).index(i).child('securityContext', 'windowsOptions', 'hostProcess'),
          chp,
          `pod hostProcess value must be identical if both are specified, was ${podHP}`,
        ),
      );
    }
    if (chp === true || (chp === undefined && podHP === true)) hpCount++;
  });
  if (hpCount > 0) {
    if (hpCount !== count) errs.push(invalid(p, '', 'If pod contains any hostProcess containers then all containers must be HostProcess containers'));
    if (!spec.hostNetwork) errs.push(invalid(p.child('hostNetwork'), false, 'hostNetwork must be true if pod contains any hostProcess containers'));
    if (opts.allowPrivileged === false) errs.push(forbidden(p, 'hostProcess containers are disallowed by cluster policy'));
  }
  return errs;
}

/** spec.os and the OS-specific restrictions (upstream validateOS / validateLinux / validateWindows). */
export function validateOS(spec: PodSpec, p: Path): FieldError[] {
  const os = spec.os;
  if (!os) return [];
  const op = p.child('os');
  if (!os.name) return [required(op.child('name'), 'cannot be empty')];
  if (os.name !== 'linux' && os.name !== 'windows') return [notSupported(op, os.name, ['linux', 'windows'])];
  const errs: FieldError[] = [];
  const sc = spec.securityContext;
  if (os.name === 'linux') {
    if (sc?.windowsOptions) errs.push(forbidden(p.child('securityContext').child('windowsOptions'), 'windows options cannot be set for a linux pod'));
    visitContainers(spec, (c, type, i) => {
      if (c.securityContext?.windowsOptions) {
        errs.push(forbidden(p.child(type).index(i).child('securityContext').child('windowsOptions'), 'windows options cannot be set for a linux pod'));
      }
    });
    return errs;
  }
  const cannot = 'cannot be set for a windows pod';
  if (sc) {
    const sp = p.child('securityContext');
    if (sc.appArmorProfile) errs.push(forbidden(sp.child('appArmorProfile'), cannot));
    if (sc.seLinuxOptions) errs.push(forbidden(sp.child('seLinuxOptions'), cannot));
    if (spec.hostUsers !== undefined) errs.push(forbidden(p.child('hostUsers'), cannot));
    if (spec.hostPID) errs.push(forbidden(p.child('hostPID'), cannot));
    if (spec.hostIPC) errs.push(forbidden(p.child('hostIPC'), cannot));
    if (sc.seccompProfile) errs.push(forbidden(sp.child('seccompProfile'), cannot));
    if (sc.fsGroup !== undefined) errs.push(forbidden(sp.child('fsGroup'), cannot));
    if (sc.fsGroupChangePolicy !== undefined) errs.push(forbidden(sp.child('fsGroupChangePolicy'), cannot));
    if (sc.sysctls?.length) errs.push(forbidden(sp.child('sysctls'), cannot));
    if (spec.shareProcessNamespace !== undefined) errs.push(forbidden(p.child('shareProcessNamespace'), cannot));
    if (sc.runAsUser !== undefined) errs.push(forbidden(sp.child('runAsUser'), cannot));
    if (sc.runAsGroup !== undefined) errs.push(forbidden(sp.child('runAsGroup'), cannot));
    if (sc.supplementalGroups !== undefined) errs.push(forbidden(sp.child('supplementalGroups'), cannot));
    if (sc.supplementalGroupsPolicy !== undefined) errs.push(forbidden(sp.child('supplementalGroupsPolicy'), cannot));
    if (sc.seLinuxChangePolicy !== undefined) errs.push(forbidden(sp.child('seLinuxChangePolicy'), cannot));
  }
  visitContainers(spec, (c, type, i) => {
    const csc = c.securityContext;
    if (!csc) return;
    const cp = p.child(type).index(i).child('securityContext');
    for (const f of [
      'appArmorProfile',
      'seLinuxOptions',
      'seccompProfile',
      'capabilities',
      'readOnlyRootFilesystem',
      'privileged',
      'allowPrivilegeEscalation',
      'procMount',
      'runAsUser',
      'runAsGroup',
    ] as const) {
      if (csc[f] !== undefined && csc[f] !== null) errs.push(forbidden(cp.child(f), cannot));
    }
  });
  return errs;
}

/**
 * The Pod Security Standards checks (baseline and restricted), each with upstream's
 * check ID, forbidden reason and detail text. Checks run sorted by ID; a restricted
 * check replaces the baseline check it overrides.
 *
 * @see https://kubernetes.io/docs/concepts/security/pod-security-standards/
 * @see https://github.com/kubernetes/kubernetes/tree/v1.32.0/staging/src/k8s.io/pod-security-admission/policy
 */
import type { Container, PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

export type Level = 'privileged' | 'baseline' | 'restricted';

export interface CheckResult {
  reason: string;
  detail: string;
}

interface Check {
  id: string;
  level: 'baseline' | 'restricted';
  overrides?: string;
  run(meta: ObjectMeta, spec: PodSpec): CheckResult | undefined;
}

/** `"a", "b"` */
export const joinQuote = (v: string[]): string => v.map((s) => JSON.stringify(s)).join(', ');
const plural = (one: string, many: string, n: number): string => (n === 1 ? one : many);
const containersPhrase = (names: string[]): string => `${plural('container', 'containers', names.length)} ${joinQuote(names)}`;

function eachContainer(spec: PodSpec, fn: (c: Container) => void): void {
  for (const c of spec.initContainers ?? []) fn(c);
  for (const c of spec.containers ?? []) fn(c);
  for (const c of (spec.ephemeralContainers ?? []) as Container[]) fn(c);
}

const BASELINE_CAPS = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
const validSeccomp = (t: string | undefined): boolean => t === 'RuntimeDefault' || t === 'Localhost';

const CHECKS: Check[] = [
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    run(_m, spec) {
      if (spec.os?.name === 'windows') return undefined;
      const bad: string[] = [];
      eachContainer(spec, (c) => {
        if (c.securityContext?.allowPrivilegeEscalation !== false) bad.push(c.name);
      });
      if (!bad.length) return undefined;
      return { reason: 'allowPrivilegeEscalation != false', detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` };
    },
  },
  {
    id: 'appArmorProfile',
    level: 'baseline',
    run(meta, spec) {
      const bad = new Set<string>();
      const badType = (t: string | undefined): boolean => !!t && t !== 'RuntimeDefault' && t !== 'Localhost';
      if (badType(spec.securityContext?.appArmorProfile?.type))
        bad.add(`pod must not set securityContext.appArmorProfile.type to ${JSON.stringify(spec.securityContext!.appArmorProfile!.type)}`);
      const names: string[] = [];
      eachContainer(spec, (c) => {
        if (badType(c.securityContext?.appArmorProfile?.type)) names.push(c.name);
      });
      const parts = [...bad];
      if (names.length) parts.push(`${containersPhrase(names)} must not set securityContext.appArmorProfile.type to "Unconfined"`);
      for (const [k, v] of Object.entries(meta.annotations ?? {})) {
        if (k.startsWith('container.apparmor.security.beta.kubernetes.io/') && v !== 'runtime/default' && !v.startsWith('localhost/')) {
          parts.push(`${k}=${JSON.stringify(v)}`);
        }
      }
      return parts.length ? { reason: 'forbidden AppArmor profiles', detail: parts.join(', ') } : undefined;
    },
  },
  {
    id: 'capabilities_baseline',
    level: 'baseline',
    run(_m, spec) {
      const names: string[] = [];
      const caps = new Set<string>();
      eachContainer(spec, (c) => {
        let bad = false;
        for (const cap of c.securityContext?.capabilities?.add ?? []) {
          if (!BASELINE_CAPS.has(cap)) {
            bad = true;
            caps.add(cap);
          }
        }
        if (bad) names.push(c.name);
      });
      if (!names.length) return undefined;
      return { reason: 'non-default capabilities', detail: `${containersPhrase(names)} must not include ${joinQuote([...caps].sort())} in securityContext.capabilities.add` };
    },
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    overrides: 'capabilities_baseline',
    run(_m, spec) {
      if (spec.os?.name === 'windows') return undefined;
      const missingDrop: string[] = [];
      const adding: string[] = [];
      const caps = new Set<string>();
      eachContainer(spec, (c) => {
        const cc = c.securityContext?.capabilities;
        if (!cc) {
          missingDrop.push(c.name);
          return;
        }
        if (!(cc.drop ?? []).includes('ALL')) missingDrop.push(c.name);
        let bad = false;
        for (const cap of cc.add ?? []) {
          if (cap !== 'NET_BIND_SERVICE') {
            bad = true;
            caps.add(cap);
          }
        }
        if (bad) adding.push(c.name);
      });
      const d: string[] = [];
      if (missingDrop.length) d.push(`${containersPhrase(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
      if (adding.length) d.push(`${containersPhrase(adding)} must not include ${joinQuote([...caps].sort())} in securityContext.capabilities.add`);
      return d.length ? { reason: 'unrestricted capabilities', detail: d.join('; ') } : undefined;
    },
  },
  {
    id: 'hostNamespaces',
    level: 'baseline',
    run(_m, spec) {
      const d: string[] = [];
      if (spec.hostNetwork) d.push('hostNetwork=true');
      if (spec.hostPID) d.push('hostPID=true');
      if (spec.hostIPC) d.push('hostIPC=true');
      return d.length ? { reason: 'host namespaces', detail: d.join(', ') } : undefined;
    },
  },
  {
    id: 'hostPathVolumes',
    level: 'baseline',
    run(_m, spec) {
      const names = (spec.volumes ?? []).filter((v) => v.hostPath).map((v) => v.name);
      return names.length ? { reason: 'hostPath volumes', detail: `${plural('volume', 'volumes', names.length)} ${joinQuote(names)}` } : undefined;
    },
  },
  {
    id: 'hostPorts',
    level: 'baseline',
    run(_m, spec) {
      const names: string[] = [];
      const ports: string[] = [];
      eachContainer(spec, (c) => {
        let bad = false;
        for (const p of c.ports ?? []) {
          if (p.hostPort) {
            bad = true;
            if (!ports.includes(String(p.hostPort))) ports.push(String(p.hostPort));
          }
        }
        if (bad) names.push(c.name);
      });
      if (!names.length) return undefined;
      return {
        reason: 'hostPort',
        detail: `${containersPhrase(names)} ${plural('uses', 'use', names.length)} ${plural('hostPort', 'hostPorts', ports.length)} ${ports.join(', ')}`,
      };
    },
  },
  {
    id: 'privileged',
    level: 'baseline',
    run(_m, spec) {
      const names: string[] = [];
      eachContainer(spec, (c) => {
        if (c.securityContext?.privileged) names.push(c.name);
      });
      return names.length ? { reason: 'privileged', detail: `${containersPhrase(names)} must not set securityContext.privileged=true` } : undefined;
    },
  },
  {
    id: 'procMount',
    level: 'baseline',
    run(_m, spec) {
      const names: string[] = [];
      const vals = new Set<string>();
      eachContainer(spec, (c) => {
        const pm = c.securityContext?.procMount;
        if (pm && pm !== 'Default') {
          names.push(c.name);
          vals.add(pm);
        }
      });
      return names.length ? { reason: 'procMount', detail: `${containersPhrase(names)} must not set securityContext.procMount to ${joinQuote([...vals].sort())}` } : undefined;
    },
  },
  {
    id: 'restrictedVolumes',
    level: 'restricted',
    overrides: 'hostPathVolumes',
    run(_m, spec) {
      const ok = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
      const names = (spec.volumes ?? [])
        .filter((v) => !ok.some((k) => (v as unknown as Record<string, unknown>)[k] != null))
        .map((v) => v.name)
        .sort();
      return names.length ? { reason: 'restricted volume types', detail: `volumes [${names.map((n) => JSON.stringify(n)).join(' ')}] have restricted types` } : undefined;
    },
  },
  {
    id: 'runAsNonRoot',
    level: 'restricted',
    run(_m, spec) {
      if (spec.os?.name === 'windows') return undefined;
      const setters: string[] = [];
      const podValue = spec.securityContext?.runAsNonRoot;
      if (podValue === false) setters.push('pod');
      const explicit: string[] = [];
      const implicit: string[] = [];
      eachContainer(spec, (c) => {
        const v = c.securityContext?.runAsNonRoot;
        if (v !== undefined && v !== null) {
          if (!v) explicit.push(c.name);
        } else if (podValue !== true) implicit.push(c.name);
      });
      if (explicit.length) setters.push(containersPhrase(explicit));
      if (setters.length) return { reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
      if (implicit.length) return { reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true` };
      return undefined;
    },
  },
  {
    id: 'runAsUser',
    level: 'restricted',
    run(_m, spec) {
      if (spec.os?.name === 'windows') return undefined;
      const setters: string[] = [];
      if (spec.securityContext?.runAsUser === 0) setters.push('pod');
      const names: string[] = [];
      eachContainer(spec, (c) => {
        if (c.securityContext?.runAsUser === 0) names.push(c.name);
      });
      if (names.length) setters.push(containersPhrase(names));
      return setters.length ? { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` } : undefined;
    },
  },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    run(_m, spec) {
      const setters: string[] = [];
      const types = new Set<string>();
      let user = false;
      let role = false;
      const visit = (o: { type?: string; user?: string; role?: string } | undefined): boolean => {
        if (!o) return false;
        let bad = false;
        if (!SELINUX_TYPES.has(o.type ?? '')) {
          types.add(o.type!);
          bad = true;
        }
        if (o.user) (user = true), (bad = true);
        if (o.role) (role = true), (bad = true);
        return bad;
      };
      if (visit(spec.securityContext?.seLinuxOptions)) setters.push('pod');
      const names: string[] = [];
      eachContainer(spec, (c) => {
        if (visit(c.securityContext?.seLinuxOptions)) names.push(c.name);
      });
      if (names.length) setters.push(containersPhrase(names));
      if (!setters.length) return undefined;
      const d: string[] = [];
      if (types.size) d.push(`${plural('type', 'types', types.size)} ${joinQuote([...types].sort())}`);
      if (user) d.push('user may not be set');
      if (role) d.push('role may not be set');
      return { reason: 'seLinuxOptions', detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${d.join('; ')}` };
    },
  },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    run(_m, spec) {
      const setters: string[] = [];
      if (spec.securityContext?.seccompProfile?.type === 'Unconfined') setters.push('pod');
      const names: string[] = [];
      eachContainer(spec, (c) => {
        if (c.securityContext?.seccompProfile?.type === 'Unconfined') names.push(c.name);
      });
      if (names.length) setters.push(containersPhrase(names));
      return setters.length ? { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to "Unconfined"` } : undefined;
    },
  },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    overrides: 'seccompProfile_baseline',
    run(_m, spec) {
      if (spec.os?.name === 'windows') return undefined;
      const setters: string[] = [];
      const bad = new Set<string>();
      const podType = spec.securityContext?.seccompProfile?.type;
      let podSet = false;
      if (podType !== undefined) {
        if (!validSeccomp(podType)) {
          setters.push('pod');
          bad.add(podType);
        } else podSet = true;
      }
      const explicit: string[] = [];
      const implicit: string[] = [];
      eachContainer(spec, (c) => {
        const t = c.securityContext?.seccompProfile?.type;
        if (t !== undefined) {
          if (!validSeccomp(t)) {
            explicit.push(c.name);
            bad.add(t);
          }
        } else if (!podSet) implicit.push(c.name);
      });
      if (explicit.length) setters.push(containersPhrase(explicit));
      if (setters.length) {
        return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote([...bad].sort())}` };
      }
      if (implicit.length) {
        return { reason: 'seccompProfile', detail: `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
      }
      return undefined;
    },
  },
  {
    id: 'sysctls',
    level: 'baseline',
    run(_m, spec) {
      const bad = (spec.securityContext?.sysctls ?? []).map((s) => s.name).filter((n) => !SAFE_SYSCTLS.has(n));
      return bad.length ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
    },
  },
  {
    id: 'windowsHostProcess',
    level: 'baseline',
    run(_m, spec) {
      const setters: string[] = [];
      if (spec.securityContext?.windowsOptions?.hostProcess) setters.push('pod');
      const names: string[] = [];
      eachContainer(spec, (c) => {
        if (c.securityContext?.windowsOptions?.hostProcess) names.push(c.name);
      });
      if (names.length) setters.push(containersPhrase(names));
      return setters.length ? { reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` } : undefined;
    },
  },
];

const BY_LEVEL: Record<Level, Check[]> = { privileged: [], baseline: [], restricted: [] };
{
  BY_LEVEL.baseline = CHECKS.filter((c) => c.level === 'baseline');
  const overridden = new Set(CHECKS.filter((c) => c.level === 'restricted' && c.overrides).map((c) => c.overrides!));
  BY_LEVEL.restricted = CHECKS.filter((c) => !overridden.has(c.id)).sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** The violations of `level` by a pod (or pod template), in check-ID order. */
export function evaluatePod(level: Level, meta: ObjectMeta, spec: PodSpec): CheckResult[] {
  const out: CheckResult[] = [];
  for (const c of BY_LEVEL[level]) {
    const r = c.run(meta, spec);
    if (r) out.push(r);
  }
  return out;
}

/** `reason (detail), reason (detail)` as in upstream's aggregated violation text. */
export function violationText(results: CheckResult[]): string {
  return results.map((r) => (r.detail ? `${r.reason} (${r.detail})` : r.reason)).join(', ');
}

/**
 * PodSandboxConfig for a pod (upstream generatePodSandboxConfig): metadata with the
 * attempt, hostname, log directory `<kubeletDir>/logs/<ns>_<name>_<uid>`, DNS per
 * dnsPolicy, port mappings of every container port, labels/annotations, Linux
 * security context and namespace options.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_sandbox.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/network/dns/dns.go
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import type { DNSConfig, PodSandboxConfig } from '../../cri/api.js';
import { sandboxLabels } from './labels.js';
import { sandboxSecurityContext } from './security-context.js';

export interface DNSSettings {
  /** cluster DNS server IPs (kubelet --cluster-dns); empty → ClusterFirst falls back to Default */
  clusterDNS: string[];
  clusterDomain: string;
  /** the host's resolv.conf (for dnsPolicy Default), default /etc/resolv.conf */
  resolvConf?: string;
}

function hostResolv(file: string): DNSConfig {
  const out: DNSConfig = { servers: [], searches: [], options: [] };
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const f = line
      .replace(/[#;].*$/, '')
      .trim()
      .split(/\s+/);
    if (f[0] === 'nameserver' && f[1]) out.servers.push(f[1]);
    else if (f[0] === 'search') out.searches = f.slice(1);
    else if (f[0] === 'options') out.options.push(...f.slice(1));
  }
  return out;
}

/** DNS of a pod per its dnsPolicy and dnsConfig. */
function podDNS(pod: Pod, dns: DNSSettings): DNSConfig {
  const spec: Partial<PodSpec> = pod.spec ?? {};
  let policy = spec.dnsPolicy ?? 'ClusterFirst';
  if (policy === 'ClusterFirstWithHostNet') policy = 'ClusterFirst';
  else if (policy === 'ClusterFirst' && spec.hostNetwork) policy = 'Default';
  if (policy === 'ClusterFirst' && !dns.clusterDNS.length) policy = 'Default';
  let cfg: DNSConfig;
  const host = hostResolv(dns.resolvConf ?? '/etc/resolv.conf');
  if (policy === 'None') cfg = { servers: [], searches: [], options: [] };
  else if (policy === 'Default') cfg = host;
  else {
    const ns = pod.metadata?.namespace ?? 'default';
    const d = dns.clusterDomain;
    cfg = { servers: [...dns.clusterDNS], searches: [`${ns}.svc.${d}`, `svc.${d}`, d, ...host.searches], options: ['ndots:5'] };
  }
  const extra = spec.dnsConfig;
  if (extra) {
    cfg.servers = [...new Set([...cfg.servers, ...(extra.nameservers ?? [])])];
    cfg.searches = [...new Set([...cfg.searches, ...(extra.searches ?? [])])];
    for (const o of extra.options ?? []) {
      const opt = o.value !== undefined ? `${o.name}:${o.value}` : (o.name ?? '');
      cfg.options = cfg.options.filter((x) => x.split(':')[0] !== o.name);
      cfg.options.push(opt);
    }
  }
  return cfg;
}

/** The sandbox log directory of a pod. */
export function podLogDir(kubeletDir: string, pod: Pod): string {
  const m = pod.metadata ?? {};
  return path.join(kubeletDir, 'logs', `${m.namespace}_${m.name}_${m.uid}`);
}

/**
 * @param cgroupParent the pod cgroup (cgroupfs path) when the kubelet manages pod cgroups;
 *   else the runtime picks one
 */
export function generateSandboxConfig(pod: Pod, attempt: number, kubeletDir: string, dns: DNSSettings, cgroupParent?: string): PodSandboxConfig {
  const m = pod.metadata ?? {};
  const spec = pod.spec ?? { containers: [] };
  // hostNetwork pods share the node's UTS namespace: no hostname is set (the runtime keeps the node's)
  let hostname = spec.hostNetwork ? '' : (spec.hostname ?? m.name ?? '');
  if (hostname.length > 63) hostname = hostname.slice(0, 63).replace(/[-.]+$/, '');
  const portMappings: PodSandboxConfig['portMappings'] = [];
  for (const c of spec.containers ?? []) {
    for (const p of c.ports ?? []) {
      portMappings.push({ protocol: (p.protocol ?? 'TCP') as 'TCP', containerPort: p.containerPort, hostPort: p.hostPort ?? 0, hostIp: p.hostIP ?? '' });
    }
  }
  const psc = spec.securityContext ?? {};
  return {
    metadata: { name: m.name ?? '', namespace: m.namespace ?? '', uid: m.uid ?? '', attempt },
    hostname,
    logDirectory: podLogDir(kubeletDir, pod),
    dnsConfig: podDNS(pod, dns),
    portMappings,
    labels: sandboxLabels(pod),
    annotations: { ...m.annotations },
    linux: {
      ...(cgroupParent ? { cgroupParent } : {}),
      securityContext: sandboxSecurityContext(pod),
      ...(psc.sysctls?.length ? { sysctls: Object.fromEntries(psc.sysctls.map((s) => [s.name, s.value])) } : {}),
    },
  };
}

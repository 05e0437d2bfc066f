/**
 * The Node object the kubelet registers and keeps up to date (upstream
 * pkg/kubelet/nodestatus setters): labels, capacity/allocatable, conditions with
 * upstream reasons and messages, addresses, nodeInfo, podCIDR(s).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/nodestatus/setters.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kubelet_node_status.go
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { Node, NodeCondition, NodeStatus } from 'kubernetes-types/core/v1.js';
import { formatQuantity, newQuantity, parseQuantity, subQuantity, value, type Quantity } from '../../apimachinery/quantity.js';
import { formatTime } from '../../api/core/v1/helpers/conditions.js';

export const KUBELET_VERSION = 'v1.32.0+k8ts';

/** Static facts about the machine, gathered once (overridable for simulated nodes). */
export interface MachineInfo {
  cpu: Quantity;
  memory: Quantity;
  ephemeralStorage: Quantity;
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  architecture: string;
  hostIP: string;
  hostname: string;
}

/** Go's GOARCH for process.arch. */
function goArch(arch: string = process.arch): string {
  return ({ x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' } as Record<string, string>)[arch] ?? arch;
}

function readTrim(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

function osImage(): string {
  const text = readTrim('/etc/os-release');
  const m = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text);
  return m?.[1] ?? 'Linux';
}

/** The first non-internal IPv4 address, else 127.0.0.1. */
export function defaultHostIP(): string {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

/** Machine facts of this host; `cpu` (cores) / `memory` (bytes or quantity) override. */
export function machineInfo(dataDir: string, nodeName: string, o: { cpu?: number | string; memory?: number | string; hostIP?: string } = {}): MachineInfo {
  let storage = 0;
  try {
    const s = fs.statfsSync(dataDir);
    storage = s.blocks * s.bsize;
  } catch {
    storage = 0;
  }
  const q = (v: number | string): Quantity => (typeof v === 'number' ? newQuantity(Math.floor(v), 'BinarySI') : parseQuantity(v));
  const machineID = readTrim('/etc/machine-id') || readTrim('/var/lib/dbus/machine-id');
  const hostname = os.hostname();
  // Nodes that are not this host (simulated extra nodes) get IDs of their own.
  const own = nodeName === hostname || nodeName === hostname.toLowerCase();
  const synth = (salt: string): string => Buffer.from(`${salt}:${nodeName}`).toString('hex').padEnd(32, '0').slice(0, 32);
  return {
    cpu: o.cpu !== undefined ? (typeof o.cpu === 'number' ? newQuantity(o.cpu) : parseQuantity(o.cpu)) : newQuantity(os.cpus().length || 1),
    memory: o.memory !== undefined ? q(o.memory) : newQuantity(Math.floor(os.totalmem() / 1024) * 1024, 'BinarySI'),
    ephemeralStorage: newQuantity(Math.floor(storage / 1024) * 1024, 'BinarySI'),
    machineID: own && machineID ? machineID : synth('machine'),
    systemUUID: (own && readTrim('/sys/class/dmi/id/product_uuid')) || synth('system'),
    bootID: (own && readTrim('/proc/sys/kernel/random/boot_id')) || synth('boot'),
    kernelVersion: os.release(),
    osImage: osImage(),
    architecture: goArch(),
    hostIP: o.hostIP ?? defaultHostIP(),
    hostname: nodeName,
  };
}

const KI = (q: Quantity): string => {
  const v = value(q);
  return v % 1024 === 0 ? `${v / 1024}Ki` : formatQuantity(q);
};

/** Capacity and allocatable (memory minus the 100Mi hard-eviction threshold, storage minus 10%). */
function resources(m: MachineInfo): Pick<NodeStatus, 'capacity' | 'allocatable'> {
  const evictMem = parseQuantity('100Mi');
  const mem = value(m.memory) > value(evictMem) ? subQuantity(m.memory, evictMem) : m.memory;
  const storage = value(m.ephemeralStorage);
  const capacity = { cpu: formatQuantity(m.cpu), 'ephemeral-storage': KI(m.ephemeralStorage), 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: KI(m.memory), pods: '110' };
  const allocatable = {
    cpu: formatQuantity(m.cpu),
    'ephemeral-storage': String(Math.floor(storage * 0.9)),
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    memory: KI(mem),
    pods: '110',
  };
  return { capacity, allocatable };
}

export function nodeLabels(nodeName: string, runtimeKind: string): Record<string, string> {
  const arch = goArch();
  return {
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': arch,
    'kubernetes.io/hostname': nodeName,
    'kubernetes.io/os': 'linux',
    'k8ts.io/runtime': runtimeKind,
  };
}

export interface RuntimeHealth {
  ready: boolean;
  /** why not, as upstream's runtime state errors */
  message: string;
}

/** The four node conditions; lastTransitionTime kept from `old` when the status is unchanged. */
function nodeConditions(old: readonly NodeCondition[] | undefined, rt: RuntimeHealth, now: Date): NodeCondition[] {
  const ts = formatTime(now);
  const mk = (type: string, status: 'True' | 'False', reason: string, message: string): NodeCondition => {
    const prev = old?.find((c) => c.type === type);
    return { type, status, reason, message, lastHeartbeatTime: ts, lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime : ts };
  };
  return [
    mk('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    mk('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    mk('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    rt.ready ? mk('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status') : mk('Ready', 'False', 'KubeletNotReady', rt.message),
  ];
}

interface NodeStatusInputs {
  machine: MachineInfo;
  runtimeVersion: string;
  runtime: RuntimeHealth;
  now: Date;
  /** the kubelet server's port (status.daemonEndpoints), default 10250 */
  kubeletPort?: number;
}

/** The full status the kubelet reports. */
export function nodeStatus(old: NodeStatus | undefined, i: NodeStatusInputs): NodeStatus {
  const m = i.machine;
  return {
    ...resources(m),
    conditions: nodeConditions(old?.conditions, i.runtime, i.now),
    addresses: [
      { type: 'InternalIP', address: m.hostIP },
      { type: 'Hostname', address: m.hostname },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: i.kubeletPort ?? 10250 } },
    nodeInfo: {
      machineID: m.machineID,
      systemUUID: m.systemUUID,
      bootID: m.bootID,
      kernelVersion: m.kernelVersion,
      osImage: m.osImage,
      containerRuntimeVersion: i.runtimeVersion,
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: m.architecture,
    },
    images: old?.images ?? [],
  };
}

/** A fresh Node for registration. */
export function initialNode(nodeName: string, runtimeKind: string, podCIDR: string, status: NodeStatus): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: nodeName, labels: nodeLabels(nodeName, runtimeKind), annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } },
    spec: podCIDR ? { podCIDR, podCIDRs: [podCIDR] } : {},
    status,
  };
}

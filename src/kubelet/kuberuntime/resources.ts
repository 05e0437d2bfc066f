/**
 * A container's Linux resources as upstream's kuberuntime computes them: cpu shares from
 * the cpu request (or the limit when only a limit is given; 2 when neither), a CFS
 * period of 100 ms with the quota from the cpu limit (0 = unlimited; at least 1 ms),
 * the memory limit in bytes, and the OOM score adjustment of the pod's QoS class.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_container_linux.go (calculateLinuxResources)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/cm/helpers_linux.go (MilliCPUToShares, MilliCPUToQuota)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/qos/policy.go (GetContainerOOMScoreAdjust)
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { getPodQOS } from '../../api/core/v1/helpers/qos.js';
import { milliValue, parseQuantity, value } from '../../apimachinery/quantity.js';
import type { LinuxContainerResources } from '../../cri/api.js';

/** The CFS period upstream uses (µs). */
export const QUOTA_PERIOD_US = 100_000;
const MIN_QUOTA_US = 1000;
const MIN_SHARES = 2;
const MAX_SHARES = 262_144;
const GUARANTEED_OOM_SCORE_ADJ = -997;
const BESTEFFORT_OOM_SCORE_ADJ = 1000;

/** Upstream MilliCPUToShares: 0 → 2, else milli×1024/1000 within [2, 262144]. */
export function milliCPUToShares(milli: number): number {
  if (milli === 0) return MIN_SHARES;
  return Math.min(MAX_SHARES, Math.max(MIN_SHARES, Math.floor((milli * 1024) / 1000)));
}

/** Upstream milliCPUToQuota: 0 → 0 (unlimited), else milli×period/1000, at least 1000 µs. */
export function milliCPUToQuota(milli: number, period = QUOTA_PERIOD_US): number {
  if (milli === 0) return 0;
  return Math.max(MIN_QUOTA_US, Math.floor((milli * period) / 1000));
}

const milli = (v: string | number | undefined): number => (v === undefined ? 0 : milliValue(parseQuantity(String(v))));
const bytes = (v: string | number | undefined): number => (v === undefined ? 0 : value(parseQuantity(String(v))));

/**
 * Upstream GetContainerOOMScoreAdjust: Guaranteed (and system-node-critical) −997,
 * BestEffort 1000, Burstable 1000 − 1000×request/capacity clamped to [3, 999]
 * (sidecars count at least the smallest regular container's request).
 */
export function oomScoreAdjust(pod: Pod, c: Container, memoryCapacity: number): number {
  if (pod.spec?.priorityClassName === 'system-node-critical') return GUARANTEED_OOM_SCORE_ADJ;
  const qos = getPodQOS(pod);
  if (qos === 'Guaranteed') return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === 'BestEffort') return BESTEFFORT_OOM_SCORE_ADJ;
  let request = bytes(c.resources?.requests?.memory);
  if (c.restartPolicy === 'Always' && pod.spec?.initContainers?.some((x) => x.name === c.name)) {
    const regular = (pod.spec.containers ?? []).map((x) => bytes(x.resources?.requests?.memory));
    if (regular.length) request = Math.max(request, Math.min(...regular));
  }
  if (memoryCapacity <= 0) return BESTEFFORT_OOM_SCORE_ADJ - 1;
  const adj = 1000 - Math.trunc((1000 * request) / memoryCapacity);
  if (adj < 1000 + GUARANTEED_OOM_SCORE_ADJ) return 1000 + GUARANTEED_OOM_SCORE_ADJ;
  if (adj === BESTEFFORT_OOM_SCORE_ADJ) return adj - 1;
  return adj;
}

/**
 * The LinuxContainerResources of container `c` (upstream generateLinuxContainerResources).
 * @param memoryCapacity the node's memory in bytes (for the OOM score of Burstable pods)
 */
export function linuxResources(pod: Pod, c: Container, memoryCapacity: number): LinuxContainerResources {
  const req = c.resources?.requests ?? {};
  const lim = c.resources?.limits ?? {};
  const shares = req.cpu === undefined && lim.cpu !== undefined ? milliCPUToShares(milli(lim.cpu)) : milliCPUToShares(milli(req.cpu));
  const r: LinuxContainerResources = {
    cpuShares: shares,
    cpuPeriod: QUOTA_PERIOD_US,
    cpuQuota: milliCPUToQuota(milli(lim.cpu)),
    oomScoreAdj: oomScoreAdjust(pod, c, memoryCapacity),
  };
  const mem = bytes(lim.memory);
  if (mem) r.memoryLimitInBytes = mem;
  return r;
}

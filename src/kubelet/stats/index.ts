/**
 * The kubelet's statistics source for its runtime: cgroups when the runtime's containers
 * are host processes in the kubelet's pod cgroups, the simulated runtime's synthetic
 * figures otherwise (named so in /metrics/resource).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Runtime } from '../../cri/api.js';
import { CgroupStatsProvider } from './cgroups.js';
import { SIM_METRICS_COMMENT, SimStatsProvider } from './sim.js';
import type { StatsProvider } from './types.js';

/**
 * The kubelet server's `stats` and `statsComment` options.
 * @param pods the pods the kubelet runs, with the kubelet's status
 * @param cgroupRoot upstream --cgroup-root when the kubelet makes pod cgroups (real containers)
 */
export function kubeletStats(runtime: Runtime, nodeName: string, pods: () => Pod[], cgroupRoot: string | undefined): { stats: StatsProvider; statsComment?: string } {
  if (runtime.features.hostProcesses && cgroupRoot !== undefined) return { stats: new CgroupStatsProvider({ nodeName, pods, cgroupRoot }) };
  return { stats: new SimStatsProvider(nodeName, pods), statsComment: SIM_METRICS_COMMENT };
}

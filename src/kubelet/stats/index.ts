/**
 * The kubelet's statistics source for its runtime: cgroups when the runtime's containers
 * are host processes in the kubelet's pod cgroups, the simulated runtime's synthetic
 * figures otherwise (named so in /metrics/resource).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Runtime } from '../../cri/api.js';
import { CgroupStatsProvider } from './cgroups.js';
import { SIM_METRICS_COMMENT, SimStatsProvider } from './sim.js';
import type { StatsProvider, Summary, VolumeStats } from './types.js';

/** The pods' volume statistics (the kubelet's volume stats cache), by pod UID. */
export type PodVolumeStatsLookup = (uid: string) => VolumeStats[] | undefined;

/** A provider whose pods carry their cached volume statistics (`volume`), as upstream's summary does. */
class WithVolumeStats implements StatsProvider {
  constructor(
    private readonly inner: StatsProvider,
    private readonly volumes: PodVolumeStatsLookup,
  ) {}

  async summary(): Promise<Summary> {
    const s = await this.inner.summary();
    for (const p of s.pods) {
      const v = this.volumes(p.podRef.uid);
      if (v?.length) p.volume = v;
    }
    return s;
  }
}

/**
 * The kubelet server's `stats` and `statsComment` options.
 * @param pods the pods the kubelet runs, with the kubelet's status
 * @param cgroupRoot upstream --cgroup-root when the kubelet makes pod cgroups (real containers)
 * @param volumes the pods' cached volume statistics (none: pods carry no `volume`)
 */
export function kubeletStats(
  runtime: Runtime,
  nodeName: string,
  pods: () => Pod[],
  cgroupRoot: string | undefined,
  volumes?: PodVolumeStatsLookup,
): { stats: StatsProvider; statsComment?: string } {
  const wrap = (p: StatsProvider): StatsProvider => (volumes ? new WithVolumeStats(p, volumes) : p);
  if (runtime.features.hostProcesses && cgroupRoot !== undefined) return { stats: wrap(new CgroupStatsProvider({ nodeName, pods, cgroupRoot })) };
  return { stats: wrap(new SimStatsProvider(nodeName, pods)), statsComment: SIM_METRICS_COMMENT };
}

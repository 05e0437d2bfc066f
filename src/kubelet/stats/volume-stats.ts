/**
 * The kubelet's cache of pod volume statistics (upstream fsResourceAnalyzer and
 * volumeStatCalculator): every aggregation period (`--volume-stats-agg-period`,
 * KubeletConfiguration `volumeStatsAggPeriod`, default 1m; 0 disables it) the metrics of
 * every volume the CSI plugin has published are taken (NodeGetVolumeStats) and kept per
 * pod; `/stats/summary` and the `kubelet_volume_stats_*` metrics read the cache and
 * never call a driver themselves.
 *
 * One timer for the whole node, armed only while some pod has a published volume: a node
 * whose pods have no CSI volumes does no work at all. (Upstream runs one jittered loop
 * per pod; here every pod is measured on the same tick.) A volume whose driver reports
 * an abnormal condition gets upstream's `VolumeConditionAbnormal` event on its pod.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/server/stats/fs_resource_analyzer.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/server/stats/volume_stat_calculator.go
 */
import type { Clock, TimerHandle } from '../../util/clock.js';
import type { PublishedVolume, PublishedVolumes } from '../volumes/csi/published.js';
import { MetricsNotSupportedError, type VolumeMetrics } from '../volumes/csi/metrics.js';
import type { VolumeStats } from './types.js';

/** upstream's default volumeStatsAggPeriod (1m) */
export const DEFAULT_VOLUME_STATS_AGG_PERIOD_MS = 60_000;

export interface VolumeStatsCacheOptions {
  /** the CSI plugin's published volumes */
  registry: PublishedVolumes;
  /** the metrics of one volume; may throw MetricsNotSupportedError (skipped silently) or any error (logged) */
  measure: (v: PublishedVolume) => Promise<VolumeMetrics>;
  clock: Clock;
  /** ms between calculations; 0 or less disables volume stats (default 1m) */
  periodMs?: number;
  /** the kubelet's `--v=4` log */
  log?: (line: string) => void;
  /** records a Warning event on a pod (VolumeConditionAbnormal) */
  podEvent?: (pod: PublishedVolume['pod'], reason: string, message: string) => void;
}

export class VolumeStatsCache {
  private readonly latest = new Map<string, VolumeStats[]>();
  private timer?: TimerHandle;
  private running?: Promise<void>;
  private stopped = false;
  readonly periodMs: number;

  constructor(private readonly o: VolumeStatsCacheOptions) {
    this.periodMs = o.periodMs ?? DEFAULT_VOLUME_STATS_AGG_PERIOD_MS;
    if (this.periodMs > 0) o.registry.onPublish(() => this.arm());
    else o.log?.('Volume stats collection disabled');
  }

  /** The cached statistics of pod `uid`'s volumes (undefined before the first calculation). */
  get(uid: string): VolumeStats[] | undefined {
    return this.latest.get(uid);
  }

  /** Whether the calculation timer is armed (tests). */
  get armed(): boolean {
    return this.timer !== undefined;
  }

  private arm(): void {
    if (this.stopped || this.timer !== undefined || this.running) return;
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = undefined;
      this.running = this.refresh().finally(() => {
        this.running = undefined;
        if (this.o.registry.size) this.arm();
      });
    }, this.periodMs);
  }

  /** One calculation over every pod with published volumes; pods gone from the registry are dropped. */
  async refresh(): Promise<void> {
    const seen = new Set<string>();
    for (const [uid, vols] of [...this.o.registry.pods()]) {
      seen.add(uid);
      const out: VolumeStats[] = [];
      for (const v of vols.values()) {
        let m: VolumeMetrics;
        try {
          m = await this.o.measure(v);
        } catch (e) {
          if (!(e instanceof MetricsNotSupportedError))
            this.o.log?.(`Failed to calculate volume metrics pod="${v.pod.namespace}/${v.pod.name}" podUID="${uid}" volumeName="${v.name}" err="${(e as Error).message}"`);
          continue;
        }
        out.push(toVolumeStats(v, m));
        if (m.abnormal && m.message !== undefined) this.o.podEvent?.(v.pod, 'VolumeConditionAbnormal', `Volume ${v.name}: ${m.message}`);
      }
      // a pod torn down while it was being measured is not cached again
      if (this.o.registry.has(uid)) this.latest.set(uid, out);
    }
    for (const uid of [...this.latest.keys()]) if (!seen.has(uid)) this.latest.delete(uid);
  }

  /** Stops the timer (a calculation in flight finishes). */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** upstream parsePodVolumeStats: metrics → stats/v1alpha1 VolumeStats. */
function toVolumeStats(v: PublishedVolume, m: VolumeMetrics): VolumeStats {
  const s: VolumeStats = {
    time: m.time,
    availableBytes: m.availableBytes,
    capacityBytes: m.capacityBytes,
    usedBytes: m.usedBytes,
    inodesFree: m.inodesFree,
    inodes: m.inodes,
    inodesUsed: m.inodesUsed,
    name: v.name,
  };
  if (v.pvcRef) s.pvcRef = { name: v.pvcRef.name, namespace: v.pvcRef.namespace };
  if (m.abnormal !== undefined) s.volumeHealthStats = { abnormal: m.abnormal };
  return s;
}

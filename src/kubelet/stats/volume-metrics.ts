/**
 * The kubelet's volume stats metrics on `/metrics` (upstream's volumeStatsCollector, all
 * ALPHA): capacity, available and used bytes and inodes of every volume backed by a
 * claim, labelled with the claim's namespace and name (a claim used by several pods
 * counts once), and `kubelet_volume_stats_health_status_abnormal` (1 abnormal, 0
 * healthy) for volumes whose driver reports a condition — from the pods' volume stats
 * in the Summary, i.e. the kubelet's volume stats cache.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/metrics/collectors/volume_stats.go
 */
import { esc, num } from './resource-metrics.js';
import type { Summary, VolumeStats } from './types.js';

/** The families in exposition order (by name), with upstream's help texts. */
const FAMILIES: [string, string, (v: VolumeStats) => number | undefined][] = [
  ['kubelet_volume_stats_available_bytes', 'Number of available bytes in the volume', (v) => v.availableBytes],
  ['kubelet_volume_stats_capacity_bytes', 'Capacity in bytes of the volume', (v) => v.capacityBytes],
  [
    'kubelet_volume_stats_health_status_abnormal',
    'Abnormal volume health status. The count is either 1 or 0. 1 indicates the volume is unhealthy, 0 indicates volume is healthy',
    (v) => (v.volumeHealthStats ? Number(v.volumeHealthStats.abnormal) : undefined),
  ],
  ['kubelet_volume_stats_inodes', 'Maximum number of inodes in the volume', (v) => v.inodes],
  ['kubelet_volume_stats_inodes_free', 'Number of free inodes in the volume', (v) => v.inodesFree],
  ['kubelet_volume_stats_inodes_used', 'Number of used inodes in the volume', (v) => v.inodesUsed],
  ['kubelet_volume_stats_used_bytes', 'Number of used bytes in the volume', (v) => v.usedBytes],
];

/** The exposition of the claim-backed volumes in `s` (empty when there are none). */
export function volumeStatsMetricsText(s: Summary): string {
  const byClaim = new Map<string, { labels: string; v: VolumeStats }>();
  for (const p of s.pods) {
    for (const v of p.volume ?? []) {
      if (!v.pvcRef) continue;
      const labels = `namespace="${esc(v.pvcRef.namespace)}",persistentvolumeclaim="${esc(v.pvcRef.name)}"`;
      if (!byClaim.has(labels)) byClaim.set(labels, { labels, v });
    }
  }
  const rows = [...byClaim.values()].sort((a, b) => (a.labels < b.labels ? -1 : a.labels > b.labels ? 1 : 0));
  const out: string[] = [];
  for (const [name, help, value] of FAMILIES) {
    const samples = rows.flatMap((r) => {
      const x = value(r.v);
      return x === undefined ? [] : [`${name}{${r.labels}} ${num(x)}`];
    });
    if (samples.length) out.push(`# HELP ${name} [ALPHA] ${help}`, `# TYPE ${name} gauge`, ...samples);
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

/**
 * The kubelet's own `/metrics`: `kubelet_node_name` (ALPHA, always 1, labelled with the
 * node's name, as upstream's metrics.NodeName) followed by the volume stats families
 * ({@link volumeStatsMetricsText}); families in name order as upstream's registry writes them.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/metrics/metrics.go (NodeName)
 */
export function kubeletMetricsText(s: Summary): string {
  const node = [
    "# HELP kubelet_node_name [ALPHA] The node's name. The count is always 1.",
    '# TYPE kubelet_node_name gauge',
    `kubelet_node_name{node="${esc(s.node.nodeName)}"} 1`,
  ];
  return `${node.join('\n')}\n${volumeStatsMetricsText(s)}`;
}

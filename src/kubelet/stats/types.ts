/**
 * The kubelet's resource statistics: the subset of upstream's stats/v1alpha1 Summary that
 * `/stats/summary` serves and `/metrics/resource` is made from (CPU and memory of the
 * node, the pods and their containers).
 *
 * @see https://github.com/kubernetes/kubelet/blob/v0.32.0/pkg/apis/stats/v1alpha1/types.go
 */

/** CPU usage at `time` (RFC 3339). */
export interface CPUStats {
  time: string;
  /** cumulative CPU time, ns */
  usageCoreNanoSeconds: number;
  /** mean rate over the provider's last interval, nano-cores (absent until two readings exist) */
  usageNanoCores?: number;
}

/** Memory usage at `time` (RFC 3339), bytes. */
export interface MemoryStats {
  time: string;
  workingSetBytes: number;
  usageBytes?: number;
  rssBytes?: number;
}

export interface ContainerStats {
  name: string;
  /** RFC 3339 */
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
}

/**
 * A volume's file system usage (FsStats inline, then the volume's name, its claim and
 * health), bytes and inode counts, taken at `time` (RFC 3339).
 */
export interface VolumeStats {
  time: string;
  availableBytes: number;
  capacityBytes: number;
  usedBytes: number;
  inodesFree: number;
  inodes: number;
  inodesUsed: number;
  /** the pod's volume name */
  name: string;
  /** the claim, for PVC-backed and generic ephemeral volumes */
  pvcRef?: { name: string; namespace: string };
  /** set when the driver reports volume conditions */
  volumeHealthStats?: { abnormal: boolean };
}

export interface PodStats {
  podRef: { name: string; namespace: string; uid: string };
  /** RFC 3339 */
  startTime: string;
  containers: ContainerStats[];
  cpu?: CPUStats;
  memory?: MemoryStats;
  /** the pod's volumes with metrics (the kubelet's cache, refreshed every volume stats aggregation period) */
  volume?: VolumeStats[];
}

export interface NodeStats {
  nodeName: string;
  /** RFC 3339 */
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
}

/** stats/v1alpha1 Summary (node and pods). */
export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

/** Where the kubelet's statistics come from: cgroups of real containers or the simulated runtime's synthetic figures. */
export interface StatsProvider {
  /** The current statistics of the node and its running pods. */
  summary(): Promise<Summary>;
}

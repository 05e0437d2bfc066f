/**
 * The CSI plugin's volume metrics (upstream metricsCsi.GetMetrics): NodeGetVolumeStats
 * over the driver's socket for a published volume, when the driver's node service has
 * GET_VOLUME_STATS; BYTES and INODES usages become capacity/available/used and
 * inodes/inodesFree/inodesUsed (0 for a unit the driver does not report), and — when
 * the driver also has VOLUME_CONDITION — the volume condition (upstream does the latter
 * behind the CSIVolumeHealth feature gate).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/csi_metrics.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/csi_client.go (NodeGetVolumeStats)
 */
import type { CSIDriverEntry } from './drivers.js';
import { rfc3339 } from '../../../client/events.js';

/** What a volume's metrics say (upstream volume.Metrics); sizes in bytes, inodes as counts. */
export interface VolumeMetrics {
  /** when the metrics were taken, RFC 3339 (seconds) */
  time: string;
  capacityBytes: number;
  availableBytes: number;
  usedBytes: number;
  inodes: number;
  inodesFree: number;
  inodesUsed: number;
  /** set when the driver reports volume conditions */
  abnormal?: boolean;
  message?: string;
}

/** The driver has no GET_VOLUME_STATS: the volume has no metrics (upstream's NotSupported error, not logged). */
export class MetricsNotSupportedError extends Error {
  constructor(driver: string) {
    super(`metrics are not supported for ${driver} volumes`);
    this.name = 'MetricsNotSupportedError';
  }
}

/**
 * NodeGetVolumeStats of volume `volumeId` published at `targetPath`.
 * @param log the kubelet's `--v=4` log (`kubernetes.io/csi: calling NodeGetVolumeStats rpc [volid=…,target_path=…]`)
 * @throws MetricsNotSupportedError when the driver lacks GET_VOLUME_STATS; CSIError from the driver
 */
export async function csiVolumeMetrics(drv: CSIDriverEntry, volumeId: string, targetPath: string, now: number, log: (line: string) => void): Promise<VolumeMetrics> {
  if (!drv.nodeCapabilities.includes('GET_VOLUME_STATS')) throw new MetricsNotSupportedError(drv.name);
  log(`kubernetes.io/csi: calling NodeGetVolumeStats rpc [volid=${volumeId},target_path=${targetPath}]`);
  const res = await drv.client.nodeGetVolumeStatsResponse(volumeId, targetPath);
  const m: VolumeMetrics = { time: rfc3339(new Date(now)), capacityBytes: 0, availableBytes: 0, usedBytes: 0, inodes: 0, inodesFree: 0, inodesUsed: 0 };
  for (const u of res.usage ?? []) {
    if (u.unit === 'BYTES') {
      m.availableBytes = u.available;
      m.capacityBytes = u.total;
      m.usedBytes = u.used;
    } else if (u.unit === 'INODES') {
      m.inodesFree = u.available;
      m.inodes = u.total;
      m.inodesUsed = u.used;
    }
  }
  if (drv.nodeCapabilities.includes('VOLUME_CONDITION')) {
    m.abnormal = !!res.volumeCondition?.abnormal;
    m.message = res.volumeCondition?.message ?? '';
  }
  return m;
}

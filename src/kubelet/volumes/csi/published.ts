/**
 * What the kubelet's CSI volume plugin has on this node, in memory: per pod the volumes
 * it published (driver, handle, target path, the claim behind them) — the volumes whose
 * NodeGetVolumeStats feed the volume metrics — and the unique names of the attachable
 * volumes the pods want or have (upstream's volume manager GetVolumesInUse:
 * `kubernetes.io/csi/<driver>^<volumeHandle>`, only for drivers that require attach),
 * which the node status reports as `volumesInUse`.
 *
 * After a kubelet restart the in-use names are read back from the `vol_data.json`
 * records of published volumes that carry an attachment ID (upstream reconstructs its
 * actual state of world from disk before it reports volumes in use), so the
 * attach/detach controller never sees a still-mounted volume as unused.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/volumemanager/volume_manager.go (GetVolumesInUse)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/util/volumehelper (GetUniqueVolumeName)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The claim a volume comes from (stats/v1alpha1 PVCReference). */
export interface PVCReference {
  name: string;
  namespace: string;
}

/** A volume published into a pod's directory. */
export interface PublishedVolume {
  /** the pod it is published for */
  pod: { name: string; namespace: string; uid: string };
  /** the pod's volume name */
  name: string;
  driver: string;
  /** the CSI volume ID */
  handle: string;
  /** `<kubelet-dir>/pods/<uid>/volumes/kubernetes.io~csi/<spec name>/mount` */
  targetPath: string;
  /** set for `persistentVolumeClaim` and generic `ephemeral` volumes */
  pvcRef?: PVCReference;
}

/** upstream GetUniqueVolumeName for the CSI plugin: `kubernetes.io/csi/<driver>^<volumeHandle>` */
export function uniqueVolumeName(driver: string, handle: string): string {
  return `kubernetes.io/csi/${driver}^${handle}`;
}

export class PublishedVolumes {
  private readonly byPod = new Map<string, Map<string, PublishedVolume>>();
  /** pod uid → the unique names of its attachable volumes (wanted or mounted) */
  private readonly inUseByPod = new Map<string, Set<string>>();
  private readonly listeners: (() => void)[] = [];

  /** Calls `fn` whenever a volume is published (the stats cache starts its loop then). */
  onPublish(fn: () => void): void {
    this.listeners.push(fn);
  }

  /** Records that pod `uid` wants (and will mount) the attachable volume `unique`. */
  markInUse(uid: string, unique: string): void {
    let s = this.inUseByPod.get(uid);
    if (!s) this.inUseByPod.set(uid, (s = new Set()));
    s.add(unique);
  }

  /** Records a volume published for pod `uid`. */
  add(uid: string, v: PublishedVolume): void {
    let m = this.byPod.get(uid);
    if (!m) this.byPod.set(uid, (m = new Map()));
    m.set(v.name, v);
    for (const fn of this.listeners) fn();
  }

  /** Forgets pod `uid` (its volumes are unpublished). */
  deletePod(uid: string): void {
    this.byPod.delete(uid);
    this.inUseByPod.delete(uid);
  }

  /** Pod uid → its published volumes. */
  pods(): IterableIterator<[string, Map<string, PublishedVolume>]> {
    return this.byPod.entries();
  }

  has(uid: string): boolean {
    return this.byPod.has(uid);
  }

  get size(): number {
    return this.byPod.size;
  }

  /** The sorted, de-duplicated unique names of the attachable volumes in use on this node. */
  volumesInUse(): string[] {
    const all = new Set<string>();
    for (const s of this.inUseByPod.values()) for (const n of s) all.add(n);
    return [...all].sort();
  }

  /**
   * Reads the in-use attachable volumes back from the `vol_data.json` records under
   * `<kubeletDir>/pods/<uid>/volumes/kubernetes.io~csi/` (those with an `attachmentID`).
   */
  reconstruct(kubeletDir: string, pluginDir: string): void {
    const podsDir = path.join(kubeletDir, 'pods');
    let uids: string[];
    try {
      uids = fs.readdirSync(podsDir);
    } catch {
      return;
    }
    for (const uid of uids) {
      const base = path.join(podsDir, uid, 'volumes', pluginDir);
      let names: string[];
      try {
        names = fs.readdirSync(base);
      } catch {
        continue;
      }
      for (const n of names) {
        try {
          const d = JSON.parse(fs.readFileSync(path.join(base, n, 'vol_data.json'), 'utf8')) as { driverName?: string; volumeHandle?: string; attachmentID?: string };
          if (d.attachmentID && d.driverName && d.volumeHandle) this.markInUse(uid, uniqueVolumeName(d.driverName, d.volumeHandle));
        } catch {
          // no record: nothing published there
        }
      }
    }
  }
}

/**
 * PersistentVolumeAccessMode → CSI VolumeCapability.AccessMode, the one mapping the
 * kubelet's CSI volume plugin and the external provisioner, attacher and resizer share.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/csi_client.go (asCSIAccessModeV1)
 * @see https://github.com/kubernetes-csi/external-provisioner/blob/master/pkg/controller/controller.go (getAccessMode)
 */
import type { AccessModeName } from './types.js';

/**
 * The CSI access mode of a PersistentVolume access mode: `ReadOnlyMany` →
 * `MULTI_NODE_READER_ONLY`, `ReadWriteMany` → `MULTI_NODE_MULTI_WRITER`,
 * `ReadWriteOncePod` → `SINGLE_NODE_SINGLE_WRITER`; `ReadWriteOnce`, an unknown mode or
 * none (`undefined`, `''`) → `SINGLE_NODE_WRITER`. Never throws.
 */
export function csiAccessModeOf(mode: string | undefined): AccessModeName {
  switch (mode) {
    case 'ReadOnlyMany':
      return 'MULTI_NODE_READER_ONLY';
    case 'ReadWriteMany':
      return 'MULTI_NODE_MULTI_WRITER';
    case 'ReadWriteOncePod':
      return 'SINGLE_NODE_SINGLE_WRITER';
    default:
      return 'SINGLE_NODE_WRITER';
  }
}

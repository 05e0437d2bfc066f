/**
 * PersistentVolumeAccessMode → CSI VolumeCapability.AccessMode (upstream external-provisioner
 * and the kubelet agree on this mapping).
 *
 * @see https://github.com/kubernetes-csi/external-provisioner/blob/master/pkg/controller/controller.go (getAccessMode)
 */
import type { AccessModeName } from '../../csi/types.js';

export function csiAccessModeOf(mode: string): AccessModeName {
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

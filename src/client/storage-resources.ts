/**
 * The storage.k8s.io/v1 resources the storage components use (the PV controller, the
 * built-in CSI sidecars, the kubelet's CSI volume plugin).
 *
 * @see https://kubernetes.io/docs/reference/kubernetes-api/config-and-storage-resources/
 */
import type { ResourceRef } from './types.js';

export const SR = {
  storageclasses: { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', kind: 'StorageClass', namespaced: false },
  csidrivers: { group: 'storage.k8s.io', version: 'v1', resource: 'csidrivers', kind: 'CSIDriver', namespaced: false },
  csinodes: { group: 'storage.k8s.io', version: 'v1', resource: 'csinodes', kind: 'CSINode', namespaced: false },
  volumeattachments: { group: 'storage.k8s.io', version: 'v1', resource: 'volumeattachments', kind: 'VolumeAttachment', namespaced: false },
} as const satisfies Record<string, ResourceRef>;

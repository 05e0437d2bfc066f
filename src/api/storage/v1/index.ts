/**
 * The storage.k8s.io/v1 resources: StorageClass, CSIDriver, CSINode, VolumeAttachment,
 * CSIStorageCapacity (all default-enabled in v1.32; VolumeAttributesClass is beta and off).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/storage/rest/storage_storage.go
 */
import type { ResourceDefinition } from '../../resource.js';
import { csiDriverDefinition } from './csidriver/strategy.js';
import { csiNodeDefinition } from './csinode/strategy.js';
import { csiStorageCapacityDefinition } from './csistoragecapacity/strategy.js';
import { storageClassDefinition } from './storageclass/strategy.js';
import { volumeAttachmentDefinition } from './volumeattachment/strategy.js';

/** The storage.k8s.io/v1 definitions, in upstream's registration order. */
export const storageV1Definitions: ResourceDefinition[] = [
  storageClassDefinition,
  volumeAttachmentDefinition,
  csiNodeDefinition,
  csiDriverDefinition,
  csiStorageCapacityDefinition,
] as ResourceDefinition[];

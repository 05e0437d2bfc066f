/**
 * The CSI v1 messages k8ts sends and serves, in proto-loader's object form (see
 * grpc.ts): only the fields k8ts reads or writes are typed; the wire carries the rest
 * as defaults.
 *
 * @see https://github.com/container-storage-interface/spec/blob/v1.9.0/csi.proto
 */

/** `VolumeCapability.AccessMode.Mode` */
export type AccessModeName =
  | 'UNKNOWN'
  | 'SINGLE_NODE_WRITER'
  | 'SINGLE_NODE_READER_ONLY'
  | 'MULTI_NODE_READER_ONLY'
  | 'MULTI_NODE_SINGLE_WRITER'
  | 'MULTI_NODE_MULTI_WRITER'
  | 'SINGLE_NODE_SINGLE_WRITER'
  | 'SINGLE_NODE_MULTI_WRITER';

export interface VolumeCapability {
  mount?: { fsType?: string; mountFlags?: string[]; volumeMountGroup?: string } | null;
  block?: object | null;
  accessMode?: { mode: AccessModeName } | null;
}

export interface Topology {
  segments: Record<string, string>;
}

export interface CapacityRange {
  requiredBytes?: number;
  limitBytes?: number;
}

export interface Volume {
  capacityBytes: number;
  volumeId: string;
  volumeContext: Record<string, string>;
  accessibleTopology: Topology[];
}

export interface CreateVolumeRequest {
  name: string;
  capacityRange?: CapacityRange | null;
  volumeCapabilities: VolumeCapability[];
  parameters?: Record<string, string>;
  secrets?: Record<string, string>;
  accessibilityRequirements?: { requisite: Topology[]; preferred: Topology[] } | null;
}

export interface NodeStageVolumeRequest {
  volumeId: string;
  publishContext?: Record<string, string>;
  stagingTargetPath: string;
  volumeCapability: VolumeCapability;
  secrets?: Record<string, string>;
  volumeContext?: Record<string, string>;
}

export interface NodePublishVolumeRequest {
  volumeId: string;
  publishContext?: Record<string, string>;
  stagingTargetPath?: string;
  targetPath: string;
  volumeCapability: VolumeCapability;
  readonly?: boolean;
  secrets?: Record<string, string>;
  volumeContext?: Record<string, string>;
}

export interface NodeGetInfoResponse {
  nodeId: string;
  maxVolumesPerNode: number;
  accessibleTopology: Topology | null;
}

export interface ControllerExpandVolumeResponse {
  capacityBytes: number;
  nodeExpansionRequired: boolean;
}

export interface VolumeUsage {
  available: number;
  total: number;
  used: number;
  unit: 'UNKNOWN' | 'BYTES' | 'INODES';
}

/** `VolumeCondition`: whether the SP sees the volume as abnormal, and why. */
export interface VolumeCondition {
  abnormal: boolean;
  message: string;
}

export interface NodeGetVolumeStatsResponse {
  usage: VolumeUsage[];
  /** set by drivers with the VOLUME_CONDITION node capability */
  volumeCondition: VolumeCondition | null;
}

/** `PluginInfo` of pluginregistration.v1 */
export interface PluginInfo {
  type: string;
  name: string;
  endpoint: string;
  supportedVersions: string[];
}

/** upstream's PluginInfo.type for CSI drivers */
export const CSI_PLUGIN_TYPE = 'CSIPlugin';

/**
 * A CSI v1 client over a driver's unix socket: the Identity, Controller and Node RPCs
 * the kubelet and the built-in sidecars call, each a promise with a deadline that fails
 * with a {@link CSIError}. Every call can be logged (the kubelet logs them at `--v=4`,
 * the sidecars as csi-lib-utils' `GRPC call: /csi.v1.Node/NodePublishVolume`).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/csi_client.go
 * @see https://github.com/kubernetes-csi/csi-lib-utils/blob/master/protosanitizer/protosanitizer.go
 */
import { csiServices, grpc, toCSIError, unixTarget } from './grpc.js';
import type {
  ControllerExpandVolumeResponse,
  CreateVolumeRequest,
  NodeGetInfoResponse,
  NodeGetVolumeStatsResponse,
  NodePublishVolumeRequest,
  NodeStageVolumeRequest,
  Volume,
  VolumeCapability,
  VolumeUsage,
} from './types.js';

/** upstream csiTimeout for node calls (2 min), ms */
export const DEFAULT_CSI_TIMEOUT_MS = 120_000;

/** Message fields that carry secrets (csi_secret in csi.proto): never logged. */
const SECRET_FIELDS = new Set(['secrets', 'controllerPublishSecrets', 'nodeStageSecrets', 'nodePublishSecrets']);

/** JSON of a request with the secret fields replaced by `***stripped***` (protosanitizer). */
export function sanitize(req: object): string {
  return JSON.stringify(req, (k, v) => (SECRET_FIELDS.has(k) && v && typeof v === 'object' && Object.keys(v).length ? '***stripped***' : v));
}

type Service = 'Identity' | 'Controller' | 'Node';

export interface CSIClientOptions {
  /** called for every call with its method path and sanitized request, and on its result */
  log?: (line: string) => void;
  timeoutMs?: number;
}

export class CSIClient {
  readonly target: string;
  private readonly channel: grpc.Channel;
  private readonly clients: Record<Service, grpc.Client>;

  /** @param endpoint the driver's socket (`unix:///…/csi.sock` or an absolute path); connects lazily */
  constructor(
    endpoint: string,
    private readonly o: CSIClientOptions = {},
  ) {
    this.target = unixTarget(endpoint);
    const s = csiServices();
    const creds = grpc.credentials.createInsecure();
    this.channel = new grpc.Channel(this.target, creds, {});
    this.clients = {
      Identity: new s.Identity!(this.target, creds, { channelOverride: this.channel }),
      Controller: new s.Controller!(this.target, creds, { channelOverride: this.channel }),
      Node: new s.Node!(this.target, creds, { channelOverride: this.channel }),
    };
  }

  /** Calls `/csi.v1.<service>/<method>`. @throws CSIError */
  call<T>(service: Service, method: string, req: object, timeoutMs = this.o.timeoutMs ?? DEFAULT_CSI_TIMEOUT_MS): Promise<T> {
    const c = this.clients[service] as unknown as Record<string, (r: object, m: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, res: T) => void) => void>;
    const fn = c[method];
    this.o.log?.(`GRPC call: /csi.v1.${service}/${method} request: ${sanitize(req)}`);
    return new Promise<T>((resolve, reject) => {
      fn!.call(c, req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (err) {
          const ce = toCSIError(err);
          this.o.log?.(`GRPC error: /csi.v1.${service}/${method}: ${ce.message}`);
          reject(ce);
        } else {
          this.o.log?.(`GRPC response: /csi.v1.${service}/${method}: ${JSON.stringify(res)}`);
          resolve(res);
        }
      });
    });
  }

  // ---- Identity
  getPluginInfo(): Promise<{ name: string; vendorVersion: string; manifest: Record<string, string> }> {
    return this.call('Identity', 'GetPluginInfo', {});
  }
  async getPluginCapabilities(): Promise<{ services: string[]; expansion: string[] }> {
    const r = await this.call<{ capabilities: { service?: { type: string } | null; volumeExpansion?: { type: string } | null }[] }>('Identity', 'GetPluginCapabilities', {});
    return {
      services: r.capabilities.flatMap((c) => (c.service ? [c.service.type] : [])),
      expansion: r.capabilities.flatMap((c) => (c.volumeExpansion ? [c.volumeExpansion.type] : [])),
    };
  }
  async probe(): Promise<boolean> {
    const r = await this.call<{ ready: { value: boolean } | null }>('Identity', 'Probe', {});
    return r.ready?.value ?? true;
  }

  // ---- Controller
  async controllerGetCapabilities(): Promise<string[]> {
    const r = await this.call<{ capabilities: { rpc?: { type: string } | null }[] }>('Controller', 'ControllerGetCapabilities', {});
    return r.capabilities.flatMap((c) => (c.rpc ? [c.rpc.type] : []));
  }
  async createVolume(req: CreateVolumeRequest): Promise<Volume> {
    const r = await this.call<{ volume: Volume }>('Controller', 'CreateVolume', req);
    return r.volume;
  }
  /** GetCapacity for a topology segment (bytes). */
  async getCapacity(accessibleTopology: { segments: Record<string, string> } | null, parameters: Record<string, string> = {}): Promise<number> {
    const r = await this.call<{ availableCapacity: number }>('Controller', 'GetCapacity', { accessibleTopology, parameters, volumeCapabilities: [] });
    return r.availableCapacity;
  }
  async deleteVolume(volumeId: string, secrets: Record<string, string> = {}): Promise<void> {
    await this.call('Controller', 'DeleteVolume', { volumeId, secrets });
  }
  async controllerPublishVolume(req: {
    volumeId: string;
    nodeId: string;
    volumeCapability: VolumeCapability;
    readonly: boolean;
    volumeContext: Record<string, string>;
  }): Promise<Record<string, string>> {
    const r = await this.call<{ publishContext: Record<string, string> }>('Controller', 'ControllerPublishVolume', req);
    return r.publishContext;
  }
  async controllerUnpublishVolume(volumeId: string, nodeId: string): Promise<void> {
    await this.call('Controller', 'ControllerUnpublishVolume', { volumeId, nodeId });
  }
  controllerExpandVolume(req: {
    volumeId: string;
    capacityRange: { requiredBytes: number; limitBytes?: number };
    volumeCapability?: VolumeCapability;
    secrets?: Record<string, string>;
  }): Promise<ControllerExpandVolumeResponse> {
    return this.call('Controller', 'ControllerExpandVolume', req);
  }

  // ---- Node
  async nodeGetCapabilities(): Promise<string[]> {
    const r = await this.call<{ capabilities: { rpc?: { type: string } | null }[] }>('Node', 'NodeGetCapabilities', {});
    return r.capabilities.flatMap((c) => (c.rpc ? [c.rpc.type] : []));
  }
  nodeGetInfo(): Promise<NodeGetInfoResponse> {
    return this.call('Node', 'NodeGetInfo', {});
  }
  async nodeStageVolume(req: NodeStageVolumeRequest): Promise<void> {
    await this.call('Node', 'NodeStageVolume', req);
  }
  async nodeUnstageVolume(volumeId: string, stagingTargetPath: string): Promise<void> {
    await this.call('Node', 'NodeUnstageVolume', { volumeId, stagingTargetPath });
  }
  async nodePublishVolume(req: NodePublishVolumeRequest): Promise<void> {
    await this.call('Node', 'NodePublishVolume', req);
  }
  async nodeUnpublishVolume(volumeId: string, targetPath: string): Promise<void> {
    await this.call('Node', 'NodeUnpublishVolume', { volumeId, targetPath });
  }
  async nodeExpandVolume(req: {
    volumeId: string;
    volumePath: string;
    capacityRange: { requiredBytes: number };
    stagingTargetPath?: string;
    volumeCapability?: VolumeCapability;
    secrets?: Record<string, string>;
  }): Promise<number> {
    const r = await this.call<{ capacityBytes: number }>('Node', 'NodeExpandVolume', req);
    return r.capacityBytes;
  }
  async nodeGetVolumeStats(volumeId: string, volumePath: string): Promise<VolumeUsage[]> {
    return (await this.nodeGetVolumeStatsResponse(volumeId, volumePath)).usage;
  }
  /** NodeGetVolumeStats with the volume condition (null when the driver sends none). */
  nodeGetVolumeStatsResponse(volumeId: string, volumePath: string): Promise<NodeGetVolumeStatsResponse> {
    return this.call<NodeGetVolumeStatsResponse>('Node', 'NodeGetVolumeStats', { volumeId, volumePath });
  }

  close(): void {
    for (const c of Object.values(this.clients)) c.close();
    this.channel.close();
  }
}

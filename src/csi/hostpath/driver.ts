/**
 * `k8ts csi-hostpath`: a CSI v1 driver keeping each volume as a directory on this node
 * (`<dataDir>/storage/<volume-id>/`; a raw block volume as a sparse file there, block.ts; its record in `<dataDir>/storage/.volumes/<volume-id>.json`),
 * serving the Identity, Controller and Node services over real gRPC on a unix socket —
 * what a third-party driver would serve, in the manner of kubernetes-csi's
 * csi-driver-host-path. Volumes are reachable from this node only (topology key
 * {@link TOPOLOGY_KEY}); capacities are recorded, not enforced.
 *
 * @see https://github.com/kubernetes-csi/csi-driver-host-path/blob/master/pkg/hostpath/controllerserver.go
 * @see https://github.com/container-storage-interface/spec/blob/v1.9.0/spec.md
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CSIError, csiServices, grpc, serveUnix, stopServer, type UnaryImpl } from '../grpc.js';
import type { CreateVolumeRequest, NodePublishVolumeRequest, NodeStageVolumeRequest, Topology, VolumeCapability } from '../types.js';
import { createBackingFile, detachLoops, isBlockStaged, publishBlock, stageBlock, unstageBlock } from './block.js';
import { isPublished, publish, unpublish, type PublishMode } from './mount.js';

/** The driver name k8ts registers and its default StorageClass `local-path` provisions with. */
export const DRIVER_NAME = 'hostpath.csi.k8ts.io';
/** The topology key of the node a volume lives on. */
export const TOPOLOGY_KEY = 'topology.hostpath.csi.k8ts.io/node';
const VENDOR_VERSION = '1.32.0-k8ts';

export interface HostPathOptions {
  /** the driver name (default {@link DRIVER_NAME}) */
  name?: string;
  /** this node's name: the node ID and the topology segment */
  nodeId: string;
  /** volumes live in `<dataDir>/storage/` */
  dataDir: string;
  /** the socket to serve on */
  endpoint: string;
  /** bind mounts (real containers) or symlinks (simulated ones) */
  publishMode: PublishMode;
  /** advertise PUBLISH_UNPUBLISH_VOLUME (ControllerPublish records the node; for attach tests) */
  attachRequired?: boolean;
  /** upstream `--max-volume-expansion-size-node`: NodeExpandVolume beyond this many bytes fails OutOfRange (default: no limit) */
  maxVolumeExpansionSizeNode?: number;
  /** per-call log (the driver's stderr) */
  log?: (line: string) => void;
}

interface VolumeRecord {
  id: string;
  name: string;
  capacityBytes: number;
  /** nodes the volume was ControllerPublished to */
  publishedTo?: string[];
  /** a CSI ephemeral inline volume: made by NodePublishVolume, deleted by NodeUnpublishVolume */
  ephemeral?: boolean;
  /** upstream's access type: `block` is a raw block volume (a backing file), absent a directory */
  accessType?: 'block';
}

const err = (code: grpc.status, msg: string): CSIError => new CSIError(code, msg);

export class HostPathDriver {
  readonly name: string;
  private readonly storage: string;
  private readonly records: string;
  private server: grpc.Server | undefined;

  constructor(private readonly o: HostPathOptions) {
    this.name = o.name ?? DRIVER_NAME;
    this.storage = path.join(o.dataDir, 'storage');
    this.records = path.join(this.storage, '.volumes');
    fs.mkdirSync(this.records, { recursive: true });
  }

  /** The directory of volume `id` (of a block volume: its backing file). */
  volumePath(id: string): string {
    return path.join(this.storage, id);
  }

  private topology(): Topology {
    return { segments: { [TOPOLOGY_KEY]: this.o.nodeId } };
  }

  private read(id: string): VolumeRecord | undefined {
    if (!/^[A-Za-z0-9_.-]+$/.test(id) || id.startsWith('.')) return undefined;
    try {
      return JSON.parse(fs.readFileSync(path.join(this.records, `${id}.json`), 'utf8')) as VolumeRecord;
    } catch {
      return undefined;
    }
  }

  private write(r: VolumeRecord): void {
    const f = path.join(this.records, `${r.id}.json`);
    fs.writeFileSync(`${f}.tmp`, JSON.stringify(r));
    fs.renameSync(`${f}.tmp`, f);
  }

  private byName(name: string): VolumeRecord | undefined {
    for (const f of fs.readdirSync(this.records)) {
      if (!f.endsWith('.json')) continue;
      const r = this.read(f.slice(0, -5));
      if (r?.name === name) return r;
    }
    return undefined;
  }

  private mustGet(id: string): VolumeRecord {
    if (!id) throw err(grpc.status.INVALID_ARGUMENT, 'Volume ID missing in request');
    const r = this.read(id);
    if (!r || !fs.existsSync(this.volumePath(id))) throw err(grpc.status.NOT_FOUND, `volume id ${JSON.stringify(id)} not found`);
    return r;
  }

  /**
   * A capability must name one access type; with a volume, the volume's.
   * @throws CSIError INVALID_ARGUMENT with csi-driver-host-path's texts
   */
  private checkCapability(c: VolumeCapability | null | undefined, r?: VolumeRecord): void {
    if (!c) throw err(grpc.status.INVALID_ARGUMENT, 'Volume capability missing in request');
    if (c.block && c.mount) throw err(grpc.status.INVALID_ARGUMENT, 'cannot have both block and mount access type');
    if (!r) return;
    if (c.block && r.accessType !== 'block') throw err(grpc.status.INVALID_ARGUMENT, 'cannot publish a non-block volume as block volume');
    if (!c.block && r.accessType === 'block') throw err(grpc.status.INVALID_ARGUMENT, 'cannot publish a non-mount volume as mount volume');
  }

  // ---- Identity
  private identity(): Record<string, UnaryImpl> {
    return {
      GetPluginInfo: async () => ({ name: this.name, vendorVersion: VENDOR_VERSION }),
      GetPluginCapabilities: async () => ({
        capabilities: [{ service: { type: 'CONTROLLER_SERVICE' } }, { service: { type: 'VOLUME_ACCESSIBILITY_CONSTRAINTS' } }, { volumeExpansion: { type: 'ONLINE' } }],
      }),
      Probe: async () => ({ ready: { value: true } }),
    };
  }

  // ---- Controller
  private controller(): Record<string, UnaryImpl> {
    const caps = ['CREATE_DELETE_VOLUME', 'EXPAND_VOLUME', 'GET_CAPACITY', ...(this.o.attachRequired ? ['PUBLISH_UNPUBLISH_VOLUME'] : [])];
    return {
      ControllerGetCapabilities: async () => ({ capabilities: caps.map((type) => ({ rpc: { type } })) }),
      CreateVolume: async (req: CreateVolumeRequest) => {
        if (!req.name) throw err(grpc.status.INVALID_ARGUMENT, 'Name missing in request');
        if (!req.volumeCapabilities?.length) throw err(grpc.status.INVALID_ARGUMENT, 'Volume Capabilities missing in request');
        for (const c of req.volumeCapabilities) this.checkCapability(c);
        const block = req.volumeCapabilities.some((c) => c.block);
        if (block && req.volumeCapabilities.some((c) => c.mount)) throw err(grpc.status.INVALID_ARGUMENT, 'cannot have both block and mount access type');
        const want = Math.max(0, req.capacityRange?.requiredBytes ?? 0);
        const limit = req.capacityRange?.limitBytes ?? 0;
        if (limit && want > limit) throw err(grpc.status.INVALID_ARGUMENT, `required bytes ${want} exceeds limit bytes ${limit}`);
        const reqs = req.accessibilityRequirements;
        const mine = this.o.nodeId;
        if (reqs && reqs.requisite.length && !reqs.requisite.some((t) => t.segments[TOPOLOGY_KEY] === mine))
          throw err(grpc.status.RESOURCE_EXHAUSTED, `volume can only be created on node ${mine}, not on the requested topology`);
        const have = this.byName(req.name);
        if (have) {
          if (have.capacityBytes < want) throw err(grpc.status.ALREADY_EXISTS, `Volume with the same name: ${req.name} but with different size already exist`);
          return { volume: this.volumeOf(have) };
        }
        const r: VolumeRecord = { id: randomUUID(), name: req.name, capacityBytes: want, ...(block ? { accessType: 'block' as const } : {}) };
        if (block) createBackingFile(this.volumePath(r.id), want);
        else {
          fs.mkdirSync(this.volumePath(r.id), { mode: 0o777 });
          fs.chmodSync(this.volumePath(r.id), 0o777);
        }
        this.write(r);
        this.o.log?.(`created volume ${r.id} (${req.name}, ${want} bytes) at ${this.volumePath(r.id)}`);
        return { volume: this.volumeOf(r) };
      },
      // the free space of the file system holding <data-dir>/storage, for this node's topology only
      GetCapacity: async (req: { accessibleTopology: Topology | null }) => {
        const seg = req.accessibleTopology?.segments ?? {};
        if (Object.keys(seg).length && seg[TOPOLOGY_KEY] !== this.o.nodeId) return { availableCapacity: 0 };
        const st = fs.statfsSync(this.storage);
        return { availableCapacity: Number(st.bavail) * Number(st.bsize) };
      },
      DeleteVolume: async (req: { volumeId: string }) => {
        if (!req.volumeId) throw err(grpc.status.INVALID_ARGUMENT, 'Volume ID missing in request');
        if (this.read(req.volumeId)) this.remove(req.volumeId);
        return {};
      },
      ValidateVolumeCapabilities: async (req: { volumeId: string; volumeCapabilities: VolumeCapability[] }) => {
        const r = this.mustGet(req.volumeId);
        for (const c of req.volumeCapabilities) this.checkCapability(c, r);
        return { confirmed: { volumeCapabilities: req.volumeCapabilities } };
      },
      // as csi-driver-host-path: records the new size and asks for NodeExpandVolume on the node
      ControllerExpandVolume: async (req: { volumeId: string; capacityRange: { requiredBytes: number } | null }) => {
        if (!req.volumeId) throw err(grpc.status.INVALID_ARGUMENT, 'Volume ID missing in request');
        if (!req.capacityRange) throw err(grpc.status.INVALID_ARGUMENT, 'Capacity range not provided');
        const r = this.mustGet(req.volumeId);
        const want = Number(req.capacityRange.requiredBytes);
        if (want > r.capacityBytes) {
          // a block volume's backing file grows here; the consumer sees it after the loop device is re-read
          if (r.accessType === 'block') fs.truncateSync(this.volumePath(r.id), want);
          this.write({ ...r, capacityBytes: want });
        }
        return { capacityBytes: Math.max(want, r.capacityBytes), nodeExpansionRequired: r.accessType !== 'block' };
      },
      ...(this.o.attachRequired
        ? {
            ControllerPublishVolume: async (req: { volumeId: string; nodeId: string }) => {
              const r = this.mustGet(req.volumeId);
              if (req.nodeId !== this.o.nodeId) throw err(grpc.status.NOT_FOUND, `node ${JSON.stringify(req.nodeId)} not found`);
              this.write({ ...r, publishedTo: [...new Set([...(r.publishedTo ?? []), req.nodeId])] });
              return { publishContext: { node: req.nodeId } };
            },
            ControllerUnpublishVolume: async (req: { volumeId: string; nodeId: string }) => {
              const r = this.read(req.volumeId);
              if (r) this.write({ ...r, publishedTo: (r.publishedTo ?? []).filter((n) => n !== req.nodeId) });
              return {};
            },
          }
        : {}),
    };
  }

  /** A CSI ephemeral inline volume, named by the kubelet's handle (`csi-<sha256>`). */
  private createEphemeral(id: string): void {
    if (!/^[A-Za-z0-9_.-]+$/.test(id) || id.startsWith('.')) throw err(grpc.status.INVALID_ARGUMENT, `invalid volume id ${JSON.stringify(id)}`);
    fs.mkdirSync(this.volumePath(id), { recursive: true, mode: 0o777 });
    fs.chmodSync(this.volumePath(id), 0o777);
    this.write({ id, name: id, capacityBytes: 0, ephemeral: true });
    this.o.log?.(`created ephemeral volume ${id} at ${this.volumePath(id)}`);
  }

  private remove(id: string): void {
    if (this.read(id)?.accessType === 'block' && this.o.publishMode === 'bind') detachLoops(this.volumePath(id));
    fs.rmSync(this.volumePath(id), { recursive: true, force: true });
    fs.rmSync(path.join(this.records, `${id}.json`), { force: true });
    this.o.log?.(`deleted volume ${id}`);
  }

  private volumeOf(r: VolumeRecord): object {
    return { volumeId: r.id, capacityBytes: r.capacityBytes, volumeContext: {}, accessibleTopology: [this.topology()] };
  }

  // ---- Node
  private node(): Record<string, UnaryImpl> {
    const mode = this.o.publishMode;
    return {
      NodeGetCapabilities: async () => ({ capabilities: ['STAGE_UNSTAGE_VOLUME', 'GET_VOLUME_STATS', 'EXPAND_VOLUME'].map((type) => ({ rpc: { type } })) }),
      NodeGetInfo: async () => ({ nodeId: this.o.nodeId, maxVolumesPerNode: 0, accessibleTopology: this.topology() }),
      NodeStageVolume: async (req: NodeStageVolumeRequest) => {
        if (!req.stagingTargetPath) throw err(grpc.status.INVALID_ARGUMENT, 'Staging Target Path missing in request');
        const r = this.mustGet(req.volumeId);
        this.checkCapability(req.volumeCapability, r);
        if (this.o.attachRequired && !(r.publishedTo ?? []).includes(this.o.nodeId))
          throw err(grpc.status.FAILED_PRECONDITION, `volume ${JSON.stringify(req.volumeId)} is not published to node ${this.o.nodeId}`);
        if (r.accessType === 'block') this.blockStep('stage', () => stageBlock(this.volumePath(r.id), req.stagingTargetPath, mode));
        else publish(this.volumePath(r.id), req.stagingTargetPath, mode, false);
        return {};
      },
      NodeUnstageVolume: async (req: { volumeId: string; stagingTargetPath: string }) => {
        if (!req.volumeId) throw err(grpc.status.INVALID_ARGUMENT, 'Volume ID missing in request');
        if (!req.stagingTargetPath) throw err(grpc.status.INVALID_ARGUMENT, 'Staging Target Path missing in request');
        const r = this.read(req.volumeId);
        if (r?.accessType === 'block') this.blockStep('unstage', () => unstageBlock(this.volumePath(r.id), req.stagingTargetPath, mode));
        else unpublish(req.stagingTargetPath);
        return {};
      },
      NodePublishVolume: async (req: NodePublishVolumeRequest) => {
        if (!req.targetPath) throw err(grpc.status.INVALID_ARGUMENT, 'Target path missing in request');
        this.checkCapability(req.volumeCapability);
        if (req.volumeContext?.['csi.storage.k8s.io/ephemeral'] === 'true' && !this.read(req.volumeId)) this.createEphemeral(req.volumeId);
        const r = this.mustGet(req.volumeId);
        this.checkCapability(req.volumeCapability, r);
        const vol = this.volumePath(r.id);
        if (r.accessType === 'block') {
          if (req.stagingTargetPath && !isBlockStaged(vol, req.stagingTargetPath, mode))
            throw err(grpc.status.FAILED_PRECONDITION, `volume ${JSON.stringify(req.volumeId)} is not staged at ${req.stagingTargetPath}`);
          this.blockStep('publish', () => publishBlock(vol, req.targetPath, mode, !!req.readonly));
          this.o.log?.(`published block volume ${r.id} at ${req.targetPath}`);
          return {};
        }
        // staged: the staging path must hold the volume (the CO calls NodeStageVolume first)
        if (req.stagingTargetPath && !isPublished(req.stagingTargetPath, vol, mode))
          throw err(grpc.status.FAILED_PRECONDITION, `volume ${JSON.stringify(req.volumeId)} is not staged at ${req.stagingTargetPath}`);
        publish(vol, req.targetPath, mode, !!req.readonly);
        return {};
      },
      NodeUnpublishVolume: async (req: { volumeId: string; targetPath: string }) => {
        if (!req.volumeId) throw err(grpc.status.INVALID_ARGUMENT, 'Volume ID missing in request');
        if (!req.targetPath) throw err(grpc.status.INVALID_ARGUMENT, 'Target path missing in request');
        unpublish(req.targetPath);
        const r = this.read(req.volumeId);
        if (r?.ephemeral) this.remove(r.id);
        return {};
      },
      NodeGetVolumeStats: async (req: { volumeId: string; volumePath: string }) => {
        const r = this.mustGet(req.volumeId);
        if (!req.volumePath || !fs.existsSync(req.volumePath)) throw err(grpc.status.NOT_FOUND, `could not get file information from ${req.volumePath}`);
        // as csi-driver-host-path: a block volume reports its size only
        if (r.accessType === 'block') return { usage: [{ unit: 'BYTES', total: r.capacityBytes }] };
        const used = duBytes(this.volumePath(r.id));
        const total = r.capacityBytes || Number(fs.statfsSync(this.storage).blocks * fs.statfsSync(this.storage).bsize);
        return { usage: [{ unit: 'BYTES', total, used, available: Math.max(0, total - used) }] };
      },
      // as csi-driver-host-path: a directory has no file system of its own to grow; the path must hold the volume
      NodeExpandVolume: async (req: { volumeId: string; volumePath: string; capacityRange: { requiredBytes: number } | null }) => {
        if (!req.volumeId) throw err(grpc.status.INVALID_ARGUMENT, 'Volume ID not provided');
        const r = this.mustGet(req.volumeId);
        if (!req.volumePath) throw err(grpc.status.INVALID_ARGUMENT, 'Volume path not provided');
        if (!req.capacityRange) throw err(grpc.status.INVALID_ARGUMENT, 'Capacity range not provided');
        const capacity = Number(req.capacityRange.requiredBytes);
        const max = this.o.maxVolumeExpansionSizeNode;
        if (max !== undefined && capacity > max) throw err(grpc.status.OUT_OF_RANGE, `Requested capacity ${capacity} exceeds maximum allowed ${max}`);
        let st: fs.Stats;
        try {
          st = fs.statSync(req.volumePath);
        } catch (e) {
          throw err(grpc.status.INVALID_ARGUMENT, `Could not get file information from ${req.volumePath}: ${(e as Error).message}`);
        }
        if (!st.isDirectory()) throw err(grpc.status.INVALID_ARGUMENT, `Volume ${r.id} is not a directory`);
        return { capacityBytes: Math.max(r.capacityBytes, capacity) };
      },
    };
  }

  /**
   * Runs a block-volume step, turning its failure (losetup, mount) into INTERNAL.
   * @throws CSIError INTERNAL `failed to <step> block volume: <output>`
   */
  private blockStep(step: string, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      if (e instanceof CSIError) throw e;
      throw err(grpc.status.INTERNAL, `failed to ${step} block volume: ${(e as Error).message}`);
    }
  }

  /** Serves Identity, Controller and Node on the endpoint. */
  async start(): Promise<void> {
    const s = csiServices();
    this.server = await serveUnix(this.o.endpoint.replace(/^unix:\/\//, ''), [
      [s.Identity!, this.identity()],
      [s.Controller!, this.controller()],
      [s.Node!, this.node()],
    ]);
  }

  async stop(): Promise<void> {
    if (this.server) await stopServer(this.server);
    this.server = undefined;
  }
}

/** Bytes used by the files below `dir` (apparent sizes). */
function duBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) n += fs.statSync(path.join(e.parentPath, e.name)).size;
  }
  return n;
}

/**
 * The kubelet's side of a volume expansion for CSI PersistentVolumes: NodeExpandVolume
 * over the driver's socket once the external-resizer has grown the volume (PV capacity
 * above the claim's status capacity) and asked for node expansion, with
 * RecoverVolumeExpansionFailure on (v1.32's default):
 * - at mount time (upstream expandVolumeDuringMount): right after NodeStageVolume
 *   (volume_path = staging_target_path = the global mount), else after NodePublishVolume
 *   (volume_path = the publish target); a failure fails the mount (FailedMount);
 * - for a mounted volume (upstream checkVolumeFSResize + GenerateExpandInUseVolumeFunc),
 *   checked on each sync of a pod using it; a failure is a VolumeResizeFailed event on
 *   the pod and the expansion is retried on the next sync.
 * The claim is marked `NodeResizeInProgress`, then after success gets its capacity, the
 * resize conditions removed and `allocatedResourceStatuses.storage` cleared, with a
 * FileSystemResizeSuccessful event on the pod and the claim. A final error adds the
 * NodeResizeError condition; an infeasible one (InvalidArgument, OutOfRange, NotFound)
 * also `NodeResizeInfeasible`. A claim mounted read-only gets FileSystemResizeFailed.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/util/operationexecutor/operation_generator.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/util/operationexecutor/node_expander.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/expander.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/util/resize_util.go
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PersistentVolume, PersistentVolumeClaim, PersistentVolumeClaimStatus, Pod, Secret, Volume } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../../api/resource.js';
import {
  ClaimResourceStatus as S,
  ResizeCondition,
  mergeResizeConditions,
  resizeCondition,
  storageResizeStatus,
  withConditions,
  withStorageResizeStatus,
} from '../../../api/core/v1/persistentvolumeclaim/resize.js';
import { parseQuantity, value } from '../../../apimachinery/quantity.js';
import { rfc3339, type EventRecorder } from '../../../client/events.js';
import { R, type Client } from '../../../client/types.js';
import { isFinalError, isInfeasibleError, isInUseError } from '../../../csi/errors.js';
import type { Clock } from '../../../util/clock.js';
import { podRef } from '../../container/runtime.js';
import { driverNotFound, type CSIDrivers } from './drivers.js';
import { MountStepError } from './errors.js';

type PVC = PersistentVolumeClaim & KObject;
type PV = PersistentVolume & KObject;

/** The kubelet's event reasons of an expansion (upstream pkg/kubelet/events). */
export const ExpandReason = {
  FileSystemResizeSuccess: 'FileSystemResizeSuccessful',
  FileSystemResizeFailed: 'FileSystemResizeFailed',
  VolumeResizeFailed: 'VolumeResizeFailed',
} as const;

/** Where the volume is on this node. */
export interface ExpandPaths {
  /** NodeExpandVolume's volume_path */
  volumePath: string;
  /** the global mount when the driver stages */
  stagingPath?: string;
}

const bytes = (q: unknown): number => (q === undefined || q === null ? 0 : value(parseQuantity(String(q))));
const claimRef = (c: PVC): KObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: c.metadata });

/** An expansion that failed because the driver expands this volume only offline (FailedPrecondition). */
class InUseExpansionError extends Error {}

export interface CSINodeExpanderOptions {
  client: Client;
  drivers: CSIDrivers;
  recorder: EventRecorder;
  clock: Clock;
  nodeName: string;
  /** `<dataDir>/kubelet` */
  kubeletDir: string;
  /** the kubelet's `--v=4` log */
  log?: (line: string) => void;
}

export class CSINodeExpander {
  /** PVs whose last node expansion failed with a final error (upstream ASW MarkVolumeExpansionFailedWithFinalError) */
  private readonly finalErrors = new Set<string>();
  /** PVs the driver expands offline only (upstream MarkForInUseExpansionError): no online expansion until remounted */
  private readonly inUseErrors = new Set<string>();

  constructor(private readonly o: CSINodeExpanderOptions) {}

  private now(): string {
    return rfc3339(new Date(this.o.clock.now()));
  }

  /**
   * Upstream expandVolumeDuringMount for PV `pvName` just staged or published for `pod`.
   * @returns true when nothing is left to expand now (done, not needed, or waiting for the resizer)
   * @throws Error when the expansion failed (the mount fails with it)
   */
  async duringMount(pod: Pod, pvName: string, readOnly: boolean, paths: ExpandPaths): Promise<boolean> {
    this.inUseErrors.delete(pvName);
    const pv = await this.o.client.get<PV>(R.persistentvolumes, '', pvName);
    const ref = pv.spec?.claimRef;
    if (!pv.spec?.csi || !ref?.name) return true;
    let pvc: PVC;
    try {
      pvc = await this.o.client.get<PVC>(R.persistentvolumeclaims, ref.namespace ?? '', ref.name);
    } catch (e) {
      throw new Error(`mountVolume.NodeExpandVolume get PVC failed : ${(e as Error).message}`);
    }
    const pvCap = bytes(pv.spec.capacity?.storage);
    if (bytes(pvc.status?.capacity?.storage) >= pvCap) return true;
    if (readOnly) {
      this.readOnlyFailed(pod, pvc, pvName);
      return true;
    }
    return this.expand(pod, pvc, pv, String(pv.spec.capacity?.storage), paths);
  }

  /**
   * Upstream checkVolumeFSResize + GenerateExpandInUseVolumeFunc for pod volume `v`,
   * mounted: expands when its PV has grown past the claim's status capacity.
   * Failures are recorded as a VolumeResizeFailed event on the pod, never thrown.
   */
  async inUse(pod: Pod, v: Volume): Promise<void> {
    if (!(v.persistentVolumeClaim || v.ephemeral) || v.persistentVolumeClaim?.readOnly) return;
    const ns = pod.metadata?.namespace ?? '';
    const claim = v.persistentVolumeClaim?.claimName ?? `${pod.metadata?.name ?? ''}-${v.name}`;
    let pvName = '';
    try {
      const pvc = await this.o.client.get<PVC>(R.persistentvolumeclaims, ns, claim);
      pvName = pvc.spec?.volumeName ?? '';
      if (!pvName || pvc.status?.phase !== 'Bound' || this.inUseErrors.has(pvName)) return;
      const pv = await this.o.client.get<PV>(R.persistentvolumes, '', pvName);
      if (!pv.spec?.csi || bytes(pv.spec.capacity?.storage) <= bytes(pvc.status?.capacity?.storage)) return;
      const dir = path.join(this.o.kubeletDir, 'pods', pod.metadata?.uid ?? '', 'volumes', 'kubernetes.io~csi', pvName);
      let data: { stagingPath?: string };
      try {
        data = JSON.parse(fs.readFileSync(path.join(dir, 'vol_data.json'), 'utf8')) as { stagingPath?: string };
      } catch {
        return; // not published for this pod (yet)
      }
      await this.expand(pod, pvc, pv, String(pv.spec.capacity?.storage), { volumePath: path.join(dir, 'mount'), stagingPath: data.stagingPath });
    } catch (e) {
      const msg = `NodeExpandVolume.NodeExpandVolume failed for volume ${JSON.stringify(pvName || v.name)} : ${(e as Error).message}`;
      this.o.recorder.event(podRef(pod), 'Warning', ExpandReason.VolumeResizeFailed, msg);
    }
  }

  private readOnlyFailed(pod: Pod, pvc: PVC, pvName: string): void {
    const msg = `MountVolume.NodeExpandVolume failed for volume ${JSON.stringify(pvName)} requested read-only file system`;
    this.o.recorder.event(podRef(pod), 'Warning', ExpandReason.FileSystemResizeFailed, msg);
    this.o.recorder.event(claimRef(pvc), 'Warning', ExpandReason.FileSystemResizeFailed, msg);
  }

  /** Upstream nodeExpandVolume: the NodeExpander with recovery, or the legacy path for an old resizer. */
  private async expand(pod: Pod, pvc: PVC, pv: PV, pvSize: string, paths: ExpandPaths): Promise<boolean> {
    const status = storageResizeStatus(pvc.status);
    const allocated = pvc.status?.allocatedResources?.storage;
    if (status === '' && allocated === undefined) return this.legacyExpand(pod, pvc, pv, pvSize, paths);
    return this.expandOnPlugin(pod, pvc, pv, String(allocated ?? pvSize), paths);
  }

  /** Upstream NodeExpander.expandOnPlugin (runPreCheck first). */
  private async expandOnPlugin(pod: Pod, pvc: PVC, pv: PV, newSize: string, paths: ExpandPaths): Promise<boolean> {
    const pvName = pv.metadata?.name ?? '';
    const status = storageResizeStatus(pvc.status);
    const markInfeasible = bytes(pvc.spec?.resources?.requests?.storage) !== bytes(newSize) && this.finalErrors.has(pvName);
    const alreadyUpdated = bytes(pvc.status?.capacity?.storage) >= bytes(newSize) && status === '';
    if (!alreadyUpdated && status !== S.NodeResizePending && status !== S.NodeResizeInProgress) return false;
    if (!alreadyUpdated) pvc = await this.writeStatus(pvc, withStorageResizeStatus({ ...pvc.status }, S.NodeResizeInProgress));
    try {
      await this.nodeExpand(pv, newSize, paths);
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      if (isFinalError(cause)) {
        this.finalErrors.add(pvName);
        const cond = resizeCondition(ResizeCondition.NodeResizeError, this.now(), `failed to expand pvc with ${(e as Error).message}`);
        const infeasible = isInfeasibleError(cause) || markInfeasible;
        // upstream patches without the resourceVersion check: the change goes onto the latest claim
        const mark = (st: PersistentVolumeClaimStatus = {}): PersistentVolumeClaimStatus => {
          const next = withConditions({ ...st }, mergeResizeConditions(st.conditions, [cond], true, true));
          return infeasible ? withStorageResizeStatus(next, S.NodeResizeInfeasible) : next;
        };
        await this.o.client
          .get<PVC>(R.persistentvolumeclaims, pvc.metadata?.namespace ?? '', pvc.metadata?.name ?? '')
          .then((fresh) => this.writeStatus(fresh, mark(fresh.status)))
          .catch(() => undefined);
      }
      if (e instanceof InUseExpansionError) {
        this.inUseErrors.add(pvName);
        return true;
      }
      throw e;
    }
    this.finalErrors.delete(pvName);
    this.succeeded(pod, pvc, pvName);
    if (alreadyUpdated) return true;
    await this.fsResizeFinished(pvc, newSize);
    return true;
  }

  /** Upstream legacyCallNodeExpandOnPlugin: a claim without allocatedResources (an older resizer). */
  private async legacyExpand(pod: Pod, pvc: PVC, pv: PV, newSize: string, paths: ExpandPaths): Promise<boolean> {
    try {
      await this.nodeExpand(pv, newSize, paths);
    } catch (e) {
      if (e instanceof InUseExpansionError) {
        this.inUseErrors.add(pv.metadata?.name ?? '');
        return true;
      }
      throw e;
    }
    this.succeeded(pod, pvc, pv.metadata?.name ?? '');
    if (bytes(pvc.status?.capacity?.storage) < bytes(newSize)) await this.fsResizeFinished(pvc, newSize);
    return true;
  }

  private succeeded(pod: Pod, pvc: PVC, pvName: string): void {
    const msg = `MountVolume.NodeExpandVolume succeeded for volume ${JSON.stringify(pvName)} ${this.o.nodeName}`;
    this.o.recorder.event(podRef(pod), 'Normal', ExpandReason.FileSystemResizeSuccess, msg);
    this.o.recorder.event(claimRef(pvc), 'Normal', ExpandReason.FileSystemResizeSuccess, msg);
  }

  /** Upstream MarkFSResizeFinished: the capacity, no resize conditions, no storage resize status. */
  private async fsResizeFinished(pvc: PVC, newSize: string): Promise<void> {
    const st = withConditions({ ...pvc.status, capacity: { ...pvc.status?.capacity, storage: newSize } }, mergeResizeConditions(pvc.status?.conditions, [], false, true));
    try {
      await this.writeStatus(pvc, withStorageResizeStatus(st, undefined));
    } catch (e) {
      throw new Error(`mountVolume.NodeExpandVolume update pvc status failed: ${(e as Error).message}`);
    }
  }

  /** The claim's status subresource, checked against `pvc`'s resourceVersion (upstream PatchPVCStatus). */
  private writeStatus(pvc: PVC, status: PersistentVolumeClaimStatus): Promise<PVC> {
    return this.o.client.update<PVC>(R.persistentvolumeclaims, pvc.metadata?.namespace ?? '', { ...pvc, status }, { subresource: 'status' });
  }

  /**
   * Upstream csiPlugin.NodeExpand: NodeExpandVolume over the driver's socket.
   * @throws Error `Expander.NodeExpand failed to expand the volume : <rpc error>` with the CSIError as `cause`
   */
  private async nodeExpand(pv: PV, newSize: string, paths: ExpandPaths): Promise<void> {
    const src = pv.spec!.csi!;
    this.o.log?.(`kubernetes.io/csi: Expander.NodeExpand(${paths.volumePath})`);
    const drv = this.o.drivers.get(src.driver);
    if (!drv) throw driverNotFound(src.driver);
    if (!drv.nodeCapabilities.includes('EXPAND_VOLUME')) throw new Error(`Expander.NodeExpand found CSI plugin kubernetes.io/csi/${src.driver} to not support node expansion`);
    let secrets: Record<string, string> = {};
    const ref = src.nodeExpandSecretRef;
    if (ref?.name) {
      try {
        const s = await this.o.client.get<Secret & KObject>(R.secrets, ref.namespace ?? '', ref.name);
        secrets = Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
      } catch (e) {
        throw new Error(`Expander.NodeExpand failed to get NodeExpandSecretRef ${ref.namespace ?? ''}/${ref.name}: ${(e as Error).message}`);
      }
    }
    const mode = pv.spec?.accessModes?.[0] ?? 'ReadWriteOnce';
    const accessMode = mode === 'ReadOnlyMany' ? 'MULTI_NODE_READER_ONLY' : mode === 'ReadWriteMany' ? 'MULTI_NODE_MULTI_WRITER' : 'SINGLE_NODE_WRITER';
    this.o.log?.(`kubernetes.io/csi: calling NodeExpandVolume rpc [volid=${src.volumeHandle},volume_path=${paths.volumePath},required_bytes=${bytes(newSize)}]`);
    try {
      await drv.client.nodeExpandVolume({
        volumeId: src.volumeHandle,
        volumePath: paths.volumePath,
        ...(paths.stagingPath ? { stagingTargetPath: paths.stagingPath } : {}),
        capacityRange: { requiredBytes: bytes(newSize) },
        volumeCapability: { mount: { fsType: src.fsType ?? '', mountFlags: pv.spec?.mountOptions ?? [] }, accessMode: { mode: accessMode } },
        secrets,
      });
    } catch (e) {
      const msg = `Expander.NodeExpand failed to expand the volume : ${(e as Error).message}`;
      throw isInUseError(e) ? Object.assign(new InUseExpansionError(msg), { cause: e }) : new Error(msg, { cause: e });
    }
  }
}

/**
 * The mounter's call at a mount step: {@link CSINodeExpander.duringMount}, its failure as
 * the mount's error (`MountVolume.Setup failed while expanding volume for volume "pv" : …`).
 * @param step `MountVolume.MountDevice` (after staging) or `MountVolume.Setup` (after publishing)
 */
export async function expandAtMount(
  expander: CSINodeExpander | undefined,
  step: 'MountVolume.MountDevice' | 'MountVolume.Setup',
  pod: Pod,
  v: Volume,
  pvName: string,
  paths: ExpandPaths,
): Promise<boolean> {
  if (!expander || v.csi) return true;
  try {
    return await expander.duringMount(pod, pvName, !!v.persistentVolumeClaim?.readOnly, paths);
  } catch (e) {
    throw new MountStepError(`${step} failed while expanding volume for volume ${JSON.stringify(pvName)} : ${(e as Error).message}`);
  }
}

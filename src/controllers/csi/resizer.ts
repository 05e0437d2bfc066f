/**
 * The external-resizer's role, built in and run per node, with RecoverVolumeExpansionFailure
 * on (beta and on by default in v1.32 and in external-resizer v1.13): a bound claim whose
 * requested storage exceeds its status capacity, on a volume of this driver on this node,
 * gets `allocatedResources.storage` (the size to expand to), the `Resizing` condition,
 * `allocatedResourceStatuses.storage: ControllerResizeInProgress` and a Resizing event;
 * then ControllerExpandVolume over the driver's socket and the PV's capacity set to the
 * size the driver answered. When the driver asks for node expansion the claim gets
 * `FileSystemResizePending` and `NodeResizePending` (the kubelet finishes with
 * NodeExpandVolume, kubelet/volumes/csi/expander.ts), else its capacity, the resize
 * conditions cleared and VolumeResizeSuccessful. A failed call is a VolumeResizeFailed
 * event; a final error adds the ControllerResizeError condition, an infeasible one
 * (InvalidArgument, OutOfRange, NotFound) also `ControllerResizeInfeasible`, retried at
 * a slow rate until the user changes the request.
 *
 * @see https://github.com/kubernetes-csi/external-resizer/blob/v1.13.1/pkg/controller/controller.go
 * @see https://github.com/kubernetes-csi/external-resizer/blob/v1.13.1/pkg/controller/expand_and_recover.go
 * @see https://github.com/kubernetes-csi/external-resizer/blob/v1.13.1/pkg/controller/resize_status.go
 */
import type { Node, PersistentVolume, PersistentVolumeClaim, PersistentVolumeClaimStatus, Secret } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import {
  ClaimResourceStatus as S,
  FS_RESIZE_PENDING_MESSAGE,
  ResizeCondition,
  hasFileSystemResizePending,
  mergeResizeConditions,
  resizeCondition,
  storageResizeStatus,
  withAllocatedStorage,
  withConditions,
  withStorageResizeStatus,
} from '../../api/core/v1/persistentvolumeclaim/resize.js';
import { rfc3339 } from '../../client/events.js';
import { R } from '../../client/types.js';
import { isFinalError, isInfeasibleError } from '../../csi/errors.js';
import { realClock } from '../../util/clock.js';
import { bytesQuantity, quantityBytes, volumeOnNode, type SidecarContext } from './common.js';
import { csiAccessModeOf } from '../../csi/access-modes.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import { SharedInformers } from '../util/informers.js';
import type { RunningController } from '../util/context.js';
import { Ev } from '../volume/persistentvolume/util.js';

type PVC = PersistentVolumeClaim & KObject;
type PV = PersistentVolume & KObject;

/** upstream external-resizer `--retry-interval-max`: how long an infeasible claim waits before the next try (5 min) */
export const SLOW_RETRY_MS = 5 * 60_000;
/** the event reason of a claim waiting for the kubelet */
export const FileSystemResizeRequired = 'FileSystemResizeRequired';

const pvcRef = (c: PVC): KObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: c.metadata });
const storageOf = (m: Record<string, unknown> | undefined): string | undefined => (m?.storage === undefined ? undefined : String(m.storage));

/** Upstream pvcNeedResize: bound, and asking for more than its status capacity. */
export function claimNeedsResize(c: PersistentVolumeClaim): boolean {
  if (c.status?.phase !== 'Bound' || !c.spec?.volumeName) return false;
  return quantityBytes(storageOf(c.spec.resources?.requests)) > quantityBytes(storageOf(c.status.capacity));
}

/**
 * Upstream expandAndRecover's choice of the size to expand to, or undefined when there is
 * nothing to do now (the node's expansion is pending or running).
 * @param finalError the last controller expansion of this claim failed with a final error
 */
export function expansionTarget(pvc: PersistentVolumeClaim, pv: PersistentVolume, finalError: boolean): string | undefined {
  const spec = storageOf(pvc.spec?.resources?.requests) ?? '0';
  const pvSize = quantityBytes(storageOf(pv.spec?.capacity));
  const allocated = storageOf(pvc.status?.allocatedResources);
  const status = storageResizeStatus(pvc.status);
  if (pvSize < quantityBytes(spec)) {
    switch (status) {
      case S.NodeResizeInfeasible:
        return allocated ?? spec;
      case S.NodeResizePending:
      case S.NodeResizeInProgress: {
        const size = allocated ?? spec;
        // let the node finish the expansion it was given before starting another
        return pvSize >= quantityBytes(size) ? undefined : size;
      }
      case S.ControllerResizeInProgress:
        return finalError ? spec : (allocated ?? spec);
      default:
        return spec;
    }
  }
  switch (status) {
    case S.NodeResizeInProgress:
    case S.NodeResizePending:
      return undefined;
    case S.NodeResizeInfeasible:
      return allocated ?? spec;
    case S.ControllerResizeInProgress:
    case S.ControllerResizeInfeasible:
      return allocated ?? spec;
    default:
      if (status === '' && allocated !== undefined) return allocated;
      return hasFileSystemResizePending(pvc.status) ? undefined : spec;
  }
}

export async function startExternalResizer(ctx: SidecarContext): Promise<RunningController> {
  const { client, csi, driverName, nodeName, recorder } = ctx;
  const clock = ctx.clock ?? realClock;
  const informers = new SharedInformers(client, { clock });
  const pvcs = informers.get<PVC>(R.persistentvolumeclaims);
  const pvs = informers.get<PV>(R.persistentvolumes);
  const loop = new ControllerLoop({ name: 'external-resizer', clock, workers: 2, sync: (k) => sync(k) });
  /** claims whose last ControllerExpandVolume failed with a final error */
  const finalErrors = new Set<string>();
  /** claims found ControllerResizeInfeasible → when they were first seen so (upstream slowSet) */
  const slow = new Map<string, number>();
  const keyOf = (c: PVC): string => `${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`;

  // upstream updatePVC: a changed request, a grown capacity, a changed resize status, or a resync
  pvcs.addEventHandler({
    add: (c) => loop.enqueueObj(c),
    update: (o, c) => {
      const req = (x: PVC): string | undefined => storageOf(x.spec?.resources?.requests);
      if (
        req(o) !== req(c) ||
        o.metadata?.resourceVersion === c.metadata?.resourceVersion ||
        quantityBytes(storageOf(c.status?.capacity)) > quantityBytes(storageOf(o.status?.capacity)) ||
        storageResizeStatus(o.status) !== storageResizeStatus(c.status)
      )
        loop.enqueueObj(c);
    },
    delete: (c) => {
      finalErrors.delete(keyOf(c));
      slow.delete(keyOf(c));
    },
  });

  const now = (): string => rfc3339(new Date(clock.now()));
  /** The claim's status subresource, checked against `cur`'s resourceVersion (upstream PatchClaim with the check). */
  const writeStatus = (cur: PVC, status: PersistentVolumeClaimStatus): Promise<PVC> =>
    client.update<PVC>(R.persistentvolumeclaims, cur.metadata?.namespace ?? '', { ...cur, status }, { subresource: 'status' });

  async function sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    let pvc = pvcs.getByName(ns, name);
    if (!pvc?.spec?.volumeName) return;
    const pv = pvs.getByName('', pvc.spec.volumeName);
    // upstream CanSupport and the claimRef check; k8ts runs one resizer per node (node-local volumes)
    if (!pv || pv.spec?.csi?.driver !== driverName || !claimNeedsResize(pvc)) return;
    const ref = pv.spec.claimRef;
    if (!ref || ref.namespace !== ns || ref.uid !== pvc.metadata?.uid) return;
    if (!volumeOnNode(pv, await client.get<Node & KObject>(R.nodes, '', nodeName))) return;

    const status = storageResizeStatus(pvc.status);
    if (status === S.ControllerResizeInfeasible && !slow.has(key)) slow.set(key, clock.now());
    const size = expansionTarget(pvc, pv, finalErrors.has(key));
    if (size === undefined) return;
    const allocated = storageOf(pvc.status?.allocatedResources);
    const same = allocated !== undefined && quantityBytes(allocated) === quantityBytes(size);
    if (same && slow.has(key)) {
      const left = SLOW_RETRY_MS - (clock.now() - slow.get(key)!);
      if (left > 0) {
        loop.enqueueAfter(key, left);
        return;
      }
    }
    // markControllerResizeInProgress (status and conditions unchanged when retrying the same size)
    let st = withConditions({ ...pvc.status }, mergeResizeConditions(pvc.status?.conditions, [resizeCondition(ResizeCondition.Resizing, now())], same));
    if (!same) st = withStorageResizeStatus(st, S.ControllerResizeInProgress);
    pvc = await writeStatus(pvc, withAllocatedStorage(st, size));
    recorder.event(pvcRef(pvc), 'Normal', Ev.Resizing, `External resizer is resizing volume ${pv.metadata?.name ?? ''}`);

    let res: { capacityBytes: number; nodeExpansionRequired: boolean };
    try {
      const secretRef = pv.spec.csi.controllerExpandSecretRef;
      let secrets: Record<string, string> = {};
      if (secretRef?.name) {
        const s = await client.get<Secret & KObject>(R.secrets, secretRef.namespace ?? '', secretRef.name).catch((e: unknown) => {
          throw new Error(`error getting secret ${secretRef.name} in namespace ${secretRef.namespace ?? ''}: ${(e as Error).message}`);
        });
        secrets = Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
      }
      res = await csi.controllerExpandVolume({
        volumeId: pv.spec.csi.volumeHandle,
        capacityRange: { requiredBytes: quantityBytes(size) },
        volumeCapability: {
          mount: { fsType: pv.spec.csi.fsType ?? '', mountFlags: pv.spec.mountOptions ?? [] },
          accessMode: { mode: csiAccessModeOf(pv.spec.accessModes?.[0] ?? '') },
        },
        secrets,
      });
    } catch (e) {
      if (isFinalError(e)) {
        finalErrors.add(key);
        const cond = resizeCondition(ResizeCondition.ControllerResizeError, now(), `failed to expand pvc with ${(e as Error).message}`);
        const infeasible = isInfeasibleError(e);
        if (!infeasible) slow.delete(key);
        // upstream patches without the resourceVersion check: the change goes onto the latest claim
        const mark = (st: PersistentVolumeClaimStatus = {}): PersistentVolumeClaimStatus => {
          const next = withConditions({ ...st }, mergeResizeConditions(st.conditions, [cond], true));
          return infeasible ? withStorageResizeStatus(next, S.ControllerResizeInfeasible) : next;
        };
        pvc = await client
          .get<PVC>(R.persistentvolumeclaims, ns, name)
          .then((fresh) => writeStatus(fresh, mark(fresh.status)))
          .catch(() => pvc!);
      } else {
        slow.delete(key);
        finalErrors.delete(key);
      }
      const msg = `resize volume ${JSON.stringify(pv.metadata?.name ?? '')} by resizer ${JSON.stringify(driverName)} failed: ${(e as Error).message}`;
      recorder.event(pvcRef(pvc), 'Warning', Ev.VolumeResizeFailed, msg);
      throw new Error(msg);
    }
    finalErrors.delete(key);
    slow.delete(key);
    // updatePVCapacity: the size the driver reports
    const newSize = bytesQuantity(res.capacityBytes);
    await client.update(R.persistentvolumes, '', { ...pv, spec: { ...pv.spec, capacity: { ...pv.spec.capacity, storage: newSize } } });
    if (res.nodeExpansionRequired) {
      // markForPendingNodeExpansion
      const pending = resizeCondition(ResizeCondition.FileSystemResizePending, now(), FS_RESIZE_PENDING_MESSAGE);
      const next = withStorageResizeStatus(withConditions({ ...pvc.status }, mergeResizeConditions(pvc.status?.conditions, [pending], true)), S.NodeResizePending);
      pvc = await writeStatus(pvc, next);
      recorder.event(pvcRef(pvc), 'Normal', FileSystemResizeRequired, 'Require file system resize of volume on node');
      return;
    }
    // markOverallExpansionAsFinished
    const done = withStorageResizeStatus(
      withConditions({ ...pvc.status, capacity: { ...pvc.status?.capacity, storage: newSize } }, mergeResizeConditions(pvc.status?.conditions, [], false)),
      undefined,
    );
    pvc = await writeStatus(pvc, done);
    recorder.event(pvcRef(pvc), 'Normal', Ev.VolumeResizeSuccess, 'Resize volume succeeded');
  }

  informers.start();
  await informers.waitForSync();
  loop.run();
  return {
    async stop() {
      await loop.stop();
      informers.stop();
    },
  };
}

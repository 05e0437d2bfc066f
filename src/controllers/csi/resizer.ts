/**
 * The external-resizer's role, built in and run per node: a bound claim whose requested
 * storage exceeds its status capacity, on a volume of this driver on this node, gets
 * the `Resizing` condition and a Resizing event, then ControllerExpandVolume over the
 * driver's socket; the PV's capacity is set to the new size and — when the driver
 * needs no node expansion — the claim's status capacity too, with the conditions
 * cleared and a VolumeResizeSuccessful event. When the driver asks for node expansion
 * the claim gets `FileSystemResizePending` instead (the kubelet's NodeExpandVolume is
 * not implemented by k8ts).
 *
 * @see https://github.com/kubernetes-csi/external-resizer/blob/master/pkg/controller/controller.go
 */
import type { PersistentVolume, PersistentVolumeClaim, PersistentVolumeClaimCondition } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { R } from '../../client/types.js';
import { realClock } from '../../util/clock.js';
import { bytesQuantity, quantityBytes, volumeOnNode, type SidecarContext } from './common.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import { SharedInformers } from '../util/informers.js';
import type { RunningController } from '../util/context.js';
import type { Node } from 'kubernetes-types/core/v1.js';
import { Ev } from '../volume/persistentvolume/util.js';

type PVC = PersistentVolumeClaim & KObject;
type PV = PersistentVolume & KObject;

const pvcRef = (c: PVC): KObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: c.metadata });

export async function startExternalResizer(ctx: SidecarContext): Promise<RunningController> {
  const { client, csi, driverName, nodeName, recorder } = ctx;
  const clock = ctx.clock ?? realClock;
  const informers = new SharedInformers(client, { clock });
  const pvcs = informers.get<PVC>(R.persistentvolumeclaims);
  const pvs = informers.get<PV>(R.persistentvolumes);
  const loop = new ControllerLoop({ name: 'external-resizer', clock, workers: 2, sync: (k) => sync(k) });
  const consider = (c: PVC): void => {
    if (needsResize(c)) loop.enqueueObj(c);
  };
  pvcs.addEventHandler({ add: consider, update: (_o, c) => consider(c) });

  function needsResize(c: PVC): boolean {
    if (c.status?.phase !== 'Bound' || !c.spec?.volumeName) return false;
    const want = quantityBytes(c.spec.resources?.requests?.storage as string | undefined);
    const have = quantityBytes(c.status.capacity?.storage as string | undefined);
    return want > have;
  }

  const now = (): string => new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');

  async function sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const pvc = pvcs.getByName(ns, name);
    if (!pvc || !needsResize(pvc)) return;
    const pv = pvs.getByName('', pvc.spec!.volumeName!);
    if (!pv || pv.spec?.csi?.driver !== driverName) return;
    if (!volumeOnNode(pv, await client.get<Node & KObject>(R.nodes, '', nodeName))) return;
    const wantStr = String(pvc.spec!.resources!.requests!.storage);
    const want = quantityBytes(wantStr);
    const resizing: PersistentVolumeClaimCondition = { type: 'Resizing', status: 'True', lastProbeTime: null as unknown as string, lastTransitionTime: now() };
    let cur = await client.update<PVC>(R.persistentvolumeclaims, ns, { ...pvc, status: { ...pvc.status, conditions: [resizing] } }, { subresource: 'status' });
    recorder.event(pvcRef(pvc), 'Normal', Ev.Resizing, `External resizer is resizing volume ${pv.metadata?.name ?? ''}`);
    let res: { capacityBytes: number; nodeExpansionRequired: boolean };
    try {
      res = await csi.controllerExpandVolume({ volumeId: pv.spec.csi.volumeHandle, capacityRange: { requiredBytes: want } });
    } catch (e) {
      const msg = `resize volume ${JSON.stringify(pv.metadata?.name ?? '')} by resizer ${JSON.stringify(driverName)} failed: ${(e as Error).message}`;
      recorder.event(pvcRef(pvc), 'Warning', Ev.VolumeResizeFailed, msg);
      throw e;
    }
    const size = res.capacityBytes && res.capacityBytes >= want ? bytesQuantity(res.capacityBytes) : wantStr;
    await client.update(R.persistentvolumes, '', { ...pv, spec: { ...pv.spec, capacity: { ...pv.spec.capacity, storage: size } } });
    if (res.nodeExpansionRequired) {
      const pending: PersistentVolumeClaimCondition = {
        type: 'FileSystemResizePending',
        status: 'True',
        lastProbeTime: null as unknown as string,
        lastTransitionTime: now(),
        message: 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.',
      };
      await client.update(R.persistentvolumeclaims, ns, { ...cur, status: { ...cur.status, conditions: [pending] } }, { subresource: 'status' });
      return;
    }
    const { conditions: _c, ...rest } = cur.status ?? {};
    cur = await client.update<PVC>(R.persistentvolumeclaims, ns, { ...cur, status: { ...rest, capacity: { ...cur.status?.capacity, storage: size } } }, { subresource: 'status' });
    recorder.event(pvcRef(cur), 'Normal', Ev.VolumeResizeSuccess, 'Resize volume succeeded');
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

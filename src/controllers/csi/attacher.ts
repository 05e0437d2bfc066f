/**
 * The external-attacher's role, built in and run per node: VolumeAttachments of this
 * driver for this node get the finalizer `external-attacher/<driver>`, then
 * ControllerPublishVolume over the driver's socket (the node's ID from its CSINode,
 * the PV's volume handle, access mode and attributes); the result lands in the
 * VolumeAttachment's status — `attached: true` with the publish context as
 * attachmentMetadata, or `attachError` with the driver's error. A VolumeAttachment
 * being deleted is detached with ControllerUnpublishVolume and its finalizer removed.
 *
 * @see https://github.com/kubernetes-csi/external-attacher/blob/master/pkg/controller/csi_handler.go
 */
import type { PersistentVolume } from 'kubernetes-types/core/v1.js';
import type { CSINode, VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import { isNotFound } from '../../apimachinery/errors.js';
import type { KObject } from '../../api/resource.js';
import { SR } from '../../client/storage-resources.js';
import { R } from '../../client/types.js';
import { realClock } from '../../util/clock.js';
import { csiAccessModeOf } from '../../csi/access-modes.js';
import type { SidecarContext } from './common.js';
import { ControllerLoop, splitKey } from '../util/loop.js';
import { SharedInformers } from '../util/informers.js';
import type { RunningController } from '../util/context.js';

type VA = VolumeAttachment & KObject;

/** upstream's finalizer name: `external-attacher/<driver with / and . as ->` */
export function attacherFinalizer(driver: string): string {
  return `external-attacher/${driver.replace(/[/.]/g, '-')}`;
}

export async function startExternalAttacher(ctx: SidecarContext): Promise<RunningController> {
  const { client, csi, driverName, nodeName } = ctx;
  const clock = ctx.clock ?? realClock;
  const finalizer = attacherFinalizer(driverName);
  const informers = new SharedInformers(client, { clock });
  const vas = informers.get<VA>(SR.volumeattachments);
  const loop = new ControllerLoop({ name: 'external-attacher', clock, workers: 2, sync: (k) => sync(k) });
  const mine = (va: VA): boolean => va.spec?.attacher === driverName && va.spec?.nodeName === nodeName;
  const consider = (va: VA): void => {
    if (mine(va)) loop.enqueueObj(va);
  };
  vas.addEventHandler({ add: consider, update: (_o, va) => consider(va) });
  const now = (): string => new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');

  async function nodeID(): Promise<string> {
    const n = await client.get<CSINode & KObject>(SR.csinodes, '', nodeName);
    const id = n.spec?.drivers?.find((d) => d.name === driverName)?.nodeID;
    if (!id) throw new Error(`CSINode ${nodeName} does not contain driver ${driverName}`);
    return id;
  }

  async function sync(key: string): Promise<void> {
    const [, name] = splitKey(key);
    let va = vas.getByName('', name);
    if (!va || !mine(va)) return;
    const pvName = va.spec?.source?.persistentVolumeName;
    if (va.metadata?.deletionTimestamp) {
      if (!va.metadata.finalizers?.includes(finalizer)) return;
      try {
        const pv = pvName
          ? await client.get<PersistentVolume & KObject>(R.persistentvolumes, '', pvName).catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)))
          : undefined;
        const handle = pv?.spec?.csi?.volumeHandle;
        if (handle) await csi.controllerUnpublishVolume(handle, await nodeID());
      } catch (e) {
        await client.update(
          SR.volumeattachments,
          '',
          { ...va, status: { ...va.status, attached: va.status?.attached ?? false, detachError: { time: now(), message: (e as Error).message } } },
          { subresource: 'status' },
        );
        throw e;
      }
      await client.update(SR.volumeattachments, '', { ...va, metadata: { ...va.metadata, finalizers: va.metadata.finalizers.filter((f) => f !== finalizer) } });
      return;
    }
    if (va.status?.attached) return;
    if (!va.metadata?.finalizers?.includes(finalizer)) {
      va = await client.update<VA>(SR.volumeattachments, '', { ...va, metadata: { ...va.metadata, finalizers: [...(va.metadata?.finalizers ?? []), finalizer] } });
    }
    try {
      if (!pvName) throw new Error('VolumeAttachment source has no persistentVolumeName (inline volumes are not supported)');
      const pv = await client.get<PersistentVolume & KObject>(R.persistentvolumes, '', pvName);
      const src = pv.spec?.csi;
      if (!src) throw new Error(`persistent volume ${pvName} is not a CSI volume`);
      const publishContext = await csi.controllerPublishVolume({
        volumeId: src.volumeHandle,
        nodeId: await nodeID(),
        volumeCapability: {
          // a Block PV is attached with a block capability (external-attacher GetVolumeCapabilities)
          ...(pv.spec?.volumeMode === 'Block' ? { block: {} } : { mount: { fsType: src.fsType ?? '', mountFlags: pv.spec?.mountOptions ?? [] } }),
          accessMode: { mode: csiAccessModeOf(pv.spec?.accessModes?.[0] ?? 'ReadWriteOnce') },
        },
        readonly: !!src.readOnly,
        volumeContext: src.volumeAttributes ?? {},
      });
      await client.update(SR.volumeattachments, '', { ...va, status: { attached: true, attachmentMetadata: publishContext } }, { subresource: 'status' });
    } catch (e) {
      await client.update(SR.volumeattachments, '', { ...va, status: { attached: false, attachError: { time: now(), message: (e as Error).message } } }, { subresource: 'status' });
      throw e;
    }
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

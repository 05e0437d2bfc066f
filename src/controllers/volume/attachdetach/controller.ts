/**
 * The attach/detach controller, for CSI volumes: every volume a scheduled, unfinished
 * pod uses through a claim bound to a CSI PersistentVolume whose driver requires attach
 * (CSIDriver `attachRequired`, true when the driver has no CSIDriver object) gets a
 * VolumeAttachment `csi-<sha256(handle + driver + node)>` for the pod's node, which the
 * driver's external-attacher acts on; attachments no pod needs any more are deleted
 * (detach). The outcome is reported on the pods: SuccessfulAttachVolume, or
 * FailedAttachVolume with the attacher's error.
 *
 * Not done: node.status.volumesAttached and waiting for volumesInUse before a detach
 * (the kubelet deletes a pod only after it unpublished its volumes).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/volume/attachdetach/attach_detach_controller.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/csi_attacher.go
 */
import { createHash } from 'node:crypto';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { CSIDriver, VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import { isAlreadyExists, isNotFound } from '../../../apimachinery/errors.js';
import type { KObject } from '../../../api/resource.js';
import { SR } from '../../../client/storage-resources.js';
import { R } from '../../../client/types.js';
import { realClock } from '../../../util/clock.js';
import type { RunningController, WorkloadControllerContext } from '../../util/context.js';
import { ControllerLoop } from '../../util/loop.js';

type VA = VolumeAttachment & KObject;

/** upstream getAttachmentName */
export function attachmentName(handle: string, driver: string, node: string): string {
  return `csi-${createHash('sha256')
    .update(handle + driver + node)
    .digest('hex')}`;
}

interface Wanted {
  name: string;
  driver: string;
  pv: string;
  node: string;
  pods: Pod[];
}

const RESYNC_KEY = 'all';

export async function startAttachDetachController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, informers, recorder } = ctx;
  const pods = informers.get<Pod & KObject>(R.pods);
  const pvcs = informers.get<PersistentVolumeClaim & KObject>(R.persistentvolumeclaims);
  const pvs = informers.get<PersistentVolume & KObject>(R.persistentvolumes);
  const drivers = informers.get<CSIDriver & KObject>(SR.csidrivers);
  const vas = informers.get<VA>(SR.volumeattachments);
  // one reconcile of the whole desired/actual state per change (what upstream's reconciler loop does every 100 ms)
  const loop = new ControllerLoop({ name: 'attachdetach-controller', clock: ctx.clock ?? realClock, workers: 1, sync: () => reconcile() });
  const kick = (): void => loop.enqueue(RESYNC_KEY);
  for (const inf of [pvcs, pvs, drivers]) inf.addEventHandler({ add: kick, update: kick, delete: kick });
  /**
   * The pods with a claim (directly or through an ephemeral volume), by key: the only
   * ones that can want an attachment (volumes are immutable), so a change of any other
   * pod neither starts a reconcile nor is walked by one.
   */
  const claimPods = new Map<string, Pod>();
  const usesClaim = (p: Pod): boolean => (p.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim !== undefined || v.ephemeral !== undefined);
  const podKey = (p: Pod): string => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
  const podChanged = (p: Pod): void => {
    const k = podKey(p);
    if (usesClaim(p)) claimPods.set(k, p);
    else if (!claimPods.delete(k)) return;
    kick();
  };
  pods.addEventHandler({
    add: podChanged,
    update: (_o, p) => podChanged(p),
    delete: (p) => {
      if (claimPods.delete(podKey(p))) kick();
    },
  });
  /** VolumeAttachment name → the last status reported in events */
  const reported = new Map<string, string>();
  vas.addEventHandler({
    add: kick,
    update: (_o, va) => {
      report(va);
      kick();
    },
    delete: (va) => {
      reported.delete(va.metadata?.name ?? '');
      kick();
    },
  });

  const attachRequired = (driver: string): boolean => drivers.getByName('', driver)?.spec?.attachRequired !== false;

  function desired(): Map<string, Wanted> {
    const out = new Map<string, Wanted>();
    for (const pod of claimPods.values()) {
      const node = pod.spec?.nodeName;
      const phase = pod.status?.phase;
      if (!node || phase === 'Succeeded' || phase === 'Failed') continue;
      for (const v of pod.spec?.volumes ?? []) {
        const claim = v.persistentVolumeClaim?.claimName ?? (v.ephemeral ? `${pod.metadata?.name ?? ''}-${v.name}` : undefined);
        if (!claim) continue;
        const pvName = pvcs.getByName(pod.metadata?.namespace ?? '', claim)?.spec?.volumeName;
        const csi = pvName ? pvs.getByName('', pvName)?.spec?.csi : undefined;
        if (!pvName || !csi || !attachRequired(csi.driver)) continue;
        const name = attachmentName(csi.volumeHandle, csi.driver, node);
        const w = out.get(name) ?? { name, driver: csi.driver, pv: pvName, node, pods: [] };
        w.pods.push(pod);
        out.set(name, w);
      }
    }
    return out;
  }

  /** Who wants a VolumeAttachment: the pods using its volume on its node. */
  const wanted = new Map<string, Wanted>();

  function report(va: VA): void {
    const name = va.metadata?.name ?? '';
    const w = wanted.get(name);
    if (!w) return;
    const st = va.status;
    const key = st?.attached ? 'attached' : st?.attachError?.message ? `error:${st.attachError.message}` : '';
    if (!key || reported.get(name) === key) return;
    reported.set(name, key);
    for (const pod of w.pods) {
      const ref = { apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata };
      if (st?.attached) recorder.event(ref, 'Normal', 'SuccessfulAttachVolume', `AttachVolume.Attach succeeded for volume ${JSON.stringify(w.pv)} `);
      else recorder.event(ref, 'Warning', 'FailedAttachVolume', `AttachVolume.Attach failed for volume ${JSON.stringify(w.pv)} : ${st?.attachError?.message ?? ''}`);
    }
  }

  async function reconcile(): Promise<void> {
    const want = desired();
    wanted.clear();
    for (const [k, v] of want) wanted.set(k, v);
    for (const w of want.values()) {
      const have = vas.getByName('', w.name);
      if (have) {
        report(have);
        continue;
      }
      const va: VA = {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'VolumeAttachment',
        metadata: { name: w.name },
        spec: { attacher: w.driver, nodeName: w.node, source: { persistentVolumeName: w.pv } },
      };
      try {
        await client.create(SR.volumeattachments, '', va);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
    }
    // detach what no pod needs (only attachments of CSI drivers this controller made: csi-<hash>)
    for (const va of vas.list()) {
      const name = va.metadata?.name ?? '';
      if (want.has(name) || va.metadata?.deletionTimestamp || !/^csi-[0-9a-f]{64}$/.test(name)) continue;
      try {
        await client.delete(SR.volumeattachments, '', name);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }

  informers.start();
  await informers.waitForSync();
  loop.run();
  kick();
  return { stop: () => loop.stop() };
}

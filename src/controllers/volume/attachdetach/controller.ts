/**
 * The attach/detach controller, for CSI volumes: every volume a scheduled, unfinished
 * pod uses through a claim bound to a CSI PersistentVolume whose driver requires attach
 * (CSIDriver `attachRequired`, true when the driver has no CSIDriver object) gets a
 * VolumeAttachment `csi-<sha256(handle + driver + node)>` for the pod's node, which the
 * driver's external-attacher acts on; attachments no pod needs any more are deleted
 * (detach). The outcome is reported on the pods: SuccessfulAttachVolume, or
 * FailedAttachVolume with the attacher's error.
 *
 * The attached volumes of each node are published in its `status.volumesAttached`
 * (upstream's node status updater: the unique name `kubernetes.io/csi/<driver>^<handle>`
 * and the device path, empty for CSI). A volume no pod needs any more is detached only
 * once the node's kubelet no longer lists it in `status.volumesInUse` (it is unmounted),
 * or after upstream's maxWaitForUnmountDuration (6 minutes); it leaves volumesAttached
 * before its VolumeAttachment is deleted.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/volume/attachdetach/attach_detach_controller.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/csi/csi_attacher.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/volume/attachdetach/statusupdater/node_status_updater.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/volume/attachdetach/reconciler/reconciler.go
 */
import { createHash } from 'node:crypto';
import type { AttachedVolume, Node, PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { isDeepStrictEqual } from 'node:util';
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

/** upstream GetUniqueVolumeName of the CSI plugin: `kubernetes.io/csi/<driver>^<volumeHandle>` */
export function uniqueVolumeName(driver: string, handle: string): string {
  return `kubernetes.io/csi/${driver}^${handle}`;
}

/** upstream reconciler maxWaitForUnmountDuration: a detach waits at most this long for the kubelet to unmount */
export const MAX_WAIT_FOR_UNMOUNT_MS = 6 * 60_000;

interface Wanted {
  name: string;
  /** the volume's unique name */
  unique: string;
  driver: string;
  pv: string;
  node: string;
  pods: Pod[];
}

const RESYNC_KEY = 'all';
/** attachments this controller makes (CSI: csi-<sha256>) */
const isOurs = (name: string): boolean => /^csi-[0-9a-f]{64}$/.test(name);

export async function startAttachDetachController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, informers, recorder } = ctx;
  const pods = informers.get<Pod & KObject>(R.pods);
  const pvcs = informers.get<PersistentVolumeClaim & KObject>(R.persistentvolumeclaims);
  const pvs = informers.get<PersistentVolume & KObject>(R.persistentvolumes);
  const drivers = informers.get<CSIDriver & KObject>(SR.csidrivers);
  const vas = informers.get<VA>(SR.volumeattachments);
  const nodes = informers.get<Node & KObject>(R.nodes);
  const clock = ctx.clock ?? realClock;
  // one reconcile of the whole desired/actual state per change (what upstream's reconciler loop does every 100 ms)
  const loop = new ControllerLoop({ name: 'attachdetach-controller', clock, workers: 1, sync: () => reconcile() });
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

  // a node's kubelet reporting other volumes in use may let a detach go ahead (an O(1) check per node update)
  nodes.addEventHandler({
    update: (old, n) => {
      if (!isDeepStrictEqual(old.status?.volumesInUse, n.status?.volumesInUse)) kick();
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
        const w = out.get(name) ?? { name, unique: uniqueVolumeName(csi.driver, csi.volumeHandle), driver: csi.driver, pv: pvName, node, pods: [] };
        w.pods.push(pod);
        out.set(name, w);
      }
    }
    return out;
  }

  /** Who wants a VolumeAttachment: the pods using its volume on its node. */
  const wanted = new Map<string, Wanted>();
  /** VolumeAttachment name → its volume's unique name (kept for attachments whose PV is gone) */
  const uniqueOf = new Map<string, string>();
  /** VolumeAttachment name → when no pod wanted it any more (ms) */
  const unwantedSince = new Map<string, number>();
  /** nodes whose volumesAttached this controller set non-empty */
  const reportedNodes = new Set<string>();

  function uniqueName(va: VA): string | undefined {
    const name = va.metadata?.name ?? '';
    let u = uniqueOf.get(name);
    if (!u) {
      const csi = pvs.getByName('', va.spec?.source?.persistentVolumeName ?? '')?.spec?.csi;
      if (csi) uniqueOf.set(name, (u = uniqueVolumeName(csi.driver, csi.volumeHandle)));
    }
    return u;
  }

  /**
   * Upstream's node status updater: each node's `status.volumesAttached`, the attached
   * volumes (VolumeAttachment attached, not being detached) sorted by name, written when it differs.
   */
  async function updateNodeStatuses(detaching: Set<string>): Promise<void> {
    const byNode = new Map<string, AttachedVolume[]>();
    for (const va of vas.list()) {
      const name = va.metadata?.name ?? '';
      const node = va.spec?.nodeName ?? '';
      if (!isOurs(name) || !va.status?.attached || va.metadata?.deletionTimestamp || detaching.has(name)) continue;
      const u = uniqueName(va);
      if (!u) continue;
      const list = byNode.get(node) ?? [];
      if (!list.some((a) => a.name === u)) list.push({ name: u, devicePath: '' });
      byNode.set(node, list);
    }
    for (const node of new Set([...byNode.keys(), ...reportedNodes])) {
      const list = (byNode.get(node) ?? []).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const n = nodes.getByName('', node);
      if (!n) {
        reportedNodes.delete(node);
        continue;
      }
      if (isDeepStrictEqual(n.status?.volumesAttached ?? [], list)) {
        if (!list.length) reportedNodes.delete(node);
        continue;
      }
      try {
        await client.patch(R.nodes, '', node, 'merge', { status: { volumesAttached: list.length ? list : null } }, { subresource: 'status' });
      } catch (e) {
        if (isNotFound(e)) continue;
        throw e;
      }
      if (list.length) reportedNodes.add(node);
      else reportedNodes.delete(node);
    }
  }

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
    for (const w of want.values()) {
      uniqueOf.set(w.name, w.unique);
      unwantedSince.delete(w.name);
    }
    // detach what no pod needs (only attachments of CSI drivers this controller made: csi-<hash>),
    // once the node's kubelet has unmounted it (it left volumesInUse) or the wait ran out
    const now = clock.now();
    const detaching = new Set<string>();
    for (const va of vas.list()) {
      const name = va.metadata?.name ?? '';
      if (want.has(name) || va.metadata?.deletionTimestamp || !isOurs(name)) continue;
      const since = unwantedSince.get(name) ?? now;
      unwantedSince.set(name, since);
      const u = uniqueName(va);
      const inUse = !!u && (nodes.getByName('', va.spec?.nodeName ?? '')?.status?.volumesInUse ?? []).includes(u);
      if (inUse && now - since < MAX_WAIT_FOR_UNMOUNT_MS) {
        loop.enqueueAfter(RESYNC_KEY, since + MAX_WAIT_FOR_UNMOUNT_MS - now);
        continue;
      }
      detaching.add(name);
    }
    // the volume leaves the node's volumesAttached before it is detached
    await updateNodeStatuses(detaching);
    for (const name of detaching) {
      try {
        await client.delete(SR.volumeattachments, '', name);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    for (const name of [...unwantedSince.keys()]) {
      if (vas.getByName('', name)) continue;
      unwantedSince.delete(name);
      uniqueOf.delete(name);
    }
  }

  informers.start();
  await informers.waitForSync();
  loop.run();
  kick();
  return { stop: () => loop.stop() };
}

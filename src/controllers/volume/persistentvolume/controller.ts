/**
 * The persistent volume controller (kube-controller-manager's `persistentvolume-binder`):
 * binds claims to volumes and keeps both sides' phases. A claim without a volume gets
 * the best matching available volume (util.ts); with none it waits for its first
 * consumer (WaitForFirstConsumer classes until the scheduler picks a node), gets the
 * default StorageClass when it has no class and a default exists (retroactively), or is
 * handed to its class's external provisioner (the `volume.kubernetes.io/storage-provisioner`
 * annotation and an ExternalProvisioning event), or stays Pending with FailedBinding.
 * A volume whose claim is gone becomes Released; Retain keeps it, Delete leaves the
 * deletion to the external provisioner that made it (a volume no provisioner made
 * goes Failed). Claims and volumes are synced on every change and every 15 s.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/volume/persistentvolume/pv_controller.go
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { isNotFound } from '../../../apimachinery/errors.js';
import type { KObject } from '../../../api/resource.js';
import { SR } from '../../../client/storage-resources.js';
import { R } from '../../../client/types.js';
import { realClock } from '../../../util/clock.js';
import type { RunningController, WorkloadControllerContext } from '../../util/context.js';
import { ControllerLoop, splitKey } from '../../util/loop.js';
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_DYNAMICALLY_PROVISIONED,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
  Ev,
  findMatchingVolume,
  hasAnn,
  isDelayBinding,
  isVolumeBoundToClaim,
  provisionerOf,
} from './util.js';
import { parseQuantity, compareQuantity } from '../../../apimachinery/quantity.js';
import { BETA_STORAGE_CLASS_ANNOTATION } from '../../../api/core/v1/persistentvolumeclaim/strategy.js';
import { getDefaultClass } from '../../../api/storage/v1/storageclass/default-class.js';

type PV = PersistentVolume & KObject;
type PVC = PersistentVolumeClaim & KObject;

/** upstream --pvclaimbinder-sync-period */
const RESYNC_MS = 15_000;

const pvRef = (pv: PV): KObject => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: pv.metadata });
const pvcRef = (pvc: PVC): KObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: pvc.metadata });

export async function startPersistentVolumeController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, informers, recorder } = ctx;
  const clock = ctx.clock ?? realClock;
  const pvs = informers.get<PV>(R.persistentvolumes);
  const pvcs = informers.get<PVC>(R.persistentvolumeclaims);
  const classes = informers.get<StorageClass & KObject>(SR.storageclasses);
  const pods = informers.get<Pod & KObject>(R.pods);
  const classOf = (name: string): StorageClass | undefined => classes.getByName('', name);

  const claims = new ControllerLoop({ name: 'persistentvolume-binder', clock, workers: ctx.workers, sync: (k) => syncClaim(k) });
  const volumes = new ControllerLoop({ name: 'persistentvolume-binder', clock, workers: ctx.workers, sync: (k) => syncVolume(k) });
  pvcs.addEventHandler({ add: (c) => claims.enqueueObj(c), update: (_o, c) => claims.enqueueObj(c), delete: (c) => enqueueVolumeOf(c) });
  pvs.addEventHandler({ add: (v) => volumes.enqueueObj(v), update: (_o, v) => volumes.enqueueObj(v), delete: (v) => enqueueClaimOf(v) });
  // a new class or a pod using a waiting claim can unblock it
  classes.addEventHandler({ add: () => resyncClaims(), update: () => resyncClaims() });

  function enqueueVolumeOf(c: PVC): void {
    if (c.spec?.volumeName) volumes.enqueue(c.spec.volumeName);
  }
  function enqueueClaimOf(v: PV): void {
    const r = v.spec?.claimRef;
    if (r?.name) claims.enqueue(`${r.namespace ?? ''}/${r.name}`);
  }
  function resyncClaims(): void {
    for (const c of pvcs.list()) if (c.status?.phase !== 'Bound') claims.enqueueObj(c);
  }

  // ---------------------------------------------------------------- claims

  async function syncClaim(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const pvc = pvcs.getByName(ns, name);
    if (!pvc) return;
    if (!hasAnn(pvc, ANN_BIND_COMPLETED)) await syncUnboundClaim(pvc);
    else await syncBoundClaim(pvc);
  }

  async function syncUnboundClaim(pvc: PVC): Promise<void> {
    const volumeName = pvc.spec?.volumeName;
    if (!volumeName) {
      const delay = isDelayBinding(pvc, classOf) && !hasAnn(pvc, ANN_SELECTED_NODE);
      const pv = findMatchingVolume(pvc, pvs.list(), delay) as PV | undefined;
      if (pv) return bind(pv, pvc, true);
      // the update brings the claim back through this sync with its class
      if (await assignDefaultStorageClass(pvc)) return;
      if (delay) {
        const user = podsUsing(pvc).find((p) => !p.spec?.nodeName);
        if (user) recorder.event(pvcRef(pvc), 'Normal', Ev.WaitForPodScheduled, `waiting for pod ${user.metadata?.name ?? ''} to be scheduled`);
        else recorder.event(pvcRef(pvc), 'Normal', Ev.WaitForFirstConsumer, 'waiting for first consumer to be created before binding');
        return setClaimPhase(pvc, 'Pending');
      }
      const clsName = pvc.spec?.storageClassName ?? '';
      if (clsName) {
        const cls = classOf(clsName);
        if (!cls) {
          recorder.event(pvcRef(pvc), 'Warning', Ev.ProvisioningFailed, `storageclass.storage.k8s.io ${JSON.stringify(clsName)} not found`);
          return setClaimPhase(pvc, 'Pending');
        }
        const provisioner = provisionerOf(cls);
        if (provisioner) return provisionClaim(pvc, provisioner);
      }
      recorder.event(
        pvcRef(pvc),
        'Normal',
        Ev.FailedBinding,
        clsName ? 'no persistent volumes available for this claim and no storage class is set' : 'no persistent volumes available for this claim and no storage class is set',
      );
      return setClaimPhase(pvc, 'Pending');
    }
    // pre-bound by the user to a named volume
    const pv = pvs.getByName('', volumeName);
    if (!pv) return setClaimPhase(pvc, 'Pending');
    if (!pv.spec?.claimRef || isVolumeBoundToClaim(pv, pvc)) {
      const why = mismatch(pv, pvc);
      if (why) {
        recorder.event(pvcRef(pvc), 'Warning', Ev.VolumeMismatch, `Cannot bind to requested volume ${JSON.stringify(volumeName)}: ${why}`);
        return setClaimPhase(pvc, 'Pending');
      }
      return bind(pv, pvc, false);
    }
    recorder.event(pvcRef(pvc), 'Warning', Ev.FailedBinding, `volume ${JSON.stringify(volumeName)} already bound to a different claim.`);
    return setClaimPhase(pvc, 'Pending');
  }

  /**
   * Upstream assignDefaultStorageClass (RetroactiveDefaultStorageClass, GA in 1.28): a
   * claim created with no class (nil, not "") while the cluster had no default class
   * gets the default class once there is one. Returns whether the claim was updated.
   */
  async function assignDefaultStorageClass(pvc: PVC): Promise<boolean> {
    if (pvc.spec?.storageClassName !== undefined && pvc.spec.storageClassName !== null) return false;
    if (hasAnn(pvc, BETA_STORAGE_CLASS_ANNOTATION)) return false;
    const def = getDefaultClass(classes.list());
    if (!def?.metadata?.name) return false;
    await client.update(R.persistentvolumeclaims, pvc.metadata?.namespace ?? '', { ...pvc, spec: { ...pvc.spec, storageClassName: def.metadata.name } });
    return true;
  }

  /** upstream checkVolumeSatisfyClaim */
  function mismatch(pv: PV, pvc: PVC): string | undefined {
    const want = parseQuantity(String(pvc.spec?.resources?.requests?.storage ?? '0'));
    if (compareQuantity(parseQuantity(String(pv.spec?.capacity?.storage ?? '0')), want) < 0) return 'requested PV is too small';
    if ((pv.spec?.storageClassName ?? '') !== (pvc.spec?.storageClassName ?? '')) return 'storageClassName does not match';
    if ((pv.spec?.volumeMode ?? 'Filesystem') !== (pvc.spec?.volumeMode ?? 'Filesystem')) return 'incompatible volumeMode';
    const have = new Set(pv.spec?.accessModes ?? []);
    if (!(pvc.spec?.accessModes ?? []).every((m) => have.has(m))) return 'incompatible accessMode';
    return undefined;
  }

  async function provisionClaim(pvc: PVC, provisioner: string): Promise<void> {
    const ann = pvc.metadata?.annotations ?? {};
    if (ann[ANN_STORAGE_PROVISIONER] !== provisioner || ann[ANN_BETA_STORAGE_PROVISIONER] !== provisioner) {
      const next: PVC = { ...pvc, metadata: { ...pvc.metadata, annotations: { ...ann, [ANN_STORAGE_PROVISIONER]: provisioner, [ANN_BETA_STORAGE_PROVISIONER]: provisioner } } };
      await client.update(R.persistentvolumeclaims, pvc.metadata?.namespace ?? '', next);
    }
    recorder.event(
      pvcRef(pvc),
      'Normal',
      Ev.ExternalProvisioning,
      `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
    );
    await setClaimPhase(pvc, 'Pending');
  }

  async function syncBoundClaim(pvc: PVC): Promise<void> {
    const volumeName = pvc.spec?.volumeName;
    if (!volumeName) {
      recorder.event(pvcRef(pvc), 'Warning', Ev.ClaimLost, 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
      return setClaimPhase(pvc, 'Lost');
    }
    let pv = pvs.getByName('', volumeName);
    if (!pv) pv = await client.get<PV>(R.persistentvolumes, '', volumeName).catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
    if (!pv) {
      recorder.event(pvcRef(pvc), 'Warning', Ev.ClaimLost, 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
      return setClaimPhase(pvc, 'Lost');
    }
    if (!pv.spec?.claimRef || isVolumeBoundToClaim(pv, pvc)) return bind(pv, pvc, hasAnn(pvc, ANN_BOUND_BY_CONTROLLER));
    recorder.event(pvcRef(pvc), 'Warning', Ev.ClaimMisbound, 'Two claims are bound to the same volume, this one is bound incorrectly');
    return setClaimPhase(pvc, 'Lost');
  }

  /** upstream bind: the volume's claimRef and phase, then the claim's volumeName, annotations and status. */
  async function bind(pv: PV, pvc: PVC, byController: boolean): Promise<void> {
    const m = pvc.metadata ?? {};
    const ref = pv.spec?.claimRef;
    if (!ref || ref.uid !== m.uid || ref.name !== m.name || ref.namespace !== m.namespace) {
      const anns = { ...(pv.metadata?.annotations ?? {}) };
      // a volume the user reserved for this claim (claimRef by name, maybe without uid) was not bound by the controller
      if (!isVolumeBoundToClaim(pv, pvc)) anns[ANN_BOUND_BY_CONTROLLER] = 'yes';
      pv = await client.update<PV>(R.persistentvolumes, '', {
        ...pv,
        metadata: { ...pv.metadata, annotations: anns },
        spec: { ...pv.spec, claimRef: { kind: 'PersistentVolumeClaim', namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: 'v1', resourceVersion: m.resourceVersion } },
      });
    }
    if (pv.status?.phase !== 'Bound') pv = await client.update<PV>(R.persistentvolumes, '', { ...pv, status: { ...pv.status, phase: 'Bound' } }, { subresource: 'status' });
    const anns = m.annotations ?? {};
    if (pvc.spec?.volumeName !== pv.metadata?.name || anns[ANN_BIND_COMPLETED] !== 'yes' || (byController && anns[ANN_BOUND_BY_CONTROLLER] !== 'yes')) {
      const next: Record<string, string> = { ...anns, [ANN_BIND_COMPLETED]: 'yes' };
      if (byController) next[ANN_BOUND_BY_CONTROLLER] = 'yes';
      pvc = await client.update<PVC>(R.persistentvolumeclaims, m.namespace ?? '', {
        ...pvc,
        metadata: { ...m, annotations: next },
        spec: { ...pvc.spec, volumeName: pv.metadata?.name },
      });
    }
    const st = pvc.status ?? {};
    const capacity = pv.spec?.capacity;
    if (st.phase !== 'Bound' || JSON.stringify(st.accessModes) !== JSON.stringify(pv.spec?.accessModes) || (!st.capacity && capacity)) {
      // the capacity is the volume's at binding; afterwards the resizer owns it
      await client.update(
        R.persistentvolumeclaims,
        m.namespace ?? '',
        { ...pvc, status: { ...st, phase: 'Bound', accessModes: pv.spec?.accessModes, capacity: st.phase === 'Bound' && st.capacity ? st.capacity : capacity } },
        { subresource: 'status' },
      );
    }
  }

  async function setClaimPhase(pvc: PVC, phase: 'Pending' | 'Lost'): Promise<void> {
    if (pvc.status?.phase === phase) return;
    await client.update(R.persistentvolumeclaims, pvc.metadata?.namespace ?? '', { ...pvc, status: { ...pvc.status, phase } }, { subresource: 'status' });
  }

  function podsUsing(pvc: PVC): Pod[] {
    const ns = pvc.metadata?.namespace;
    const name = pvc.metadata?.name ?? '';
    return pods
      .list()
      .filter(
        (p) =>
          p.metadata?.namespace === ns &&
          (p.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === name || (v.ephemeral && `${p.metadata?.name ?? ''}-${v.name}` === name)),
      );
  }

  // ---------------------------------------------------------------- volumes

  async function syncVolume(key: string): Promise<void> {
    const [, name] = splitKey(key);
    const pv = pvs.getByName('', name);
    if (!pv) return;
    const ref = pv.spec?.claimRef;
    if (!ref || !ref.uid) {
      await setVolumePhase(pv, 'Available');
      return;
    }
    let claim = pvcs.getByName(ref.namespace ?? '', ref.name ?? '');
    if (!claim) {
      // not in the cache: ask the API server before declaring the claim gone
      claim = await client.get<PVC>(R.persistentvolumeclaims, ref.namespace ?? '', ref.name ?? '').catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
    }
    if (claim && claim.metadata?.uid !== ref.uid) claim = undefined;
    if (!claim) return releaseVolume(pv);
    const vn = claim.spec?.volumeName;
    if (!vn) {
      // binding in progress (the claim side comes next)
      claims.enqueueObj(claim);
      return;
    }
    if (vn === pv.metadata?.name) {
      await setVolumePhase(pv, 'Bound');
      return;
    }
    // the claim is bound to another volume
    if (hasAnn(pv, ANN_DYNAMICALLY_PROVISIONED) && pv.spec?.persistentVolumeReclaimPolicy === 'Delete') return releaseVolume(pv);
    if (hasAnn(pv, ANN_BOUND_BY_CONTROLLER)) {
      const anns = { ...(pv.metadata?.annotations ?? {}) };
      delete anns[ANN_BOUND_BY_CONTROLLER];
      const unbound = await client.update<PV>(R.persistentvolumes, '', { ...pv, metadata: { ...pv.metadata, annotations: anns }, spec: { ...pv.spec, claimRef: undefined } });
      await setVolumePhase(unbound, 'Available');
    }
  }

  /** The claim is gone: Released, then the reclaim policy. */
  async function releaseVolume(pv: PV): Promise<void> {
    if (pv.status?.phase !== 'Released' && pv.status?.phase !== 'Failed') pv = await setVolumePhase(pv, 'Released');
    if (pv.status?.phase === 'Failed') return;
    switch (pv.spec?.persistentVolumeReclaimPolicy ?? 'Retain') {
      case 'Retain':
        return;
      case 'Delete': {
        // an external provisioner deletes what it provisioned; nothing in k8ts deletes other volumes
        if (hasAnn(pv, ANN_DYNAMICALLY_PROVISIONED)) return;
        const msg = `error getting deleter volume plugin for volume ${JSON.stringify(pv.metadata?.name ?? '')}: no deletable volume plugin matched`;
        recorder.event(pvRef(pv), 'Warning', Ev.VolumeFailedDelete, msg);
        await setVolumePhase(pv, 'Failed', msg);
        return;
      }
      default: {
        const msg = 'No recycler plugin found for the volume!';
        recorder.event(pvRef(pv), 'Warning', 'VolumeFailedRecycle', msg);
        await setVolumePhase(pv, 'Failed', msg);
      }
    }
  }

  async function setVolumePhase(pv: PV, phase: 'Available' | 'Bound' | 'Released' | 'Failed', message?: string): Promise<PV> {
    if (pv.status?.phase === phase && (message === undefined || pv.status.message === message)) return pv;
    const status = { ...pv.status, phase, lastPhaseTransitionTime: new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z') };
    if (message !== undefined) status.message = message;
    else delete status.message;
    return client.update<PV>(R.persistentvolumes, '', { ...pv, status }, { subresource: 'status' });
  }

  informers.start();
  await informers.waitForSync();
  claims.run();
  volumes.run();
  let stopped = false;
  const resync = (): void => {
    if (stopped) return;
    for (const c of pvcs.list()) claims.enqueueObj(c);
    for (const v of pvs.list()) volumes.enqueueObj(v);
    clock.setTimeout(resync, RESYNC_MS);
  };
  clock.setTimeout(resync, RESYNC_MS);
  return {
    async stop() {
      stopped = true;
      await claims.stop();
      await volumes.stop();
    },
  };
}

/**
 * The pvc-protection and pv-protection controllers: a claim being deleted keeps its
 * `kubernetes.io/pvc-protection` finalizer while a pod that has not finished uses it;
 * a volume being deleted keeps `kubernetes.io/pv-protection` while it is Bound. Once
 * unused, the finalizer is removed and the deletion completes.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/volume/pvcprotection/pvc_protection_controller.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/volume/pvprotection/pv_protection_controller.go
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { isNotFound } from '../../../apimachinery/errors.js';
import type { KObject } from '../../../api/resource.js';
import { R } from '../../../client/types.js';
import { realClock } from '../../../util/clock.js';
import type { RunningController, WorkloadControllerContext } from '../../util/context.js';
import { ControllerLoop, splitKey } from '../../util/loop.js';
import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from '../persistentvolume/util.js';

type PVC = PersistentVolumeClaim & KObject;
type PV = PersistentVolume & KObject;

/** Whether `pod` (not finished) mounts claim `name`. */
function podUsesClaim(pod: Pod, name: string): boolean {
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
  return (pod.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === name || (v.ephemeral && `${pod.metadata?.name ?? ''}-${v.name}` === name));
}

export async function startPVCProtectionController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, informers } = ctx;
  const pvcs = informers.get<PVC>(R.persistentvolumeclaims);
  const pods = informers.get<Pod & KObject>(R.pods);
  const loop = new ControllerLoop({ name: 'pvc-protection-controller', clock: ctx.clock ?? realClock, workers: ctx.workers, sync: (k) => sync(k) });
  const consider = (c: PVC): void => {
    if (c.metadata?.deletionTimestamp && c.metadata.finalizers?.includes(PVC_PROTECTION_FINALIZER)) loop.enqueueObj(c);
  };
  pvcs.addEventHandler({ add: consider, update: (_o, c) => consider(c) });
  const podChanged = (p: Pod & KObject): void => {
    for (const v of p.spec?.volumes ?? []) {
      const name = v.persistentVolumeClaim?.claimName ?? (v.ephemeral ? `${p.metadata?.name ?? ''}-${v.name}` : undefined);
      if (name) loop.enqueue(`${p.metadata?.namespace ?? ''}/${name}`);
    }
  };
  pods.addEventHandler({ update: (_o, p) => podChanged(p), delete: podChanged });

  async function sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const c = pvcs.getByName(ns, name);
    if (!c?.metadata?.deletionTimestamp || !c.metadata.finalizers?.includes(PVC_PROTECTION_FINALIZER)) return;
    // the cache could miss a pod just created: ask the API server (upstream askAPIServer)
    const live = await client.list<Pod & KObject>(R.pods, ns);
    if (live.items.some((p) => podUsesClaim(p, name))) return;
    try {
      await client.update(R.persistentvolumeclaims, ns, { ...c, metadata: { ...c.metadata, finalizers: c.metadata.finalizers.filter((f) => f !== PVC_PROTECTION_FINALIZER) } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  informers.start();
  await informers.waitForSync();
  loop.run();
  return { stop: () => loop.stop() };
}

export async function startPVProtectionController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, informers } = ctx;
  const pvs = informers.get<PV>(R.persistentvolumes);
  const loop = new ControllerLoop({ name: 'pv-protection-controller', clock: ctx.clock ?? realClock, workers: ctx.workers, sync: (k) => sync(k) });
  const consider = (v: PV): void => {
    if (v.metadata?.deletionTimestamp && v.metadata.finalizers?.includes(PV_PROTECTION_FINALIZER)) loop.enqueueObj(v);
  };
  pvs.addEventHandler({ add: consider, update: (_o, v) => consider(v) });

  async function sync(key: string): Promise<void> {
    const [, name] = splitKey(key);
    const v = pvs.getByName('', name);
    if (!v?.metadata?.deletionTimestamp || !v.metadata.finalizers?.includes(PV_PROTECTION_FINALIZER)) return;
    if (v.status?.phase === 'Bound') return;
    try {
      await client.update(R.persistentvolumes, '', { ...v, metadata: { ...v.metadata, finalizers: v.metadata.finalizers.filter((f) => f !== PV_PROTECTION_FINALIZER) } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  informers.start();
  await informers.waitForSync();
  loop.run();
  return { stop: () => loop.stop() };
}

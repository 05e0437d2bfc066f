/**
 * VolumeRestrictions: rejects nodes where the pod's GCE PD / AWS EBS / iSCSI / RBD
 * volumes conflict with volumes of pods already there, and pods using a
 * ReadWriteOncePod PVC another pod already uses. PreFilter needs every referenced PVC
 * to exist (`persistentvolumeclaim "x" not found`, UnschedulableAndUnresolvable).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go
 */
import type { Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, Handle, PreFilterExtensions, PreFilterPlugin } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import { asStatus, Code, Status } from '../framework/status.js';
import { ActionType, QueueingHint, type ClusterEventWithHint, type PodInfo, type PreFilterResult } from '../framework/types.js';

export const Name = 'VolumeRestrictions';

const preFilterStateKey = 'PreFilter' + Name;

/** Reasons, as upstream. */
export const ErrReasonDiskConflict = 'node(s) had no available disk';
export const ErrReasonReadWriteOncePodConflict = 'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode';

/** The NotFound message of a PVC lister lookup (`persistentvolumeclaim "x" not found`). */
export function pvcNotFoundMessage(name: string): string {
  return `persistentvolumeclaim "${name}" not found`;
}

class PreFilterState implements StateData {
  constructor(
    /** `ns/name` of the pod's ReadWriteOncePod claims */
    readonly rwopPVCs: Set<string>,
    public conflictingPVCRefCount: number,
  ) {}
  clone(): StateData {
    return new PreFilterState(this.rwopPVCs, this.conflictingPVCRefCount);
  }
}

function needsRestrictionsCheck(v: Volume): boolean {
  return !!(v.gcePersistentDisk || v.awsElasticBlockStore || v.rbd || v.iscsi);
}

function overlap(a: string[] | undefined, b: string[] | undefined): boolean {
  const s = new Set(a ?? []);
  for (const x of b ?? []) if (s.has(x)) return true;
  return false;
}

/** Upstream isVolumeConflict: the same disk mounted where at least one mount is read-write. */
export function isVolumeConflict(v: Volume, pod: Pod): boolean {
  for (const e of pod.spec?.volumes ?? []) {
    if (v.gcePersistentDisk && e.gcePersistentDisk) {
      const a = v.gcePersistentDisk;
      const b = e.gcePersistentDisk;
      if (a.pdName === b.pdName && !(a.readOnly && b.readOnly)) return true;
    }
    if (v.awsElasticBlockStore && e.awsElasticBlockStore && v.awsElasticBlockStore.volumeID === e.awsElasticBlockStore.volumeID) return true;
    if (v.iscsi && e.iscsi) {
      if (v.iscsi.iqn === e.iscsi.iqn && !(v.iscsi.readOnly && e.iscsi.readOnly)) return true;
    }
    if (v.rbd && e.rbd) {
      const a = v.rbd;
      const b = e.rbd;
      if (overlap(a.monitors, b.monitors) && (a.pool ?? 'rbd') === (b.pool ?? 'rbd') && a.image === b.image && !(a.readOnly && b.readOnly)) return true;
    }
  }
  return false;
}

export class VolumeRestrictions implements PreFilterPlugin, FilterPlugin, PreFilterExtensions, EnqueueExtensions {
  readonly name = Name;

  constructor(private readonly handle: Handle) {}

  preFilter(state: CycleState, pod: Pod, _nodes: NodeInfo[]): [PreFilterResult | null, Status | null] {
    const vols = pod.spec?.volumes;
    if (!vols || vols.length === 0) return [null, new Status(Code.Skip)];
    let needsCheck = false;
    const rwop = new Set<string>();
    const ns = pod.metadata?.namespace ?? '';
    for (const v of vols) {
      if (needsRestrictionsCheck(v)) needsCheck = true;
      if (!v.persistentVolumeClaim) continue;
      const name = v.persistentVolumeClaim.claimName;
      const pvc = this.handle.listers.pvc(ns, name);
      if (!pvc) return [null, new Status(Code.UnschedulableAndUnresolvable, [pvcNotFoundMessage(name)])];
      if (pvc.spec?.accessModes?.includes('ReadWriteOncePod')) rwop.add(`${ns}/${name}`);
    }
    const snap = this.handle.snapshotSharedLister();
    let conflicts = 0;
    for (const k of rwop) if (snap.isPVCUsedByPods(k)) conflicts++;
    if (!needsCheck && conflicts === 0) return [null, new Status(Code.Skip)];
    state.write(preFilterStateKey, new PreFilterState(rwop, conflicts));
    return [null, null];
  }

  preFilterExtensions(): PreFilterExtensions {
    return this;
  }

  private update(state: CycleState, pi: PodInfo, delta: number): Status | null {
    const s = state.get<PreFilterState>(preFilterStateKey);
    if (!s) return asStatus(new Error(`error reading "${preFilterStateKey}" from cycleState: not found`));
    for (const k of pi.pvcKeys) if (s.rwopPVCs.has(k)) s.conflictingPVCRefCount += delta;
    return null;
  }

  addPod(state: CycleState, _pod: Pod, pi: PodInfo): Status | null {
    return this.update(state, pi, 1);
  }

  removePod(state: CycleState, _pod: Pod, pi: PodInfo): Status | null {
    return this.update(state, pi, -1);
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status | null {
    for (const v of pod.spec?.volumes ?? []) {
      if (!needsRestrictionsCheck(v)) continue;
      for (const ep of nodeInfo.pods) if (isVolumeConflict(v, ep.pod)) return new Status(Code.Unschedulable, [ErrReasonDiskConflict]);
    }
    const s = state.get<PreFilterState>(preFilterStateKey);
    if (!s) return asStatus(new Error(`error reading "${preFilterStateKey}" from cycleState: not found`));
    if (s.conflictingPVCRefCount > 0) return new Status(Code.Unschedulable, [ErrReasonReadWriteOncePodConflict]);
    return null;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Pod', actionType: ActionType.Delete, label: 'AssignedPodDelete' },
        queueingHintFn: (pod, oldObj) => {
          const deleted = oldObj as Pod | undefined;
          if (!deleted || (deleted.metadata?.namespace ?? '') !== (pod.metadata?.namespace ?? '')) return QueueingHint.QueueSkip;
          const claims = new Set((deleted.spec?.volumes ?? []).map((v) => v.persistentVolumeClaim?.claimName).filter(Boolean));
          for (const v of pod.spec?.volumes ?? []) {
            if (needsRestrictionsCheck(v) && isVolumeConflict(v, deleted)) return QueueingHint.Queue;
            if (v.persistentVolumeClaim && claims.has(v.persistentVolumeClaim.claimName)) return QueueingHint.Queue;
          }
          return QueueingHint.QueueSkip;
        },
      },
      { event: { resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' } },
      {
        event: { resource: 'PersistentVolumeClaim', actionType: ActionType.Add, label: 'PvcAdd' },
        queueingHintFn: (pod, _old, newObj) => {
          const pvc = newObj as { metadata?: { name?: string; namespace?: string } } | undefined;
          if (!pvc || (pvc.metadata?.namespace ?? '') !== (pod.metadata?.namespace ?? '')) return QueueingHint.QueueSkip;
          return (pod.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === pvc.metadata?.name) ? QueueingHint.Queue : QueueingHint.QueueSkip;
        },
      },
    ];
  }
}

export function New(_args: unknown, handle: Handle): VolumeRestrictions {
  return new VolumeRestrictions(handle);
}

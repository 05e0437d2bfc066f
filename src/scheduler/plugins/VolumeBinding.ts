/**
 * VolumeBinding (basics): PreFilter requires every PVC the pod uses to exist, not be
 * lost or deleting, and — unless its StorageClass binds WaitForFirstConsumer — to be
 * bound; Filter checks that bound PVs exist and their node affinity admits the node,
 * and that unbound WaitForFirstConsumer claims can be met on the node (a matching
 * available PV, or a StorageClass with a provisioner); PreBind marks claims to be
 * provisioned with `volume.kubernetes.io/selected-node` and binds the static PVs Filter
 * chose to their claims (the PV's claimRef, `pv.kubernetes.io/bound-by-controller`),
 * which the PV controller completes on the claim's side.
 *
 * Storage capacity tracking: a claim to be provisioned by a CSI driver whose CSIDriver
 * has `storageCapacity: true` fits a node only where a CSIStorageCapacity of its class
 * whose nodeTopology matches the node reports enough capacity (maximumVolumeSize when
 * set, else capacity).
 *
 * PreBind then waits (upstream BindPodVolumes/checkBindings, polling the informer
 * caches) until the PV controller and the provisioner have bound every such claim
 * (`spec.volumeName` and `pv.kubernetes.io/bind-completed`), so the pod reaches its node
 * with bound claims; a provisioner that gave up (it removes `selected-node`), a volume
 * whose claimRef was reset, a deleted pod or `bindTimeoutSeconds` (600) fail the
 * binding cycle (`binding volumes: …`) and the pod is scheduled again.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/volumebinding/volume_binding.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/volumebinding/binder.go
 */
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { KObject } from '../../api/resource.js';
import { R } from '../../client/types.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, Handle, PreBindPlugin, PreFilterPlugin } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import { resourceFromList } from '../framework/resource.js';
import { asStatus, Code, Status } from '../framework/status.js';
import { ActionType, type ClusterEventWithHint, type PreFilterResult } from '../framework/types.js';
import { CompiledNodeSelector } from './helper/node-affinity.js';
import { pvcNotFoundMessage } from './VolumeRestrictions.js';

export const Name = 'VolumeBinding';

const stateKey = Name;

/** Reasons, as upstream. */
export const ErrReasonBindConflict = "node(s) didn't find available persistent volumes to bind";
export const ErrReasonNodeConflict = 'node(s) had volume node affinity conflict';
export const ErrReasonPVNotExist = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const ErrUnboundImmediate = 'pod has unbound immediate PersistentVolumeClaims';
export const ErrReasonNotEnoughSpace = 'node(s) did not have enough free storage';
/** The annotation PreBind sets on claims to be provisioned for the chosen node. */
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';

class StateData_ implements StateData {
  constructor(
    readonly bound: PersistentVolumeClaim[],
    readonly delayed: PersistentVolumeClaim[],
    /** node name → claims to provision there (filled by Filter) */
    readonly toProvision = new Map<string, PersistentVolumeClaim[]>(),
    /** node name → static volumes to bind to claims there (filled by Filter) */
    readonly toBind = new Map<string, { pvc: PersistentVolumeClaim; pv: PersistentVolume }[]>(),
  ) {}
  clone(): StateData {
    return this;
  }
}

function pvNodeAffinityMatches(pv: PersistentVolume, node: Node): boolean {
  const req = pv.spec?.nodeAffinity?.required;
  if (!req) return true;
  return new CompiledNodeSelector(req).match(node);
}

/** Whether `pv` could satisfy `pvc` (class, access modes, capacity, not claimed by another). */
function pvMatches(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  if (pv.status?.phase && pv.status.phase !== 'Available') return false;
  if (pv.spec?.claimRef && (pv.spec.claimRef.name !== pvc.metadata?.name || pv.spec.claimRef.namespace !== pvc.metadata?.namespace)) return false;
  if ((pv.spec?.storageClassName ?? '') !== (pvc.spec?.storageClassName ?? '')) return false;
  for (const m of pvc.spec?.accessModes ?? []) if (!pv.spec?.accessModes?.includes(m)) return false;
  const want = pvc.spec?.resources?.requests?.storage;
  const have = pv.spec?.capacity?.storage;
  if (want && have) {
    const w = resourceFromList({ 'ephemeral-storage': want }).ephemeralStorage;
    const h = resourceFromList({ 'ephemeral-storage': have }).ephemeralStorage;
    if (h < w) return false;
  }
  return true;
}

/** The plugin's args (upstream VolumeBindingArgs). */
export interface VolumeBindingArgs {
  /** how long PreBind waits for the claims to be bound, s (default 600) */
  bindTimeoutSeconds?: number;
}

/** How often PreBind looks at the caches while it waits, ms: from the first to the last interval, doubling (upstream: every second). */
const BIND_POLL_FIRST_MS = 50;
const BIND_POLL_MAX_MS = 1000;

const rvNewer = (a: string | undefined, b: string | undefined): boolean => {
  // resourceVersions are opaque to clients but numeric in both storage backends
  if (!a || !b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return BigInt(a) > BigInt(b);
};

const fullyBound = (pvc: PersistentVolumeClaim): boolean => !!pvc.spec?.volumeName && Object.hasOwn(pvc.metadata?.annotations ?? {}, 'pv.kubernetes.io/bind-completed');

export class VolumeBinding implements PreFilterPlugin, FilterPlugin, PreBindPlugin, EnqueueExtensions {
  readonly name = Name;
  private readonly bindTimeoutMs: number;

  constructor(
    private readonly handle: Handle,
    args: VolumeBindingArgs = {},
  ) {
    this.bindTimeoutMs = (args.bindTimeoutSeconds ?? 600) * 1000;
  }

  private isDelayed(pvc: PersistentVolumeClaim): boolean {
    const cls = pvc.spec?.storageClassName;
    if (!cls) return false;
    return this.handle.listers.storageClass(cls)?.volumeBindingMode === 'WaitForFirstConsumer';
  }

  preFilter(state: CycleState, pod: Pod, _nodes: NodeInfo[]): [PreFilterResult | null, Status | null] {
    const vols = pod.spec?.volumes;
    const ns = pod.metadata?.namespace ?? '';
    const bound: PersistentVolumeClaim[] = [];
    const delayed: PersistentVolumeClaim[] = [];
    let immediateUnbound = false;
    let hasPVC = false;
    for (const v of vols ?? []) {
      let name: string;
      let ephemeral = false;
      if (v.persistentVolumeClaim) name = v.persistentVolumeClaim.claimName;
      else if (v.ephemeral) {
        name = `${pod.metadata?.name ?? ''}-${v.name}`;
        ephemeral = true;
      } else continue;
      hasPVC = true;
      const pvc = this.handle.listers.pvc(ns, name);
      if (!pvc) {
        const msg = ephemeral ? `waiting for ephemeral volume controller to create the persistentvolumeclaim "${name}"` : pvcNotFoundMessage(name);
        return [null, new Status(Code.UnschedulableAndUnresolvable, [msg])];
      }
      if (pvc.status?.phase === 'Lost') {
        return [null, new Status(Code.UnschedulableAndUnresolvable, [`persistentvolumeclaim "${name}" bound to non-existent persistentvolume "${pvc.spec?.volumeName ?? ''}"`])];
      }
      if (pvc.metadata?.deletionTimestamp) return [null, new Status(Code.UnschedulableAndUnresolvable, [`persistentvolumeclaim "${name}" is being deleted`])];
      if (ephemeral && !pvc.metadata?.ownerReferences?.some((o) => o.controller && o.uid === pod.metadata?.uid)) {
        return [null, new Status(Code.UnschedulableAndUnresolvable, [`PVC ${ns}/${name} was not created for pod ${ns}/${pod.metadata?.name ?? ''} (pod is not owner)`])];
      }
      if (pvc.spec?.volumeName) bound.push(pvc);
      else if (this.isDelayed(pvc)) delayed.push(pvc);
      else immediateUnbound = true;
    }
    if (!hasPVC) {
      state.write(stateKey, new StateData_([], []));
      return [null, new Status(Code.Skip)];
    }
    if (immediateUnbound) return [null, new Status(Code.UnschedulableAndUnresolvable, [ErrUnboundImmediate])];
    state.write(stateKey, new StateData_(bound, delayed));
    return [null, null];
  }

  filter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): Status | null {
    const s = state.get<StateData_>(stateKey);
    if (!s) return asStatus(new Error(`reading "${stateKey}" from cycleState: not found`));
    const node = nodeInfo.node!;
    const reasons: string[] = [];
    for (const pvc of s.bound) {
      const pv = this.handle.listers.pv(pvc.spec!.volumeName!);
      if (!pv) {
        if (!reasons.includes(ErrReasonPVNotExist)) reasons.push(ErrReasonPVNotExist);
        continue;
      }
      if (!pvNodeAffinityMatches(pv, node) && !reasons.includes(ErrReasonNodeConflict)) reasons.push(ErrReasonNodeConflict);
    }
    const provision: PersistentVolumeClaim[] = [];
    const bindings: { pvc: PersistentVolumeClaim; pv: PersistentVolume }[] = [];
    for (const pvc of s.delayed) {
      const cls = this.handle.listers.storageClass(pvc.spec!.storageClassName!);
      // each claim of the pod needs its own volume
      const staticPV = this.findPV(pvc, node, new Set(bindings.map((b) => b.pv.metadata?.name ?? '')));
      if (staticPV) {
        bindings.push({ pvc, pv: staticPV });
        continue;
      }
      const prov = cls?.provisioner;
      if (prov && prov !== 'kubernetes.io/no-provisioner' && allowedTopologiesMatch(cls?.allowedTopologies, node)) {
        if (this.hasEnoughCapacity(prov, pvc, node)) provision.push(pvc);
        else if (!reasons.includes(ErrReasonNotEnoughSpace)) reasons.push(ErrReasonNotEnoughSpace);
      } else if (!reasons.includes(ErrReasonBindConflict)) reasons.push(ErrReasonBindConflict);
    }
    if (reasons.length) return new Status(Code.UnschedulableAndUnresolvable, reasons);
    if (provision.length) s.toProvision.set(nodeInfo.name, provision);
    if (bindings.length) s.toBind.set(nodeInfo.name, bindings);
    return null;
  }

  /** upstream hasEnoughCapacity: only for CSI drivers that publish CSIStorageCapacity */
  private hasEnoughCapacity(provisioner: string, pvc: PersistentVolumeClaim, node: Node): boolean {
    const l = this.handle.listers;
    if (!l.csiDriver?.(provisioner)?.spec?.storageCapacity) return true;
    const cls = pvc.spec?.storageClassName ?? '';
    const want = resourceFromList({ 'ephemeral-storage': pvc.spec?.resources?.requests?.storage ?? '0' }).ephemeralStorage;
    return (l.csiStorageCapacities?.() ?? []).some((c) => {
      if (c.storageClassName !== cls) return false;
      const have = c.maximumVolumeSize ?? c.capacity;
      if (have === undefined || resourceFromList({ 'ephemeral-storage': have }).ephemeralStorage < want) return false;
      return labelSelectorMatches(c.nodeTopology, node.metadata?.labels ?? {});
    });
  }

  /** The smallest matching available volume the node can reach (upstream FindMatchingVolume with the node). */
  private findPV(pvc: PersistentVolumeClaim, node: Node, taken: Set<string> = new Set()): PersistentVolume | undefined {
    const size = (pv: PersistentVolume): number => resourceFromList({ 'ephemeral-storage': pv.spec?.capacity?.storage ?? '0' }).ephemeralStorage;
    const fits = this.handle.listers.pvs().filter((pv) => !taken.has(pv.metadata?.name ?? '') && pvMatches(pv, pvc) && pvNodeAffinityMatches(pv, node));
    return fits.sort((a, b) => size(a) - size(b))[0];
  }

  async preBind(state: CycleState, pod: Pod, nodeName: string): Promise<Status | null> {
    const s = state.get<StateData_>(stateKey);
    if (!s) return null;
    /** what this cycle wrote (or found already written): the objects to wait for */
    const bound: PersistentVolume[] = [];
    const provisioned: PersistentVolumeClaim[] = [];
    for (const { pvc, pv } of s.toBind.get(nodeName) ?? []) {
      const m = pvc.metadata ?? {};
      if (pv.spec?.claimRef?.uid === m.uid) {
        bound.push(pv);
        continue;
      }
      // upstream GetBindVolumeToClaim: a volume the user reserved for this claim was not bound by the controller
      const ref = pv.spec?.claimRef;
      const reserved = ref?.name === m.name && ref?.namespace === m.namespace && !ref?.uid;
      const annotations = reserved ? pv.metadata?.annotations : { ...(pv.metadata?.annotations ?? {}), 'pv.kubernetes.io/bound-by-controller': 'yes' };
      try {
        // a Conflict (another pod took the volume) fails this cycle; the pod is retried
        const written = await this.handle.client.update<PersistentVolume & KObject>(R.persistentvolumes, '', {
          apiVersion: 'v1',
          kind: 'PersistentVolume',
          ...pv,
          metadata: { ...pv.metadata, annotations },
          spec: { ...pv.spec, claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: m.namespace, name: m.name, uid: m.uid, resourceVersion: m.resourceVersion } },
        } as never);
        bound.push(written);
      } catch (e) {
        return asStatus(e);
      }
    }
    for (const pvc of s.toProvision.get(nodeName) ?? []) {
      if (pvc.metadata?.annotations?.[ANN_SELECTED_NODE] === nodeName) {
        provisioned.push(pvc);
        continue;
      }
      try {
        const written = await this.handle.client.patch<PersistentVolumeClaim & KObject>(
          R.persistentvolumeclaims,
          pvc.metadata?.namespace ?? '',
          pvc.metadata?.name ?? '',
          'merge',
          {
            metadata: { annotations: { [ANN_SELECTED_NODE]: nodeName } },
          },
        );
        provisioned.push(written);
      } catch (e) {
        return asStatus(e);
      }
    }
    if (bound.length === 0 && provisioned.length === 0) return null;
    return this.waitForBindings(pod, nodeName, bound, provisioned);
  }

  /**
   * Upstream BindPodVolumes' wait: polls {@link checkBindings} until every claim is fully
   * bound (null), a check fails, the scheduler stops or `bindTimeoutSeconds` pass
   * (a Code.Error status `binding volumes: …`).
   */
  private async waitForBindings(pod: Pod, nodeName: string, bound: PersistentVolume[], provisioned: PersistentVolumeClaim[]): Promise<Status | null> {
    const deadline = Date.now() + this.bindTimeoutMs;
    let interval = BIND_POLL_FIRST_MS;
    for (;;) {
      let done: boolean;
      try {
        done = this.checkBindings(pod, nodeName, bound, provisioned);
      } catch (e) {
        return asStatus(new Error(`binding volumes: ${(e as Error).message}`));
      }
      if (done) return null;
      if (this.handle.signal?.aborted) return asStatus(new Error('binding volumes: context canceled'));
      if (Date.now() >= deadline) return asStatus(new Error('binding volumes: context deadline exceeded'));
      await new Promise((r) => setTimeout(r, interval));
      interval = Math.min(interval * 2, BIND_POLL_MAX_MS);
    }
  }

  /**
   * Upstream checkBindings against the informer caches: true when all claims are fully
   * bound, false to keep waiting (also while the caches lag behind this cycle's writes).
   * @throws Error with upstream's texts when binding has to be retried
   */
  private checkBindings(pod: Pod, nodeName: string, bound: PersistentVolume[], provisioned: PersistentVolumeClaim[]): boolean {
    const l = this.handle.listers;
    const ns = pod.metadata?.namespace ?? '';
    if (!l.pod(ns, pod.metadata?.name ?? '')) throw new Error(`pod does not exist any more: pods "${pod.metadata?.name ?? ''}" not found`);
    for (const written of bound) {
      const name = written.metadata?.name ?? '';
      const pv = l.pv(name);
      if (!pv) throw new Error(`failed to check binding: cannot find PersistentVolume "${name}"`);
      if (rvNewer(written.metadata?.resourceVersion, pv.metadata?.resourceVersion)) return false;
      if (!pv.spec?.claimRef?.uid) throw new Error(`ClaimRef got reset for pv "${name}"`);
      const pvc = l.pvc(pv.spec.claimRef.namespace ?? '', pv.spec.claimRef.name ?? '');
      if (!pvc) throw new Error(`failed to check binding: cannot find PersistentVolumeClaim "${pv.spec.claimRef.namespace}/${pv.spec.claimRef.name}"`);
      if (!fullyBound(pvc)) return false;
    }
    for (const written of provisioned) {
      const m = written.metadata ?? {};
      const pvc = l.pvc(m.namespace ?? '', m.name ?? '');
      if (!pvc) throw new Error(`failed to check provisioning pvc: cannot find PersistentVolumeClaim "${m.namespace}/${m.name}"`);
      if (rvNewer(m.resourceVersion, pvc.metadata?.resourceVersion)) return false;
      // a provisioner that gave up removes the annotation to have the pod scheduled again
      if (pvc.metadata?.annotations?.[ANN_SELECTED_NODE] !== nodeName) throw new Error(`provisioning failed for PVC "${m.name}"`);
      if (!fullyBound(pvc)) return false;
    }
    return true;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      { event: { resource: 'StorageClass', actionType: ActionType.Add | ActionType.Update, label: 'StorageClassChange' } },
      { event: { resource: 'CSIDriver', actionType: ActionType.Add | ActionType.Update, label: 'CSIDriverChange' } },
      { event: { resource: 'CSIStorageCapacity', actionType: ActionType.Add | ActionType.Update, label: 'CSIStorageCapacityChange' } },
      { event: { resource: 'PersistentVolumeClaim', actionType: ActionType.Add | ActionType.Update, label: 'PvcChange' } },
      { event: { resource: 'PersistentVolume', actionType: ActionType.Add | ActionType.Update, label: 'PvChange' } },
      { event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint, label: 'NodeChange' } },
    ];
  }
}

/** A metav1.LabelSelector against labels (nil selects nothing, as for CSIStorageCapacity.nodeTopology). */
function labelSelectorMatches(sel: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!sel) return false;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const v = labels[e.key];
    const vals = e.values ?? [];
    if (e.operator === 'In' && (v === undefined || !vals.includes(v))) return false;
    if (e.operator === 'NotIn' && v !== undefined && vals.includes(v)) return false;
    if (e.operator === 'Exists' && v === undefined) return false;
    if (e.operator === 'DoesNotExist' && v !== undefined) return false;
  }
  return true;
}

function allowedTopologiesMatch(topos: { matchLabelExpressions?: { key: string; values: string[] }[] }[] | undefined, node: Node): boolean {
  if (!topos || topos.length === 0) return true;
  const l = node.metadata?.labels ?? {};
  return topos.some((t) => (t.matchLabelExpressions ?? []).every((e) => e.values.includes(l[e.key] ?? '\x00')));
}

export function New(args: unknown, handle: Handle): VolumeBinding {
  return new VolumeBinding(handle, (args ?? {}) as VolumeBindingArgs);
}

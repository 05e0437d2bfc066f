/**
 * Read access to the cluster objects plugins consult besides pods and nodes (upstream
 * plugins use informer listers from the SharedInformerFactory): namespaces (for
 * namespaceSelector), Services / ReplicaSets / StatefulSets / ReplicationControllers
 * (PodTopologySpread's default constraints), PVCs / PVs / StorageClasses (volume
 * plugins) and PodDisruptionBudgets (preemption). The scheduler backs these with
 * informers; tests use {@link staticListers}.
 */
import type { Namespace, PersistentVolume, PersistentVolumeClaim, Pod, ReplicationController, Service } from 'kubernetes-types/core/v1.js';
import type { ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { CSIDriver, CSIStorageCapacity, StorageClass } from 'kubernetes-types/storage/v1.js';

export interface ClusterListers {
  namespace(name: string): Namespace | undefined;
  namespaces(): Namespace[];
  services(namespace: string): Service[];
  replicaSet(namespace: string, name: string): ReplicaSet | undefined;
  statefulSet(namespace: string, name: string): StatefulSet | undefined;
  replicationController(namespace: string, name: string): ReplicationController | undefined;
  pvc(namespace: string, name: string): PersistentVolumeClaim | undefined;
  pv(name: string): PersistentVolume | undefined;
  pvs(): PersistentVolume[];
  storageClass(name: string): StorageClass | undefined;
  /** CSIDriver objects (VolumeBinding's storage capacity check) */
  csiDriver?(name: string): CSIDriver | undefined;
  /** every CSIStorageCapacity (VolumeBinding's storage capacity check) */
  csiStorageCapacities?(): CSIStorageCapacity[];
  pdbs(): PodDisruptionBudget[];
  /** the latest version of a pod the scheduler watches (pending or assigned) */
  pod(namespace: string, name: string): Pod | undefined;
}

/** Objects for {@link staticListers}. */
export interface StaticObjects {
  namespaces?: Namespace[];
  services?: Service[];
  replicaSets?: ReplicaSet[];
  statefulSets?: StatefulSet[];
  replicationControllers?: ReplicationController[];
  pvcs?: PersistentVolumeClaim[];
  pvs?: PersistentVolume[];
  storageClasses?: StorageClass[];
  csiDrivers?: CSIDriver[];
  csiStorageCapacities?: CSIStorageCapacity[];
  pdbs?: PodDisruptionBudget[];
  pods?: Pod[];
}

const byNsName = <T extends { metadata?: { namespace?: string; name?: string } }>(l: T[] | undefined, ns: string, name: string): T | undefined =>
  l?.find((o) => (o.metadata?.namespace ?? '') === ns && o.metadata?.name === name);

/** Listers over fixed lists (tests, tools). */
export function staticListers(o: StaticObjects = {}): ClusterListers {
  return {
    namespace: (name) => o.namespaces?.find((n) => n.metadata?.name === name),
    namespaces: () => o.namespaces ?? [],
    services: (ns) => (o.services ?? []).filter((s) => s.metadata?.namespace === ns),
    replicaSet: (ns, name) => byNsName(o.replicaSets, ns, name),
    statefulSet: (ns, name) => byNsName(o.statefulSets, ns, name),
    replicationController: (ns, name) => byNsName(o.replicationControllers, ns, name),
    pvc: (ns, name) => byNsName(o.pvcs, ns, name),
    pv: (name) => o.pvs?.find((p) => p.metadata?.name === name),
    pvs: () => o.pvs ?? [],
    storageClass: (name) => o.storageClasses?.find((p) => p.metadata?.name === name),
    csiDriver: (name) => o.csiDrivers?.find((p) => p.metadata?.name === name),
    csiStorageCapacities: () => o.csiStorageCapacities ?? [],
    pdbs: () => o.pdbs ?? [],
    pod: (ns, name) => byNsName(o.pods, ns, name),
  };
}

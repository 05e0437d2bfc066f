/**
 * The scheduler's informers and the listers built on them: pods (non-terminal, one
 * watch for pending and assigned pods, as upstream's scheduler informer), nodes, and
 * the objects plugins read — namespaces, Services, ReplicaSets, StatefulSets,
 * ReplicationControllers, PVCs, PVs, StorageClasses, PodDisruptionBudgets. Resources
 * the API server does not serve are skipped (their listers are empty).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/scheduler.go (NewInformerFactory)
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import { StatusError } from '../apimachinery/errors.js';
import { Informer } from '../client/informer.js';
import { R, type Client, type ResourceRef } from '../client/types.js';
import type { ClusterListers } from './framework/listers.js';

export type PodObj = Pod & KObject;
export type NodeObj = Node & KObject;

/** Resources beyond the well-known `R` set. */
export const SR = {
  storageclasses: { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', kind: 'StorageClass', namespaced: false },
  csidrivers: { group: 'storage.k8s.io', version: 'v1', resource: 'csidrivers', kind: 'CSIDriver', namespaced: false },
  csistoragecapacities: { group: 'storage.k8s.io', version: 'v1', resource: 'csistoragecapacities', kind: 'CSIStorageCapacity', namespaced: true },
  poddisruptionbudgets: { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true },
  replicasets: { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true },
  statefulsets: { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true },
  replicationcontrollers: { group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController', namespaced: true },
} as const satisfies Record<string, ResourceRef>;

/** The optional informers, by name. */
export const OPTIONAL = {
  namespaces: R.namespaces,
  services: R.services,
  persistentvolumeclaims: R.persistentvolumeclaims,
  persistentvolumes: R.persistentvolumes,
  storageclasses: SR.storageclasses,
  csidrivers: SR.csidrivers,
  csistoragecapacities: SR.csistoragecapacities,
  poddisruptionbudgets: SR.poddisruptionbudgets,
  replicasets: SR.replicasets,
  statefulsets: SR.statefulsets,
  replicationcontrollers: SR.replicationcontrollers,
} as const;
export type OptionalName = keyof typeof OPTIONAL;

/** Field selector of the pod informer: every pod that is not terminal. */
export const POD_FIELD_SELECTOR = 'status.phase!=Succeeded,status.phase!=Failed';

/**
 * The pod informer's transform: drops `metadata.managedFields`, which the scheduler never
 * reads, so its cache does not keep them (upstream newPodInformer's trim). An object
 * shared with other in-process readers (frozen, on the loopback transport) is kept as
 * it is: it is held once for all of them, and a copy would cost more than it saves.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/scheduler.go (newPodInformer)
 */
export function dropManagedFields(obj: KObject): KObject {
  const m = obj.metadata;
  // set to undefined rather than deleted: the object keeps its shape (a deleted member
  // would turn metadata into a slow dictionary-mode object for every later read)
  if (m?.managedFields !== undefined && !Object.isFrozen(m)) m.managedFields = undefined;
  return obj;
}

export class SchedulerInformers {
  readonly pods: Informer<PodObj>;
  readonly nodes: Informer<NodeObj>;
  readonly optional = new Map<OptionalName, Informer>();

  constructor(private readonly client: Client) {
    this.pods = new Informer<PodObj>(client, R.pods, { fieldSelector: POD_FIELD_SELECTOR, transform: dropManagedFields });
    this.nodes = new Informer<NodeObj>(client, R.nodes);
  }

  /**
   * Creates the informers of the optional resources the server serves (a list with
   * limit 1 answering 404 means it does not). Call before `start()`.
   */
  async probe(names: OptionalName[] = Object.keys(OPTIONAL) as OptionalName[]): Promise<void> {
    await Promise.all(
      names.map(async (n) => {
        try {
          await this.client.list(OPTIONAL[n], '', { limit: 1 });
          this.optional.set(n, new Informer(this.client, OPTIONAL[n]));
        } catch (e) {
          if (e instanceof StatusError && (e.code === 404 || e.code === 403)) return;
          this.optional.set(n, new Informer(this.client, OPTIONAL[n]));
        }
      }),
    );
  }

  private all(): Informer[] {
    return [this.nodes as Informer, ...this.optional.values(), this.pods as Informer];
  }

  /** Starts every informer and waits for their first lists. */
  async start(): Promise<void> {
    for (const i of this.all()) i.start();
    await Promise.all(this.all().map((i) => i.waitForSync()));
  }

  stop(): void {
    for (const i of this.all()) i.stop();
  }

  /** Listers over the informer stores. */
  listers(): ClusterListers {
    const get = <T>(n: OptionalName, ns: string, name: string): T | undefined => this.optional.get(n)?.getByName(ns, name) as T | undefined;
    const list = <T>(n: OptionalName): T[] => (this.optional.get(n)?.list() ?? []) as T[];
    return {
      namespace: (name) => get('namespaces', '', name),
      namespaces: () => list('namespaces'),
      services: (ns) => list<{ metadata?: { namespace?: string } }>('services').filter((s) => s.metadata?.namespace === ns) as never,
      replicaSet: (ns, name) => get('replicasets', ns, name),
      statefulSet: (ns, name) => get('statefulsets', ns, name),
      replicationController: (ns, name) => get('replicationcontrollers', ns, name),
      pvc: (ns, name) => get('persistentvolumeclaims', ns, name),
      pv: (name) => get('persistentvolumes', '', name),
      pvs: () => list('persistentvolumes'),
      storageClass: (name) => get('storageclasses', '', name),
      csiDriver: (name) => get('csidrivers', '', name),
      csiStorageCapacities: () => list('csistoragecapacities'),
      pdbs: () => list('poddisruptionbudgets'),
      pod: (ns, name) => this.pods.getByName(ns, name),
    };
  }
}

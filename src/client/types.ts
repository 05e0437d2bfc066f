/**
 * The client every component (scheduler, controllers, kubelet) uses to reach the API
 * server: typed REST verbs, watches, informers. Components never touch storage.
 *
 * @see https://github.com/kubernetes/client-go
 */
import type { KObject } from '../api/resource.js';

/** Identifies a resource to the client. */
export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
}

/** Well-known resources. */
export const R = {
  pods: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true },
  nodes: { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false },
  namespaces: { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false },
  events: { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true },
  configmaps: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
  secrets: { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true },
  services: { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true },
  endpoints: { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true },
  serviceaccounts: { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  persistentvolumeclaims: { group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true },
  persistentvolumes: { group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false },
  leases: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true },
  endpointslices: { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true },
  priorityclasses: { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', namespaced: false },
} as const satisfies Record<string, ResourceRef>;

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** watch changes after this resourceVersion */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
}

export interface KList<T extends KObject = KObject> {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T extends KObject = KObject> {
  type: WatchEventType;
  object: T;
}

export interface WatchHandle {
  stop(): void;
  /** resolves when the stream ends (server closed, error, or stop()) */
  done: Promise<void>;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
}

/**
 * A typed REST client. Every method rejects with a `StatusError` (from
 * src/apimachinery/errors.ts) carrying the server's metav1.Status.
 * `ns` is ignored for cluster-scoped resources (pass '').
 */
export interface Client {
  get<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string, opts?: { subresource?: string }): Promise<T>;
  list<T extends KObject = KObject>(r: ResourceRef, ns: string, opts?: ListOptions): Promise<KList<T>>;
  create<T extends KObject = KObject>(r: ResourceRef, ns: string, obj: T, opts?: WriteOptions): Promise<T>;
  update<T extends KObject = KObject>(r: ResourceRef, ns: string, obj: T, opts?: WriteOptions & { subresource?: string }): Promise<T>;
  patch<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string, type: PatchType, patch: unknown, opts?: WriteOptions & { subresource?: string }): Promise<T>;
  /** Returns the object (with deletionTimestamp when graceful) or a Status. */
  delete(r: ResourceRef, ns: string, name: string, opts?: DeleteOptions): Promise<KObject>;
  deleteCollection(r: ResourceRef, ns: string, opts?: ListOptions & DeleteOptions): Promise<KObject>;
  /** POST to a subresource, e.g. pods/binding, pods/eviction. */
  createSubresource<T extends KObject = KObject>(r: ResourceRef, ns: string, name: string, subresource: string, body: KObject): Promise<T>;
  /** Starts a watch; `onEvent` is called for each event in order. */
  watch<T extends KObject = KObject>(r: ResourceRef, ns: string, opts: WatchOptions, onEvent: (e: WatchEvent<T>) => void): WatchHandle;
  /** Raw GET of a path (e.g. /version, pods/x/log), returning the body as text. */
  raw(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }>;
}

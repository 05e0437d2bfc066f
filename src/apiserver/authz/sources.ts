/**
 * Feeds the authorizers from the API server's own watch caches (upstream feeds them from
 * shared informers): an {@link RBACSource} over the four RBAC stores, and the Node
 * authorizer's graph over pods and PersistentVolumeClaims.
 */
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { Store } from '../registry/store.js';
import type { StoreLookup } from '../subresources/types.js';
import type { NodeGraph } from './node-graph.js';
import type { RBACSource } from './rbac/resolver.js';

const G = 'rbac.authorization.k8s.io';

/** RBAC objects read from the stores' watch caches; usable (empty) before `attach`. */
export class StoreRBACSource implements RBACSource {
  generation = 0;
  private roles?: Store;
  private clusterRoles?: Store;
  private roleBindings?: Store;
  private clusterRoleBindings?: Store;
  private crbList?: ClusterRoleBinding[];

  attach(stores: StoreLookup): void {
    this.roles = stores.store(G, 'roles');
    this.clusterRoles = stores.store(G, 'clusterroles');
    this.roleBindings = stores.store(G, 'rolebindings');
    this.clusterRoleBindings = stores.store(G, 'clusterrolebindings');
    const bump = { onEvent: () => this.changed() };
    for (const s of [this.roles, this.clusterRoles, this.roleBindings, this.clusterRoleBindings]) s?.cache.addListener(bump);
    // the initial load does not emit events: bump once each cache has loaded
    for (const s of [this.roles, this.clusterRoles, this.roleBindings, this.clusterRoleBindings])
      void s?.cache.start().then(
        () => this.changed(),
        () => undefined,
      );
    this.changed();
  }

  private changed(): void {
    this.generation++;
    this.crbList = undefined;
  }

  getRole(ns: string, name: string): Role | undefined {
    const s = this.roles;
    return s ? (s.cache.get(s.key(ns, name))?.obj as Role | undefined) : undefined;
  }
  getClusterRole(name: string): ClusterRole | undefined {
    const s = this.clusterRoles;
    return s ? (s.cache.get(s.key('', name))?.obj as ClusterRole | undefined) : undefined;
  }
  listClusterRoleBindings(): readonly ClusterRoleBinding[] {
    const s = this.clusterRoleBindings;
    if (!s) return [];
    return (this.crbList ??= s.cache.list(s.prefix).map((o) => o.obj as unknown as ClusterRoleBinding));
  }
  listRoleBindings(ns: string): readonly RoleBinding[] {
    const s = this.roleBindings;
    return s ? s.cache.list(s.listPrefix(ns)).map((o) => o.obj as unknown as RoleBinding) : [];
  }
}

/** Keeps `graph` current from the pods and persistentvolumeclaims caches. */
export function feedNodeGraph(graph: NodeGraph, stores: StoreLookup): void {
  const pods = stores.store('', 'pods');
  if (pods) {
    pods.cache.addListener({
      onEvent: (ev) => graph.setPod(ev.object.key, ev.type === 'DELETED' ? undefined : (ev.object.obj as Pod)),
    });
    void pods.cache.start().then(
      () => {
        for (const o of pods.cache.list(pods.prefix)) graph.setPod(o.key, o.obj as Pod);
      },
      () => undefined,
    );
  }
  const pvcs = stores.store('', 'persistentvolumeclaims');
  if (pvcs) {
    pvcs.cache.addListener({ onEvent: (ev) => graph.setPVC(ev.object.obj as PersistentVolumeClaim, ev.type === 'DELETED') });
    void pvcs.cache.start().then(
      () => {
        for (const o of pvcs.cache.list(pvcs.prefix)) graph.setPVC(o.obj as PersistentVolumeClaim, false);
      },
      () => undefined,
    );
  }
}

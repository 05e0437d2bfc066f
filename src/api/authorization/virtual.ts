/**
 * Create-only resources that are computed, never stored (upstream rest.Creater without
 * storage): the access reviews, TokenReview, SelfSubjectReview. Their definitions give
 * discovery and OpenAPI; the security filter answers their POSTs.
 */
import { newMethodNotSupported } from '../../apimachinery/errors.js';
import type { KObject, ResourceDefinition, UserInfo } from '../resource.js';

/** Serves POST of one computed resource. */
export interface VirtualResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /**
   * Computes the response object from the request body (already decoded, kind checked).
   * @throws StatusError (Invalid, BadRequest…)
   */
  create?(body: KObject, ctx: { user: UserInfo; namespace: string; dryRun?: boolean }): Promise<KObject>;
  /**
   * Computed reads (componentstatuses, podtraces): the definition gives the table printer;
   * `get` returns undefined for an unknown name (404). `namespace` is '' for cluster-scoped
   * resources and for lists across all namespaces.
   */
  read?: {
    def: ResourceDefinition;
    get(name: string, namespace: string): Promise<KObject | undefined>;
    list(namespace: string): Promise<KObject[]>;
    /**
     * Watch (optional): calls `send` for every change in `namespace` ('' = all) from now on
     * (DELETED with the object's last state) until the returned function is called.
     */
    watch?(namespace: string, send: (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KObject) => void): () => void;
  };
}

/** A create-only definition for discovery; writing it through the generic store is refused. */
export function virtualDefinition(v: Pick<VirtualResource, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'>, schemaRef: string): ResourceDefinition {
  return {
    group: v.group,
    version: v.version,
    kind: v.kind,
    listKind: `${v.kind}List`,
    resource: v.resource,
    singular: v.kind.toLowerCase(),
    namespaced: v.namespaced,
    verbs: ['create'],
    schemaRef,
    hooks: {
      beforeCreate: async () => {
        throw newMethodNotSupported({ group: v.group, resource: v.resource }, 'create');
      },
    },
  };
}

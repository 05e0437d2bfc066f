/**
 * The Node authorizer: requests from kubelets (user `system:node:<name>` in group
 * `system:nodes`) may read only the Secrets, ConfigMaps, PersistentVolume(Claim)s,
 * ServiceAccount tokens and pods reachable from pods bound to that node, and otherwise
 * what the system:node rules allow. Writes are narrowed further by the NodeRestriction
 * admission plugin.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/auth/authorizer/node/node_authorizer.go
 * @see https://kubernetes.io/docs/reference/access-authn-authz/node/
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { AuthorizationAttributes } from '../apiserver.js';
import { nodeRules } from './bootstrap-policy.js';
import type { NodeGraph, VertexType } from './node-graph.js';
import { rulesAllow } from './rbac/rules.js';
import type { Decision, DecisionAuthorizer } from './types.js';

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';

/** The node name of a kubelet identity, or undefined when `user` is not a node. */
export function nodeIdentity(user: { username: string; groups: string[] }): string | undefined {
  if (!user.groups.includes(NODES_GROUP) || !user.username.startsWith(NODE_USER_PREFIX)) return undefined;
  const n = user.username.slice(NODE_USER_PREFIX.length);
  return n || undefined;
}

/** Authorization attributes may carry the request's field selector (AuthorizeNodeWithSelectors). */
type WithSelector = AuthorizationAttributes & { fieldSelector?: string };

const NO_OPINION: Decision = { decision: 'NoOpinion', reason: '' };
const ALLOW: Decision = { decision: 'Allow', reason: '' };

export class NodeAuthorizer implements DecisionAuthorizer {
  readonly name = 'Node';
  private readonly rules: PolicyRule[] = nodeRules();
  constructor(private readonly graph: NodeGraph) {}

  decide(a: WithSelector): Decision {
    const node = nodeIdentity(a.user);
    if (!node) return NO_OPINION;
    if (a.isResourceRequest) {
      const g = a.apiGroup;
      if (g === '') {
        switch (a.resource) {
          case 'secrets':
            return this.readNamespaced(node, 'secret', a);
          case 'configmaps':
            return this.readNamespaced(node, 'configmap', a);
          case 'persistentvolumeclaims':
            if (a.subresource === 'status') return this.statusUpdate(node, 'pvc', a);
            return this.get(node, 'pvc', a);
          case 'persistentvolumes':
            return this.get(node, 'pv', a);
          case 'serviceaccounts':
            return this.createToken(node, a);
          case 'pods':
            if (!a.subresource && (a.verb === 'get' || a.verb === 'list' || a.verb === 'watch')) return this.pods(node, a);
            break;
        }
      } else if (g === 'coordination.k8s.io' && a.resource === 'leases') {
        return this.lease(node, a);
      }
    }
    return rulesAllow(a, this.rules) ? ALLOW : NO_OPINION;
  }

  private related(node: string, type: VertexType, a: AuthorizationAttributes): Decision {
    if (!a.name) return { decision: 'NoOpinion', reason: 'No Object name found' };
    if (this.graph.hasPath(node, type, type === 'pv' ? '' : a.namespace, a.name)) return ALLOW;
    return { decision: 'NoOpinion', reason: `no relationship found between node '${node}' and this object` };
  }

  private get(node: string, type: VertexType, a: AuthorizationAttributes): Decision {
    if (a.verb !== 'get') return { decision: 'NoOpinion', reason: 'can only get individual resources of this type' };
    if (a.subresource) return { decision: 'NoOpinion', reason: 'cannot get subresource' };
    return this.related(node, type, a);
  }

  private readNamespaced(node: string, type: VertexType, a: WithSelector): Decision {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') {
      return { decision: 'NoOpinion', reason: 'can only read resources of this type' };
    }
    if (a.subresource) return { decision: 'NoOpinion', reason: 'cannot read subresource' };
    if (!a.namespace) return { decision: 'NoOpinion', reason: 'can only read namespaced object of this type' };
    if (a.verb !== 'get' && !a.name) {
      const m = /(?:^|,)metadata\.name=([^,]+)/.exec(a.fieldSelector ?? '');
      if (!m) return { decision: 'NoOpinion', reason: 'No Object name found' };
      return this.related(node, type, { ...a, name: m[1]! });
    }
    return this.related(node, type, a);
  }

  private statusUpdate(node: string, type: VertexType, a: AuthorizationAttributes): Decision {
    if (a.verb !== 'update' && a.verb !== 'patch') return { decision: 'NoOpinion', reason: 'can only get/update/patch this type' };
    if (a.subresource !== 'status') return { decision: 'NoOpinion', reason: 'can only update status subresource' };
    return this.related(node, type, a);
  }

  private createToken(node: string, a: AuthorizationAttributes): Decision {
    if (a.verb !== 'create' || !a.name) return { decision: 'NoOpinion', reason: 'can only create tokens for individual service accounts' };
    if (a.subresource !== 'token') return { decision: 'NoOpinion', reason: 'can only create token subresource of serviceaccount' };
    return this.related(node, 'serviceaccount', a);
  }

  private lease(node: string, a: AuthorizationAttributes): Decision {
    const verbs = ['get', 'create', 'update', 'patch', 'delete'];
    if (!verbs.includes(a.verb)) return { decision: 'NoOpinion', reason: `can only get, create, update, patch, or delete a node lease` };
    if (a.namespace !== 'kube-node-lease') return { decision: 'NoOpinion', reason: 'can only access leases in the kube-node-lease namespace' };
    if (a.verb !== 'create' && a.name !== node) return { decision: 'NoOpinion', reason: 'can only access node lease with the same name as the requesting node' };
    return ALLOW;
  }

  private pods(node: string, a: WithSelector): Decision {
    if (a.verb === 'get') return this.related(node, 'pod', a);
    // list/watch: only with spec.nodeName=<node>; when the server does not pass the
    // selector (undefined) the static rules apply
    if (a.fieldSelector === undefined) return rulesAllow(a, this.rules) ? ALLOW : NO_OPINION;
    // one of the selector's comma-separated terms is exactly spec.nodeName=<node>
    if (a.fieldSelector.split(',').includes(`spec.nodeName=${node}`)) return ALLOW;
    if (a.name) return this.related(node, 'pod', a);
    return { decision: 'NoOpinion', reason: 'can only list/watch pods with spec.nodeName field selector' };
  }
}

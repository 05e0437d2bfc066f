/**
 * The client one controller of the controller manager uses, split as upstream's
 * `--use-service-account-credentials`: lists and watches (the shared informers) as
 * `system:kube-controller-manager`, everything else as the controller's own
 * ServiceAccount `system:serviceaccount:kube-system:<name>`, whose RBAC role
 * (`system:controller:<name>`) grants exactly what that controller needs.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/rbac/#controller-roles
 */
import type { UserInfo } from '../../api/resource.js';
import type { Client } from '../../client/types.js';

/** The user of the ServiceAccount `kube-system/<name>` (upstream serviceaccount.UserInfo). */
function controllerServiceAccount(name: string): UserInfo {
  return {
    username: `system:serviceaccount:kube-system:${name}`,
    groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
  };
}

/**
 * @param clientFor a client acting as a given user (the all-in-one server's loopback)
 * @param name the controller's name, e.g. `deployment-controller`
 */
export function controllerClient(clientFor: (u: UserInfo) => Client, name: string): Client {
  const informers = clientFor({ username: 'system:kube-controller-manager', groups: ['system:authenticated'] });
  const own = clientFor(controllerServiceAccount(name));
  return {
    get: (r, ns, n, o) => own.get(r, ns, n, o),
    list: (r, ns, o) => informers.list(r, ns, o),
    watch: (r, ns, o, cb) => informers.watch(r, ns, o, cb),
    create: (r, ns, obj, o) => own.create(r, ns, obj, o),
    update: (r, ns, obj, o) => own.update(r, ns, obj, o),
    patch: (r, ns, n, t, p, o) => own.patch(r, ns, n, t, p, o),
    delete: (r, ns, n, o) => own.delete(r, ns, n, o),
    deleteCollection: (r, ns, o) => own.deleteCollection(r, ns, o),
    createSubresource: (r, ns, n, sub, body) => own.createSubresource(r, ns, n, sub, body),
    raw: (m, path, body) => (m === 'GET' ? informers : own).raw(m, path, body),
  };
}

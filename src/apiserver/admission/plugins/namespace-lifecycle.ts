/**
 * NamespaceLifecycle admission: objects can only be created in namespaces that exist
 * and are not terminating; the immortal namespaces (default, kube-system, kube-public)
 * cannot be deleted.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#namespacelifecycle
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/admission/plugin/namespace/lifecycle/admission.go
 */
import { newForbidden, newNotFound } from '../../../apimachinery/errors.js';
import type { AdmissionPlugin } from '../types.js';

const immortal = new Set(['default', 'kube-system', 'kube-public']);
/** Resources that may be created without a namespace object (access reviews). */
const exempt = new Set(['subjectaccessreviews', 'selfsubjectaccessreviews', 'localsubjectaccessreviews', 'tokenreviews']);

export const namespaceLifecycle: AdmissionPlugin = {
  name: 'NamespaceLifecycle',
  async admit(a, lookup) {
    const gr = { group: a.resource.group, resource: a.resource.resource };
    if (a.operation === 'DELETE' && a.resource.group === '' && a.resource.resource === 'namespaces') {
      if (immortal.has(a.name)) throw newForbidden(gr, a.name, 'this namespace may not be deleted');
      return;
    }
    if (a.operation !== 'CREATE' || !a.namespace || exempt.has(a.resource.resource)) return;
    const ns = await lookup.get({ group: '', version: 'v1', resource: 'namespaces' }, '', a.namespace);
    if (!ns) throw newNotFound({ group: '', resource: 'namespaces' }, a.namespace);
    const phase = (ns.status as { phase?: string } | undefined)?.phase;
    if (phase === 'Terminating' || ns.metadata?.deletionTimestamp) {
      if (a.resource.resource === 'events') return;
      throw newForbidden(gr, a.name, `unable to create new content in namespace ${a.namespace} because it is being terminated`);
    }
  },
};

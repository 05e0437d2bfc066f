/**
 * pods/binding: assigns a pod to a node (what the scheduler's DefaultBinder posts).
 * Sets spec.nodeName, merges the Binding's annotations, and marks PodScheduled=True,
 * bypassing the pod update strategy (nodeName is otherwise immutable).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/core/pod/storage/storage.go (BindingREST)
 */
import type { Obj } from '../../api/resource.js';
import { newBadRequest, newConflict, newInvalid, successStatus } from '../../apimachinery/errors.js';
import { writeJSON } from '../http/respond.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { applyPodBinding, copyForBinding, validatePodBinding } from '../../api/core/v1/pod/binding.js';
import { createRequest } from './request.js';
import type { SubresourceHandler } from './types.js';
import type { VirtualResource } from '../../api/authorization/virtual.js';
import type { StoreConsumer } from '../apiserver.js';
import type { Store } from '../registry/store.js';

interface Binding {
  metadata?: { name?: string; namespace?: string; uid?: string; annotations?: Record<string, string> };
  target?: { kind?: string; name?: string; apiVersion?: string };
}

export const podBinding: SubresourceHandler = {
  group: '',
  version: 'v1',
  resource: 'pods',
  subresource: 'binding',
  responseKind: { group: '', version: 'v1', kind: 'Binding' },
  verbs: ['create'],
  async handle(c) {
    const { body: b, dryRun } = createRequest<Binding>(c, { group: '', version: 'v1', kind: 'Binding' });
    const name = c.info.name;
    const ns = c.info.namespace;
    if (b.metadata?.name && b.metadata.name !== name) throw newBadRequest('name in URL does not match name in Binding object');
    if (b.metadata?.namespace && b.metadata.namespace !== ns) {
      throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    // admission sees the v1 Binding (upstream's create handler and BindingREST.Create)
    const admitted = { apiVersion: 'v1', kind: 'Binding', ...b, metadata: { ...b.metadata, namespace: ns } };
    const user = c.req.user ?? { username: 'system:anonymous', groups: ['system:unauthenticated'] };
    await c.store.admitRequest({
      operation: 'CREATE',
      namespace: ns,
      name,
      subresource: 'binding',
      kind: { group: '', version: 'v1', kind: 'Binding' },
      object: admitted,
      user,
      dryRun,
    });
    await bindPod(c.store, ns, name, admitted as Binding, c.now, dryRun, 'pods/binding');
    writeJSON(c.res, 201, { ...successStatus(), code: 201 });
  },
};

/**
 * Validates a Binding and assigns pod `name` to its target node (upstream BindingREST.Create).
 * @throws StatusError Invalid for a malformed Binding, Conflict for a UID mismatch or an already bound pod, NotFound for a missing pod
 */
export async function bindPod(pods: Pick<Store, 'guaranteedUpdate'>, ns: string, name: string, b: Binding, now: Date, dryRun: boolean, resource: string): Promise<void> {
  const errs = validatePodBinding({ metadata: b.metadata, target: b.target ?? {} });
  if (errs.length) throw newInvalid({ group: '', kind: 'Binding' }, name, errs);
  const gr = { group: '', resource };
  await pods.guaranteedUpdate(
    ns,
    name,
    (pod: Obj) => {
      if (b.metadata?.uid && b.metadata.uid !== pod.metadata.uid) {
        throw newConflict(gr, name, `Precondition failed: UID in precondition: ${b.metadata.uid}, UID in object meta: ${pod.metadata.uid ?? ''}`);
      }
      const err = applyPodBinding(pod as Pod, b.target!.name!, b.metadata?.annotations, now);
      if (err) throw newConflict(gr, name, err);
      return pod;
    },
    dryRun,
    copyForBinding as (stored: Obj) => Obj,
  );
}

/**
 * The legacy `bindings` resource: POST /api/v1/namespaces/{ns}/bindings with the pod's
 * name in the Binding's metadata binds that pod, as pods/{name}/binding does (upstream
 * serves both with the pod registry's BindingREST). A store consumer: the pod store is
 * taken from the API server on attach.
 */
export function bindingsResource(): VirtualResource & StoreConsumer {
  let pods: Store | undefined;
  return {
    group: '',
    version: 'v1',
    resource: 'bindings',
    kind: 'Binding',
    namespaced: true,
    attach(api) {
      pods = api.store('', 'pods');
    },
    async create(body, ctx) {
      const b = body as Binding;
      const name = b.metadata?.name ?? '';
      if (b.metadata?.namespace && b.metadata.namespace !== ctx.namespace) {
        throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      if (!pods) throw new Error('bindings: the pod store is not attached');
      // admission sees a CREATE of `bindings` with the Binding (upstream's create handler)
      const admitted = { apiVersion: 'v1', kind: 'Binding', ...b, metadata: { ...b.metadata, namespace: ctx.namespace } };
      await pods.admitRequest({
        operation: 'CREATE',
        resource: { group: '', version: 'v1', resource: 'bindings' },
        namespace: ctx.namespace,
        name,
        subresource: '',
        kind: { group: '', version: 'v1', kind: 'Binding' },
        object: admitted,
        user: ctx.user,
        dryRun: ctx.dryRun === true,
      });
      await bindPod(pods, ctx.namespace, name, admitted as Binding, new Date(), ctx.dryRun === true, 'bindings');
      return { ...successStatus(), code: 201 };
    },
  };
}

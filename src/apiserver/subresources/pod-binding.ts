/**
 * pods/binding: assigns a pod to a node (what the scheduler's DefaultBinder posts).
 * Sets spec.nodeName, merges the Binding's annotations, and marks PodScheduled=True,
 * bypassing the pod update strategy (nodeName is otherwise immutable).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/core/pod/storage/storage.go (BindingREST)
 */
import type { Obj } from '../../api/resource.js';
import { newBadRequest, newConflict, newInvalid, successStatus } from '../../apimachinery/errors.js';
import { decodeTypedBody } from '../endpoints/typed-decode.js';
import { negotiateOutput } from '../http/negotiate.js';
import { writeJSON } from '../http/respond.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { applyPodBinding, validatePodBinding } from '../../api/core/v1/pod/binding.js';
import type { SubresourceHandler } from './types.js';

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
    if (c.info.verb !== 'create') throw newBadRequest(`${c.req.method} is not supported on pods/binding`);
    negotiateOutput(c.req.headers['accept'], false);
    const b = decodeTypedBody(c.req.headers['content-type'], c.req.body, { group: '', version: 'v1', kind: 'Binding' }) as Binding;
    const name = c.info.name;
    const ns = c.info.namespace;
    if (b.metadata?.name && b.metadata.name !== name) throw newBadRequest('name in URL does not match name in Binding object');
    if (b.metadata?.namespace && b.metadata.namespace !== ns) {
      throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const errs = validatePodBinding({ metadata: b.metadata, target: b.target ?? {} });
    if (errs.length) throw newInvalid({ group: '', kind: 'Binding' }, name, errs);
    const gr = { group: '', resource: 'pods/binding' };
    const dry = c.query.getAll('dryRun').includes('All');
    await c.store.guaranteedUpdate(
      ns,
      name,
      (pod: Obj) => {
        if (b.metadata?.uid && b.metadata.uid !== pod.metadata.uid) {
          throw newConflict(gr, name, `Precondition failed: UID in precondition: ${b.metadata.uid}, UID in object meta: ${pod.metadata.uid ?? ''}`);
        }
        const err = applyPodBinding(pod as Pod, b.target!.name!, b.metadata?.annotations, c.now);
        if (err) throw newConflict(gr, name, err);
        return pod;
      },
      dry,
    );
    writeJSON(c.res, 201, { ...successStatus(), code: 201 });
  },
};

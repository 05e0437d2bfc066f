/**
 * pods/ephemeralcontainers: get, update and patch of a Pod through which only
 * `spec.ephemeralContainers` may change (what `kubectl debug` PATCHes). It is the pods
 * store with the ephemeral-containers strategy from the pod API package: the rest of the
 * spec, status and the status-reset metadata come from the stored pod; validation is
 * upstream's ValidatePodEphemeralContainersUpdate (no ports, probes, resources,
 * lifecycle, resizePolicy or restartPolicy; unique names across all containers; existing
 * ephemeral containers neither removed nor changed; not on static pods).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/pod/storage/storage.go (EphemeralContainersREST)
 * @see https://kubernetes.io/docs/concepts/workloads/pods/ephemeral-containers/
 */
import type { StatusStrategy } from '../../api/resource.js';
import { podEphemeralContainersStrategy } from '../../api/core/v1/pod/strategy.js';
import { newMethodNotSupported } from '../../apimachinery/errors.js';
import { handleResource } from '../endpoints/resource.js';
import type { SubresourceHandler } from './types.js';

/** The verbs upstream serves on pods/ephemeralcontainers. */
const VERBS = ['get', 'patch', 'update'];

/** pods/ephemeralcontainers (core/v1; the response kind is Pod). */
export const podEphemeralContainers: SubresourceHandler = {
  group: '',
  version: 'v1',
  resource: 'pods',
  subresource: 'ephemeralcontainers',
  responseKind: { group: '', version: 'v1', kind: 'Pod' },
  verbs: VERBS,
  async handle(c) {
    if (!VERBS.includes(c.info.verb)) throw newMethodNotSupported(c.store.groupResource, c.info.verb);
    return handleResource({ ...c, subresourceStrategy: podEphemeralContainersStrategy as unknown as StatusStrategy });
  },
};

/**
 * Resolving a pods/log|exec|attach|portforward request to a kubelet URL, with
 * upstream's checks and messages: the container (defaulted when the pod has exactly
 * one), the pod's node, the node's kubelet address.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/pod/strategy.go (LogLocation, streamLocation, PortForwardLocation)
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { newBadRequest } from '../../apimachinery/errors.js';
import type { ResourceContext } from '../endpoints/resource.js';
import type { StoreLookup } from '../subresources/types.js';
import type { KubeletClient, KubeletLocation } from './kubelet.js';

/** Every container name in upstream's VisitContainers order: init, regular, ephemeral. */
export function allContainerNames(pod: Pod): string[] {
  const s = pod.spec;
  return [...(s?.initContainers ?? []), ...(s?.containers ?? []), ...(s?.ephemeralContainers ?? [])].map((c) => c.name);
}

/**
 * The container a request means (upstream validateContainer): the given one if the
 * pod has it; the only container when none is given.
 * @throws StatusError 400 `a container name must be specified for pod x, choose one of: [a b]` / `container y is not valid for pod x`
 */
export function validateContainer(pod: Pod, container: string | undefined): string {
  const name = pod.metadata?.name ?? '';
  const containers = pod.spec?.containers ?? [];
  if (!container) {
    if (containers.length === 1) return containers[0]!.name;
    if (containers.length === 0) throw newBadRequest(`a container name must be specified for pod ${name}`);
    throw newBadRequest(`a container name must be specified for pod ${name}, choose one of: [${allContainerNames(pod).join(' ')}]`);
  }
  if (!allContainerNames(pod).includes(container)) throw newBadRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/** The pod `c.info.name` in `c.info.namespace` (NotFound as the generic store says it). */
export async function getPod(c: ResourceContext): Promise<Pod> {
  return (await c.store.get(c.info.namespace, c.info.name)).obj as Pod;
}

/**
 * The kubelet running `pod`.
 * @throws StatusError NotFound for a missing node, 500 when it has no usable address
 */
export async function kubeletOf(pod: Pod, stores: StoreLookup, kubelet: KubeletClient): Promise<KubeletLocation> {
  const nodes = stores.store('', 'nodes');
  if (!nodes) throw newBadRequest('nodes are not served by this API server');
  const node = (await nodes.get('', pod.spec!.nodeName!)).obj as Node;
  return kubelet.location(node);
}

/** `/…/{ns}/{pod}` path segment encoding. */
export const seg = (s: string): string => encodeURIComponent(s);

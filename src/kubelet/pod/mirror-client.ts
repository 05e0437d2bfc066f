/**
 * Creates and deletes mirror pods: the API objects through which the API server sees
 * a kubelet's static pods (upstream pkg/kubelet/pod/mirror_client.go).
 *
 * A mirror pod is a copy of the static pod (same name `<name>-<node>`, namespace,
 * labels, annotations and spec) plus the annotation `kubernetes.io/config.mirror`
 * carrying the static pod's hash, owned by the Node (controller reference, so the
 * NodeRestriction admission plugin accepts it and deleting the Node collects it).
 * The API server gives it its own UID; the kubelet never runs it.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/pod/mirror_client.go
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../apimachinery/errors.js';
import { R, type Client } from '../../client/types.js';
import { CONFIG_HASH_ANNOTATION, CONFIG_MIRROR_ANNOTATION } from '../config/static-pod.js';

/** The hash a static pod carries (its `kubernetes.io/config.hash`). */
export function staticPodHash(pod: Pod): string {
  return pod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] ?? '';
}

/**
 * Does `mirror` mirror `pod`? Same name and namespace, and the mirror annotation equals
 * the static pod's hash (upstream IsMirrorPodOf). A mirror pod whose annotation does
 * not match — an older version of the file — is replaced.
 */
export function isMirrorPodOf(mirror: Pod, pod: Pod): boolean {
  if (mirror.metadata?.name !== pod.metadata?.name || mirror.metadata?.namespace !== pod.metadata?.namespace) return false;
  const hash = mirror.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION];
  return hash !== undefined && hash === staticPodHash(pod);
}

export class MirrorClient {
  constructor(
    private readonly client: Client,
    private readonly nodeName: string,
  ) {}

  /**
   * Creates the mirror pod of static pod `pod`. An existing mirror pod with the same hash
   * counts as success.
   * @throws the API error (e.g. the Node does not exist yet, or its UID is unset)
   */
  async create(pod: Pod): Promise<void> {
    const node = await this.client.get<Node & KObject>(R.nodes, '', this.nodeName);
    const nodeUID = node.metadata?.uid;
    if (!nodeUID) throw new Error(`UID unset for Node ${this.nodeName}`);
    const hash = staticPodHash(pod);
    const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, ...meta } = pod.metadata ?? {};
    const mirror: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...meta,
        annotations: { ...meta.annotations, [CONFIG_MIRROR_ANNOTATION]: hash },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: nodeUID, controller: true }],
      },
      spec: pod.spec,
    };
    try {
      await this.client.create(R.pods, meta.namespace ?? 'default', mirror as KObject);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await this.client.get<Pod & KObject>(R.pods, meta.namespace ?? 'default', meta.name ?? '');
      if (existing.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] !== hash) throw e;
    }
  }

  /**
   * Deletes a mirror pod at once (grace period 0), only if it still has UID `uid`.
   * @returns whether this call deleted it (false when it was gone or replaced already)
   */
  async delete(namespace: string, name: string, uid?: string): Promise<boolean> {
    try {
      await this.client.delete(R.pods, namespace, name, { gracePeriodSeconds: 0, ...(uid ? { preconditions: { uid } } : {}) });
      return true;
    } catch (e) {
      if (isNotFound(e) || isConflict(e)) return false;
      throw e;
    }
  }
}

/**
 * pods/attach: like pods/exec, for the container's main process (no command);
 * proxied to the kubelet's `/attach/{ns}/{pod}/{container}`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/pod/rest/subresources.go (AttachREST)
 */
import type { KubeletClient } from '../proxy/kubelet.js';
import { streamSubresource } from '../proxy/pod-stream.js';
import type { SubresourceHandler } from './types.js';

/** The pods/attach handler, reaching kubelets through `kubelet`. */
export function podAttachHandler(kubelet: KubeletClient): SubresourceHandler {
  return streamSubresource('attach', 'PodAttachOptions', kubelet);
}

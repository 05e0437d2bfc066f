/**
 * pods/portforward: `kubectl port-forward` upgrades this request to a WebSocket
 * carrying SPDY/3.1 (`SPDY/3.1+portforward.k8s.io`), or to SPDY/3.1 directly as
 * fallback; proxied to the kubelet's `/portForward/{ns}/{pod}` (`?port=80,443` when
 * ports are given).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/pod/rest/subresources.go (PortForwardREST)
 */
import type { KubeletClient } from '../proxy/kubelet.js';
import { streamSubresource } from '../proxy/pod-stream.js';
import type { SubresourceHandler } from './types.js';

/** The pods/portforward handler, reaching kubelets through `kubelet`. */
export function podPortForwardHandler(kubelet: KubeletClient): SubresourceHandler {
  return streamSubresource('portforward', 'PodPortForwardOptions', kubelet);
}

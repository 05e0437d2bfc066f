/**
 * pods/exec: `kubectl exec` upgrades this request (WebSocket `v5.channel.k8s.io`, or
 * SPDY/3.1 as fallback); the API server checks the pod and container, then proxies
 * the upgrade to the kubelet's `/exec/{ns}/{pod}/{container}?command=…&stdin=1…`,
 * which speaks the stream protocol. Without an upgrade: 400 `Upgrade request required`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/pod/rest/subresources.go (ExecREST)
 */
import type { KubeletClient } from '../proxy/kubelet.js';
import { streamSubresource } from '../proxy/pod-stream.js';
import type { SubresourceHandler } from './types.js';

/** The pods/exec handler, reaching kubelets through `kubelet`. */
export function podExecHandler(kubelet: KubeletClient): SubresourceHandler {
  return streamSubresource('exec', 'PodExecOptions', kubelet);
}

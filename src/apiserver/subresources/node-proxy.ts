/**
 * nodes/proxy: `GET /api/v1/nodes/{name}/proxy/{path}` is relayed to the node's kubelet
 * (`https://<node address>:<kubelet port>/{path}?{query}`) and its answer returned as is
 * — what `kubectl get --raw /api/v1/nodes/<node>/proxy/metrics` or `…/proxy/stats/summary`
 * read. GET and HEAD only (upstream also proxies the other methods).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/node/rest/proxy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/node/strategy.go (ResourceLocation)
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { newBadRequest, newMethodNotSupported } from '../../apimachinery/errors.js';
import type { KubeletClient } from '../proxy/kubelet.js';
import type { SubresourceHandler } from './types.js';

/** The nodes/proxy handler, reaching kubelets through `kubelet`. */
export function nodeProxyHandler(kubelet: KubeletClient): SubresourceHandler {
  return {
    group: '',
    version: 'v1',
    resource: 'nodes',
    subresource: 'proxy',
    responseKind: { group: '', version: 'v1', kind: 'NodeProxyOptions' },
    verbs: ['create', 'delete', 'get', 'patch', 'update'],
    async handle(c, stores) {
      const method = c.req.method === 'HEAD' ? 'HEAD' : c.req.method === 'GET' ? 'GET' : undefined;
      if (!method) throw newMethodNotSupported({ group: '', resource: 'nodes/proxy' }, c.req.method ?? '');
      // `[scheme:]name[:port]`: upstream also reaches other ports of the node; k8ts only the kubelet's
      const parts = c.info.name.split(':');
      const [name, port] = parts.length === 3 ? [parts[1]!, parts[2]!] : [parts[0]!, parts[1]];
      if (parts.length > 3 || !name) throw newBadRequest(`invalid node request ${JSON.stringify(c.info.name)}`);
      const nodes = stores.store('', 'nodes');
      if (!nodes) throw newBadRequest('nodes are not served by this API server');
      const node = (await nodes.get('', name)).obj as Node;
      const loc = kubelet.location(node);
      if (port && port !== String(loc.port)) throw newBadRequest(`invalid node request ${JSON.stringify(c.info.name)}: k8ts proxies only to the kubelet's port ${loc.port}`);
      const q = c.query.toString();
      const path = `/${c.info.parts.map(encodeURIComponent).join('/')}${q ? `?${q}` : ''}`;
      await kubelet.relay(loc, method, path, c.res);
    },
  };
}

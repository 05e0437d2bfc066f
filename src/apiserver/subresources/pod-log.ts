/**
 * pods/log: validates PodLogOptions, picks the container, and streams the log from
 * the kubelet of the pod's node (`/containerLogs/{ns}/{pod}/{container}`). With
 * `follow` the body is flushed as it arrives and ends when the kubelet ends it (the
 * container stopped) or the client goes away. A pod not yet scheduled has an empty log.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/pod/rest/log.go
 */
import { newBadRequest, newInvalid } from '../../apimachinery/errors.js';
import { decodePodLogOptions, kubeletLogQuery, LogOptionsDecodeError, validatePodLogOptions } from '../../api/core/v1/pod/log-options.js';
import type { KubeletClient } from '../proxy/kubelet.js';
import { getPod, kubeletOf, seg, validateContainer } from '../proxy/pod-location.js';
import type { SubresourceHandler } from './types.js';

/** The pods/log handler, reaching kubelets through `kubelet`. */
export function podLogHandler(kubelet: KubeletClient): SubresourceHandler {
  return {
    group: '',
    version: 'v1',
    resource: 'pods',
    subresource: 'log',
    responseKind: { group: '', version: 'v1', kind: 'Pod' },
    verbs: ['get'],
    async handle(c, stores) {
      if (c.info.verb !== 'get') throw newBadRequest(`${c.req.method} is not supported on pods/log`);
      let opts;
      try {
        opts = decodePodLogOptions(c.query);
      } catch (e) {
        if (e instanceof LogOptionsDecodeError) throw newBadRequest(e.message);
        throw e;
      }
      const errs = validatePodLogOptions(opts);
      if (errs.length) throw newInvalid({ group: '', kind: 'PodLogOptions' }, c.info.name, errs);
      const pod = await getPod(c);
      const container = validateContainer(pod, opts.container);
      if (!pod.spec?.nodeName) {
        c.res.writeHead(200, { 'Content-Type': 'text/plain' });
        c.res.end();
        return;
      }
      const loc = await kubeletOf(pod, stores, kubelet);
      const q = kubeletLogQuery(opts);
      const path = `/containerLogs/${seg(c.info.namespace)}/${seg(c.info.name)}/${seg(container)}${q ? `?${q}` : ''}`;
      await kubelet.streamGet(loc, path, c.res, { group: '', resource: 'pods/log' }, c.info.name);
    },
  };
}

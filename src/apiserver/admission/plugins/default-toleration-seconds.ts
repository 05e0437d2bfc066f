/**
 * DefaultTolerationSeconds admission: pods tolerate `node.kubernetes.io/not-ready` and
 * `node.kubernetes.io/unreachable` NoExecute taints for 300 s unless they say otherwise.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/defaulttolerationseconds/admission.go
 */
import { addDefaultTolerationSeconds, DEFAULT_TOLERATION_SECONDS } from '../../../api/core/v1/pod/strategy.js';
import type { Pod } from '../../../api/core/v1/pod/types.js';
import type { AdmissionPlugin } from '../types.js';

/** @param seconds `--default-not-ready-toleration-seconds` / unreachable (same value here) */
export function defaultTolerationSeconds(seconds = DEFAULT_TOLERATION_SECONDS): AdmissionPlugin {
  return {
    name: 'DefaultTolerationSeconds',
    async admit(a) {
      if (a.operation !== 'CREATE' || a.resource.group !== '' || a.resource.resource !== 'pods' || a.subresource || !a.object) return;
      addDefaultTolerationSeconds(a.object as unknown as Pod, seconds);
    },
  };
}

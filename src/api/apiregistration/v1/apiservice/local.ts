/**
 * The local APIServices: one per built-in group-version the API server serves
 * (`v1.` for the core group, `v1.apps`, `v2.autoscaling` …), with upstream's group and
 * version priorities, no service reference, and condition Available=True reason Local.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controlplane/apiserver/aggregator.go (apiVersionPriorities, makeAPIService)
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/controllers/status/local/local_available_controller.go
 */
import type { APIService, APIServiceCondition } from './strategy.js';

/** Discovery priorities of the built-in group-versions: [groupPriorityMinimum, versionPriority]. */
const API_VERSION_PRIORITIES: ReadonlyMap<string, readonly [number, number]> = new Map([
  ['/v1', [18000, 1]],
  ['apiregistration.k8s.io/v1', [18000, 15]],
  ['apps/v1', [17800, 15]],
  ['events.k8s.io/v1', [17750, 15]],
  ['authentication.k8s.io/v1', [17700, 15]],
  ['authorization.k8s.io/v1', [17600, 15]],
  ['autoscaling/v1', [17500, 15]],
  ['autoscaling/v2', [17500, 30]],
  ['batch/v1', [17400, 15]],
  ['certificates.k8s.io/v1', [17300, 15]],
  ['networking.k8s.io/v1', [17200, 15]],
  ['policy/v1', [17100, 15]],
  ['rbac.authorization.k8s.io/v1', [17000, 15]],
  ['storage.k8s.io/v1', [16800, 15]],
  ['apiextensions.k8s.io/v1', [16700, 15]],
  ['admissionregistration.k8s.io/v1', [16700, 15]],
  ['scheduling.k8s.io/v1', [16600, 15]],
  ['coordination.k8s.io/v1', [16500, 15]],
  ['node.k8s.io/v1', [16300, 15]],
  ['discovery.k8s.io/v1', [16200, 15]],
  ['flowcontrol.apiserver.k8s.io/v1', [16100, 21]],
]);

/** The message of a local APIService's Available condition. */
const LOCAL_AVAILABLE_MESSAGE = 'Local APIServices are always available';

/** `<version>.<group>` (`v1.` for the core group). */
const apiServiceName = (group: string, version: string): string => `${version}.${group}`;

/**
 * The local APIService of a built-in group-version, or undefined when upstream has no
 * priority for it (then it gets no APIService, as upstream's makeAPIService).
 */
export function localAPIService(group: string, version: string): APIService | undefined {
  const prio = API_VERSION_PRIORITIES.get(`${group}/${version}`);
  if (!prio) return undefined;
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: apiServiceName(group, version), labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
    spec: { group, version, groupPriorityMinimum: prio[0], versionPriority: prio[1] },
  };
}

/** The Available=True/Local condition a local APIService carries. */
export function localAvailableCondition(now: Date): APIServiceCondition {
  return { type: 'Available', status: 'True', lastTransitionTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), reason: 'Local', message: LOCAL_AVAILABLE_MESSAGE };
}

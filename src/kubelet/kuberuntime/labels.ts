/**
 * Labels and annotations the kubelet puts on CRI sandboxes and containers, and reads
 * back to rebuild pod state after a restart (adoption).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/labels.go
 */
import { createHash } from 'node:crypto';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { CRILabels } from '../../cri/api.js';

export const Annotations = {
  containerHash: 'io.kubernetes.container.hash',
  restartCount: 'io.kubernetes.container.restartCount',
  terminationMessagePath: 'io.kubernetes.container.terminationMessagePath',
  terminationMessagePolicy: 'io.kubernetes.container.terminationMessagePolicy',
  podTerminationGracePeriod: 'io.kubernetes.pod.terminationGracePeriod',
  podDeletionGracePeriod: 'io.kubernetes.pod.deletionGracePeriod',
  containerPorts: 'io.kubernetes.container.ports',
  containerPreStopHandler: 'io.kubernetes.container.preStopHandler',
} as const;

/** Sandbox labels: the pod's labels plus name/namespace/uid. */
export function sandboxLabels(pod: Pod): Record<string, string> {
  const m = pod.metadata ?? {};
  return { ...m.labels, [CRILabels.podName]: m.name ?? '', [CRILabels.podNamespace]: m.namespace ?? '', [CRILabels.podUID]: m.uid ?? '' };
}

export function containerLabels(pod: Pod, c: Container): Record<string, string> {
  const m = pod.metadata ?? {};
  return { [CRILabels.podName]: m.name ?? '', [CRILabels.podNamespace]: m.namespace ?? '', [CRILabels.podUID]: m.uid ?? '', [CRILabels.containerName]: c.name };
}

/** A stable hash of the container spec: a change means "definition changed, will be restarted". */
export function containerHash(c: Container): string {
  const { resources: _r, ...rest } = c;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex').slice(0, 8);
}

export function containerAnnotations(pod: Pod, c: Container, restartCount: number): Record<string, string> {
  const a: Record<string, string> = {
    [Annotations.containerHash]: containerHash(c),
    [Annotations.restartCount]: String(restartCount),
    [Annotations.terminationMessagePath]: c.terminationMessagePath ?? '/dev/termination-log',
    [Annotations.terminationMessagePolicy]: c.terminationMessagePolicy ?? 'File',
  };
  if (pod.spec?.terminationGracePeriodSeconds !== undefined) a[Annotations.podTerminationGracePeriod] = String(pod.spec.terminationGracePeriodSeconds);
  if (pod.metadata?.deletionGracePeriodSeconds !== undefined) a[Annotations.podDeletionGracePeriod] = String(pod.metadata.deletionGracePeriodSeconds);
  if (c.lifecycle?.preStop) a[Annotations.containerPreStopHandler] = JSON.stringify(c.lifecycle.preStop);
  if (c.ports?.length) a[Annotations.containerPorts] = JSON.stringify(c.ports);
  return a;
}

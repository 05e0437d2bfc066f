/**
 * Resource references of the workload APIs (apps/v1, batch/v1, policy/v1) the
 * controllers use, alongside the core ones in src/client/types.ts `R`.
 */
import type { ResourceRef } from '../../client/types.js';

export const W = {
  deployments: { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true },
  replicasets: { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true },
  statefulsets: { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true },
  daemonsets: { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true },
  controllerrevisions: { group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true },
  jobs: { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true },
  cronjobs: { group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob', namespaced: true },
  poddisruptionbudgets: { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true },
  replicationcontrollers: { group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController', namespaced: true },
} as const satisfies Record<string, ResourceRef>;

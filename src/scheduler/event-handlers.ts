/**
 * Informer event handlers: unassigned pods of the scheduler's profiles go to the queue,
 * assigned pods and nodes to the cache, and every change that may make rejected pods
 * schedulable becomes a cluster event for the queue (node label/taint/allocatable
 * changes, assigned pod add/update/delete, PVC/PV/StorageClass add/update). A pod
 * becoming assigned leaves the queue and enters the cache in one step, as upstream's
 * filtering handlers do.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/eventhandlers.go
 */
import { traceStep } from './trace.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ActionType, Events, type ClusterEvent, type EventResource } from './framework/types.js';
import type { NodeObj, OptionalName, PodObj } from './informers.js';
import { SCHEDULING_GATED_MESSAGE, SCHEDULING_GATED_REASON } from './plugins/SchedulingGates.js';
import { nodeUpdateEvents, type Scheduler } from './scheduler.js';
import { updatePodStatus } from './schedule-one.js';

const j = (x: unknown) => JSON.stringify(x ?? null);

/** The update event of an assigned pod, with upstream's specific action types. */
export function podUpdateEvent(oldPod: Pod, newPod: Pod): ClusterEvent {
  let a = 0;
  if (j(oldPod.metadata?.labels) !== j(newPod.metadata?.labels)) a |= ActionType.UpdatePodLabel;
  if (j(oldPod.spec?.tolerations) !== j(newPod.spec?.tolerations)) a |= ActionType.UpdatePodTolerations;
  if (j(oldPod.spec?.containers?.map((c) => c.resources)) !== j(newPod.spec?.containers?.map((c) => c.resources))) a |= ActionType.UpdatePodScaleDown;
  if (a === 0) a = ActionType.UpdatePodOther;
  return { resource: 'Pod', actionType: a, label: 'AssignedPodUpdate' };
}

/** Gated pods get PodScheduled=False/SchedulingGated (once). */
function markGated(s: Scheduler, pod: Pod): void {
  if (s.queue.whereIs(`${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`) !== 'gated') return;
  const c = pod.status?.conditions?.find((x) => x.type === 'PodScheduled');
  if (c && c.reason === SCHEDULING_GATED_REASON && c.status === 'False') return;
  void updatePodStatus(s, pod, { type: 'PodScheduled', status: 'False', reason: SCHEDULING_GATED_REASON, message: SCHEDULING_GATED_MESSAGE }, null);
}

function addPending(s: Scheduler, pod: PodObj): void {
  if (!s.responsible(pod)) return;
  traceStep(s.trace, pod, 'WatchReceived');
  if (!s.queue.add(pod)) markGated(s, pod);
}

function deletePending(s: Scheduler, pod: PodObj): void {
  s.queue.delete(pod);
  s.frameworkForPod(pod)?.rejectWaitingPod(pod.metadata?.uid ?? '');
}

function addAssigned(s: Scheduler, pod: PodObj): void {
  s.cache.addPod(pod);
  s.queue.delete(pod);
  s.queue.moveAllToActiveOrBackoffQueue(Events.AssignedPodAdd, undefined, pod);
}

/** Registers the handlers on the scheduler's informers. */
export function addEventHandlers(s: Scheduler): void {
  const inf = s.informers;
  inf.pods.addEventHandler({
    add: (pod) => (pod.spec?.nodeName ? addAssigned(s, pod) : addPending(s, pod)),
    update: (oldPod, pod) => {
      const wasAssigned = !!oldPod.spec?.nodeName;
      if (pod.spec?.nodeName) {
        if (wasAssigned) {
          s.cache.updatePod(oldPod, pod);
          s.queue.moveAllToActiveOrBackoffQueue(podUpdateEvent(oldPod, pod), oldPod, pod);
        } else {
          deletePending(s, oldPod);
          addAssigned(s, pod);
        }
        return;
      }
      if (!s.responsible(pod)) {
        if (s.responsible(oldPod)) deletePending(s, oldPod);
        return;
      }
      if (oldPod.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
      if (s.cache.isAssumedPod(pod)) return;
      s.queue.update(oldPod, pod);
      markGated(s, pod);
    },
    delete: (pod) => {
      if (pod.spec?.nodeName) {
        s.cache.removePod(pod);
        s.queue.moveAllToActiveOrBackoffQueue(Events.AssignedPodDelete, pod, undefined);
      } else deletePending(s, pod);
    },
  });
  inf.nodes.addEventHandler({
    add: (node: NodeObj) => {
      s.cache.addNode(node);
      s.queue.moveAllToActiveOrBackoffQueue(Events.NodeAdd, undefined, node);
    },
    update: (oldNode, node) => {
      s.cache.updateNode(oldNode, node);
      for (const ev of nodeUpdateEvents(oldNode, node)) s.queue.moveAllToActiveOrBackoffQueue(ev, oldNode, node);
    },
    delete: (node) => {
      s.cache.removeNode(node);
      s.queue.moveAllToActiveOrBackoffQueue(Events.NodeDelete, node, undefined);
    },
  });
  const storage: [OptionalName, EventResource, string][] = [
    ['persistentvolumeclaims', 'PersistentVolumeClaim', 'Pvc'],
    ['persistentvolumes', 'PersistentVolume', 'Pv'],
    ['storageclasses', 'StorageClass', 'StorageClass'],
    ['csidrivers', 'CSIDriver', 'CSIDriver'],
    ['csistoragecapacities', 'CSIStorageCapacity', 'CSIStorageCapacity'],
  ];
  for (const [name, resource, label] of storage) {
    inf.optional.get(name)?.addEventHandler({
      add: (o) => s.queue.moveAllToActiveOrBackoffQueue({ resource, actionType: ActionType.Add, label: `${label}Add` }, undefined, o),
      update: (o, n) => s.queue.moveAllToActiveOrBackoffQueue({ resource, actionType: ActionType.Update, label: `${label}Update` }, o, n),
      delete: (o) => s.queue.moveAllToActiveOrBackoffQueue({ resource, actionType: ActionType.Delete, label: `${label}Delete` }, o, undefined),
    });
  }
}

/**
 * PrioritySort: orders the active queue by pod priority (higher first), then by the
 * time the pod entered the queue (earlier first).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/queuesort/priority_sort.go
 */
import type { Handle, QueueSortPlugin } from '../framework/interface.js';
import type { QueuedPodInfo } from '../framework/types.js';

export const Name = 'PrioritySort';

export class PrioritySort implements QueueSortPlugin {
  readonly name = Name;

  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    const p1 = a.podInfo.priority;
    const p2 = b.podInfo.priority;
    return p1 > p2 || (p1 === p2 && a.timestamp < b.timestamp);
  }
}

export function New(_args: unknown, _handle: Handle): PrioritySort {
  return new PrioritySort();
}

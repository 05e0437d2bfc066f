/**
 * The PersistentVolumeClaim status of a volume expansion with RecoverVolumeExpansionFailure
 * on (beta, on by default in v1.32), as the external-resizer, the expand controller and the
 * kubelet keep it: the resize condition types, `status.allocatedResources` (the size the
 * resizer works towards) and `status.allocatedResourceStatuses` (where the expansion of
 * each resource stands), and the pure helpers that update them.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/volume/util/resize_util.go
 * @see https://github.com/kubernetes-csi/external-resizer/blob/v1.13.1/pkg/controller/resize_status.go
 */
import type { PersistentVolumeClaimCondition, PersistentVolumeClaimStatus } from 'kubernetes-types/core/v1.js';

/** The claim condition types of an expansion (PersistentVolumeClaimConditionType). */
export const ResizeCondition = {
  Resizing: 'Resizing',
  FileSystemResizePending: 'FileSystemResizePending',
  ControllerResizeError: 'ControllerResizeError',
  NodeResizeError: 'NodeResizeError',
} as const;

/** The values of `status.allocatedResourceStatuses.storage` (ClaimResourceStatus). */
export const ClaimResourceStatus = {
  ControllerResizeInProgress: 'ControllerResizeInProgress',
  ControllerResizeInfeasible: 'ControllerResizeInfeasible',
  NodeResizePending: 'NodeResizePending',
  NodeResizeInProgress: 'NodeResizeInProgress',
  NodeResizeInfeasible: 'NodeResizeInfeasible',
} as const;

/** The message of the FileSystemResizePending condition. */
export const FS_RESIZE_PENDING_MESSAGE = 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.';

const RESIZE_TYPES = new Set<string>(Object.values(ResizeCondition));

/**
 * Upstream MergeResizeConditionOnPVC / MergeResizeConditionsOfPVC: the claim's conditions
 * with its resize conditions replaced by `add` (a condition of the same type and status
 * is kept as it was when `keepSameStatus`, the kubelet's way; the external-resizer
 * replaces it); other resize conditions are dropped unless `keepOld`. Conditions of other
 * types stay.
 */
export function mergeResizeConditions(
  old: readonly PersistentVolumeClaimCondition[] | undefined,
  add: readonly PersistentVolumeClaimCondition[],
  keepOld: boolean,
  keepSameStatus = false,
): PersistentVolumeClaimCondition[] {
  const pending = new Map(add.map((c) => [c.type, c]));
  const out: PersistentVolumeClaimCondition[] = [];
  for (const c of old ?? []) {
    if (!RESIZE_TYPES.has(c.type)) {
      out.push(c);
      continue;
    }
    const n = pending.get(c.type);
    if (n) {
      out.push(keepSameStatus && n.status === c.status ? c : n);
      pending.delete(c.type);
    } else if (keepOld) out.push(c);
  }
  out.push(...pending.values());
  return out;
}

/** A condition of `type` with status True at `now` (RFC 3339, seconds). */
export function resizeCondition(type: string, now: string, message?: string): PersistentVolumeClaimCondition {
  const c: PersistentVolumeClaimCondition = { type, status: 'True', lastProbeTime: null as unknown as string, lastTransitionTime: now };
  if (message !== undefined) c.message = message;
  return c;
}

/** The status with `conditions` set to `list` (omitted when empty, as Go's omitempty nil slice). */
export function withConditions(st: PersistentVolumeClaimStatus, list: PersistentVolumeClaimCondition[]): PersistentVolumeClaimStatus {
  const { conditions: _drop, ...rest } = st;
  return list.length ? { ...rest, conditions: list } : rest;
}

/** The status with `allocatedResourceStatuses.storage` set to `value`, or removed (undefined; the map goes when empty). */
export function withStorageResizeStatus(st: PersistentVolumeClaimStatus, value: string | undefined): PersistentVolumeClaimStatus {
  const m: Record<string, string> = { ...(st.allocatedResourceStatuses ?? {}) };
  if (value === undefined) delete m.storage;
  else m.storage = value;
  const { allocatedResourceStatuses: _drop, ...rest } = st;
  return Object.keys(m).length ? { ...rest, allocatedResourceStatuses: m } : rest;
}

/** The status with `allocatedResources.storage` set to `size`. */
export function withAllocatedStorage(st: PersistentVolumeClaimStatus, size: string): PersistentVolumeClaimStatus {
  return { ...st, allocatedResources: { ...(st.allocatedResources ?? {}), storage: size } };
}

/** `status.allocatedResourceStatuses.storage` ('' when unset). */
export function storageResizeStatus(st: PersistentVolumeClaimStatus | undefined): string {
  return st?.allocatedResourceStatuses?.storage ?? '';
}

/** Upstream HasFileSystemResizePendingCondition. */
export function hasFileSystemResizePending(st: PersistentVolumeClaimStatus | undefined): boolean {
  return (st?.conditions ?? []).some((c) => c.type === ResizeCondition.FileSystemResizePending && c.status === 'True');
}

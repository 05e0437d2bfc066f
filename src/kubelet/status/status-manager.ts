/**
 * Writes pod statuses to the API server through `pods/<name>/status` (a merge patch
 * carrying `metadata.uid` as precondition), one write in flight per pod, skipping
 * writes that would not change anything, and issues the final delete
 * (grace 0, uid precondition) for pods whose deletion the kubelet has completed.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/status/status_manager.go
 */
import { isDeepStrictEqual } from 'node:util';
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import { isConflict, isNotFound } from '../../apimachinery/errors.js';
import { R, type Client } from '../../client/types.js';

/** Status fields the kubelet owns; others (nominatedNodeName, resize …) are left alone. */
const OWNED = [
  'phase',
  'conditions',
  'hostIP',
  'hostIPs',
  'podIP',
  'podIPs',
  'startTime',
  'containerStatuses',
  'initContainerStatuses',
  'ephemeralContainerStatuses',
  'qosClass',
  'message',
  'reason',
] as const;

interface Entry {
  ns: string;
  name: string;
  uid: string;
  /** last status written (or seen in the API) */
  written?: PodStatus;
  pending?: PodStatus;
  inflight?: Promise<void>;
  /** a static pod's status waiting for its mirror pod */
  held?: boolean;
}

export class StatusManager {
  private readonly pods = new Map<string, Entry>();

  /**
   * @param target the UID a status write of pod `uid` carries as precondition: undefined for
   *   API pods (their own), the mirror pod's for a static pod, null while a static pod has no
   *   mirror pod (the write is held until {@link resend})
   */
  constructor(
    private readonly client: Client,
    private readonly onError: (e: unknown, pod: string) => void = () => undefined,
    private readonly target: (uid: string) => string | null | undefined = () => undefined,
  ) {}

  /** The status last handed in for `uid` (what the kubelet believes). */
  get(uid: string): PodStatus | undefined {
    const e = this.pods.get(uid);
    return e?.pending ?? e?.written;
  }

  /** Queues `status` for `pod`; resolves when it has been written (or found unnecessary). */
  setPodStatus(pod: Pod, status: PodStatus): Promise<void> {
    const uid = pod.metadata?.uid ?? '';
    let e = this.pods.get(uid);
    if (!e) this.pods.set(uid, (e = { ns: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', uid }));
    const base = e.pending ?? e.written ?? pod.status;
    if (base && sameOwned(base, status)) return e.inflight ?? Promise.resolve();
    e.pending = status;
    return this.startDrain(e);
  }

  /**
   * Starts writing `e` unless a write is in flight. The flag clears in a `.finally` of the
   * drain, which always runs after the assignment (a drain that holds the write at once
   * finishes synchronously: clearing inside it would leave a stale flag behind that
   * blocks every later write, such as {@link resend}'s when the mirror pod appears).
   */
  private startDrain(e: Entry): Promise<void> {
    if (e.inflight) return e.inflight;
    const p: Promise<void> = this.drain(e).then(
      (drained) => {
        if (e.inflight === p) e.inflight = undefined;
        // a status handed in between the drain's last check and now
        if (drained && e.pending) void this.startDrain(e);
      },
      () => {
        if (e.inflight === p) e.inflight = undefined;
      },
    );
    e.inflight = p;
    return p;
  }

  /** Writes until nothing is pending; false when it stopped early (held for a mirror pod, or a failed write left for the next sync). */
  private async drain(e: Entry): Promise<boolean> {
    while (e.pending) {
      const st = e.pending;
      const prev = e.written;
      const uid = this.target(e.uid);
      if (uid === null) {
        e.held = true;
        return false;
      }
      e.held = false;
      e.pending = undefined;
      const patch: Record<string, unknown> = {};
      for (const k of OWNED) {
        const v = (st as Record<string, unknown>)[k];
        if (v !== undefined) patch[k] = v;
        else if (prev && (prev as Record<string, unknown>)[k] !== undefined) patch[k] = null;
      }
      try {
        await this.client.patch(R.pods, e.ns, e.name, 'merge', { metadata: { uid: uid ?? e.uid }, status: patch }, { subresource: 'status' });
        e.written = st;
      } catch (err) {
        if (isNotFound(err) || isConflict(err)) {
          e.pending = undefined;
          break;
        }
        this.onError(err, `${e.ns}/${e.name}`);
        e.pending ??= st; // retried on the next sync
        return false;
      }
    }
    return true;
  }

  /** Did the last write for `uid` fail (so a later sync must retry it)? */
  needsRetry(uid: string): boolean {
    const e = this.pods.get(uid);
    return !!e?.pending && !e.inflight && !e.held;
  }

  /**
   * Writes pod `uid`'s latest status again in full (a static pod's mirror pod appeared or
   * was created anew, so what was written before is not in the API).
   */
  resend(uid: string): void {
    const e = this.pods.get(uid);
    if (!e) return;
    e.pending ??= e.written;
    e.written = undefined;
    e.held = false;
    if (e.pending) void this.startDrain(e);
  }

  /** Deletes the API object for good once the kubelet has cleaned up (grace 0, uid precondition). */
  async deletePod(pod: Pod): Promise<void> {
    const m = pod.metadata ?? {};
    try {
      await this.client.delete(R.pods, m.namespace ?? '', m.name ?? '', { gracePeriodSeconds: 0, preconditions: { uid: m.uid } });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
    this.forget(m.uid ?? '');
  }

  forget(uid: string): void {
    this.pods.delete(uid);
  }
}

function sameOwned(a: PodStatus, b: PodStatus): boolean {
  for (const k of OWNED) if (!isDeepStrictEqual((a as Record<string, unknown>)[k] ?? undefined, (b as Record<string, unknown>)[k] ?? undefined)) return false;
  return true;
}

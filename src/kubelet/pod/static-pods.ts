/**
 * The kubelet's bookkeeping of static pods and their mirror pods (the static/mirror
 * half of upstream's pod manager, plus the mirror handling of `SyncPod` and
 * `HandlePodCleanups`).
 *
 * - Static pods come from the file source; the kubelet runs them under their own UID
 *   (the manifest hash) whether or not the API server answers.
 * - Mirror pods come from the API (pods bound to this node carrying
 *   `kubernetes.io/config.mirror`); the kubelet never runs them. Each sync of a static
 *   pod makes its mirror pod right: one that is being deleted or carries another hash
 *   (an older file, or one not made by this kubelet) is deleted at once and created
 *   again from the file — what runs always comes from the file, never from the API.
 * - A mirror pod whose static pod is gone (file removed) is deleted.
 * - Pod status goes to the mirror pod (its UID as the write's precondition); until a
 *   matching mirror pod exists it is held, and sent when one appears.
 * - A static pod whose file changed (a new UID under the same name) starts only once the
 *   pod it replaces has stopped (upstream pod workers' allowStaticPodStart).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/pod/pod_manager.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kubelet.go (SyncPod, HandlePodCleanups)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/pod_workers.go (allowStaticPodStart)
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isMirrorPod, podFullName } from '../config/static-pod.js';
import { isMirrorPodOf, type MirrorClient } from './mirror-client.js';

/**
 * How long after deleting a mirror pod that a user deleted the kubelet waits before creating
 * it again, ms. `kubectl delete` waits for the deletion with a list, then a watch, and checks
 * its cache every 100 ms: a mirror pod created again within that window looks like the pod
 * never went, and kubectl waits until its timeout.
 */
export const MIRROR_RECREATE_DELAY_MS = 1000;

export interface StaticPodManagerOptions {
  mirrors: MirrorClient;
  /** ms since the epoch (the kubelet's clock) */
  now: () => number;
  /** a static pod's worker must run (its mirror pod changed) */
  wake: (staticUID: string) => void;
  /** a matching mirror pod appeared: the static pod's status can be written */
  mirrorReady: (staticUID: string) => void;
  log?: (msg: string, err?: unknown) => void;
}

export class StaticPodManager {
  /** static pods by full name (`<ns>/<name>`) */
  private readonly statics = new Map<string, Pod>();
  /** full name of each static pod UID */
  private readonly byUID = new Map<string, string>();
  /** mirror pods from the API by full name */
  private readonly mirrors = new Map<string, Pod>();
  /** mirror pods being deleted as orphans (full name → UID) */
  private readonly deleting = new Map<string, string>();
  /** full name → when the mirror pod a user deleted may be created again (ms since the epoch) */
  private readonly recreateAt = new Map<string, number>();
  /** full name → UID of the static pod started under it and not stopped yet (upstream startedStaticPodsByFullname) */
  private readonly started = new Map<string, string>();
  /** static pods that left the set and have not stopped yet, by UID */
  private readonly removed = new Map<string, Pod>();

  constructor(private readonly o: StaticPodManagerOptions) {}

  /**
   * Takes the file source's new set.
   * @returns the static pods that left the set (their workers stop them)
   */
  setStaticPods(pods: Pod[]): Pod[] {
    const next = new Map(pods.map((p) => [podFullName(p), p]));
    const gone: Pod[] = [];
    for (const [full, p] of this.statics) if (next.get(full)?.metadata?.uid !== p.metadata?.uid) gone.push(p);
    this.statics.clear();
    this.byUID.clear();
    for (const [full, p] of next) {
      this.statics.set(full, p);
      this.byUID.set(p.metadata!.uid!, full);
    }
    for (const p of gone) {
      this.removed.set(p.metadata!.uid!, p);
      if (!next.has(podFullName(p))) void this.deleteOrphan(podFullName(p));
    }
    for (const uid of this.byUID.keys()) this.removed.delete(uid);
    return gone;
  }

  /**
   * Static pod `uid` if it left the set (its file removed or changed) and has not stopped
   * yet: the kubelet stops it as itself, with its own grace period and preStop hooks
   * (upstream HandlePodRemoves → deletePod: a SyncPodKill of the pod).
   */
  removedPod(uid: string): Pod | undefined {
    return this.removed.get(uid);
  }

  /**
   * Whether static pod `pod` may start now (upstream allowStaticPodStart): not while
   * another static pod of the same full name (the one its file replaced) has not stopped.
   * Records `pod` as the started one when it may.
   */
  allowStart(pod: Pod): boolean {
    const full = podFullName(pod);
    const uid = pod.metadata!.uid!;
    const running = this.started.get(full);
    if (running !== undefined && running !== uid) return false;
    this.started.set(full, uid);
    return true;
  }

  /**
   * Pod `uid` has stopped and its runtime pod is gone: its full name is free again.
   * @returns the UID of the static pod now holding that name, waiting to start (wake it), if any
   */
  stopped(uid: string): string | undefined {
    this.removed.delete(uid);
    for (const [full, u] of this.started) {
      if (u !== uid) continue;
      this.started.delete(full);
      const next = this.statics.get(full)?.metadata?.uid;
      return next !== uid ? next : undefined;
    }
    return undefined;
  }

  /** Is `uid` a static pod's? */
  isStatic(uid: string): boolean {
    return this.byUID.has(uid);
  }

  /**
   * Routes a pod event from the API: mirror pods are recorded here (and wake their
   * static pod); anything else is left to the kubelet.
   * @returns whether the pod was a mirror pod
   */
  observeAPIPod(pod: Pod, deleted: boolean): boolean {
    if (!isMirrorPod(pod)) return false;
    const full = podFullName(pod);
    const before = this.mirrors.get(full);
    if (!deleted) this.mirrors.set(full, pod);
    else if (before?.metadata?.uid === pod.metadata?.uid) this.mirrors.delete(full);
    const st = this.statics.get(full);
    if (!st) return true;
    const uid = st.metadata!.uid!;
    const now = this.mirrors.get(full);
    const good = (m?: Pod): boolean => !!m && !m.metadata?.deletionTimestamp && isMirrorPodOf(m, st);
    // our own status writes change nothing that matters here: wake only on a mirror pod
    // that appeared, went, was replaced, is being deleted or stopped matching
    if (before?.metadata?.uid !== now?.metadata?.uid || good(before) !== good(now)) this.o.wake(uid);
    if (good(now) && (before?.metadata?.uid !== now?.metadata?.uid || !good(before))) this.o.mirrorReady(uid);
    return true;
  }

  /** The mirror pod of static pod `pod` from the API (any hash), if one is known. */
  mirrorOf(pod: Pod): Pod | undefined {
    return this.mirrors.get(podFullName(pod));
  }

  /**
   * The UID a status write of pod `uid` must carry: the mirror pod's for a static pod
   * (null while it has no matching mirror pod: hold the write), undefined for API pods.
   */
  statusTarget(uid: string): string | null | undefined {
    const full = this.byUID.get(uid);
    if (full === undefined) return undefined;
    const m = this.mirrors.get(full);
    const st = this.statics.get(full)!;
    return m && !m.metadata?.deletionTimestamp && isMirrorPodOf(m, st) ? m.metadata!.uid! : null;
  }

  /**
   * Makes static pod `pod`'s mirror pod right (upstream SyncPod's mirror handling): a
   * mirror of another hash is deleted (grace 0, UID precondition) and a new one created
   * from the file; one a user deleted is deleted at once and created again after
   * {@link MIRROR_RECREATE_DELAY_MS}.
   * @returns when the static pod must be synced again to create its mirror pod (ms since the epoch; Infinity: no need)
   * @throws the API error of the create (the kubelet logs it and retries on the next sync)
   */
  async syncMirror(pod: Pod): Promise<number> {
    const full = podFullName(pod);
    const m = this.mirrorOf(pod);
    let deleted = false;
    if (m && (m.metadata?.deletionTimestamp || !isMirrorPodOf(m, pod))) {
      const why = m.metadata?.deletionTimestamp ? 'being deleted' : 'not a mirror of the static pod';
      this.o.log?.(`deleting mirror pod ${full} (uid ${m.metadata?.uid}): ${why}`);
      deleted = await this.o.mirrors.delete(m.metadata?.namespace ?? '', m.metadata?.name ?? '', m.metadata?.uid);
      if (deleted && m.metadata?.deletionTimestamp) this.recreateAt.set(full, this.o.now() + MIRROR_RECREATE_DELAY_MS);
    }
    if (m && !deleted) return Infinity;
    const at = this.recreateAt.get(full) ?? 0;
    if (this.o.now() < at) return at;
    this.recreateAt.delete(full);
    await this.o.mirrors.create(pod);
    return Infinity;
  }

  /** Deletes the mirror pods whose static pod is gone (upstream HandlePodCleanups' orphaned mirror pods). */
  cleanupOrphanedMirrors(): void {
    for (const full of this.mirrors.keys()) if (!this.statics.has(full)) void this.deleteOrphan(full);
  }

  private async deleteOrphan(full: string): Promise<void> {
    const m = this.mirrors.get(full);
    if (!m || this.deleting.get(full) === m.metadata?.uid) return;
    const uid = m.metadata?.uid ?? '';
    this.deleting.set(full, uid);
    try {
      this.o.log?.(`deleting orphaned mirror pod ${full} (uid ${uid})`);
      await this.o.mirrors.delete(m.metadata?.namespace ?? '', m.metadata?.name ?? '', uid);
    } catch (e) {
      this.o.log?.(`deleting orphaned mirror pod ${full} failed`, e);
    } finally {
      if (this.deleting.get(full) === uid) this.deleting.delete(full);
    }
  }
}

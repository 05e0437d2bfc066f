/**
 * Upstream EndpointSliceTracker: the generation of every slice this controller wrote
 * (or that it expects deleted), per Service, so that a sync never works from an
 * informer cache older than its own writes, and so that only changes made by others
 * trigger a resync.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/endpointslice/endpointslice_tracker.go
 */
import type { EndpointSlice } from './reconciler.js';
import { LABEL_SERVICE_NAME } from './reconciler.js';

const DELETION_EXPECTED = -1;

const serviceKeyOf = (s: EndpointSlice): string => `${s.metadata?.namespace}/${s.metadata?.labels?.[LABEL_SERVICE_NAME] ?? ''}`;

export class EndpointSliceTracker {
  /** service key → slice UID → generation (or deletion expected) */
  private readonly byService = new Map<string, Map<string, number>>();

  private gens(s: EndpointSlice, create: boolean): Map<string, number> | undefined {
    const k = serviceKeyOf(s);
    let m = this.byService.get(k);
    if (!m && create) this.byService.set(k, (m = new Map()));
    return m;
  }

  /** Is the slice tracked? */
  has(s: EndpointSlice): boolean {
    return !!this.gens(s, false)?.has(s.metadata?.uid ?? '');
  }

  /** Does the informer's copy differ from what we wrote (a change by someone else)? */
  shouldSync(s: EndpointSlice): boolean {
    const g = this.gens(s, false)?.get(s.metadata?.uid ?? '');
    return g === undefined || (s.metadata?.generation ?? 0) > g;
  }

  /** Records a slice we wrote. */
  update(s: EndpointSlice): void {
    this.gens(s, true)!.set(s.metadata?.uid ?? '', s.metadata?.generation ?? 0);
  }

  /** Records a slice we deleted. */
  expectDeletion(s: EndpointSlice): void {
    this.gens(s, true)!.set(s.metadata?.uid ?? '', DELETION_EXPECTED);
  }

  /**
   * Forgets a deleted slice.
   * @returns true when we expected the deletion (no resync needed)
   */
  handleDeletion(s: EndpointSlice): boolean {
    const m = this.gens(s, false);
    const uid = s.metadata?.uid ?? '';
    const g = m?.get(uid);
    m?.delete(uid);
    return g === DELETION_EXPECTED;
  }

  /**
   * Is the informer's view of the Service's slices older than our writes (a slice we
   * wrote missing or at a lower generation, or one we deleted still present)?
   */
  staleSlices(serviceKey: string, slices: readonly EndpointSlice[]): boolean {
    const m = this.byService.get(serviceKey);
    if (!m) return false;
    const seen = new Set<string>();
    for (const s of slices) {
      const uid = s.metadata?.uid ?? '';
      seen.add(uid);
      const g = m.get(uid);
      if (g === undefined) continue;
      if (g === DELETION_EXPECTED || g > (s.metadata?.generation ?? 0)) return true;
    }
    for (const [uid, g] of m) if (g !== DELETION_EXPECTED && !seen.has(uid)) return true;
    return false;
  }

  deleteService(serviceKey: string): void {
    this.byService.delete(serviceKey);
  }
}

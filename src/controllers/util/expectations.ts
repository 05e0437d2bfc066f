/**
 * Controller expectations: how many creates and deletes a controller issued for one of
 * its objects and has not yet seen in its informer. A controller syncs an object only
 * when its expectations are satisfied (or expired after 5 minutes), so a stale cache
 * never makes it create or delete twice. Deletions are tracked by pod key so a pod seen
 * deleted twice (graceful, then gone) counts once.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/controller_utils.go (ControllerExpectations, UIDTrackingControllerExpectations)
 */

/** ms after which unmet expectations are ignored (upstream ExpectationsTimeout). */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000;

interface Entry {
  add: number;
  del: number;
  at: number;
  /** keys of pods whose deletion is expected */
  deleting: Set<string>;
}

export class Expectations {
  private readonly m = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Are the expectations for `key` met (or absent, or expired)? */
  satisfied(key: string): boolean {
    const e = this.m.get(key);
    if (!e) return true;
    if (e.add <= 0 && e.del <= 0) return true;
    return this.now() - e.at > EXPECTATIONS_TIMEOUT_MS;
  }

  /** Expects `n` creations (replacing earlier expectations). */
  expectCreations(key: string, n: number): void {
    this.m.set(key, { add: n, del: 0, at: this.now(), deleting: new Set() });
  }

  /** Expects the deletion of these pods (by `namespace/name` key). */
  expectDeletions(key: string, podKeys: string[]): void {
    this.m.set(key, { add: 0, del: podKeys.length, at: this.now(), deleting: new Set(podKeys) });
  }

  /** A creation was observed (or failed and will not be observed). */
  creationObserved(key: string): void {
    const e = this.m.get(key);
    if (e) e.add--;
  }

  /** A deletion of `podKey` was observed (counted once per pod). */
  deletionObserved(key: string, podKey: string): void {
    const e = this.m.get(key);
    if (e && e.deleting.delete(podKey)) e.del--;
  }

  /** Forgets everything about `key` (object deleted). */
  delete(key: string): void {
    this.m.delete(key);
  }
}

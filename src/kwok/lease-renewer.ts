/**
 * The cheap renewal path of the kwok-style node pool's Leases: the API server's own
 * lease store is written directly (upstream's GuaranteedUpdate: read the cached object,
 * change it, compare-and-swap), without the request pipeline a client update goes
 * through (JSON encode/decode of request and response, authentication, authorization,
 * admission, validation, field manager). The pool issues one tick's renewals in the same
 * turn of the event loop, so the storage's group commit writes them in one transaction.
 *
 * What clients see is what a kubelet's renewal gives them: `spec.renewTime` moves (with
 * `holderIdentity` and `leaseDurationSeconds` kept as the kubelet sets them), a new
 * resourceVersion, one MODIFIED watch event, and the renewing manager's managedFields
 * entry gets the renewal's time (as the field manager does for an Update that changes
 * the object). Only the creation goes through the API (admission, field manager).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/storage/interfaces.go (GuaranteedUpdate)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/nodelease
 */
import type { Obj } from '../api/resource.js';
import { rfc3339 } from '../client/events.js';

/** Renews existing node Leases. */
export interface LeaseRenewer {
  /**
   * Sets `spec.renewTime` (RFC 3339 with microseconds) of lease `kube-node-lease/<name>`.
   * @throws StatusError NotFound when the lease does not exist (the pool then creates it through the API)
   */
  renew(name: string, renewTime: string, now: Date, leaseDurationSeconds: number): Promise<void>;
}

/** The part of the API server's registry store the renewer needs (Store.guaranteedUpdate). */
export interface GuaranteedUpdater {
  guaranteedUpdate(ns: string, name: string, fn: (obj: Obj) => Obj): Promise<unknown>;
}

const LEASE_NAMESPACE = 'kube-node-lease';

/** A {@link LeaseRenewer} writing through the API server's lease store. */
export function storeLeaseRenewer(store: GuaranteedUpdater): LeaseRenewer {
  return {
    async renew(name, renewTime, now, leaseDurationSeconds) {
      await store.guaranteedUpdate(LEASE_NAMESPACE, name, (l) => renewedLease(l, name, renewTime, now, leaseDurationSeconds));
    },
  };
}

/**
 * `lease` (a mutable copy) as the node's renewal leaves it: holder the node, the
 * kubelet's duration, the new renewTime; the managedFields entry owning `spec.renewTime`
 * stamped with `now` (seconds, as metav1.Time).
 */
export function renewedLease(lease: Obj, name: string, renewTime: string, now: Date, leaseDurationSeconds: number): Obj {
  const spec = (lease.spec ?? {}) as Record<string, unknown>;
  spec.holderIdentity = name;
  spec.leaseDurationSeconds = leaseDurationSeconds;
  spec.renewTime = renewTime;
  lease.spec = spec;
  const t = rfc3339(now);
  for (const mf of lease.metadata?.managedFields ?? []) {
    const spec = (mf.fieldsV1 as Record<string, Record<string, unknown>> | undefined)?.['f:spec'];
    if (mf.operation === 'Update' && spec && 'f:renewTime' in spec) mf.time = t;
  }
  return lease;
}

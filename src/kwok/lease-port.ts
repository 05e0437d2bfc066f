/**
 * The kwok pool's cheap lease renewals across threads: the pool in a worker thread hands
 * one tick's renewals to the API server's thread as one message (node names, renewTime),
 * where {@link serveLeaseRenewer} applies them with the server's {@link LeaseRenewer}
 * (its lease store) in one turn — one storage transaction, as when the pool runs in the
 * server's thread. The reply names the leases that were not found, so the pool creates
 * them again through the API.
 */
import type { MessagePort } from 'node:worker_threads';
import { isNotFound, newNotFound } from '../apimachinery/errors.js';
import type { LeaseRenewer } from './lease-renewer.js';

/** worker → server: renew these leases */
interface RenewBatch {
  id: number;
  names: string[];
  renewTime: string;
  /** ms since the epoch */
  now: number;
  leaseDurationSeconds: number;
}
/** server → worker: which of the batch's leases failed */
interface RenewResult {
  id: number;
  notFound: string[];
  failed: string[];
}

/** Answers {@link portLeaseRenewer}'s batches on `port` with `renewer`. */
export function serveLeaseRenewer(port: MessagePort, renewer: LeaseRenewer): void {
  port.on('message', (b: RenewBatch) => {
    const now = new Date(b.now);
    // issued in one turn: the storage commits them together
    const all = b.names.map((n) => renewer.renew(n, b.renewTime, now, b.leaseDurationSeconds));
    void Promise.allSettled(all).then((rs) => {
      const res: RenewResult = { id: b.id, notFound: [], failed: [] };
      rs.forEach((r, i) => {
        if (r.status === 'rejected') (isNotFound(r.reason) ? res.notFound : res.failed).push(b.names[i]!);
      });
      port.postMessage(res);
    });
  });
}

/**
 * A {@link LeaseRenewer} for a pool in a worker thread: the renewals asked for in one
 * turn (with the same renewTime) go to the server's thread as one batch.
 * A renewal rejects with NotFound when the lease is gone, with an Error when it failed otherwise.
 */
export function portLeaseRenewer(port: MessagePort): LeaseRenewer {
  let next = 1;
  let batch: (RenewBatch & { waiters: { resolve(): void; reject(e: unknown): void }[] }) | undefined;
  const inFlight = new Map<number, { names: string[]; waiters: { resolve(): void; reject(e: unknown): void }[] }>();
  port.on('message', (r: RenewResult) => {
    const b = inFlight.get(r.id);
    if (!b) return;
    inFlight.delete(r.id);
    const nf = new Set(r.notFound);
    const failed = new Set(r.failed);
    b.names.forEach((n, i) => {
      const w = b.waiters[i]!;
      if (nf.has(n)) w.reject(newNotFound({ group: 'coordination.k8s.io', resource: 'leases' }, n));
      else if (failed.has(n)) w.reject(new Error(`lease ${n}: renewal failed`));
      else w.resolve();
    });
  });
  const flush = (): void => {
    const b = batch;
    batch = undefined;
    if (!b) return;
    inFlight.set(b.id, { names: b.names, waiters: b.waiters });
    port.postMessage({ id: b.id, names: b.names, renewTime: b.renewTime, now: b.now, leaseDurationSeconds: b.leaseDurationSeconds } satisfies RenewBatch);
  };
  return {
    renew(name, renewTime, now, leaseDurationSeconds) {
      if (batch && (batch.renewTime !== renewTime || batch.leaseDurationSeconds !== leaseDurationSeconds)) flush();
      if (!batch) {
        batch = { id: next++, names: [], renewTime, now: now.getTime(), leaseDurationSeconds, waiters: [] };
        queueMicrotask(flush);
      }
      const b = batch;
      b.names.push(name);
      return new Promise<void>((resolve, reject) => b.waiters.push({ resolve, reject }));
    },
  };
}

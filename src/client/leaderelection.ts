/**
 * Leader election over a coordination.k8s.io/v1 Lease, as client-go's
 * tools/leaderelection with a LeaseLock: candidates try to acquire the Lease every
 * retry period; the holder renews it and gives up leadership when it could not renew
 * within the renew deadline; a Lease is free once the holder has not renewed it for
 * leaseDurationSeconds — measured on the local clock since the record was last seen
 * to change, so clock skew between machines does not matter. Optionally the Lease is
 * released (holder cleared, duration 1 s) on stop.
 *
 * Writes use the Lease's resourceVersion, so two candidates can never both win.
 *
 * @see https://github.com/kubernetes/client-go/blob/master/tools/leaderelection/leaderelection.go
 * @see https://github.com/kubernetes/client-go/blob/master/tools/leaderelection/resourcelock/leaselock.go
 */
import type { KObject } from '../api/resource.js';
import { isAlreadyExists, isConflict, isNotFound } from '../apimachinery/errors.js';
import { rfc3339Micro } from './events.js';
import { R, type Client } from './types.js';

/** The Lease spec fields leader election uses. */
interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** RFC 3339 with microseconds */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions: number;
}

export interface LeaderElectionConfig {
  client: Client;
  /** Lease namespace, e.g. kube-system */
  namespace: string;
  /** Lease name, e.g. kube-scheduler */
  name: string;
  /** this candidate's unique identity (upstream: hostname + "_" + a UUID) */
  identity: string;
  /** ms a Lease stays valid without renewal; default 15000 */
  leaseDurationMs?: number;
  /** ms the leader keeps retrying a failing renewal before giving up; default 10000 */
  renewDeadlineMs?: number;
  /** ms between attempts; default 2000 */
  retryPeriodMs?: number;
  /** clear the Lease when stopping while leader; default true */
  releaseOnCancel?: boolean;
  onStartedLeading(): void;
  onStoppedLeading(): void;
  /** called when the observed leader changes (including to this candidate) */
  onNewLeader?(identity: string): void;
  /** ms clock; default Date.now */
  now?: () => number;
  /** waits `ms`; resolves early (to let the loop notice stop) when `signal` aborts. Default setTimeout. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

type LeaseObj = KObject & { spec?: Partial<LeaderElectionRecord> & { leaseDurationSeconds?: number } };

const JITTER = 1.2;

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Runs one candidate. `run()` resolves when it stops (stop(), or leadership lost). */
export class LeaderElector {
  private readonly leaseMs: number;
  private readonly renewMs: number;
  private readonly retryMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly abort = new AbortController();
  private observed: { record: string; time: number; rv: string } | null = null;
  private leader = false;
  private reportedLeader = '';
  private running: Promise<void> | null = null;

  constructor(private readonly c: LeaderElectionConfig) {
    this.leaseMs = c.leaseDurationMs ?? 15000;
    this.renewMs = c.renewDeadlineMs ?? 10000;
    this.retryMs = c.retryPeriodMs ?? 2000;
    if (this.leaseMs <= this.renewMs) throw new Error('leaseDuration must be greater than renewDeadline');
    if (this.renewMs <= JITTER * this.retryMs) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
    this.now = c.now ?? Date.now;
    this.sleep = c.sleep ?? defaultSleep;
  }

  /** Whether this candidate currently holds the Lease. */
  isLeader(): boolean {
    return this.leader;
  }

  /** Acquires, then renews until stopped or lost. Resolves when done. */
  run(): Promise<void> {
    this.running ??= this.loop();
    return this.running;
  }

  /** Stops; releases the Lease when leader (and releaseOnCancel). */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async loop(): Promise<void> {
    // acquire
    while (!this.stopped) {
      if (await this.tryAcquireOrRenew()) break;
      await this.sleep(this.retryMs * (1 + Math.random() * (JITTER - 1)), this.abort.signal);
    }
    if (this.stopped) return;
    this.leader = true;
    this.c.onStartedLeading();
    // renew
    let lastRenew = this.now();
    while (!this.stopped) {
      await this.sleep(this.retryMs, this.abort.signal);
      if (this.stopped) break;
      if (await this.tryAcquireOrRenew()) {
        lastRenew = this.now();
        continue;
      }
      if (this.now() - lastRenew >= this.renewMs) break;
    }
    const lost = !this.stopped;
    if (!lost && this.c.releaseOnCancel !== false) await this.release();
    this.leader = false;
    this.c.onStoppedLeading();
  }

  private report(holder: string): void {
    if (holder && holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      this.c.onNewLeader?.(holder);
    }
  }

  private record(acquireTime: string, transitions: number): LeaderElectionRecord {
    const now = rfc3339Micro(new Date(this.now()));
    return {
      holderIdentity: this.c.identity,
      leaseDurationSeconds: Math.round(this.leaseMs / 1000),
      acquireTime: acquireTime || now,
      renewTime: now,
      leaseTransitions: transitions,
    };
  }

  /** One attempt; true when this candidate holds the Lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name } = this.c;
    let lease: LeaseObj;
    try {
      lease = await client.get<LeaseObj>(R.leases, namespace, name);
    } catch (e) {
      if (!isNotFound(e)) return false;
      try {
        const rec = this.record('', 0);
        const created = await client.create<LeaseObj>(R.leases, namespace, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec: rec,
        });
        this.observe(created);
        this.report(this.c.identity);
        return true;
      } catch (e2) {
        if (!isAlreadyExists(e2)) return false;
        return false;
      }
    }
    const spec = lease.spec ?? {};
    this.observe(lease);
    const holder = spec.holderIdentity ?? '';
    this.report(holder);
    const now = this.now();
    const durMs = (spec.leaseDurationSeconds ?? 0) * 1000;
    if (holder && holder !== this.c.identity && this.observed!.time + durMs > now) return false;
    const isMine = holder === this.c.identity;
    const transitions = (spec.leaseTransitions ?? 0) + (isMine || !holder ? 0 : 1);
    const rec = this.record(isMine ? (spec.acquireTime ?? '') : '', isMine ? (spec.leaseTransitions ?? 0) : transitions);
    try {
      const updated = await client.update<LeaseObj>(R.leases, namespace, { ...lease, spec: { ...spec, ...rec } });
      this.observe(updated);
      this.report(this.c.identity);
      return true;
    } catch (e) {
      if (isConflict(e) || isNotFound(e)) return false;
      return false;
    }
  }

  private observe(lease: LeaseObj): void {
    const rec = JSON.stringify(lease.spec ?? {});
    const rv = lease.metadata?.resourceVersion ?? '';
    if (!this.observed || this.observed.record !== rec) this.observed = { record: rec, time: this.now(), rv };
    else this.observed.rv = rv;
  }

  private async release(): Promise<void> {
    const { client, namespace, name } = this.c;
    try {
      const lease = await client.get<LeaseObj>(R.leases, namespace, name);
      if (lease.spec?.holderIdentity !== this.c.identity) return;
      const now = rfc3339Micro(new Date(this.now()));
      await client.update(R.leases, namespace, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now },
      });
    } catch {
      // best effort, as upstream
    }
  }
}

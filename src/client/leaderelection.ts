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
import { isNotFound } from '../apimachinery/errors.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/klog.js';
import { rfc3339Micro, type EventRecorder } from './events.js';
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
  /** called after each attempt to acquire (not to renew) with its outcome */
  onAcquireAttempt?(acquired: boolean): void;
  /**
   * The clock the Lease times and waits are read from (a FakeClock in tests); `now`
   * and `sleep` below override its parts. Default: the process clock.
   */
  clock?: Clock;
  /** ms clock; default `clock.now` */
  now?: () => number;
  /** waits `ms`; resolves early (to let the loop notice stop) when `signal` aborts. Default: a `clock` timer. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * Records the LeaderElection events about the Lease (`<identity> became leader`,
   * `<identity> stopped leading`), as client-go's LeaseLock.RecordEvent.
   */
  recorder?: EventRecorder;
  /** the component's klog-style log (acquire/renew lines as client-go's) */
  logger?: Logger;
}

type LeaseObj = KObject & { spec?: Partial<LeaderElectionRecord> & { leaseDurationSeconds?: number } };

const JITTER = 1.2;

/** A wait of `ms` on `clock` that ends early when `signal` aborts. */
function clockSleep(clock: Clock): (ms: number, signal: AbortSignal) => Promise<void> {
  return (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const t = clock.setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clock.clearTimeout(t);
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
}

/** The process clock, with timers that keep the loop alive only as any setTimeout would. */
const processClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Runs one candidate. `run()` resolves when it stops (stop(), or leadership lost). */
export class LeaderElector {
  private readonly leaseMs: number;
  private readonly renewMs: number;
  private readonly retryMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly abort = new AbortController();
  private observed: { record: string; time: number; rv: string; holder: string } | null = null;
  /** the Lease as last read or written: the subject of the LeaderElection events */
  private lastLease: LeaseObj | null = null;
  private leader = false;
  private reportedLeader = '';
  private running: Promise<void> | null = null;

  constructor(private readonly c: LeaderElectionConfig) {
    this.leaseMs = c.leaseDurationMs ?? 15000;
    this.renewMs = c.renewDeadlineMs ?? 10000;
    this.retryMs = c.retryPeriodMs ?? 2000;
    if (this.leaseMs <= this.renewMs) throw new Error('leaseDuration must be greater than renewDeadline');
    if (this.renewMs <= JITTER * this.retryMs) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
    const clock = c.clock ?? processClock;
    this.now = c.now ?? (() => clock.now());
    this.sleep = c.sleep ?? clockSleep(clock);
  }

  /** `<namespace>/<name>` of the Lease, as client-go's LeaseLock.Describe. */
  get lock(): string {
    return `${this.c.namespace}/${this.c.name}`;
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
    // acquire: an attempt at once, then every retry period (with jitter)
    this.c.logger?.info('Attempting to acquire leader lease...', { lock: this.lock });
    while (!this.stopped) {
      const acquired = await this.tryAcquireOrRenew();
      this.c.onAcquireAttempt?.(acquired);
      if (acquired) break;
      this.c.logger?.V(4).info('Failed to acquire lease', { lock: this.lock });
      await this.sleep(this.retryMs * (1 + Math.random() * (JITTER - 1)), this.abort.signal);
    }
    if (this.stopped) {
      this.c.onStoppedLeading();
      return;
    }
    this.leader = true;
    this.recordEvent('became leader');
    this.c.logger?.info('Successfully acquired lease', { lock: this.lock });
    this.c.onStartedLeading();
    // renew every retry period; give up when no renewal succeeded for the renew deadline
    let lastRenew = this.now();
    while (!this.stopped) {
      await this.sleep(this.retryMs, this.abort.signal);
      if (this.stopped) break;
      if (await this.tryAcquireOrRenew()) {
        lastRenew = this.now();
        continue;
      }
      if (this.now() - lastRenew >= this.renewMs) {
        this.c.logger?.info('Failed to renew lease', { lock: this.lock, err: 'timed out waiting for the condition' });
        break;
      }
    }
    const lost = !this.stopped;
    this.leader = false;
    this.recordEvent('stopped leading');
    if (!lost && this.c.releaseOnCancel !== false) await this.release();
    this.c.onStoppedLeading();
  }

  private recordEvent(what: string): void {
    const m = this.lastLease?.metadata ?? { name: this.c.name, namespace: this.c.namespace };
    this.c.recorder?.event({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: m }, 'Normal', 'LeaderElection', `${this.c.identity} ${what}`);
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

  /**
   * One attempt; true when this candidate holds the Lease afterwards. A Lease held by
   * another identity is taken only once its record has not changed for its
   * leaseDurationSeconds on this candidate's clock; taking it counts a transition
   * (also after a release, as client-go).
   */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name } = this.c;
    let lease: LeaseObj;
    try {
      lease = await client.get<LeaseObj>(R.leases, namespace, name);
    } catch (e) {
      if (!isNotFound(e)) {
        this.c.logger?.error(e, 'error retrieving resource lock', { lock: this.lock });
        return false;
      }
      try {
        const created = await client.create<LeaseObj>(R.leases, namespace, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec: this.record('', 0),
        });
        this.observe(created);
        this.report(this.c.identity);
        return true;
      } catch (e2) {
        // AlreadyExists: another candidate created it first
        this.c.logger?.V(4).info('error initially creating leader election record', { lock: this.lock, err: (e2 as Error).message });
        return false;
      }
    }
    const spec = lease.spec ?? {};
    this.observe(lease);
    const holder = spec.holderIdentity ?? '';
    this.report(holder);
    const now = this.now();
    const durMs = (spec.leaseDurationSeconds ?? 0) * 1000;
    const isMine = holder === this.c.identity;
    if (holder && !isMine && this.observed!.time + durMs > now) return false;
    const transitions = spec.leaseTransitions ?? 0;
    const rec = isMine ? this.record(spec.acquireTime ?? '', transitions) : this.record('', transitions + 1);
    try {
      const updated = await client.update<LeaseObj>(R.leases, namespace, { ...lease, spec: { ...spec, ...rec } });
      this.observe(updated);
      this.report(this.c.identity);
      return true;
    } catch (e) {
      // Conflict: another candidate wrote first; NotFound: deleted meanwhile
      this.c.logger?.V(4).info('Failed to update lock', { lock: this.lock, err: (e as Error).message });
      return false;
    }
  }

  private observe(lease: LeaseObj): void {
    this.lastLease = lease;
    const rec = JSON.stringify(lease.spec ?? {});
    const rv = lease.metadata?.resourceVersion ?? '';
    const holder = lease.spec?.holderIdentity ?? '';
    if (!this.observed || this.observed.record !== rec) this.observed = { record: rec, time: this.now(), rv, holder };
    else this.observed.rv = rv;
  }

  /** The holder of the Lease as last observed ('' when none or not yet read). */
  observedHolder(): string {
    return this.observed?.holder ?? '';
  }

  private async release(): Promise<void> {
    const { client, namespace, name } = this.c;
    try {
      const lease = await client.get<LeaseObj>(R.leases, namespace, name);
      if (lease.spec?.holderIdentity !== this.c.identity) return;
      const now = rfc3339Micro(new Date(this.now()));
      const released = await client.update<LeaseObj>(R.leases, namespace, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now },
      });
      this.observe(released);
    } catch (e) {
      // best effort, as upstream
      this.c.logger?.error(e, 'Failed to release lease', { lock: this.lock });
    }
  }
}

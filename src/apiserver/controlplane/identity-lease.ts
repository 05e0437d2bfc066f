/**
 * APIServerIdentity (on by default since v1.26): each kube-apiserver keeps a Lease
 * `kube-system/apiserver-<hash>` labelled `apiserver.kubernetes.io/identity:
 * kube-apiserver` and `kubernetes.io/hostname`, renewed every 10 s with a duration of
 * 3600 s; every API server also deletes such Leases that expired (checked every hour),
 * so a server that went away for good disappears.
 *
 * The hash is upstream's: SHA-256 over the length-prefixed host name and
 * `kube-apiserver`, the first 16 bytes in unpadded lower-case base32. k8ts hashes the
 * server's node name (the host name by default) so that several servers on one machine
 * get distinct identities.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controlplane/apiserver/server.go (identity lease controller)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/server/config.go (APIServerID)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controlplane/controller/apiserverleasegc/gc_controller.go
 */
import { createHash, randomUUID } from 'node:crypto';
import type { KObject } from '../../api/resource.js';
import { isNotFound } from '../../apimachinery/errors.js';
import { R, type Client } from '../../client/types.js';
import { realClock, type Clock, type TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/klog.js';

/** The label that marks identity Leases and names their component. */
export const IDENTITY_LEASE_LABEL = 'apiserver.kubernetes.io/identity';
/** Upstream's IdentityLeaseDurationSeconds. */
export const IDENTITY_LEASE_DURATION_SECONDS = 3600;
/** Upstream's IdentityLeaseRenewIntervalPeriod, ms. */
export const IDENTITY_LEASE_RENEW_MS = 10_000;
/** Upstream's IdentityLeaseGCPeriod, ms. */
export const IDENTITY_LEASE_GC_PERIOD_MS = 3600_000;

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** RFC 4648 base32 without padding, lower case. */
function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let acc = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(acc << (5 - bits)) & 31];
  return out;
}

/** `apiserver-<hash>` for a host (upstream's APIServerID). */
export function apiServerID(host: string): string {
  const field = (s: string): Buffer => {
    const b = Buffer.from(s, 'utf8');
    const len = Buffer.alloc(2);
    len.writeUInt16BE(b.length);
    return Buffer.concat([len, b]);
  };
  const hash = createHash('sha256')
    .update(Buffer.concat([field(host), field('kube-apiserver')]))
    .digest();
  return `apiserver-${base32(hash.subarray(0, 16))}`;
}

/** RFC 3339 with microseconds (metav1.MicroTime). */
const micro = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

type LeaseObj = KObject & { spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string } };

/** Whether an identity Lease expired (or lacks renewTime or duration), as the GC judges it. */
export function identityLeaseExpired(lease: LeaseObj, now: number): boolean {
  const s = lease.spec ?? {};
  if (!s.renewTime || s.leaseDurationSeconds === undefined) return true;
  return Date.parse(s.renewTime) + s.leaseDurationSeconds * 1000 < now;
}

export interface IdentityLeaseOptions {
  client: Client;
  /** the name the identity is hashed from and the `kubernetes.io/hostname` label */
  host: string;
  clock?: Clock;
  logger?: Logger;
}

/** Keeps this API server's identity Lease and collects expired ones. */
export class IdentityLease {
  readonly name: string;
  readonly holderIdentity: string;
  private readonly clock: Clock;
  private readonly timers = new Map<string, TimerHandle>();
  private stopped = false;

  constructor(private readonly o: IdentityLeaseOptions) {
    this.name = apiServerID(o.host);
    this.holderIdentity = `${this.name}_${randomUUID()}`;
    this.clock = o.clock ?? realClock;
  }

  /** Writes the Lease and collects garbage once now, then on their periods. */
  async start(): Promise<void> {
    await this.renew().catch((err: unknown) => this.o.logger?.error(err, 'failed to ensure lease exists, will retry', { lease: `kube-system/${this.name}` }));
    await this.gc();
    this.every('renew', IDENTITY_LEASE_RENEW_MS, () =>
      this.renew().catch((err: unknown) => this.o.logger?.error(err, 'failed to update lease', { lease: `kube-system/${this.name}` })),
    );
    this.every('gc', IDENTITY_LEASE_GC_PERIOD_MS, () => this.gc());
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) this.clock.clearTimeout(t);
  }

  private every(key: string, ms: number, fn: () => Promise<unknown>): void {
    const tick = (): void => {
      if (!this.stopped)
        this.timers.set(
          key,
          this.clock.setTimeout(() => void fn().finally(tick), ms),
        );
    };
    tick();
  }

  /** Creates the Lease, or renews it (renewTime, holder, labels). */
  async renew(): Promise<void> {
    const { client } = this.o;
    const labels = { [IDENTITY_LEASE_LABEL]: 'kube-apiserver', 'kubernetes.io/hostname': this.o.host };
    const spec = { holderIdentity: this.holderIdentity, leaseDurationSeconds: IDENTITY_LEASE_DURATION_SECONDS, renewTime: micro(this.clock.now()) };
    let cur: LeaseObj;
    try {
      cur = await client.get<LeaseObj>(R.leases, 'kube-system', this.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await client.create(R.leases, 'kube-system', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.name, namespace: 'kube-system', labels }, spec });
      return;
    }
    await client.update(R.leases, 'kube-system', { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata?.labels, ...labels } }, spec: { ...cur.spec, ...spec } });
  }

  /** Deletes expired identity Leases, each checked again just before (another server may have renewed or deleted it). */
  async gc(): Promise<void> {
    const { client } = this.o;
    try {
      const list = await client.list<LeaseObj>(R.leases, 'kube-system', { labelSelector: `${IDENTITY_LEASE_LABEL}=kube-apiserver` });
      for (const l of list.items) {
        if (!identityLeaseExpired(l, this.clock.now())) continue;
        const name = l.metadata!.name!;
        try {
          const fresh = await client.get<LeaseObj>(R.leases, 'kube-system', name);
          if (!identityLeaseExpired(fresh, this.clock.now())) continue;
          await client.delete(R.leases, 'kube-system', name);
          this.o.logger?.info('Deleted expired apiserver identity lease', { lease: `kube-system/${name}` });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
    } catch (err) {
      this.o.logger?.error(err, 'Error while listing apiserver leases');
    }
  }
}

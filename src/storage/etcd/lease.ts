import { etcdError, type EtcdClient } from './client.js';

/** Most seconds a lease is shared beyond the TTL asked for (upstream's default reuse duration). */
const MAX_REUSE_SECONDS = 60;
/** Share of the TTL a lease is reused for, at most {@link MAX_REUSE_SECONDS}. */
const REUSE_FRACTION = 0.05;
/** Most keys attached to one lease (upstream's default). */
const MAX_ATTACHED = 1000;

interface Current {
  id: string;
  /** when the lease expires (ms since the epoch) */
  expiresAt: number;
  attached: number;
}

/**
 * Hands out etcd leases for keys written with a TTL, sharing one lease among the
 * writes of a short window instead of granting one per key, as kube-apiserver's
 * lease manager does: a lease granted for `ttl + reuse` seconds serves every write
 * whose own expiry (`now + ttl`) falls before the lease's, up to 1000 keys. A key
 * thus lives between `ttl` and `ttl + reuse` seconds (reuse = 5 % of the TTL, at
 * most 60 s).
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/storage/etcd3/lease_manager.go
 */
export class LeaseManager {
  private readonly current = new Map<number, Current>();
  private readonly granting = new Map<number, Promise<Current>>();

  constructor(
    private readonly client: EtcdClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** A lease ID for a key that should live `ttlSeconds`. @throws StorageError when etcd refuses */
  async leaseFor(ttlSeconds: number): Promise<string> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    const cur = this.current.get(ttl);
    if (cur && this.now() + ttl * 1000 < cur.expiresAt && cur.attached < MAX_ATTACHED) {
      cur.attached++;
      return cur.id;
    }
    let pending = this.granting.get(ttl);
    if (!pending) {
      pending = this.grant(ttl).finally(() => this.granting.delete(ttl));
      this.granting.set(ttl, pending);
    }
    const l = await pending;
    l.attached++;
    return l.id;
  }

  private async grant(ttl: number): Promise<Current> {
    const reuse = Math.min(Math.floor(ttl * REUSE_FRACTION), MAX_REUSE_SECONDS);
    const started = this.now();
    let id: string;
    try {
      id = await this.client.leaseGrant(ttl + reuse);
    } catch (err) {
      throw etcdError(err);
    }
    const l: Current = { id, expiresAt: started + (ttl + reuse) * 1000, attached: 0 };
    this.current.set(ttl, l);
    return l;
  }
}

/**
 * The API servers' master leases: each API server keeps one key under
 * `/registry/masterleases/` written with a TTL (15 s) and refreshed every reconcile
 * interval (10 s), so a server that dies stops being listed once its key expires —
 * kube-apiserver's storage-backed `Leases` of the lease endpoint reconciler. The value
 * is a v1 Endpoints object naming the server's address (upstream's shape) and, as a
 * k8ts addition, its port, so that servers sharing one address on different ports
 * (several on one machine) are each listed.
 *
 * Keys: `/registry/masterleases/<ip>` as upstream for a server on the default port
 * 6443, `/registry/masterleases/<ip>:<port>` for any other port (one key per endpoint).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controlplane/reconcilers/lease.go (storageLeases)
 */
import { KeyExistsError, KeyNotFoundError, RevisionMismatchError, type Storage } from '../../storage/interface.js';

/** Upstream's default master lease TTL (`DefaultEndpointReconcilerTTL`), seconds. */
export const MASTER_LEASE_TTL_SECONDS = 15;

/** Where the leases live (kube-apiserver's `/masterleases/` under the storage prefix). */
export const MASTER_LEASES_PREFIX = '/registry/masterleases/';

/** The secure port whose leases keep upstream's bare `<ip>` key. */
const DEFAULT_SECURE_PORT = 6443;

/** One live API server as its lease names it. */
export interface MasterEndpoint {
  ip: string;
  /** the API server's secure port; absent in a lease without ports (upstream's shape) */
  port?: number;
}

interface LeaseValue {
  kind: 'Endpoints';
  apiVersion: 'v1';
  metadata: { generation?: number; creationTimestamp: null };
  subsets?: { addresses?: { ip?: string }[]; ports?: { name?: string; port?: number; protocol?: string }[] }[];
}

/** The key of an endpoint's lease. */
export function masterLeaseKey(ep: Required<MasterEndpoint>): string {
  return MASTER_LEASES_PREFIX + (ep.port === DEFAULT_SECURE_PORT ? ep.ip : `${ep.ip}:${ep.port}`);
}

export class MasterLeases {
  constructor(
    private readonly storage: Storage,
    private readonly ttlSeconds = MASTER_LEASE_TTL_SECONDS,
  ) {}

  /**
   * Creates or refreshes the lease of `ep` (a new TTL from now). Each refresh bumps the
   * stored object's generation, as upstream's (a write must change the value).
   * @throws StorageError when the storage fails (not on a concurrent write: retried)
   */
  async update(ep: Required<MasterEndpoint>): Promise<void> {
    const key = masterLeaseKey(ep);
    for (let attempt = 0; ; attempt++) {
      const { kv } = await this.storage.get(key);
      const generation = kv ? ((JSON.parse(kv.value) as LeaseValue).metadata?.generation ?? 0) + 1 : 1;
      const value: LeaseValue = {
        kind: 'Endpoints',
        apiVersion: 'v1',
        metadata: { generation, creationTimestamp: null },
        subsets: [{ addresses: [{ ip: ep.ip }], ports: [{ name: 'https', port: ep.port, protocol: 'TCP' }] }],
      };
      try {
        if (kv) await this.storage.update(key, JSON.stringify(value), kv.modRevision, { ttlSeconds: this.ttlSeconds });
        else await this.storage.create(key, JSON.stringify(value), { ttlSeconds: this.ttlSeconds });
        return;
      } catch (err) {
        const raced = err instanceof RevisionMismatchError || err instanceof KeyExistsError || err instanceof KeyNotFoundError;
        if (!raced || attempt >= 5) throw err;
      }
    }
  }

  /** The endpoints of every unexpired lease, in key order. Unparsable values are skipped. */
  async list(): Promise<MasterEndpoint[]> {
    const { kvs } = await this.storage.list(MASTER_LEASES_PREFIX);
    const out: MasterEndpoint[] = [];
    for (const kv of kvs) {
      let v: LeaseValue;
      try {
        v = JSON.parse(kv.value) as LeaseValue;
      } catch {
        continue;
      }
      const sub = v.subsets?.[0];
      const ip = sub?.addresses?.[0]?.ip;
      if (!ip) continue;
      const port = sub?.ports?.[0]?.port;
      out.push(port ? { ip, port } : { ip });
    }
    return out;
  }

  /** Deletes the lease of `ep` (an API server shutting down); absent is fine. */
  async remove(ep: Required<MasterEndpoint>): Promise<void> {
    try {
      await this.storage.delete(masterLeaseKey(ep));
    } catch (err) {
      if (!(err instanceof KeyNotFoundError)) throw err;
    }
  }
}

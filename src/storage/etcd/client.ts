/**
 * A small etcd v3 gRPC client over @grpc/grpc-js and etcd-rpc.proto: unary KV, Lease
 * and Maintenance calls as promises, and raw Watch streams. TLS with a CA and an
 * optional client certificate, as kube-apiserver's `--etcd-cafile/--etcd-certfile/
 * --etcd-keyfile`.
 *
 * Messages use proto-loader's object form: lowerCamelCase fields, int64 as decimal
 * strings (lease IDs exceed 2^53; revisions are converted with {@link num}), bytes as
 * Buffers, enums as their names.
 *
 * @see https://etcd.io/docs/v3.5/dev-guide/api_reference_v3/
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { CompactedError, FutureRevisionError, StorageError } from '../interface.js';
import { EtcdTLSCredentials } from './tls-credentials.js';

/** Absolute path of the etcd API subset this client speaks. */
export const PROTO_PATH = fileURLToPath(new URL('./etcd-rpc.proto', import.meta.url));

/** Where and how to reach etcd. */
export interface EtcdClientOptions {
  /** `http(s)://host:port` URLs (kube-apiserver's `--etcd-servers`); IPv4 endpoints are all used (pick-first failover), otherwise the first */
  endpoints: string[];
  /** PEM file of the CA that signed etcd's serving certificate (`--etcd-cafile`) */
  caFile?: string;
  /** PEM client certificate for etcd (`--etcd-certfile`) */
  certFile?: string;
  /** PEM key of the client certificate (`--etcd-keyfile`) */
  keyFile?: string;
  /** deadline of each unary call, ms; default 30000 */
  requestTimeoutMs?: number;
}

/** An etcd KeyValue as decoded (int64 fields as strings). */
export interface RawKeyValue {
  key: Buffer;
  createRevision: string;
  modRevision: string;
  version: string;
  value: Buffer;
  lease: string;
}

export interface RawHeader {
  revision: string;
}

export interface RawRangeResponse {
  header: RawHeader;
  kvs: RawKeyValue[];
  more: boolean;
  count: string;
}

export interface RawWatchResponse {
  header: RawHeader;
  watchId: string;
  created: boolean;
  canceled: boolean;
  compactRevision: string;
  cancelReason: string;
  fragment: boolean;
  events: { type: 'PUT' | 'DELETE'; kv: RawKeyValue; prevKv: RawKeyValue | null }[];
}

export interface RawTxnResponse {
  header: RawHeader;
  succeeded: boolean;
  responses: {
    responseRange?: RawRangeResponse;
    responsePut?: { header: RawHeader; prevKv: RawKeyValue | null };
    responseDeleteRange?: { header: RawHeader; deleted: string; prevKvs: RawKeyValue[] };
  }[];
}

/** An etcd cluster member as decoded (`ID` is a uint64 as a decimal string). */
export interface RawMember {
  ID: string;
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner: boolean;
}

/** A decoded int64 (revision, count) as a number. */
export function num(v: string | number | null | undefined): number {
  return v === null || v === undefined ? 0 : Number(v);
}

/** Max gRPC message size accepted from etcd (a large list page), bytes. */
const MAX_RECEIVE_BYTES = 256 * 1024 * 1024;

let pkgCache: grpc.GrpcObject | undefined;
function etcdPackage(): grpc.GrpcObject {
  if (!pkgCache) {
    const def = protoLoader.loadSync(PROTO_PATH, { keepCase: false, longs: String, enums: String, defaults: true, arrays: true, oneofs: true });
    pkgCache = (grpc.loadPackageDefinition(def) as { etcdserverpb: grpc.GrpcObject }).etcdserverpb;
  }
  return pkgCache;
}

/**
 * The gRPC target for `endpoints`: `ipv4:a:p,b:p` when every host is an IPv4
 * literal, else the first endpoint's `host:port`.
 *
 * @throws StorageError for an empty list or an endpoint that is not an http(s) URL
 */
export function etcdTarget(endpoints: string[]): { target: string; tls: boolean } {
  if (endpoints.length === 0) throw new StorageError('etcd: no endpoints given (--etcd-servers)');
  const parsed = endpoints.map((e) => {
    let u: URL;
    try {
      u = new URL(e);
    } catch {
      throw new StorageError(`etcd: invalid endpoint ${JSON.stringify(e)}: want http(s)://host:port`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new StorageError(`etcd: invalid endpoint ${JSON.stringify(e)}: want http(s)://host:port`);
    return { host: u.hostname, port: u.port || '2379', tls: u.protocol === 'https:' };
  });
  const tls = parsed[0]!.tls;
  if (parsed.every((p) => /^\d+\.\d+\.\d+\.\d+$/.test(p.host))) return { target: `ipv4:${parsed.map((p) => `${p.host}:${p.port}`).join(',')}`, tls };
  return { target: `${parsed[0]!.host}:${parsed[0]!.port}`, tls };
}

/** Translates a gRPC error from etcd into a storage error (compacted / future revision / other). */
export function etcdError(err: unknown, requested = 0, compacted = 0, current = 0): StorageError {
  const msg = (err as { details?: string; message?: string }).details || (err as Error).message || String(err);
  if (msg.includes('required revision has been compacted')) return new CompactedError(requested, compacted);
  if (msg.includes('required revision is a future revision')) return new FutureRevisionError(requested, current);
  return new StorageError(`etcd: ${msg}`, { cause: err });
}

/** proto-loader spells the `ID` field `ID`, `iD` or `id` depending on its version: one shape. */
function memberOf(m: RawMember & { iD?: string; id?: string }): RawMember {
  return { ID: m.ID ?? m.iD ?? m.id ?? '0', name: m.name ?? '', peerURLs: m.peerURLs ?? [], clientURLs: m.clientURLs ?? [], isLearner: !!m.isLearner };
}

type Unary = (req: object, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;

/** One gRPC channel to etcd with the KV, Watch, Lease and Maintenance services. */
export class EtcdClient {
  private readonly kv: grpc.Client;
  private readonly watchSvc: grpc.Client;
  private readonly lease: grpc.Client;
  private readonly maintenance: grpc.Client;
  private readonly cluster: grpc.Client;
  private readonly timeoutMs: number;
  private closed = false;

  /** @throws StorageError for bad endpoints or unreadable TLS files */
  constructor(opts: EtcdClientOptions) {
    const { target, tls } = etcdTarget(opts.endpoints);
    let creds: grpc.ChannelCredentials;
    try {
      creds =
        tls || opts.caFile
          ? new EtcdTLSCredentials(
              opts.caFile ? readFileSync(opts.caFile) : null,
              opts.keyFile ? readFileSync(opts.keyFile) : null,
              opts.certFile ? readFileSync(opts.certFile) : null,
            )
          : grpc.credentials.createInsecure();
    } catch (err) {
      throw new StorageError(`etcd: cannot load TLS files: ${(err as Error).message}`, { cause: err });
    }
    const pkg = etcdPackage();
    const chOpts: grpc.ChannelOptions = { 'grpc.max_receive_message_length': MAX_RECEIVE_BYTES, 'grpc.keepalive_time_ms': 30_000 };
    const ctor = (name: string) => pkg[name] as grpc.ServiceClientConstructor;
    this.kv = new (ctor('KV'))(target, creds, chOpts);
    const channelOverride = this.kv.getChannel();
    const shared = { ...chOpts, channelOverride } as grpc.ChannelOptions;
    this.watchSvc = new (ctor('Watch'))(target, creds, shared);
    this.lease = new (ctor('Lease'))(target, creds, shared);
    this.maintenance = new (ctor('Maintenance'))(target, creds, shared);
    this.cluster = new (ctor('Cluster'))(target, creds, shared);
    this.timeoutMs = opts.requestTimeoutMs ?? 30_000;
  }

  private call<T>(client: grpc.Client, method: string, req: object): Promise<T> {
    if (this.closed) return Promise.reject(new StorageError('etcd storage closed'));
    const fn = (client as unknown as Record<string, Unary>)[method]!;
    return new Promise<T>((resolve, reject) => {
      fn.call(client, req, new grpc.Metadata(), { deadline: Date.now() + this.timeoutMs }, (err, res) => (err ? reject(err) : resolve(res as T)));
    });
  }

  /** KV.Range */
  range(req: { key: Buffer; rangeEnd?: Buffer; limit?: number; revision?: number; keysOnly?: boolean; countOnly?: boolean }): Promise<RawRangeResponse> {
    return this.call(this.kv, 'Range', req);
  }

  /** KV.DeleteRange */
  deleteRange(req: { key: Buffer; rangeEnd?: Buffer; prevKv?: boolean }): Promise<{ header: RawHeader; deleted: string; prevKvs: RawKeyValue[] }> {
    return this.call(this.kv, 'DeleteRange', req);
  }

  /** KV.Txn */
  txn(req: { compare: object[]; success: object[]; failure: object[] }): Promise<RawTxnResponse> {
    return this.call(this.kv, 'Txn', req);
  }

  /** KV.Compact (logical: later reads below `revision` fail at once; disk space is reclaimed in the background) */
  compact(revision: number, physical = false): Promise<{ header: RawHeader }> {
    return this.call(this.kv, 'Compact', { revision, physical });
  }

  /** Lease.LeaseGrant: a new lease of `ttlSeconds`; resolves with its ID (decimal string). */
  async leaseGrant(ttlSeconds: number): Promise<string> {
    const res = await this.call<{ ID: string; iD?: string; id?: string; error: string }>(this.lease, 'LeaseGrant', { TTL: ttlSeconds });
    if (res.error) throw new StorageError(`etcd: lease grant: ${res.error}`);
    return res.ID ?? res.iD ?? res.id ?? '0';
  }

  /** Maintenance.Status of the member the channel is connected to (`leader`: the leader's member ID, decimal). */
  status(): Promise<{ header: RawHeader & { memberId?: string }; version: string; dbSize: string; dbSizeInUse: string; leader: string; isLearner: boolean }> {
    return this.call(this.maintenance, 'Status', {});
  }

  /**
   * Maintenance.Snapshot: the member's whole backend database as a stream of blobs (etcd's
   * snapshot file format: the bbolt database followed by its SHA-256), read in order.
   */
  snapshotStream(): grpc.ClientReadableStream<{ header?: RawHeader; remainingBytes: string; blob: Buffer }> {
    if (this.closed) throw new StorageError('etcd storage closed');
    return (this.maintenance as unknown as { Snapshot(req: object): grpc.ClientReadableStream<{ header?: RawHeader; remainingBytes: string; blob: Buffer }> }).Snapshot({});
  }

  /** Cluster.MemberList: every member, learners included. */
  async memberList(): Promise<RawMember[]> {
    const res = await this.call<{ members: RawMember[] }>(this.cluster, 'MemberList', {});
    return res.members.map(memberOf);
  }

  /**
   * Cluster.MemberAdd: announces a member at `peerURLs` (it is started afterwards with
   * `--initial-cluster-state=existing`). Resolves with the new member and the members after the add.
   */
  async memberAdd(peerURLs: string[], isLearner = false): Promise<{ member: RawMember; members: RawMember[] }> {
    const res = await this.call<{ member: RawMember; members: RawMember[] }>(this.cluster, 'MemberAdd', { peerURLs, isLearner });
    return { member: memberOf(res.member), members: res.members.map(memberOf) };
  }

  /** Cluster.MemberRemove of member `id` (decimal uint64). */
  async memberRemove(id: string): Promise<RawMember[]> {
    const res = await this.call<{ members: RawMember[] }>(this.cluster, 'MemberRemove', { ID: id });
    return res.members.map(memberOf);
  }

  /** Cluster.MemberPromote: a learner `id` becomes a voting member (fails while it lags the leader). */
  async memberPromote(id: string): Promise<RawMember[]> {
    const res = await this.call<{ members: RawMember[] }>(this.cluster, 'MemberPromote', { ID: id });
    return res.members.map(memberOf);
  }

  /** KV.Put of one key (no lease), resolving with the new revision. */
  async put(key: Buffer, value: Buffer): Promise<number> {
    const res = await this.call<{ header: RawHeader }>(this.kv, 'Put', { key, value });
    return num(res.header.revision);
  }

  /** Opens a bidirectional Watch stream. */
  watchStream(): grpc.ClientDuplexStream<object, RawWatchResponse> {
    if (this.closed) throw new StorageError('etcd storage closed');
    return (this.watchSvc as unknown as { Watch(): grpc.ClientDuplexStream<object, RawWatchResponse> }).Watch();
  }

  /** Closes the channel; pending calls fail. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.kv.close();
  }
}

/**
 * kube-apiserver's storage flags on `k8ts server`: without `--etcd-servers` the
 * embedded SQLite database under `--data-dir` is used; with it, etcd v3.
 *
 * @see https://kubernetes.io/docs/reference/command-line-tools-reference/kube-apiserver/
 */
import type { Command } from 'commander';
import type { OpenStorageOptions } from '../storage/index.js';
import { parseGoDuration } from '../util/duration.js';

/** The only `--storage-media-type` k8ts' storage encodes. */
export const STORAGE_MEDIA_TYPE_JSON = 'application/json';

/** Upstream's default `--event-ttl` (1 h), seconds. */
export const DEFAULT_EVENT_TTL_SECONDS = 3600;

/** The storage settings the flags give. */
export interface StorageConfig {
  /** which backend to open */
  open: OpenStorageOptions;
  /** how long Events live after their last write (`--event-ttl`), seconds */
  eventTTLSeconds: number;
}

/** Registers the storage flags on `cmd`. */
export function addStorageOptions(cmd: Command): Command {
  return cmd
    .option('--etcd-servers <urls>', 'etcd servers to connect to (scheme://ip:port, comma separated); default: the embedded SQLite database')
    .option('--etcd-cafile <file>', 'SSL Certificate Authority file used to secure etcd communication')
    .option('--etcd-certfile <file>', 'SSL certification file used to secure etcd communication')
    .option('--etcd-keyfile <file>', 'SSL key file used to secure etcd communication')
    .option('--etcd-prefix <prefix>', 'the prefix to prepend to all resource paths in etcd', '/registry')
    .option('--storage-media-type <type>', 'the media type to use to store objects in storage', STORAGE_MEDIA_TYPE_JSON)
    .option('--etcd-compaction-interval <duration>', 'the interval of compaction requests; 0 disables compaction from the API server', '5m0s')
    .option('--compaction-retain-revisions <n>', 'SQLite only: revisions of history kept behind the current one at each compaction', '1000')
    .option('--event-ttl <duration>', 'amount of time to retain events', '1h0m0s');
}

/** The parsed values of {@link addStorageOptions}' flags, as commander names them. */
export interface StorageFlagValues {
  etcdServers?: string;
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  etcdPrefix?: string;
  storageMediaType?: string;
  etcdCompactionInterval?: string;
  compactionRetainRevisions?: string;
  eventTtl?: string;
}

/**
 * Validates the storage flags and turns them into backend options.
 *
 * @throws Error with a message for the user (`invalid value for --flag: …`) on a bad value
 */
export function storageConfigFrom(o: StorageFlagValues, dataDir: string): StorageConfig {
  const duration = (flag: string, v: string | undefined, dflt: string): number => {
    try {
      const ms = parseGoDuration(v ?? dflt);
      if (ms < 0) throw new Error('must not be negative');
      return ms;
    } catch (err) {
      throw new Error(`invalid value for --${flag}: ${(err as Error).message}`);
    }
  };
  const mediaType = o.storageMediaType ?? STORAGE_MEDIA_TYPE_JSON;
  if (mediaType !== STORAGE_MEDIA_TYPE_JSON) {
    throw new Error(`invalid value for --storage-media-type: ${JSON.stringify(mediaType)}: k8ts stores objects as ${STORAGE_MEDIA_TYPE_JSON} only`);
  }
  const intervalMs = duration('etcd-compaction-interval', o.etcdCompactionInterval, '5m0s');
  const eventTTLSeconds = Math.ceil(duration('event-ttl', o.eventTtl, '1h0m0s') / 1000);
  if (eventTTLSeconds <= 0) throw new Error('invalid value for --event-ttl: must be positive');
  const retain = Number(o.compactionRetainRevisions ?? '1000');
  if (!Number.isInteger(retain) || retain < 0) throw new Error(`invalid value for --compaction-retain-revisions: ${JSON.stringify(o.compactionRetainRevisions)}`);

  const servers = (o.etcdServers ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (servers.length === 0) {
    for (const f of ['etcdCafile', 'etcdCertfile', 'etcdKeyfile'] as const) {
      if (o[f]) throw new Error(`--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --etcd-servers`);
    }
    return {
      open: { kind: 'sqlite', dataDir, compaction: intervalMs === 0 ? false : { intervalMs, retainRevisions: retain } },
      eventTTLSeconds,
    };
  }
  for (const s of servers) {
    if (!/^https?:\/\/[^/]+$/.test(s.replace(/\/$/, ''))) throw new Error(`invalid value for --etcd-servers: ${JSON.stringify(s)}: want scheme://ip:port`);
  }
  if (!!o.etcdCertfile !== !!o.etcdKeyfile) throw new Error('--etcd-certfile and --etcd-keyfile must be given together');
  return {
    open: {
      kind: 'etcd',
      endpoints: servers,
      caFile: o.etcdCafile,
      certFile: o.etcdCertfile,
      keyFile: o.etcdKeyfile,
      prefix: o.etcdPrefix ?? '/registry',
      compactionIntervalMs: intervalMs === 0 ? false : intervalMs,
    },
    eventTTLSeconds,
  };
}

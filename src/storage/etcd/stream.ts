/**
 * One etcd watch on its own gRPC Watch stream: over every key from a start revision,
 * with previous values. Used by the watch hub for its live feed and for each
 * watcher's history replay.
 *
 * @see https://etcd.io/docs/v3.5/learning/api/#watch-api
 */
import type * as grpc from '@grpc/grpc-js';
import { CompactedError, StorageError, type WatchEvent } from '../interface.js';
import { num, type EtcdClient, type RawWatchResponse } from './client.js';
import { ALL_KEYS, toEvents } from './convert.js';

export interface RawWatchHandlers {
  /** the events of one response (complete revisions, in order) */
  onEvents(events: WatchEvent[]): void;
  /** the stream ended for good (an error, a cancel by the server); not called after stop() */
  onEnd(err: Error): void;
}

/** A started whole-keyspace watch. */
export interface RawWatch {
  /** ends the stream; idempotent; no handler runs afterwards */
  stop(): void;
}

/**
 * Watches every key from `startRevision` (≥ 1). Resolves once etcd created the watch.
 *
 * @param requested the revision to name in a CompactedError (the caller's `afterRevision`)
 * @throws CompactedError when `startRevision` is below etcd's compacted revision
 * @throws StorageError when the stream fails before the watch is created
 */
export function watchAll(client: EtcdClient, startRevision: number, requested: number, h: RawWatchHandlers): Promise<RawWatch> {
  return new Promise<RawWatch>((resolve, reject) => {
    let stream: grpc.ClientDuplexStream<object, RawWatchResponse>;
    try {
      stream = client.watchStream();
    } catch (err) {
      reject(err);
      return;
    }
    let created = false;
    let stopped = false;
    const handle: RawWatch = {
      stop() {
        if (stopped) return;
        stopped = true;
        stream.cancel();
      },
    };
    const end = (err: Error) => {
      if (stopped) return;
      stopped = true;
      stream.cancel();
      if (created) h.onEnd(err);
      else reject(err);
    };
    stream.on('data', (res: RawWatchResponse) => {
      if (stopped) return;
      if (res.canceled) {
        const compacted = num(res.compactRevision);
        end(compacted > 0 ? new CompactedError(requested, compacted) : new StorageError(`etcd: watch canceled: ${res.cancelReason || 'by the server'}`));
        return;
      }
      if (res.created && !created) {
        created = true;
        resolve(handle);
      }
      if (res.events.length > 0) h.onEvents(toEvents(res));
    });
    stream.on('error', (err: Error) => end(new StorageError(`etcd: watch stream: ${(err as { details?: string }).details || err.message}`, { cause: err })));
    stream.on('end', () => end(new StorageError('etcd: watch stream ended')));
    stream.write({ createRequest: { key: ALL_KEYS, rangeEnd: ALL_KEYS, startRevision: String(startRevision), prevKv: true } });
  });
}

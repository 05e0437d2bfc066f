/**
 * Conversions between etcd's wire messages and the storage interface's shapes, and
 * byte-level key ranges (etcd orders keys by their bytes).
 */
import type { KeyValue, WatchEvent } from '../interface.js';
import { num, type RawKeyValue, type RawWatchResponse } from './client.js';

/** The key `"\0"`: with itself as range end, a range over every key (etcd's "all keys from key"). */
export const ALL_KEYS = Buffer.from([0]);

/** UTF-8 bytes of a key. */
export function keyBytes(key: string): Buffer {
  return Buffer.from(key, 'utf8');
}

/**
 * The range end covering every key that starts with `prefix` (etcd's
 * GetPrefixRangeEnd): the prefix with its last byte below 0xff incremented and
 * the rest dropped; `"\0"` (to the end of the keyspace) when there is none.
 *
 * @see https://github.com/etcd-io/etcd/blob/v3.4.23/clientv3/op.go (getPrefix)
 */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i]! < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i]! += 1;
      return end;
    }
  }
  return ALL_KEYS;
}

/** The smallest key after `key` (its bytes followed by 0x00). */
export function keyAfter(key: string): Buffer {
  return Buffer.concat([keyBytes(key), ALL_KEYS]);
}

/** An etcd KeyValue as a storage KeyValue. */
export function toKv(kv: RawKeyValue): KeyValue {
  return { key: kv.key.toString('utf8'), value: kv.value.toString('utf8'), createRevision: num(kv.createRevision), modRevision: num(kv.modRevision) };
}

/**
 * The storage events of one watch response: a PUT whose version is 1 is a create,
 * any other PUT an update; a DELETE carries the last value (from `prev_kv`) at the
 * deletion's revision.
 */
export function toEvents(res: RawWatchResponse): WatchEvent[] {
  const out = new Array<WatchEvent>(res.events.length);
  for (let i = 0; i < res.events.length; i++) {
    const ev = res.events[i]!;
    const prev = ev.prevKv ? toKv(ev.prevKv) : undefined;
    if (ev.type === 'DELETE') {
      const kv: KeyValue = {
        key: ev.kv.key.toString('utf8'),
        value: prev?.value ?? '',
        createRevision: prev?.createRevision ?? 0,
        modRevision: num(ev.kv.modRevision),
      };
      out[i] = prev ? { type: 'delete', kv, prevKv: prev } : { type: 'delete', kv };
    } else if (num(ev.kv.version) === 1) {
      out[i] = { type: 'create', kv: toKv(ev.kv) };
    } else {
      out[i] = prev ? { type: 'update', kv: toKv(ev.kv), prevKv: prev } : { type: 'update', kv: toKv(ev.kv) };
    }
  }
  return out;
}

/**
 * Reads against etcd: current revision, compacted revision, get, list, count.
 * A read at an explicit revision is served by etcd's MVCC store at that revision.
 *
 * @see https://etcd.io/docs/v3.5/learning/api/#range
 */
import { CompactedError, FutureRevisionError, type KeyValue, type ListOptions, type ListResult } from '../interface.js';
import { etcdError, num, type EtcdClient, type RawRangeResponse } from './client.js';
import { ALL_KEYS, keyAfter, keyBytes, prefixRangeEnd, toKv } from './convert.js';

/** What the readers share with the storage object. */
export interface ReadContext {
  client: EtcdClient;
  /** highest compacted revision this process has seen (own compactions, errors); a lower bound */
  knownCompactRev: number;
  /** the current-revision read in flight, and the one callers arriving meanwhile share */
  revInFlight?: Promise<number>;
  revNext?: Promise<number>;
}

async function fetchRevision(ctx: ReadContext): Promise<number> {
  try {
    const res = await ctx.client.range({ key: ALL_KEYS, countOnly: true });
    return num(res.header.revision);
  } catch (err) {
    throw etcdError(err);
  }
}

/**
 * The store's current revision (the header of a count-only range on one key). Calls
 * are batched, as etcd batches linearizable reads: while one read is in flight, later
 * callers share the next one, which starts after it (a read that began before a
 * caller's call could miss a write that finished before it). The watch cache's
 * consistent reads call this for every request.
 */
export function currentRevision(ctx: ReadContext): Promise<number> {
  if (!ctx.revInFlight) {
    const p = fetchRevision(ctx).finally(() => {
      if (ctx.revInFlight === p) ctx.revInFlight = undefined;
    });
    ctx.revInFlight = p;
    return p;
  }
  ctx.revNext ??= ctx.revInFlight
    .catch(() => undefined)
    .then(() => {
      ctx.revNext = undefined;
      return currentRevision(ctx);
    });
  return ctx.revNext;
}

/** True when etcd can still read at `revision` (≥ its compacted revision). */
async function readable(ctx: ReadContext, revision: number): Promise<boolean> {
  try {
    await ctx.client.range({ key: ALL_KEYS, countOnly: true, revision });
    return true;
  } catch (err) {
    const e = etcdError(err, revision);
    if (e instanceof CompactedError) return false;
    throw e;
  }
}

/**
 * etcd's compacted revision: the lowest readable revision, found by bisecting with
 * count-only ranges between the last one known and the current revision (etcd has no
 * call that returns it cheaply). 0 when nothing was ever compacted.
 */
export async function compactedRevision(ctx: ReadContext): Promise<number> {
  const cur = await currentRevision(ctx);
  let lo = Math.max(ctx.knownCompactRev, 1);
  if (lo > cur) return ctx.knownCompactRev;
  if (await readable(ctx, lo)) return ctx.knownCompactRev;
  // lo is compacted; the compacted revision is readable and lies in (lo, cur]
  let hi = cur;
  while (lo + 1 < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (await readable(ctx, mid)) hi = mid;
    else lo = mid;
  }
  ctx.knownCompactRev = Math.max(ctx.knownCompactRev, hi);
  return hi;
}

/** Runs a range at `revision` (0 = latest), translating etcd's revision errors. */
async function rangeAt(ctx: ReadContext, req: Parameters<EtcdClient['range']>[0], revision: number): Promise<RawRangeResponse> {
  try {
    return await ctx.client.range({ ...req, revision });
  } catch (err) {
    const e = etcdError(err, revision);
    if (e instanceof CompactedError) throw new CompactedError(revision, await compactedRevision(ctx));
    if (e instanceof FutureRevisionError) throw new FutureRevisionError(revision, await currentRevision(ctx));
    throw e;
  }
}

/** {@inheritDoc Storage.get} */
export async function get(ctx: ReadContext, key: string, revision = 0): Promise<{ revision: number; kv?: KeyValue }> {
  const res = await rangeAt(ctx, { key: keyBytes(key) }, revision);
  const rev = revision || num(res.header.revision);
  return res.kvs.length > 0 ? { revision: rev, kv: toKv(res.kvs[0]!) } : { revision: rev };
}

/**
 * {@inheritDoc Storage.list} One range from `startAfter` (or the prefix) to the
 * prefix's end; etcd's `count` is the number of keys in that range, so `remaining`
 * needs no second query.
 */
export async function list(ctx: ReadContext, prefix: string, opts: ListOptions = {}): Promise<ListResult> {
  const p = prefix === '' ? ALL_KEYS : keyBytes(prefix);
  const from = opts.startAfter !== undefined && Buffer.compare(keyBytes(opts.startAfter), p) >= 0 ? keyAfter(opts.startAfter) : p;
  const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
  const res = await rangeAt(ctx, { key: from, rangeEnd: prefixRangeEnd(keyBytes(prefix)), limit }, opts.revision ?? 0);
  const kvs = res.kvs.map(toKv);
  const total = num(res.count);
  return { revision: opts.revision || num(res.header.revision), kvs, more: res.more, remaining: res.more ? total - kvs.length : 0 };
}

/** {@inheritDoc Storage.count} */
export async function count(ctx: ReadContext, prefix: string): Promise<{ revision: number; count: number }> {
  const p = prefix === '' ? ALL_KEYS : keyBytes(prefix);
  const res = await rangeAt(ctx, { key: p, rangeEnd: prefixRangeEnd(keyBytes(prefix)), countOnly: true }, 0);
  return { revision: num(res.header.revision), count: num(res.count) };
}

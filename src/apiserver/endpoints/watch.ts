/**
 * The watch endpoint: a chunked stream of newline-delimited JSON events
 * `{"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":…}` with upstream's
 * resourceVersion semantics:
 * - unset: the current state as ADDED events (consistent read), then changes;
 * - "0": the cached state as ADDED events, then changes;
 * - N: changes after N; older than the retained history → an ERROR event with a
 *   410 Expired Status ("too old resource version"), as upstream's cacher does.
 * Objects moving into or out of a label/field selector appear as ADDED / DELETED.
 * Headers are flushed at once (kubectl wait needs it).
 *
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/cacher/cache_watcher.go
 */
import { newResourceExpired, newBadRequest } from '../../apimachinery/errors.js';
import { CompactedError } from '../../storage/interface.js';
import type { Storage } from '../../storage/interface.js';
import type { Negotiated } from '../http/negotiate.js';
import type { ResponseWriter } from '../http/types.js';
import { CachedObject } from '../registry/cached-object.js';
import type { CacheEvent, CacheListener } from '../registry/watch-cache.js';
import type { Store } from '../registry/store.js';
import { toTable, type IncludeObject } from './table.js';

export interface WatchParams {
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks: boolean;
  /** seconds; default random 1800–3600 as upstream's min-request-timeout */
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
  includeObject: IncludeObject;
}

/** Interval between bookmark events (upstream: about once a minute). */
export const BOOKMARK_INTERVAL_MS = 60_000;

type EvType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * Serves one watch until the client leaves, the timeout passes or the server stops.
 * @param storage used when the requested resourceVersion is older than the cache window
 */
export async function serveWatch(store: Store, storage: Storage, ns: string, p: WatchParams, neg: Negotiated, res: ResponseWriter): Promise<void> {
  const filter = store.filter(p.labelSelector, p.fieldSelector);
  let rvFrom: number | undefined;
  if (p.resourceVersion && p.resourceVersion !== '0') {
    const n = Number(p.resourceVersion);
    if (!Number.isInteger(n) || n < 0) throw newBadRequest(`invalid resource version: ${p.resourceVersion}`);
    rvFrom = n;
  }
  if (rvFrom === undefined && p.resourceVersion !== '0') await store.cache.sync();
  else await store.cache.start();

  const prefix = store.listPrefix(ns);
  const def = store.def;
  const asTable = neg.transform === 'Table';
  let first = true;
  const encodeObject = (o: CachedObject): string => {
    if (!asTable) return o.json;
    const t = toTable(def, [o], { includeObject: p.includeObject, noHeaders: !first, now: new Date() });
    first = false;
    return JSON.stringify(t);
  };

  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  // Flush headers now: an empty chunk would end the stream, so write nothing but headers.
  res.write('');

  let lastRV = 0;
  // in-process watchers (the loopback transport) take the cache's shared object itself
  const writeShared = asTable ? undefined : res.writeWatchEvent?.bind(res);
  const write = (type: EvType, o: CachedObject): void => {
    if (writeShared !== undefined) writeShared(type, o.shared());
    else res.write(`{"type":"${type}","object":${encodeObject(o)}}\n`);
  };
  // With a version converter (CRD conversion webhooks) every event's object is converted
  // before it is written, one after the other so the order stays; a failed conversion ends
  // the stream, as upstream's watch handler does when an event cannot be encoded.
  const converts = store.converter !== undefined;
  let queue: Promise<void> = Promise.resolve();
  const inOrder = (step: () => void | Promise<void>): void => {
    queue = queue.then(async () => {
      if (res.closed) return;
      try {
        await step();
      } catch {
        if (!res.closed) res.end();
      }
    });
  };
  const send = (type: EvType, o: CachedObject): void => {
    if (res.closed) return;
    if (!converts) {
      write(type, o);
      return;
    }
    inOrder(async () => {
      const served = await store.served(o);
      if (!res.closed) write(type, served);
    });
  };
  const handle = (ev: CacheEvent): void => {
    if (ev.rv <= lastRV) return;
    lastRV = ev.rv;
    if (!ev.object.key.startsWith(prefix)) return;
    if (filter.empty) {
      send(ev.type, ev.object);
      return;
    }
    const curMatch = filter.matches(ev.object);
    if (ev.type === 'DELETED') {
      if (filter.matches(ev.prev ?? ev.object)) send('DELETED', ev.object);
      return;
    }
    const prevMatch = ev.prev ? filter.matches(ev.prev) : false;
    if (curMatch && prevMatch) send('MODIFIED', ev.object);
    else if (curMatch) send('ADDED', ev.object);
    else if (prevMatch) send('DELETED', ev.object);
  };

  const listener: CacheListener = { indexValue: filter.indexValue, onEvent: handle };
  let stopStorageWatch: (() => void) | undefined;

  const sendBookmark = (rv: number, initialEnd = false): void => {
    if (res.closed) return;
    if (converts) inOrder(() => writeBookmark(rv, initialEnd));
    else writeBookmark(rv, initialEnd);
  };
  const writeBookmark = (rv: number, initialEnd: boolean): void => {
    if (res.closed) return;
    const meta: Record<string, unknown> = { resourceVersion: String(rv) };
    if (initialEnd) meta.annotations = { 'k8s.io/initial-events-end': 'true' };
    const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
    res.write(`{"type":"BOOKMARK","object":${JSON.stringify({ kind: def.kind, apiVersion, metadata: meta })}}\n`);
  };

  if (rvFrom === undefined) {
    // initial state, then changes; the snapshot and the subscription happen in the same tick
    const items = store.cache.list(prefix);
    lastRV = store.cache.resourceVersion;
    store.cache.addListener(listener);
    for (const o of items) if (filter.empty || filter.matches(o)) send('ADDED', o);
    if (p.sendInitialEvents && p.allowWatchBookmarks) sendBookmark(lastRV, true);
  } else {
    const evs = store.cache.eventsSince(rvFrom);
    if (evs) {
      lastRV = rvFrom;
      store.cache.addListener(listener);
      for (const ev of evs) handle(ev);
    } else {
      // older than the cache window: this watcher follows storage (history replay + live)
      try {
        lastRV = rvFrom;
        stopStorageWatch = await watchStorage(storage, store, rvFrom, handle);
      } catch (e) {
        if (e instanceof CompactedError) {
          const st = newResourceExpired(`too old resource version: ${rvFrom} (${e.compacted})`).status;
          res.write(`{"type":"ERROR","object":${JSON.stringify(st)}}\n`);
          res.end();
          return;
        }
        throw e;
      }
    }
  }

  // a timer holds at most 2^31-1 ms (~24.8 days); longer asks mean "no sooner than that"
  const timeoutMs = Math.min((p.timeoutSeconds && p.timeoutSeconds > 0 ? p.timeoutSeconds : 1800 + Math.floor(Math.random() * 1800)) * 1000, 2_147_483_647);
  await new Promise<void>((resolve) => {
    const bookmarkTimer = p.allowWatchBookmarks ? setInterval(() => sendBookmark(Math.max(lastRV, store.cache.resourceVersion)), BOOKMARK_INTERVAL_MS) : undefined;
    bookmarkTimer?.unref?.();
    const timer = setTimeout(() => finish(), timeoutMs);
    timer.unref?.();
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (bookmarkTimer) clearInterval(bookmarkTimer);
      store.cache.removeListener(listener);
      stopStorageWatch?.();
      if (!res.closed) res.end();
      resolve();
    };
    res.onClose(finish);
  });
}

/**
 * Follows storage directly from `afterRV` (history replay, then live events) for
 * watchers whose resourceVersion is older than the watch cache's window.
 * @throws CompactedError when `afterRV` was compacted
 */
async function watchStorage(storage: Storage, store: Store, afterRV: number, handle: (ev: CacheEvent) => void): Promise<() => void> {
  const w = await storage.watch(store.prefix, afterRV, {
    onEvents: (evs) => {
      for (const e of evs) {
        const cur = store.decode(e.kv.key, e.kv.value, e.kv.modRevision);
        const prev = e.prevKv ? store.decode(e.prevKv.key, e.prevKv.value, e.prevKv.modRevision) : undefined;
        const type: EvType = e.type === 'create' ? 'ADDED' : e.type === 'update' ? 'MODIFIED' : 'DELETED';
        let object = cur;
        if (type === 'DELETED' && prev) {
          const o = prev.clone();
          o.metadata.resourceVersion = String(e.kv.modRevision);
          object = new CachedObject(e.kv.key, o, e.kv.modRevision);
        }
        handle({ type, object, prev, rv: e.kv.modRevision });
      }
    },
  });
  return () => w.stop();
}

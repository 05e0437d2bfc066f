/**
 * The conformance suite every Storage backend runs (embedded SQLite, etcd v3):
 * one set of cases, several implementations, in the manner of hono's shared
 * adapter tests. Each case opens a fresh backend, writes only under its own
 * random prefix and compares revisions relatively, so a backend may share one
 * server (etcd) between cases. The cases live in ./backend-tests/.
 *
 * @see https://etcd.io/docs/v3.5/learning/api_guarantees/
 * @see https://github.com/k3s-io/kine/tree/master/pkg/server
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { compactionCases } from './backend-tests/compaction.js';
import { kvCases } from './backend-tests/kv.js';
import { listCases } from './backend-tests/list.js';
import { ttlCases } from './backend-tests/ttl.js';
import { watchCases } from './backend-tests/watch.js';
import type { WithBackend } from './backend-tests/with-backend.js';
import type { Storage } from './interface.js';

/** What a backend provides to the suite. */
export interface BackendTestOptions {
  /** shown in the describe() title */
  name: string;
  /** a fresh, open backend; the suite closes it at the end of each case */
  newBackend: () => Promise<Storage>;
  /**
   * makes every TTL written so far run out and the expired keys go (a backend with an
   * injectable clock moves it, then sweeps); omitted: the TTL case waits for real time
   */
  expireTTLs?: (s: Storage) => Promise<void>;
}

/**
 * Registers the shared storage cases under `describe('storage backend: <name>')`:
 * create/get/update (CAS)/delete and their errors, list paging and historical
 * reads, count, FutureRevisionError, watch (live, replay, ordering, prefix
 * isolation, stop), compaction and CompactedError, TTL expiry, parallel creates, close.
 */
export function runBackendTests(opts: BackendTestOptions): void {
  const { newBackend } = opts;

  const withBackend: WithBackend = async (fn) => {
    const s = await newBackend();
    try {
      await fn(s, `/registry/test-${randomBytes(6).toString('hex')}/`);
    } finally {
      await s.close();
    }
  };

  describe(`storage backend: ${opts.name}`, () => {
    kvCases(withBackend);
    listCases(withBackend);
    watchCases(withBackend);
    compactionCases(withBackend);
    ttlCases(withBackend, opts.expireTTLs);

    describe('lifecycle', () => {
      it('calls after close fail', async () => {
        const s = await newBackend();
        await s.close();
        await assert.rejects(s.get('/registry/x'));
        await assert.rejects(s.create('/registry/x', 'v'));
        await s.close(); // idempotent
      });
    });
  });
}

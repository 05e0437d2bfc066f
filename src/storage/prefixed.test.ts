import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runBackendTests } from './backend-tests.js';
import { RevisionMismatchError } from './interface.js';
import { PrefixedStorage } from './prefixed.js';
import { SqliteStorage } from './sqlite/sqlite.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function sqlite(now?: () => number): SqliteStorage {
  const d = mkdtempSync(join(tmpdir(), 'k8ts-prefixed-'));
  dirs.push(d);
  return SqliteStorage.open({ file: join(d, 'state.db'), compaction: false, now });
}

let clockOffsetMs = 0;
runBackendTests({
  name: 'sqlite under --etcd-prefix /k8ts-a',
  newBackend: async () =>
    new PrefixedStorage(
      sqlite(() => Date.now() + clockOffsetMs),
      '/k8ts-a',
    ),
  expireTTLs: async (s) => {
    clockOffsetMs += 3_600_000;
    await ((s as PrefixedStorage).inner as SqliteStorage).ttlSweeper.sweep();
  },
});

describe('PrefixedStorage', () => {
  it('stores /registry keys under the root and gives them back as /registry keys', async () => {
    const inner = sqlite();
    const s = new PrefixedStorage(inner, '/k8ts-a');
    const kv = await s.create('/registry/pods/default/x', 'v1');
    assert.equal(kv.key, '/registry/pods/default/x');
    assert.equal((await inner.get('/k8ts-a/pods/default/x')).kv?.value, 'v1');
    assert.equal((await inner.get('/registry/pods/default/x')).kv, undefined);
    assert.deepEqual(
      (await s.list('/registry/pods/')).kvs.map((k) => k.key),
      ['/registry/pods/default/x'],
    );
    const err = await s.update('/registry/pods/default/x', 'v2', kv.modRevision + 100).catch((e: unknown) => e);
    assert.ok(err instanceof RevisionMismatchError);
    assert.equal(err.key, '/registry/pods/default/x');
    assert.equal(err.current.key, '/registry/pods/default/x');
    await s.close();
  });
});

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestEtcd, type TestEtcd } from '../../test/support/etcd.js';
import { makeTempDir, type TempDir } from '../../test/support/tmp.js';
import { openStorage, sqliteFile, type Storage } from '../storage/index.js';
import { copyStorage, migrateFromSQLite } from './migrate.js';

describe('SQLite → etcd migration (real etcd)', { timeout: 120_000 }, () => {
  let etcd: TestEtcd;
  let tmp: TempDir;
  before(async () => {
    etcd = await startTestEtcd();
    tmp = makeTempDir('k8ts-migrate-');
  });
  after(async () => {
    await etcd?.stop();
    tmp?.remove();
  });

  const sqlite = async (): Promise<Storage> => {
    const s = await openStorage({ kind: 'sqlite', dataDir: tmp.path, compaction: false });
    // writes in this order; b is written again last, c is deleted
    for (const k of ['a', 'b', 'c', 'd']) await s.create(`/registry/configmaps/default/${k}`, `{"v":"${k}"}`);
    const b = await s.get('/registry/configmaps/default/b');
    await s.update('/registry/configmaps/default/b', '{"v":"b2"}', b.kv!.modRevision);
    await s.delete('/registry/configmaps/default/c');
    await s.create('/registry/events/default/e1', '{}', { ttlSeconds: 3600 });
    return s;
  };

  it('copies the live keys in the order of their revisions, and refuses a target that is not empty', async () => {
    const from = await sqlite();
    const to = await openStorage({ kind: 'etcd', endpoints: [etcd.endpoint], compactionIntervalMs: false, prefix: '/m1' });
    try {
      const r = await copyStorage(from, to, 60);
      assert.equal(r.keys, 4);
      const { kvs } = await to.list('/registry/');
      const byRev = [...kvs].sort((x, y) => x.modRevision - y.modRevision).map((kv) => kv.key.split('/').pop());
      assert.deepEqual(byRev, ['a', 'd', 'b', 'e1']);
      assert.equal(kvs.find((kv) => kv.key.endsWith('/b'))!.value, '{"v":"b2"}');
      assert.equal(r.revision, Math.max(...kvs.map((kv) => kv.modRevision)));
      // the Event carries a lease (etcdctl shows it), the others none
      assert.match(etcd.etcdctl(['get', '/m1/events/default/e1', '-w', 'json']), /"lease":\d+/);
      assert.doesNotMatch(etcd.etcdctl(['get', '/m1/configmaps/default/a', '-w', 'json']), /"lease"/);
      await assert.rejects(copyStorage(from, to, 60), /the target etcd already holds 4 keys under \/registry\/: migrating into it would mix two clusters/);
    } finally {
      await from.close();
      await to.close();
    }
  });

  it('migrateFromSQLite renames the database state.db.migrated once copied', async () => {
    const target = { kind: 'etcd' as const, endpoints: [etcd.endpoint], prefix: '/m2' };
    const r = await migrateFromSQLite(tmp.path, target, { eventTTLSeconds: 60 });
    assert.equal(r?.keys, 4);
    assert.ok(!existsSync(sqliteFile(tmp.path)) && existsSync(`${sqliteFile(tmp.path)}.migrated`));
    assert.equal(await migrateFromSQLite(tmp.path, target, { eventTTLSeconds: 60 }), undefined);
  });
});

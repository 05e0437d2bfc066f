import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStorage, type Storage } from '../../storage/index.js';
import { WatchCache } from './watch-cache.js';

const cm = (name: string, v: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { a: 'b' } }, data: { v } });

describe('WatchCache history', () => {
  let dir: string;
  let storage: Storage;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-watch-cache-'));
    storage = await openStorage({ kind: 'sqlite', dataDir: dir, compaction: false });
  });
  after(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the events of the time window, at least minEvents, at most maxEvents, and serves older resourceVersions no more', async () => {
    let now = 0;
    const c = new WatchCache(storage, '/registry/configmaps/w1/', undefined, { windowMs: 75_000, minEvents: 3, maxEvents: 5 }, undefined, () => now);
    await c.start();
    const start = c.resourceVersion;
    const revs: number[] = [];
    for (let i = 0; i < 4; i++) revs.push((await storage.create(`/registry/configmaps/w1/c${i}`, cm(`c${i}`, '1'))).modRevision);
    await c.waitFor(revs[3]!);
    assert.equal(c.historyLength, 4);
    assert.equal(c.eventsSince(start)?.length, 4);

    // more than maxEvents: the oldest go, however young
    for (let i = 4; i < 7; i++) revs.push((await storage.create(`/registry/configmaps/w1/c${i}`, cm(`c${i}`, '1'))).modRevision);
    await c.waitFor(revs[6]!);
    assert.equal(c.historyLength, 5);
    assert.equal(c.eventsSince(start), undefined, 'a resourceVersion before the kept history is not served from it');
    assert.deepEqual(
      c.eventsSince(revs[1]!)?.map((e) => e.rv),
      revs.slice(2),
    );

    // past the window: trimmed down to minEvents when asked, without a new event
    now += 75_001;
    assert.equal(c.eventsSince(revs[1]!), undefined);
    assert.equal(c.historyLength, 3);
    assert.deepEqual(
      c.eventsSince(revs[3]!)?.map((e) => e.rv),
      revs.slice(4),
    );
    c.stop();
  });

  it('a DELETED event carries the last state at the deletion revision, and the superseded version releases its JSON text', async () => {
    const c = new WatchCache(storage, '/registry/configmaps/w2/');
    await c.start();
    const k = '/registry/configmaps/w2/x';
    const r1 = (await storage.create(k, cm('x', '1'))).modRevision;
    await c.waitFor(r1);
    const first = c.get(k)!;
    const firstJson = first.json;
    const r2 = (await storage.update(k, cm('x', '2'), r1)).modRevision;
    await c.waitFor(r2);
    const second = c.get(k)!;
    // the superseded version computes the same text again when a replay asks
    assert.equal(first.json, firstJson);
    const r3 = (await storage.delete(k)).modRevision;
    await c.waitFor(r3);
    const del = c.eventsSince(r2)!;
    assert.equal(del.length, 1);
    assert.equal(del[0]!.type, 'DELETED');
    assert.equal(del[0]!.prev, second);
    assert.equal(del[0]!.object.obj.metadata.resourceVersion, String(r3));
    assert.equal(second.obj.metadata.resourceVersion, String(r2), 'the last state itself is untouched');
    assert.deepEqual(JSON.parse(del[0]!.object.json), { ...JSON.parse(second.json), metadata: { ...second.obj.metadata, resourceVersion: String(r3) } });
    assert.equal(c.get(k), undefined);
    c.stop();
  });
});

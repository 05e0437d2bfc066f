import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { configMapDefinition } from '../api/core/v1/configmap/strategy.js';
import { eventDefinition } from '../api/core/v1/event/strategy.js';
import { namespaceDefinition } from '../api/core/v1/namespace/strategy.js';
import type { KObject, ResourceDefinition } from '../api/resource.js';
import { StatusError } from '../apimachinery/errors.js';
import { RestClient } from '../client/rest-client.js';
import { SqliteStorage } from '../storage/index.js';
import { APIServer } from './apiserver.js';
import { InProcessTransport } from './loopback.js';

const ev = { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true } as const;
const cm = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true } as const;
const ns = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false } as const;

describe('--event-ttl', () => {
  let dir: string;
  let storage: SqliteStorage;
  let api: APIServer;
  let client: RestClient;
  let t = Date.parse('2026-01-01T00:00:00Z');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-eventttl-'));
    storage = SqliteStorage.open({ file: join(dir, 'state.db'), compaction: false, now: () => t, ttlEvery: () => () => {} });
    api = new APIServer({
      storage,
      definitions: [eventDefinition, configMapDefinition, namespaceDefinition] as ResourceDefinition[],
      serverAddress: '127.0.0.1:6443',
      eventTTLSeconds: 3600,
    });
    await api.start();
    client = new RestClient(new InProcessTransport(api, { username: 'admin', groups: ['system:masters'] }));
    await client.create(ns, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });
  after(async () => {
    api.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('Events are deleted an hour after their last write; other objects stay', async () => {
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'p.1' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' },
      reason: 'Scheduled',
      message: 'Successfully assigned default/p to n1',
      type: 'Normal',
      count: 1,
    };
    await client.create<KObject>(ev, 'default', event);
    await client.create<KObject>(ev, 'default', { ...event, metadata: { name: 'p.2' } });
    await client.create<KObject>(cm, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
    t += 1800_000;
    // written again half an hour later: its hour starts again
    const p2 = await client.get<KObject & { count: number }>(ev, 'default', 'p.2');
    await client.update(ev, 'default', { ...p2, count: 2 });
    t += 1801_000;
    assert.equal(await storage.ttlSweeper.sweep(), 1);
    const gone = await client.get(ev, 'default', 'p.1').catch((e: unknown) => e);
    assert.ok(gone instanceof StatusError && gone.status.code === 404, `got ${String(gone)}`);
    assert.equal((await client.get<KObject & { count: number }>(ev, 'default', 'p.2')).count, 2);
    assert.equal((await client.get(cm, 'default', 'c')).metadata?.name, 'c');
    t += 1800_000;
    assert.equal(await storage.ttlSweeper.sweep(), 1);
    assert.equal((await client.list(ev, 'default', {})).items.length, 0);
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { namespaceDefinition } from '../api/core/v1/namespace/strategy.js';
import { podDefinition } from '../api/core/v1/pod/strategy.js';
import type { KObject, ResourceDefinition } from '../api/resource.js';
import { RestClient } from '../client/rest-client.js';
import type { WatchEvent } from '../client/types.js';
import { SqliteStorage } from '../storage/index.js';
import { APIServer } from './apiserver.js';
import { InProcessTransport } from './loopback.js';

const pods = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } as const;
const ns = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false } as const;

interface PodLike extends KObject {
  spec?: { containers: { name: string; image: string; resources?: { requests?: Record<string, string> } }[] };
  status?: { phase?: string };
}

/** Collects a watch's events until `n` arrived. */
function collect(client: RestClient, rv: string, n: number): Promise<WatchEvent<PodLike>[]> {
  return new Promise((resolve) => {
    const got: WatchEvent<PodLike>[] = [];
    const h = client.watch<PodLike>(pods, 'default', { resourceVersion: rv }, (e) => {
      got.push(e);
      if (got.length === n) {
        h.stop();
        resolve(got);
      }
    });
  });
}

describe('in-process watchers (loopback transport)', () => {
  let dir: string;
  let storage: SqliteStorage;
  let api: APIServer;
  let client: RestClient;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-loopback-watch-'));
    storage = SqliteStorage.open({ file: join(dir, 'state.db'), compaction: false });
    api = new APIServer({ storage, definitions: [podDefinition, namespaceDefinition] as ResourceDefinition[], serverAddress: '127.0.0.1:6443' });
    await api.start();
    client = new RestClient(new InProcessTransport(api, { username: 'admin', groups: ['system:masters'] }));
    await client.create(ns, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });
  after(async () => {
    api.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('share one frozen object per event, equal to what the server answers, and status writes still work after', async () => {
    const start = (await client.list(pods, 'default')).metadata.resourceVersion!;
    const a = collect(client, start, 3);
    const b = collect(client, start, 3);
    const pod: PodLike = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'pause', resources: { requests: { cpu: '0.5' } } }] },
    };
    const created = await client.create<PodLike>(pods, 'default', pod);
    // the status strategy keeps the stored spec (shared and frozen by now) and canonicalizes it again
    const running = await client.patch<PodLike>(pods, 'default', 'p', 'merge', { status: { phase: 'Running' } }, { subresource: 'status' });
    const deleted = await client.delete(pods, 'default', 'p', { gracePeriodSeconds: 0 });
    const [ea, eb] = await Promise.all([a, b]);
    assert.deepEqual(
      ea.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
    for (let i = 0; i < 3; i++) {
      assert.equal(ea[i]!.object, eb[i]!.object, 'both watchers get the same object');
      assert.ok(Object.isFrozen(ea[i]!.object) && Object.isFrozen(ea[i]!.object.metadata), 'the shared object is frozen');
    }
    assert.deepEqual(ea[0]!.object, created);
    assert.deepEqual(ea[1]!.object, running);
    assert.equal(ea[2]!.object.metadata?.resourceVersion, deleted.metadata?.resourceVersion);
    // an earlier event's object is a snapshot: later writes did not change it
    assert.equal(ea[0]!.object.status?.phase, 'Pending');
    assert.equal(ea[0]!.object.spec?.containers[0]?.resources?.requests?.cpu, '500m');
    assert.throws(() => {
      (ea[1]!.object.metadata as { name?: string }).name = 'x';
    }, TypeError);
  });

  it('an HTTP-style reader of the same watch still gets JSON lines', async () => {
    const start = (await client.list(pods, 'default')).metadata.resourceVersion!;
    const lines: string[] = [];
    const got = new Promise<void>((resolve) => {
      const t = new InProcessTransport(api, { username: 'admin', groups: ['system:masters'] });
      const h = t.stream(
        'GET',
        `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${start}`,
        { Accept: 'application/json' },
        {
          onData: (c) => {
            lines.push(...String(c).split('\n').filter(Boolean));
            if (lines.length >= 1) {
              h.abort();
              resolve();
            }
          },
          onEnd: () => undefined,
        },
      );
    });
    const created = await client.create<PodLike>(pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'q' },
      spec: { containers: [{ name: 'c', image: 'pause' }] },
    });
    await got;
    assert.deepEqual(JSON.parse(lines[0]!), { type: 'ADDED', object: created });
  });
});

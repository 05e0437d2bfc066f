import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client, ResourceRef } from '../../client/types.js';
import { FakeClock } from '../../util/fake-clock.js';
import { SharedInformers } from './informers.js';

const CRONTABS: ResourceRef = { group: 'stable.example.com', version: 'v1', resource: 'crontabs', kind: 'CronTab', namespaced: true };

describe('SharedInformers', () => {
  it('remove stops a failing informer retrying (a resource no longer served) and forgets it', async () => {
    let lists = 0;
    // a client whose list fails as for a resource the server no longer serves
    const client = {
      list: async () => {
        lists++;
        throw new Error('the server could not find the requested resource');
      },
    } as unknown as Client;
    const clock = new FakeClock();
    const informers = new SharedInformers(client, { clock });
    const first = informers.get(CRONTABS);
    informers.start();
    await clock.advance(1000); // first list + one retry after 1 s
    assert.ok(lists >= 2, `the informer retries while the resource is missing (lists=${lists})`);
    informers.remove(CRONTABS);
    const after = lists;
    assert.equal(clock.pending, 0, 'no retry timer left after remove');
    await clock.advance(5000);
    assert.equal(lists, after, 'no list after remove');
    const second = informers.get(CRONTABS);
    assert.notEqual(second, first, 'a later get starts a fresh informer');
    informers.stop();
  });
});
